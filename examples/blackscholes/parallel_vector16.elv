// Black-Scholes for the OpenMP target: as vector16.elv (chunks of 16 options, each one
// vec[f32, 16] operation), with the loop over chunks in parallel.
let main = betaEtaNF ; (splitJoin(16) @ outermost(isApplied(isMap)))
  ; (vectorize(16) @ innermost(isFullyApplied(isMap)))
  ; (parallel @ outermost(isApplied(isMap))) ; lowerToC;
