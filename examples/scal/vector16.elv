// scal with 16-lane vectors: alpha broadcast, x loaded 16 floats at a time.
let main = (vectorize(16) @ outermost(isApplied(isMap))) ; lowerToC;
