// atax for the OpenCL target, as Lift computes it: two kernels, one after the other.
// tmp = A * x: the rows in blocks of 64, a work group per block and a work item per
// row, each dot product one fused sequential reduction. A^T * tmp: a work item per
// column of A (mapGlobal), so that neighbouring work items read neighbouring elements
// of each row. Needs 64 | m.
let main = DFNF ; normalize(fuseReduceMap)
  ; (splitJoin(64) @ outermost(isApplied(isMap)))
  ; (mapWorkGroup(0) @ outermost(isApplied(isMap)))
  ; (mapLocal(0) @ outermost(isApplied(isMap)))
  ; (mapGlobal(0) @ outermost(isApplied(isMap)))
  ; normalize(oclReduceSeq(Private))
  ; lowerToC;
