// blur3 in chunks of rows (as Halide's expert schedule computes the row pass per tile,
// and OpenCV's sepFilter2D keeps a buffer of row-pass rows): each chunk of u - 2 output
// rows (a parallel iteration) first blurs the u input rows it needs along the rows into
// a buffer of its own, then blurs that buffer down the columns. The row pass stays in
// the cache for the column pass (the default lowering stores the whole image of it
// first). u - 2 must divide n (n = 4096: u = 66; n = 1024: u = 34; the default u = 5
// fits the test size n = 9).
// The steps (docs/strategies.md, "Blurs in chunks of rows"):
//   cols     the column pass, written with transposes, becomes a pass over windows of
//            rows: transpose(map(pass)(transpose(rows))) with pass = padClamp (a clamped border) >> slide >>
//            map(dot) is fissioned (mapFission), its maps and slide moved across the
//            outer transpose (mapMapFBeforeTranspose, mapSlideBeforeTranspose), its
//            padding made a padding of rows (mapPadBeforeTranspose) and the two
//            transposes around the row pass removed (removeTransposePair):
//            img |> map(row pass) |> pad rows |> slide |> map(fun(w => map(dot)(transpose(w))))
//   pad      the row padding moved before the row pass (padClampBeforeMap)
//   chunks   the windows in chunks of u rows (slideOverlap(u)) and the row pass moved
//            into each chunk (joinBeforeMapF, slideBeforeMap, mapFusion), as Harris's
//            line_buffer_parallel.elv does
//   lowering the taps expanded (expandReduce: constant weights), parallel chunks; lowerToC
//            stores each chunk's row pass (a slide reads it)
param u in [5, 66, 34];
let cols = body(argument(mapFission ; argument(mapFission)) ; mapMapFBeforeTranspose
  ; argument(mapSlideBeforeTranspose)
  ; argument(argument(argument(mapPadBeforeTranspose ; argument(removeTransposePair))))
  ; mapFusion);
let chunks = (argument(slideOverlap(u)) @ outermost(isFullyApplied(isMap)))
  ; (joinBeforeMapF @ outermost(isFullyApplied(isMap)))
  ; (argument(mapFusion) @ outermost(isApplied(isPrimitive(join))))
  ; (argument(argument(slideBeforeMap)) @ outermost(isApplied(isPrimitive(join))))
  ; (argument(mapFusion) @ outermost(isApplied(isPrimitive(join))));
let main = DFNF ; cols ; topDown(padCstBeforeMap <+ padClampBeforeMap) ; chunks
  ; normalize(expandReduce) ; partialEval
  ; (mapPar @ outermost(isFullyApplied(isMap))) ; lowerToC;
