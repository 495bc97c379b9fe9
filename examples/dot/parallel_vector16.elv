// dot for the OpenMP target: the sum is split into chunks (blockedReduce), the chunks
// are summed in parallel (mapPar), each chunk by a vector accumulator of `lanes` floats
// (16 with AVX-512, 8 with AVX2)
// (vectorizeReduction(lanes): x and y loaded `lanes` floats at a time, multiplied lane-wise),
// then its lanes; the chunk sums are added sequentially. Chunks of 2^20 elements
// (4 MiB of each vector) for large vectors, so that the sequential tail is short;
// vectors too short for that use chunks of 32.
let chunks = (blockedReduce(1048576) <+ blockedReduce(32)) @ outermost(isFullyApplied(isReduce));
let main = DFNF ; chunks ; (splitBeforeMap @ topDown) ; (mapFusion @ topDown) ; DFNF
  ; body(vectorizeReduction(lanes) @ innermost(isFullyApplied(isReduce)))
  ; (parallel @ outermost(isApplied(isMap))) ; lowerToC;
