// softmax: what `risec tune --budget 60` chose with the division decision, on a loaded machine (load 13-16, 2026-11-28 23:30; build/t60)
let main =
  // structure: data-flow normal form: every map and reduction applied to its data
  DFNF
  // parallel: the map writing the result (and each stored stage) an OpenMP parallel loop
  ; parallelOutput
  // division: every division of floats by a literal or a variable bound outside its map a multiplication by the reciprocal (computed once; the last bit of rounding changes: checked within the tolerance)
  ; normalize(reciprocalDivision)
  // reductions: every reduction of add, mul, fmax or fmin over scalars into two vector accumulators of `lanes` lanes (two dependency chains overlapped), then their lanes reduced
  ; normalize(vectorizeReduction2Remainder(lanes))
  // vectorize: the innermost map over scalars on vectors of two registers (2 * lanes floats)
  ; vectorize(lanes * 2) @ innermost(isFullyApplied(isMap))
  // lower: the remaining maps sequential loops, reductions fused with the maps they read, intermediates stored
  ; lowerToC;
