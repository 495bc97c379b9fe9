// Matrix multiplication, step 6 of 7 (ELEVATE paper, ICFP 2020; TVM's CPU schedule).
// Cache blocks: array packing, with the innermost reduction (k.i, 4 iterations over
// the 32x32 accumulator block) unrolled.
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
      ; lowerToC);
let arrayPacking = packB ; loopPerm;
let cacheBlocks = arrayPacking ; (unroll @ innermost(isFullyApplied(isReduceSeq)));

// The file's strategy (its last definition): the step, then the default lowering
// (every remaining map a mapSeq, every reduce a reduceSeq).
let cacheBlocksToC = cacheBlocks ; lowerToC;
