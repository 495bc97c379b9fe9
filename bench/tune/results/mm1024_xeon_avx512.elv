// risec tune's best for mm 1024^3 (openmp, 1 thread) on the 2-core AVX-512 Xeon: ti=64,tj=64,kk=4,v=16
// (bench/tune/results/evolutionary1.db resumed, 2026-11-25; bench/results/journal/2026-11-25-tune-mm-xeon.md).
// Matrix multiplication: the template `risec tune` starts from (docs/tuning.md). It is
// the last step of the hand-tuned ladder (parallel.elv: TVM's schedule, 32 x 32 blocks
// of C, k split by 4, B packed in 32-wide blocks, the 32-wide j.i loop vectorised, the
// row blocks in parallel) with its sizes made parameters. The first value of each list
// is the ladder's, so without --param this file is parallel.elv.
//
//   risec tune examples/mm/mm.rise --strategy examples/mm/tune.elv --target openmp \
//     --size n=1024,m=1024,k=1024 --budget 40 --db mm.db -o best.elv
//
// Points whose sizes do not fit are pruned before compiling (a block that does not
// divide n or m, a vector wider than its block).
let baseline = DFNF ; (fuseReduceMap @ topDown);
let loopPerm = baseline
  ; (tile(64, 64) @ outermost(mapNest(2)))
  ; (reduceMapFission @ outermost(isApplied(isApplied(isReduceSeq))))
  ; (splitStrategy(4) @ innermost(isFullyApplied(isReduce)))
  ; reorder([1, 2, 5, 3, 6, 4])
  ; (vectorize(16) @ innermost(isFullyApplied(isMap)));
let packB = (blockTranspose(64) @ outermost(isApplied(isTranspose)))
  ; storeInMemory(isApplied(isTranspose),
      idAfter ; normalize(liftId)
      ; (vectorize(16) @ innermost(isFullyApplied(isMap)))
      ; (parallel @ outermost(isApplied(isMap)))
      ; lowerToC);
let par = packB ; loopPerm
  ; (parallel @ outermost(isApplied(isMap)))
  ; (unroll @ innermost(isFullyApplied(isReduceSeq)));
let tunedToC = par ; lowerToC;
