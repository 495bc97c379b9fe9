// Black-Scholes with 16-lane vectors (AVX-512 holds 16 floats): the map over options
// becomes a map over vec[f32, 16]; exp, log, sqrt and erf run lane-wise (glibc's vector
// math library under omp simd). n must be a multiple of 16.
let main = betaEtaNF ; (vectorize(16) @ outermost(isApplied(isMap))) ; lowerToC;
