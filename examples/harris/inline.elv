// Harris with every stage inlined into the corner response (Halide's compute_inline):
// no intermediate image is stored; each output pixel recomputes the gradients of its
// 3 x 3 window from the input, which stays in cache, so the pipeline is bound by
// arithmetic instead of memory traffic. The output rows are a parallel loop (the
// work split between threads by chunks of rows), the columns a sequential loop of
// straight-line code that GCC vectorises.
//   inlineLet       let ix = ... in b  ->  b with ix's term at every use;
//   separateDotHV   each Sobel window's dot product with a rank-1 kernel becomes a dot
//                   of each row with [-1, 0, 1] (or [1, 2, 1]) then one with the column
//                   weights: the row dots are the same terms for the windows that share
//                   a row, which the C compiler computes once;
//   expandReduce    every 3-tap and 9-tap reduction becomes one scalar term (weights
//                   read from the literal arrays as constants); a map whose function
//                   is a plain term is read as a view: computed where it is read;
//   mapPar, mapSeq  on the output's two maps only.
let main = normalize(inlineLet) ; DFNF
  ; normalize(separateDotHV) ; DFNF
  ; normalize(expandReduce) ; partialEval
  ; (mapPar @ outermost(isFullyApplied(isMap)))
  ; (mapSeq @ outermost(isFullyApplied(isMap)));
