// Matrix multiplication, step 7 of 7 (ELEVATE paper, ICFP 2020; TVM's CPU schedule).
// Parallel: array packing, with the outermost loop of the product (i.o, over blocks
// of 32 rows of C) an OpenMP parallel loop and the k.i reduction unrolled.
let baseline = DFNF ; (fuseReduceMap @ topDown);
let loopPerm = baseline
  ; (tile(32, 32) @ outermost(mapNest(2)))
  ; (reduceMapFission @ outermost(isApplied(isApplied(isReduceSeq))))
  ; (splitStrategy(4) @ innermost(isFullyApplied(isReduce)))
  ; reorder([1, 2, 5, 3, 6, 4])
  ; (vectorize(32) @ innermost(isFullyApplied(isMap)));
let packB = (blockTranspose(32) @ outermost(isApplied(isTranspose)))
  ; storeInMemory(isApplied(isTranspose),
      idAfter ; normalize(liftId)
      ; (vectorize(32) @ innermost(isFullyApplied(isMap)))
      ; (parallel @ outermost(isApplied(isMap)))
      ; lowerToC);
let par = packB ; loopPerm
  ; (parallel @ outermost(isApplied(isMap)))
  ; (unroll @ innermost(isFullyApplied(isReduceSeq)));

// The file's strategy (its last definition): the step, then the default lowering
// (every remaining map a mapSeq, every reduce a reduceSeq).
let parallelToC = par ; lowerToC;
