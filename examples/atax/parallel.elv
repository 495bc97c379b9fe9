// The OpenMP strategy: every dot product fused into its reduction, then both
// products (tmp = A * x, then A^T * tmp) parallel loops over their outputs, one after
// the other (tmp is complete before the second loop starts).
let par = parallel @ outermost(isApplied(isMap));
let main = DFNF ; normalize(fuseReduceMap) ; par ; par ; lowerToC;
