// Mandelbrot for the OpenCL target: float4 lanes per work item, the escape test an
// int4 mask of OpenCL's vector comparison, the updates OpenCL's select on it.
let main = (vectorize(4) @ outermost(isFullyApplied(isMap))) ; (mapGlobal(0) @ outermost(isFullyApplied(isMap))) ; lowerToC;
