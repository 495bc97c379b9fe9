// Mandelbrot with an early exit, `lanes` points per vector: the escape test is a vector
// comparison (a mask), the loop runs while any lane is active and its updates are
// blends on the mask; any length (the last n % lanes points run the scalar loop).
let main = (vectorizeRemainder(lanes) @ outermost(isFullyApplied(isMap))) ; lowerToC;
