// Matrix multiplication for the OpenCL target, the simple way: a work item per
// element of C in a 2-D launch (rows in dimension 1, columns in dimension 0), its dot
// product one fused sequential reduction reading A and B from global memory.
let main = DFNF ; normalize(fuseReduceMap)
  ; (mapGlobal(1) @ outermost(isApplied(isMap)))
  ; (mapGlobal(0) @ outermost(isApplied(isMap)))
  ; lowerToC;
