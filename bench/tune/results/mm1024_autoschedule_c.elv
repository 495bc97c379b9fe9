// risec tune (autoschedule, c): structure register blocks, packed, block 16x16, k split 2, register block, packed, vectorize(lanes)
// measured 59.2 ms; the default lowering 2096.6 ms; 14 of 104 candidate(s) measured, on Intel(R) Xeon(R) Processor (lanes 16)
let main =
  // pack: the transposed operand stored once in blocks of 16 columns (TVM's packed B: the vector loop reads consecutive floats)
    (blockTranspose(16) @ outermost(isApplied(isTranspose))) ; storeInMemory(isApplied(isTranspose), idAfter ; normalize(liftId) ; (vectorize(lanes) @ innermost(isFullyApplied(isMap))) ; lowerToC)
  // structure: data-flow normal form, each reduction fused with the map of products it reads
  ; DFNF ; (fuseReduceMap @ topDown)
  // block: the two maps around the reduction in 16 x 16 blocks
  ; tile(16, 16) @ outermost(mapNest(2))
  // split: the reduction split into k.o and k.i = 2
  ; (reduceMapFission @ outermost(isApplied(isApplied(isReduceSeq)))) ; (splitStrategy(2) @ innermost(isFullyApplied(isReduce)))
  // order: row blocks outermost; k.i outside the rows: the 16 x 16 accumulator is a register block
  ; reorder([1, 2, 5, 6, 3, 4])
  // vectorize: the j.i loop on vectors of lanes floats
  ; vectorize(lanes) @ innermost(isFullyApplied(isMap))
  // unroll: k.i unrolled
  ; unroll @ innermost(isFullyApplied(isReduceSeq))
  // lower: the remaining maps sequential loops, reductions fused with the maps they read, intermediates stored
  ; lowerToC;
