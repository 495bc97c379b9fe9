// scal for the OpenMP target: vectors of `lanes` floats, the vector loop in parallel.
let main = (vectorize(lanes) @ outermost(isApplied(isMap))) ; (parallel @ outermost(isApplied(isMap))) ; lowerToC;
