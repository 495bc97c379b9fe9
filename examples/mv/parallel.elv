// mv for the OpenMP target: the fused dot product of each row, rows in parallel.
let main = DFNF ; (fuseReduceMap @ topDown) ; (parallel @ outermost(isApplied(isMap))) ; lowerToC;
