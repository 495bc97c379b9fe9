// mv with the dot product's map fused into its reduction (no intermediate array),
// then the default lowering: one sequential loop per row, as in the paper's
// Listing 11 (without the OpenCL parallelism).
let main = DFNF ; (fuseReduceMap @ topDown) ; lowerToC;
