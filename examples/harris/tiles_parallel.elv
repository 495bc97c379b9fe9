// Harris in 2-D tiles (the form of Halide's expert schedule): the output in chunks of
// u - 2 rows (parallel), each chunk in tiles of tw columns; a tile stores the Sobel
// gradients (ix, iy) of its (u) x (tw + 2) pixels, then computes its (u - 2) x tw
// outputs from them. Nothing but the tile's gradients is stored, and they stay in L1.
// u - 2 must divide n and tw must divide m, and j must divide u - 2 (n = m = 4092:
// u = 46, tw = 124, j = 4).
// The steps (docs/strategies.md, "2-D tiles for Harris"; lineBuffers, chunks and sobel
// are line_buffer_grad_parallel.elv's, imported):
//   lineBuffers  line_buffer_grad_parallel.elv's derivation up to
//                img |> slide(3)(1) |> map(gradient row) |> slide(3)(1) |> map(output row)
//   uniformRows  the output row becomes one column stencil, as the gradient row is:
//                transpose(map(slide(3)(1))(rows)) |> map(pixel): the column slides move
//                past the product maps (slideBeforeMap, mapFission,
//                mapMapFBeforeTranspose) and the three box sums read the same windows
//                (mapOutsideZip, zipSame, mapFusion)
//   chunks       the rows in chunks of u - 2 (slideOverlap(u)), as before
//   columnTiles  in a chunk: the output row's column slide in tiles (slideOverlap(tw + 2)),
//                the tiles brought outside the output rows (mapJoinBeforeTranspose,
//                joinBeforeMapF, slideBeforeMapTranspose, transposeBeforeMapMapF), and
//                the tile of gradient columns asked of each gradient row turned into a
//                tile of image columns (slideBeforeMap, transposeBeforeSlide,
//                slideOfSlide): each tile is then
//                  tile |> map(gradient row) |> slide(3)(1) |> map(output row)
//   rowSums      (with rs = 1) each 3 x 3 box sum summed as the sum of its three row
//                sums (blockedReduce(3), removeSplitJoin): f32 sums in another order, so
//                the result moves by rounding (compare with --atol 1e-3; rs = 0 keeps the
//                program's order)
//   lowering     specialise (it reduces the redexes the derivation left without copying
//                the box sums into each of their uses in the response, as DFNF would),
//                Sobel dot products unrolled, the three box sums in one unrolled
//                reduction, parallel chunks; lowerToC stores each tile's gradients
//                (the only array another primitive reads).
//   jamRows      the output rows of a tile in groups of j (splitJoin(j)), the j rows of
//                a group computed side by side in one loop over the columns
//                (transposePairAfter, mapMapFBeforeTranspose, mapSeqUnroll): the rows'
//                windows overlap, so the C compiler loads each gradient once for the j
//                rows, and with rs = 1 computes each row sum once for the up to three
//                outputs that read it.
import "line_buffer_grad_parallel.elv";
param u in [32, 35, 46, 33, 64, 68];
param tw in [4, 124, 132, 186, 62, 102];
param j in [2, 4, 3, 6];
param rs in [1, 0];
let uniformRows = body(function(argument(
    tryAll(slideBeforeMap) ; tryAll(mapFission) ; tryAll(mapMapFBeforeTranspose)
  ; normalize(mapFusion)
  ; normalize(mapOutsideZip ; argument(zipSame)) ; normalize(mapFusion)
  ; normalize(mapOutsideZip ; argument(zipSame)) ; normalize(mapFusion))));
// inChunk(s): s on the body of a chunk, map(output row)(slide(3)(1)(map(gradient row)(y))).
let inChunk(s) = body(argument(function(argument(body(s)))));
// The output row in tiles: join(map(tile row)(transpose(map(slide(tw+2)(tw))(rows)))).
let outputTiles = function(argument(body(
    argument(argument(topDown(slideOverlap(tw + 2)) ; normalize(mapFission)))
  ; argument(mapJoinBeforeTranspose) ; joinBeforeMapF ; argument(mapFusion)
  ; argument(argument(mapMapFBeforeTranspose)) ; argument(mapFusion))));
// The tiles outside the output rows: map(join)(transpose(map(tile)(gradient tiles))).
let tilesOutside = mapFission ; argument(mapFission) ; argument(argument(mapFission))
  ; argument(argument(argument(slideBeforeMapMapF)))
  ; argument(argument(slideBeforeMapTranspose))
  ; argument(transposeBeforeMapMapF) ; argument(argument(mapFusion));
// A tile of a gradient row (tw + 2 columns) from a tile of image rows (tw + 4 columns).
let gradientTile = slideBeforeMap ; argument(transposeBeforeSlide)
  ; argument(argument(argument(mapFusion)))
  ; argument(argument(argument(function(argument(body(slideOfSlide))))))
  ; argument(argument(argument(mapFission)))
  ; argument(argument(mapMapFBeforeTranspose))
  ; argument(mapFusion) ; mapFusion;
let imageTiles = argument(argument(argument(
    argument(mapFusion) ; argument(function(argument(body(gradientTile))))
  ; argument(mapFission) ; mapMapFBeforeTranspose)))
  ; argument(argument(mapFusion));
let columnTiles = inChunk(outputTiles ; tilesOutside ; imageTiles);
// The box sums' products fused into their reductions (mapMapFBeforeJoin,
// fuseReduceMap) and the three sums advanced side by side (fuseReductions).
let sums = normalize(mapFusion) ; normalize(mapMapFBeforeJoin) ; normalize(fuseReduceMap)
  ; normalize(fuseReductions ; unroll);
// Each box sum, a reduction over the join of its window's rows, as the sum of the
// rows' sums.
let rowSums = tryAll(isFullyApplied(isReduce) ; argument(isApplied(isPrimitive(join)))
  ; blockedReduce(3) ; argument(argument(removeSplitJoin)))
  ; normalize(mapFusion);
let unrollRowSums = tryAll(isApplied(isApplied(isApplied(isPrimitive(reduceSeq))))
  ; reduceSeqUnroll);
// The map over a tile's output rows: map(output row)(slide(3)(1)(map(gradient row)(y))).
let outputRows = isFullyApplied(isMap)
  ; argument(isApplied(isPrimitive(slide)) ; argument(isFullyApplied(isMap)));
let jamRows = splitJoin(j) ; argument(function(argument(body(
    mapFission ; transposePairAfter ; argument(mapMapFBeforeTranspose)
  ; argument(function(argument(body(mapSeqUnroll))))))));
let main = lineBuffers ; uniformRows ; chunks ; columnTiles ; specialise ; sobel
  ; repeatN(rs, rowSums) ; sums ; unrollRowSums ; specialise ; topDown(outputRows ; jamRows)
  ; (mapPar @ outermost(isFullyApplied(isMap))) ; lowerToC;
