// dot for the OpenCL target: the sum split into chunks of 32 (blockedReduce), the
// products moved into the chunks (splitBeforeMap, mapFusion), one work item per
// chunk (mapGlobal) whose products are fused into its sequential reduction (a
// private accumulator); the chunk sums (in global memory between the two kernels)
// are then added by a second kernel run by one work item.
let main = DFNF ; (blockedReduce(32) @ outermost(isFullyApplied(isReduce)))
  ; (splitBeforeMap @ topDown) ; (mapFusion @ topDown) ; DFNF
  ; (mapGlobal(0) @ outermost(isApplied(isMap)))
  ; (fuseReduceMap @ topDown) ; lowerToC;
