// gemv for the OpenCL target: one work item per row (mapGlobal), each row's dot
// product fused into one sequential reduction with a private accumulator.
let main = DFNF ; (fuseReduceMap @ topDown) ; (mapGlobal(0) @ outermost(isApplied(isMap))) ; lowerToC;
