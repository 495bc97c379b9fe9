// Matrix multiplication, step 3 of 7 (ELEVATE paper, ICFP 2020; TVM's CPU schedule).
// Vectorization: blocking, then the innermost loop (j.i, 32 elements of a row of the
// accumulator and of B) computed on vectors of 32 lanes.
let baseline = DFNF ; (fuseReduceMap @ topDown);
let blocking = baseline
  ; (tile(32, 32) @ outermost(mapNest(2)))
  ; (reduceMapFission @ outermost(isApplied(isApplied(isReduceSeq))))
  ; (splitStrategy(4) @ innermost(isFullyApplied(isReduce)))
  ; reorder([1, 2, 5, 6, 3, 4]);
let vectorization = blocking ; (vectorize(32) @ innermost(isFullyApplied(isMap)));

// The file's strategy (its last definition): the step, then the default lowering
// (every remaining map a mapSeq, every reduce a reduceSeq).
let vectorizationToC = vectorization ; lowerToC;
