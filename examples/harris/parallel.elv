// Harris with parallel rows: every stencil's reduction fused with the products that
// feed it, the row loop of every stage (each map over a map: mapNest(2)) a parallel
// loop, the columns sequential, and every 3 x 3 window's reduction unrolled so that the
// column loops have constant offsets and GCC vectorises them.
let main = DFNF
  ; normalize(fuseReduceMap)
  ; everywhere(mapNest(2) ; parallel)
  ; tryAll(isApplied(isApplied(isApplied(isReduceSeq))) ; reduceSeqUnroll)
  ; lowerToC;
