// Matrix multiplication, step 2 of 7 (ELEVATE paper, ICFP 2020; TVM's CPU schedule).
// Blocking: 32x32 tiles of C, the k reduction split by 4, loops reordered to
//   i.o, j.o, k.o, k.i, i.i, j.i
// (levels before the reorder: 1 i.o, 2 j.o, 3 i.i, 4 j.i, 5 k.o, 6 k.i). Moving the
// reductions outside the i.i and j.i maps gives them a 32x32 accumulator.
let baseline = DFNF ; (fuseReduceMap @ topDown);
let blocking = baseline
  ; (tile(32, 32) @ outermost(mapNest(2)))
  ; (reduceMapFission @ outermost(isApplied(isApplied(isReduceSeq))))
  ; (splitStrategy(4) @ innermost(isFullyApplied(isReduce)))
  ; reorder([1, 2, 5, 6, 3, 4]);

// The file's strategy (its last definition): the step, then the default lowering
// (every remaining map a mapSeq, every reduce a reduceSeq).
let blockingToC = blocking ; lowerToC;
