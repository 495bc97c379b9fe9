// gemv for the OpenCL target, as the RISE & Shine paper's Listing 4 computes
// matrix-vector products: the rows in blocks of 64, a work group per block
// (mapWorkGroup) and a work item per row (mapLocal); each row's dot product with x
// fused into one sequential reduction (no intermediate array), alpha and beta applied
// per row. Needs 64 | n.
let main = DFNF ; normalize(fuseReduceMap)
  ; (splitJoin(64) @ outermost(isApplied(isMap)))
  ; (mapWorkGroup(0) @ outermost(isApplied(isMap)))
  ; (mapLocal(0) @ outermost(isApplied(isMap)))
  ; normalize(oclReduceSeq(Private))
  ; lowerToC;
