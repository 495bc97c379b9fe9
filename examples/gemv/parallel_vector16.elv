// gemv for the OpenMP target: rows in parallel (mapPar), each row's dot product with x
// in a vector accumulator of `lanes` floats (vectorizeReduction(lanes):
// 16 with AVX-512, 8 with AVX2), then its lanes; alpha and
// beta are applied per row. Rows whose length lanes does not divide use 8 lanes.
let rowDot = (vectorizeReduction(lanes) <+ vectorizeReduction(8)) @ innermost(isFullyApplied(isReduce));
let main = DFNF ; body(rowDot) ; (parallel @ outermost(isApplied(isMap))) ; lowerToC;
