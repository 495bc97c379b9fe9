// Black-Scholes with 16-lane vectors (AVX-512 holds 16 floats): the map over options is
// split into chunks of 16 (splitJoin), and each chunk's map becomes one operation on
// vec[f32, 16]; exp, log, sqrt and erf run lane-wise (glibc's vector math library under
// omp simd). Vectorising the chunk rather than the whole map keeps each chunk's
// (call, put) vectors in registers, stored to the output pairs in the same iteration,
// instead of in an n-element temporary array. n must be a multiple of 16.
let main = betaEtaNF ; (splitJoin(16) @ outermost(isApplied(isMap)))
  ; (vectorize(16) @ innermost(isFullyApplied(isMap))) ; lowerToC;
