// jacobi5 with a line buffer (the RISE & Shine paper's circularBuffer): every row of
// the clamped, padded grid is computed once into a circular buffer of 3 rows of m+2
// floats, and the 5-point stencil reads its neighbours from there without clamping
// (the default lowering clamps the column index in the innermost loop, which GCC
// vectorises with gathers; see bench/results/journal/2026-11-21-stencils.md).
// Steps, after the data-flow normal form:
//   slideBeforeMap   slide(3)(1)(map(slide(3)(1))(P)) -> map(map(slide(3)(1)))(slide(3)(1)(P)):
//                    slide the 3-row windows over the padded rows P before sliding along
//                    each row, so that the outer slide reads P directly;
//   mapFusion        the maps over the rows of windows become one;
//   circularBuffer   on the argument of that map, slide(3)(1)(P): the 3-row windows of P
//                    come from a circular buffer filled one row per iteration.
// The circularBuffer is placed by navigating from the outermost map (argument), since
// `circularBuffer @ topDown` would pick the row slide inside the map's function first.
let lineBuffer = DFNF
  ; (slideBeforeMap @ topDown)
  ; normalize(mapFusion)
  ; (argument(circularBuffer) @ outermost(isFullyApplied(isMap)));
let main = lineBuffer ; lowerToC;
