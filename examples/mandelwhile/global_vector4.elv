// Mandelbrot with an early exit for the OpenCL target: float4 lanes per work item, the
// escape test an int4 mask, the loop left when no lane is active (any), the updates
// OpenCL's select on the mask.
let main = (vectorize(4) @ outermost(isFullyApplied(isMap))) ; (mapGlobal(0) @ outermost(isFullyApplied(isMap))) ; lowerToC;
