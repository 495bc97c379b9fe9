// The bilateral stage's schedule that `risec tune` ranks first (bench/autoschedule/
// bilateral_ab.sh times it): rows in parallel, the division by 0.1 a multiplication,
// the map over windows on vectors of `lanes` windows (each tap one shifted vector
// load), the 25 taps unrolled so that the clamped borders are split off.
let main =
  simplify
  ; parallelOutput
  ; normalize(reciprocalDivision)
  ; vectorizeWindows(lanes) @ innermost(isApplied(isMap))
  ; lowerToC
  ; try(unrollReductions(25));
