// mm for the OpenCL target: a 2-D launch, one work item per element of C: rows over
// dimension 1, columns over dimension 0 (neighbouring work items read neighbouring
// columns of B), each dot product a sequential reduction with a private accumulator.
let main = DFNF ; (fuseReduceMap @ topDown)
  ; (mapGlobal(1) @ outermost(isApplied(isMap)))
  ; (mapGlobal(0) @ outermost(isApplied(isMap))) ; lowerToC;
