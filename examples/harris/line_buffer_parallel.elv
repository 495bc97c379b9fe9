// Harris with line buffers on threads: the output rows are split into chunks of u - 2
// rows, each chunk a parallel iteration with its own ring of three rows of gradient
// products (line_buffer.elv, where one ring runs over all rows). A chunk computes
// its u rows of products (two more than its output rows: the halo shared with the
// next chunk) once each.
//   u - 2 must divide the number of output rows n (slideOverlap's condition; the
//   strategy fails otherwise, with the sizes in the message): u = 32 for n = 60 or
//   1020, u = 35 for n = 4092 (risec ... --param u=35).
// After the line-buffer form (see line_buffer.elv), img |> slide(3)(1) |> map(P)
// |> slide(3)(1) |> map(O):
//   slideOverlap(u)   the second slide becomes slide(u)(u-2) of the products rows,
//                     then slide(3)(1) inside each chunk, joined;
//   joinBeforeMapF    the output map goes inside the join (a map per chunk),
//   slideBeforeMap    the chunk slide moves before the products map (each chunk
//                     computes its own products rows from u + 2 image rows);
//   mapFusion         both times, so a chunk is map(O)(slide(3)(1)(map(P)(rows)));
//   circularBuffer    on that slide, in every chunk;
//   mapPar            on the chunks, mapSeq on a chunk's rows and on an output row.
param u in [32, 35, 17];
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
let chunks = (argument(slideOverlap(u)) @ outermost(isFullyApplied(isMap)))
  ; (joinBeforeMapF @ outermost(isFullyApplied(isMap)))
  ; (argument(mapFusion) @ outermost(isApplied(isPrimitive(join))))
  ; (argument(argument(slideBeforeMap)) @ outermost(isApplied(isPrimitive(join))))
  ; (argument(mapFusion) @ outermost(isApplied(isPrimitive(join))));
let main = lineBuffers ; chunks
  ; (function(argument(body(argument(circularBuffer)))) @ outermost(isFullyApplied(isMap)))
  ; DFNF ; normalize(expandReduce) ; specialise
  ; (mapPar @ outermost(isFullyApplied(isMap)))
  ; (mapSeq @ outermost(isFullyApplied(isMap)))
  ; (mapSeq @ outermost(isFullyApplied(isMap)));
