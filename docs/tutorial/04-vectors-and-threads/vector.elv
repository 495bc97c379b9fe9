// Lesson 4: the map over vectors of `lanes` floats (16 with AVX-512, 8 with AVX2).
let main = (vectorize(lanes) @ outermost(isApplied(isMap))) ; lowerToC;
