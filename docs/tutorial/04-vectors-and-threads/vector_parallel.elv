// Lesson 4: both: the map over vectors, and the loop over vectors in parallel.
let main = (vectorize(lanes) @ outermost(isApplied(isMap)))
  ; (parallel @ outermost(isApplied(isMap))) ; lowerToC;
