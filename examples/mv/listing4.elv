// The RISE & Shine paper's Listing 4 (matrix-vector multiplication for OpenCL), by
// the strategy of its Listing 3: the rows split into blocks of 64, one work group per
// block (mapWorkGroup), one work item per row of a block (mapLocal), the dot
// product's map fused into its sequential reduction (accumulator in private memory).
let main = DFNF ; (fuseReduceMap @ topDown)
  ; (splitJoin(64) @ outermost(isApplied(isMap)))
  ; (mapWorkGroup(0) @ outermost(isApplied(isMap)))
  ; (mapLocal(0) @ outermost(isApplied(isMap)))
  ; lowerToC;
