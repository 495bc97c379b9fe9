// saxpy with 16-lane vectors: a broadcast, x and y loaded 16 floats at a time.
let main = (vectorize(16) @ outermost(isApplied(isMap))) ; lowerToC;
