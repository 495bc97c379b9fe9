// jacobi3 with its output rows a parallel loop (OpenMP): mapPar on the outer map, the
// rest as the default lowering does it (lowerToC: the clamped borders split off the
// interior, whose columns GCC vectorises).
let main = DFNF ; (mapPar @ outermost(isFullyApplied(isMap))) ; lowerToC;
