// Matrix multiplication C = A * B (mm.rise), step 1 of 7 of the ELEVATE paper
// (Hagedorn et al., ICFP 2020), which reproduces TVM's CPU schedule.
// Baseline: the data-flow normal form, then the map computing the products fused
// into the reduction (a sequential loop: i, j, k).
let baseline = DFNF ; (fuseReduceMap @ topDown);

// The file's strategy (its last definition): the step, then the default lowering
// (every remaining map a mapSeq, every reduce a reduceSeq).
let baselineToC = baseline ; lowerToC;
