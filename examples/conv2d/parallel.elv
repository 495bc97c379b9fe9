// The OpenMP strategy: every reduction fused with the map that feeds it (no
// intermediate arrays), the outermost map (one iteration per output element) a
// parallel loop, the rest sequential.
let main = DFNF ; normalize(fuseReduceMap) ; (parallel @ outermost(isApplied(isMap))) ; lowerToC;
