// scal for the OpenCL target: one work item per element (mapGlobal over dimension 0;
// the loop is strided, so any launch size covers the vector).
let main = (mapGlobal(0) @ outermost(isApplied(isMap))) ; lowerToC;
