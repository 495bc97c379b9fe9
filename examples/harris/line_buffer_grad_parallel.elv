// Harris with a ring of Sobel gradients per chunk of rows: as line_buffer_parallel.elv,
// but the ring holds the pairs (ix, iy) (two rows of scalars each: one array per
// component) instead of the three products, and the output loop computes ix*ix, ix*iy
// and iy*iy from its 3 x 3 windows of gradients (18 loads and 27 products per output
// pixel instead of 27 loads; the form of Halide's Mullapudi2016 schedule), the three
// box sums side by side in one unrolled reduction (sobel and sums below). Chunks of
// u - 2 output rows: u - 2 must divide n (u = 32 for n = 60 or 1020, u = 35 for 4092).
// The steps (docs/strategies.md, "A ring of gradients for Harris"):
//   rows        inlineLet and DFNF; at each 2-D stencil stage the row slide moves first
//               (slideBeforeMap where the slide's argument slides rows), then, at the
//               box sums only, the row slide moves past the products map (a map whose
//               function maps a product `a * b` over a row) and, for sxy, past the map
//               that zips a row of ix with a row of iy: a box-sum stage slides rows of
//               gradients, its products read in the windows. mapFusion everywhere.
//   stages      bottom-up, a zip of two stages map(f)(slide(a)) and map(g)(slide(b))
//               becomes one slide: mapOutsideZip, slideOutsideZip, and zipShared on the
//               zip of the sources (ix beside zip(ix)(iy), zip(ix)(iy) beside iy: the
//               shared array read once), slideBeforeMap taking that map back out. The
//               program is zip(ix)(iy) |> slide(3)(1) |> map(output row).
//   ringOfPairs zipRows on zip(ix)(iy) (rows of pairs, which a ring can hold) and
//               slideBeforeMap; gradients: mapOutsideZip and zipSame compute the rows
//               of ix and iy from the same three image rows, and after mapFusion once
//               more both gradients of a pixel from the same windows (one loop fills
//               both arrays of the ring). Now the program is
//               img |> slide(3)(1) |> map(gradient row) |> slide(3)(1) |> map(output row),
//               and the chunks, circularBuffer and the lowering are line_buffer_parallel.elv's.
param u in [32, 35, 17];
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
let chunks = (argument(slideOverlap(u)) @ outermost(isFullyApplied(isMap)))
  ; (joinBeforeMapF @ outermost(isFullyApplied(isMap)))
  ; (argument(mapFusion) @ outermost(isApplied(isPrimitive(join))))
  ; (argument(argument(slideBeforeMap)) @ outermost(isApplied(isPrimitive(join))))
  ; (argument(mapFusion) @ outermost(isApplied(isPrimitive(join))));
// The Sobel dot products (reductions over a map of the window zipped with the
// weights) unrolled; the three box sums of the output row (reductions over join(nbh))
// fused into one unrolled reduction carrying (sxx, (sxy, syy)): each tap's three
// products are added side by side (mapOutsideZip and mapFusion gather the sums of a
// pixel into one map body; fuseReductions pairs them).
let sobel = normalize(argument(isApplied(isApplied(isPrimitive(map)))) ; expandReduce);
let sums = normalize(mapOutsideZip) ; normalize(mapFusion) ; normalize(fuseReductions ; unroll);
let main = lineBuffers ; chunks
  ; (function(argument(body(argument(circularBuffer)))) @ outermost(isFullyApplied(isMap)))
  ; DFNF ; sobel ; sums ; specialise
  ; (mapPar @ outermost(isFullyApplied(isMap)))
  ; (mapSeq @ outermost(isFullyApplied(isMap)))
  ; (mapSeq @ outermost(isFullyApplied(isMap)));
