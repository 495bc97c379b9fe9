// Mandelbrot with an early exit, one point at a time: the loop over the steps leaves
// as soon as the point escapes (the baseline the vector strategy is measured against).
let main = lowerToC;
