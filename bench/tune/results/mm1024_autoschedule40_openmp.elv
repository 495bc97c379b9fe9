// risec tune (autoschedule, openmp): structure register blocks, packed, block 64x64, k split 16, rows outside k.i, packed, parallel outermost map, vectorize(lanes)
// measured 64.0 ms; the default lowering 2305.3 ms; 40 of 176 candidate(s) measured, on Intel(R) Xeon(R) Processor (lanes 16)
let main =
  // pack: the transposed operand stored once in blocks of 64 columns (TVM's packed B: the vector loop reads consecutive floats)
    (blockTranspose(64) @ outermost(isApplied(isTranspose))) ; storeInMemory(isApplied(isTranspose), idAfter ; normalize(liftId) ; (vectorize(lanes) @ innermost(isFullyApplied(isMap))) ; (parallel @ outermost(isApplied(isMap))) ; lowerToC)
  // structure: data-flow normal form, each reduction fused with the map of products it reads
  ; DFNF ; (fuseReduceMap @ topDown)
  // block: the two maps around the reduction in 64 x 64 blocks
  ; tile(64, 64) @ outermost(mapNest(2))
  // split: the reduction split into k.o and k.i = 16
  ; (reduceMapFission @ outermost(isApplied(isApplied(isReduceSeq)))) ; (splitStrategy(16) @ innermost(isFullyApplied(isReduce)))
  // order: row blocks outermost; k.i inside each row (TVM's order)
  ; reorder([1, 2, 5, 3, 6, 4])
  // vectorize: the j.i loop on vectors of lanes floats
  ; vectorize(lanes) @ innermost(isFullyApplied(isMap))
  // parallel: the outermost block loop an OpenMP parallel loop
  ; parallel @ outermost(isApplied(isMap))
  // unroll: k.i unrolled
  ; unroll @ innermost(isFullyApplied(isReduceSeq))
  // lower: the remaining maps sequential loops, reductions fused with the maps they read, intermediates stored
  ; lowerToC;
