// Mandelbrot, one point at a time (the baseline the vector strategy is measured against).
let main = lowerToC;
