// gemv for the OpenMP target: rows in parallel (mapPar), each row's dot product with x
// in a 16-lane vector accumulator (vectorizeReduction(16)), then its lanes; alpha and
// beta are applied per row. Rows whose length 16 does not divide use 8 lanes.
let rowDot = (vectorizeReduction(16) <+ vectorizeReduction(8)) @ innermost(isFullyApplied(isReduce));
let main = DFNF ; body(rowDot) ; (parallel @ outermost(isApplied(isMap))) ; lowerToC;
