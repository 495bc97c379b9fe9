// Matrix multiplication: the template `risec tune` starts from (docs/tuning.md). It is
// the last step of the hand-tuned ladder (parallel.elv: TVM's schedule, 32 x 32 blocks
// of C, k split by 4, B packed in 32-wide blocks, the 32-wide j.i loop vectorised, the
// row blocks in parallel) with its sizes made parameters. The first value of each list
// is the ladder's, so without --param this file is parallel.elv.
//
//   risec tune examples/mm/mm.rise --strategy examples/mm/tune.elv --target openmp \
//     --size n=1024,m=1024,k=1024 --budget 40 --db mm.db -o best.elv
//
// A vector must fit its block: the constraint (our extension, docs/strategies.md)
// keeps v a divisor of tj, so `tune` never proposes the 3 of 16 (tj, v) pairs that
// vectorize would reject. Of the 7 x 4 x 4 x 4 x 2 x 2 = 1792 points, 1456 satisfy it,
// every one a valid loop order. Points whose sizes do not fit the program are still
// pruned before compiling (a block that does not divide n or m).
param ti in [32, 2, 4, 8, 16, 64, 128];  // rows of C per block (i.i)
param tj in [32, 16, 64, 128];     // columns of C per block (j.i) = the packed block of B
param kk in [4, 2, 8, 16];         // the k.i loop, unrolled
param v in [32, 8, 16, 64];        // floats per vector in the j.i loop (a divisor of tj)
// The loop order, reorder([o1, o2, 5, o4, o5, 4]) of the loops 1 = i.o, 2 = j.o,
// 3 = i.i, 4 = j.i, 5 = k.o, 6 = k.i, with two permutation parameters (our extension,
// docs/strategies.md), so every point is a valid order: (o1, o2) says which block loop
// is outermost (and parallel); (o4, o5) whether k.i runs inside each row (3, 6: TVM's
// order, each row of the accumulator loaded and stored once per k.o step) or outside
// the rows (6, 3: the ti x tj accumulator is a register block updated across all of k,
// each vector of B loaded once for ti rows; for small ti).
param (o1, o2) in permutations([1, 2]);
param (o4, o5) in permutations([3, 6]);
constraint tj % v == 0;
let baseline = DFNF ; (fuseReduceMap @ topDown);
let loopPerm = baseline
  ; (tile(ti, tj) @ outermost(mapNest(2)))
  ; (reduceMapFission @ outermost(isApplied(isApplied(isReduceSeq))))
  ; (splitStrategy(kk) @ innermost(isFullyApplied(isReduce)))
  ; reorder([o1, o2, 5, o4, o5, 4])
  ; (vectorize(v) @ innermost(isFullyApplied(isMap)));
let packB = (blockTranspose(tj) @ outermost(isApplied(isTranspose)))
  ; storeInMemory(isApplied(isTranspose),
      idAfter ; normalize(liftId)
      ; (vectorize(v) @ innermost(isFullyApplied(isMap)))
      ; (parallel @ outermost(isApplied(isMap)))
      ; lowerToC);
let par = packB ; loopPerm
  ; (parallel @ outermost(isApplied(isMap)))
  ; (unroll @ innermost(isFullyApplied(isReduceSeq)));
let tunedToC = par ; lowerToC;
