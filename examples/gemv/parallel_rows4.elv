// gemv for the OpenMP target with the rows in blocks of 4, as OpenBLAS's kernel does:
// the 4 rows of a block run through x together, in one loop with 4 vector
// accumulators (`lanes` floats each: 16 with AVX-512), so that every load of x serves 4 rows. Blocks run in
// parallel. Rows whose length lanes does not divide use 8 lanes; when 4 does not divide
// the number of rows, the rows run one at a time. Without --size the code is generic
// and checks 4 | n and lanes | m when it is called.
//
// rowDot          each row's dot product with x into a `lanes`-wide accumulator, then its
//                 lanes (vectorizeReduction leaves `let r = vector loop in` a tree of r's lanes)
// splitJoin(4)    the row map as blocks of 4 rows
// mapFissionZip   within a block: the dot products' vector loops as a map of their own,
//                 zipped with the rows (the lanes' sum and the rest of the row function
//                 still need y[i]): the map over the 4 rows has the vector reduction as
//                 its whole body
// mapReduceInterchange  the reduction outside the 4-row map: one loop over x carrying
//                 an array of 4 vector accumulators
// mapFusion       the lane sums back into one map
// unroll          the 4-row map inside the loop, so the accumulators live in registers
let rowDot = (vectorizeReduction(lanes) <+ vectorizeReduction(8)) @ innermost(isFullyApplied(isReduce));
let blockRows =
  (splitJoin(4) @ outermost(isFullyApplied(isMap))) ; DFNF ;
  (mapFissionZip @ innermost(isFullyApplied(isMap))) ; DFNF ;
  (mapReduceInterchange @ innermost(isFullyApplied(isMap))) ; DFNF ; normalize(mapFusion) ; DFNF;
let lower = (parallel @ outermost(isApplied(isMap))) ; lowerToC;
let main = DFNF ; body(rowDot) ;
  ((blockRows ; lower ; (unroll @ innermost(isFullyApplied(isMapSeq)))) <+ lower);
