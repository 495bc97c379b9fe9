// Black-Scholes with vectors as wide as the machine's (`lanes`: 16 floats with AVX-512,
// 8 with AVX2): the map over options is split into chunks of `lanes` (splitJoin), and
// each chunk's map becomes one operation on vec[f32, lanes]; exp, log, sqrt and erf run
// lane-wise (glibc's vector math library under omp simd). Vectorising the chunk rather
// than the whole map keeps each chunk's (call, put) vectors in registers, stored to the
// output pairs in the same iteration, instead of in an n-element temporary array. n
// must be a multiple of lanes (the file keeps its name from the AVX-512 machine).
let main = betaEtaNF ; (splitJoin(lanes) @ outermost(isApplied(isMap)))
  ; (vectorize(lanes) @ innermost(isFullyApplied(isMap))) ; lowerToC;
