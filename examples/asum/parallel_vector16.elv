// asum for the OpenMP target: the sum is split into chunks (blockedReduce), the chunks
// are summed in parallel (mapPar), each chunk by a vector accumulator of `lanes` floats
// (16 with AVX-512, 8 with AVX2)
// (vectorizeReduction(lanes): |x| lane-wise), then its lanes; the chunk sums are added
// sequentially. Chunks of 2^20 floats (4 MiB) for large vectors, so that the
// sequential tail is short; vectors too short for that use chunks of 32.
//   split(n) >> map(map(abs)) comes from splitBeforeMap, and mapFusion puts |x| back
//   into each chunk's reduction, where vectorizeReduction finds reduce(add)(map(f)).
let chunks = (blockedReduce(1048576) <+ blockedReduce(32)) @ outermost(isFullyApplied(isReduce));
let main = DFNF ; chunks ; (splitBeforeMap @ topDown) ; (mapFusion @ topDown) ; DFNF
  ; body(vectorizeReduction(lanes) @ innermost(isFullyApplied(isReduce)))
  ; (parallel @ outermost(isApplied(isMap))) ; lowerToC;
