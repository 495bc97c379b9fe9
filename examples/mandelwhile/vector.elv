// Mandelbrot with an early exit, `lanes` points per vector: the escape test is a vector
// comparison (a mask), the loop runs while any lane is active and its updates are
// blends on the mask; any length (the last n % lanes points run the scalar loop).
// unrollJam2 then runs two vectors in one loop, while either has an active lane, each
// stepping while its own has: their two chains of dependent steps overlap in the
// processor (skipped when there is a single vector).
let main = (vectorizeRemainder(lanes) @ outermost(isFullyApplied(isMap)))
         ; try(unrollJam2 @ outermost(isFullyApplied(isMap))) ; lowerToC;
