// Matrix multiplication, step 5 of 7 (ELEVATE paper, ICFP 2020; TVM's CPU schedule).
// Array packing: B is stored once in memory, transposed and blocked as TVM's
// packedB[j.o][k][j.i] = B[k][32 * j.o + j.i] (so the vectorised j.i loop reads 32
// consecutive floats), copied with 32-wide vectors (sequentially: this step targets C;
// parallel.elv packs in parallel); then the loop
// permutation of step 4.
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

// The file's strategy (its last definition): the step, then the default lowering
// (every remaining map a mapSeq, every reduce a reduceSeq).
let arrayPackingToC = arrayPacking ; lowerToC;
