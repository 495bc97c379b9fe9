// blur5 with the row pass inlined into the column pass: each output pixel computes its
// 5 x 5 window from the input (5 row blurs of 5 taps, then 5 column taps) and no
// intermediate image is stored. The output's rows are a parallel loop: the strategy
// makes the map over the transposed columns parallel, and code generation swaps it
// with the sequential loop inside (stores contiguous) and splits it at the padded
// border rows, so the interior rows have no conditional and GCC vectorises the columns.
//   expandReduce    every 5-tap reduction becomes one scalar term (the weights are
//                   constants); a map of such a term is computed where it is read;
//   mapPar, mapSeq  on the output's two maps only.
let main = DFNF
  ; normalize(expandReduce) ; partialEval
  ; (mapPar @ outermost(isFullyApplied(isMap)))
  ; (mapSeq @ outermost(isFullyApplied(isMap)));
