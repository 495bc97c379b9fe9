// Matrix multiplication, step 4 of 7 (ELEVATE paper, ICFP 2020; TVM's CPU schedule).
// Loop permutation: as blocking, but with the loops in TVM's order
//   i.o, j.o, k.o, i.i, k.i, j.i
// and the innermost loop (j.i) vectorised by 32.
let baseline = DFNF ; (fuseReduceMap @ topDown);
let loopPerm = baseline
  ; (tile(32, 32) @ outermost(mapNest(2)))
  ; (reduceMapFission @ outermost(isApplied(isApplied(isReduceSeq))))
  ; (splitStrategy(4) @ innermost(isFullyApplied(isReduce)))
  ; reorder([1, 2, 5, 3, 6, 4])
  ; (vectorize(32) @ innermost(isFullyApplied(isMap)));

// The file's strategy (its last definition): the step, then the default lowering
// (every remaining map a mapSeq, every reduce a reduceSeq).
let loopPermToC = loopPerm ; lowerToC;
