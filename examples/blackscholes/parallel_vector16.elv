// Black-Scholes for the OpenMP target: 16-lane vectors, the vector loop in parallel.
let main = betaEtaNF ; (vectorize(16) @ outermost(isApplied(isMap)))
  ; (parallel @ outermost(isApplied(isMap))) ; lowerToC;
