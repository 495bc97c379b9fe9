// scal with vectors as wide as the machine's (`lanes`: 16 floats with AVX-512, 8 with
// AVX2): alpha broadcast, x loaded `lanes` floats at a time.
let main = (vectorize(lanes) @ outermost(isApplied(isMap))) ; lowerToC;
