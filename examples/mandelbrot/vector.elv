// Mandelbrot with vectors as wide as the machine's (`lanes`): each lane is a point, the
// escape test a vector comparison (a mask) and the updates blends on it, so lanes stop
// counting at different steps; any length (the last n % lanes points are scalar).
// unrollJam2 then runs the blocks of two vectors in one loop: the steps of a vector are
// a chain of dependent operations (through the mask), and two independent chains
// overlap in the processor (skipped when there is a single vector).
let main = (vectorizeRemainder(lanes) @ outermost(isFullyApplied(isMap)))
         ; try(unrollJam2 @ outermost(isFullyApplied(isMap))) ; lowerToC;
