// The OpenMP strategy: the map over the records a parallel loop.
let main = DFNF ; (parallel @ outermost(isApplied(isMap))) ; lowerToC;
