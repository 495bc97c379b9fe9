// Mandelbrot with vectors as wide as the machine's (`lanes`): each lane is a point, the
// escape test a vector comparison (a mask) and the updates blends on it, so lanes stop
// counting at different steps; any length (the last n % lanes points are scalar).
let main = (vectorizeRemainder(lanes) @ outermost(isFullyApplied(isMap))) ; lowerToC;
