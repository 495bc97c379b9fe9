// gemv: a template for `risec tune` (docs/tuning.md): parallel_rows4.elv with its row
// block and vector width as parameters. The first values are parallel_rows4.elv's on an
// AVX-512 machine (lanes = 16), so without --param this file is that strategy there.
//
//   risec tune examples/gemv/gemv.rise --strategy examples/gemv/tune.elv --target openmp \
//     --size n=4096,m=4096 --budget 12 -o best.elv
//
// As in parallel_rows4.elv, a width that does not divide m falls back to 8 lanes and a
// block that does not divide n to one row at a time (so at such sizes several points
// are the same program; at the sizes tuned for, e.g. 4096, every point is its own).
param r in [4, 2, 8, 16];     // rows per block, sharing each load of x
param v in [16, 8, 32, 64];   // floats per vector of each row's dot product
let rowDot = (vectorizeReduction(v) <+ vectorizeReduction(8)) @ innermost(isFullyApplied(isReduce));
let blockRows =
  (splitJoin(r) @ outermost(isFullyApplied(isMap))) ; DFNF ;
  (mapFissionZip @ innermost(isFullyApplied(isMap))) ; DFNF ;
  (mapReduceInterchange @ innermost(isFullyApplied(isMap))) ; DFNF ; normalize(mapFusion) ; DFNF;
let lower = (parallel @ outermost(isApplied(isMap))) ; lowerToC;
let main = DFNF ; body(rowDot) ;
  ((blockRows ; lower ; (unroll @ innermost(isFullyApplied(isMapSeq)))) <+ lower);
