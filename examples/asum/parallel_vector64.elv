// asum for the OpenMP target, as parallel_vector16.elv but with a 64-lane accumulator
// (vec[f32, 64]: four AVX-512 registers, so four independent chains of additions that
// keep more loads in flight). Chunks of 2^20 floats for large vectors; vectors too
// short for that use chunks of 64.
let chunks = (blockedReduce(1048576) <+ blockedReduce(64)) @ outermost(isFullyApplied(isReduce));
let main = DFNF ; chunks ; (splitBeforeMap @ topDown) ; (mapFusion @ topDown) ; DFNF
  ; body(vectorizeReduction(64) @ innermost(isFullyApplied(isReduce)))
  ; (parallel @ outermost(isApplied(isMap))) ; lowerToC;
