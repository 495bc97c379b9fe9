// saxpy for the OpenMP target: the map in parallel.
let main = (parallel @ outermost(isApplied(isMap))) ; lowerToC;
