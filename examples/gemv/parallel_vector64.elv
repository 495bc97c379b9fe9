// gemv for the OpenMP target, as parallel_vector16.elv but each row's dot product in a
// 64-lane accumulator (vec[f32, 64]: four AVX-512 registers, four independent chains of
// multiply-adds). Rows whose length 64 does not divide use 8 lanes.
let rowDot = (vectorizeReduction(64) <+ vectorizeReduction(8)) @ innermost(isFullyApplied(isReduce));
let main = DFNF ; body(rowDot) ; (parallel @ outermost(isApplied(isMap))) ; lowerToC;
