// jacobi3 with each padded row stored in memory: for every row, the clamped row of m+2
// floats is copied once into a buffer, and the 3-point stencil reads it without
// clamping (the default lowering clamps the column index in the innermost loop, which
// GCC vectorises with gathers; see bench/results/journal/2026-11-21-stencils.md).
// Navigation, from the outermost map, map(fun(row => map(f)(slide(3)(1)(padClamp(1)(1)(row)))))(A):
//   function, argument   the lambda fun(row => ...)
//   body                 map(f)(slide(3)(1)(padClamp(1)(1)(row)))
//   argument, argument   padClamp(1)(1)(row), where storeInMemory(isApplied(id), ..)
//                        stores the term itself, copied element by element.
let copy = idAfter ; normalize(liftId) ; lowerToC;
let paddedRow = DFNF
  ; (function(argument(body(argument(argument(storeInMemory(isApplied(id), copy))))))
      @ outermost(isFullyApplied(isMap)));
let main = paddedRow ; lowerToC;
