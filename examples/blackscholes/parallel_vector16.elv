// Black-Scholes for the OpenMP target: as vector16.elv (chunks of `lanes` options, each
// one vec[f32, lanes] operation), with the loop over chunks in parallel.
let main = betaEtaNF ; (splitJoin(lanes) @ outermost(isApplied(isMap)))
  ; (vectorize(lanes) @ innermost(isFullyApplied(isMap)))
  ; (parallel @ outermost(isApplied(isMap))) ; lowerToC;
