// Harris with a line buffer (circularBuffer): every row of the gradient products
// (ix*ix, ix*iy, iy*iy) is computed once, from three rows of the image, into a ring of
// three rows of triples, and each output row reads its 3 x 3 windows from the ring.
// One ring, sequential (the c target); line_buffer_parallel.elv splits the rows into
// chunks with a ring each, on threads.
//
// The steps, from harris.rise (docs/strategies.md, "Line buffers for Harris"):
//   rows       inlineLet and DFNF; at each 2-D stencil stage, the slide of rows of
//              row windows (slide(3)(1)(map(slide(3)(1))(X))) moves the row slide
//              first (slideBeforeMap, only there), and mapFusion makes each stage
//              X |> slide(3)(1) |> map(row function);
//   merge      the zips of stages become one slide: mapOutsideZip takes the maps out
//              of a zip, slideOutsideZip slides the two rows together, zipRows turns
//              the pair of rows into a row of pairs (so a ring can store it), and
//              zipSame + mapFusion compute both from the same three image rows. A
//              zip of a slide with a map first gets a copy map on the slide
//              (idAfter ; idToCopy) so that mapOutsideZip applies.
//   The program is then img |> slide(3)(1) |> map(products row)
//                                    |> slide(3)(1) |> map(output row);
//   circularBuffer on the second slide: the products rows go to a ring;
//   lower      every reduction expanded into scalar terms (expandReduce; weights
//              folded by specialise), the map over the ring's windows and the map of
//              an output row sequential loops (the columns vectorised by GCC).
let slideOfRowSlides = argument(function(argument(body(isApplied(isPrimitive(slide))))));
let rows = normalize(inlineLet) ; DFNF
  ; tryAll(slideOfRowSlides ; slideBeforeMap) ; normalize(mapFusion);
let slideZip = slideOutsideZip ; argument(argument(zipRows)) ; argument(slideBeforeMap);
let isSlide = isApplied(isPrimitive(slide));
let isMapped = isApplied(isApplied(isPrimitive(map)));
let copy = idAfter ; idToCopy;
let wrapSlide = (function(argument(isSlide)) ; argument(isMapped) ; function(argument(copy)))
  <+ (argument(isSlide) ; function(argument(isMapped)) ; argument(copy));
let merge = normalize(mapOutsideZip <+ zipSame <+ mapFusion <+ fstReduction <+ sndReduction
                      <+ slideZip);
let clean = normalize(betaReduction <+ fstReduction <+ sndReduction);
let lineBuffers = rows ; merge ; repeat((wrapSlide @ topDown) ; merge) ; clean ; merge ; clean;
let main = lineBuffers
  ; (argument(circularBuffer) @ outermost(isFullyApplied(isMap)))
  ; DFNF ; normalize(expandReduce) ; specialise
  ; (mapSeq @ outermost(isFullyApplied(isMap)))
  ; (mapSeq @ outermost(isFullyApplied(isMap)));
