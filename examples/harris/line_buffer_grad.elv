// Harris with one ring of Sobel gradients (line_buffer.elv with the ring of
// line_buffer_grad_parallel.elv): every row of (ix, iy) is computed once, from three
// image rows, into a ring of three rows of pairs (one array per component), and each
// output row computes the products ix*ix, ix*iy, iy*iy of its 3 x 3 windows from the
// ring. One ring, sequential (the c target). The steps are those of
// line_buffer_grad_parallel.elv without the chunks.
let slideOfRowSlides = argument(function(argument(body(isApplied(isPrimitive(slide))))));
let isSlide = isApplied(isPrimitive(slide));
let isProduct = isApplied(isApplied(isPrimitive(mul)));
let productRows = function(argument(body(function(argument(body(isProduct))))));
let zippedRows = function(argument(body(isApplied(isApplied(isPrimitive(zip))))));
let rows = normalize(inlineLet) ; DFNF
  ; tryAll(slideOfRowSlides ; slideBeforeMap)
  ; tryAll(isSlide ; argument(productRows) ; slideBeforeMap)
  ; tryAll(isSlide ; argument(zippedRows) ; slideBeforeMap)
  ; normalize(mapFusion);
let joinStages = mapOutsideZip
  ; argument(slideOutsideZip ; argument(argument(zipShared)) ; argument(slideBeforeMap));
let stages = repeat(bottomUp(joinStages) ; normalize(mapFusion));
let ringOfPairs = argument(argument(zipRows) ; slideBeforeMap)
  @ outermost(isFullyApplied(isMap));
let gradients = tryAll(mapOutsideZip ; argument(zipSame)) ; normalize(mapFusion);
let clean = normalize(betaReduction <+ fstReduction <+ sndReduction);
let lineBuffers = rows ; stages ; ringOfPairs ; normalize(mapFusion) ; gradients ; clean
  ; normalize(mapFusion) ; clean ; gradients;
// The Sobel dot products (reductions over a map of the window zipped with the
// weights) unrolled; the three box sums of the output row (reductions over join(nbh))
// fused into one unrolled reduction carrying (sxx, (sxy, syy)): each tap's three
// products are added side by side (mapOutsideZip and mapFusion gather the sums of a
// pixel into one map body; fuseReductions pairs them).
let sobel = normalize(argument(isApplied(isApplied(isPrimitive(map)))) ; expandReduce);
let sums = normalize(mapOutsideZip) ; normalize(mapFusion) ; normalize(fuseReductions ; unroll);
let main = lineBuffers
  ; (argument(circularBuffer) @ outermost(isFullyApplied(isMap)))
  ; DFNF ; sobel ; sums ; specialise
  ; (mapSeq @ outermost(isFullyApplied(isMap)))
  ; (mapSeq @ outermost(isFullyApplied(isMap)));
