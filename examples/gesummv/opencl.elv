// gesummv for the OpenCL target: the rows in blocks of 64, a work group per block and
// a work item per row (as gemv); both dot products of a row fused into sequential
// reductions over x. Needs 64 | n.
let main = DFNF ; normalize(fuseReduceMap)
  ; (splitJoin(64) @ outermost(isApplied(isMap)))
  ; (mapWorkGroup(0) @ outermost(isApplied(isMap)))
  ; (mapLocal(0) @ outermost(isApplied(isMap)))
  ; normalize(oclReduceSeq(Private))
  ; lowerToC;
