// The interpreter's fast path: the same meaning as the boxed evaluator of interp.cpp,
// computed over flat typed buffers so that `--check` costs seconds at benchmark sizes.
//
// A closed entry (all sizes known) is translated once into a tree of small nodes.
// Every data value is held as its leaves: a scalar (or index) leaf in an 8-byte
// slot, and an array of scalars (any rank) as a strided view into a shared buffer.
// Pairs are their two components' leaves side by side, so an array of pairs is a
// pair of arrays (zip and unzip cost nothing). Views (split, join, transpose, slide,
// take, drop, reverse, idx) change only a view's shape, strides and offset; padding,
// concatenation and a join of non-contiguous rows copy. Functions never exist at run
// time: a lambda or a partially applied primitive passed to map, reduce or a beta
// redex is inlined where it is applied, so `reduce(add)(0)(map(f)(zip(a)(b)))` is one
// loop with f's body inside and no temporary array. Closed array-valued
// subexpressions (a constant weight table inside a stencil's lambda) are evaluated
// once and shared. A map whose body is only f32/f64 arithmetic on the element
// (stencils, window dot products, blackscholes) runs a block of elements per
// operation, each element computed exactly as one at a time.
//
// Scalar operations are the boxed evaluator's: f32/f64 operators are the operator
// functor of rise/scalar_ops.h on unboxed float/double (the boxed evaluator applies
// the same functor), everything else (integer arithmetic with its wrap-around and
// division checks, math builtins, casts) calls the boxed helpers of interp_prims.h on
// scalar Values, so both paths share one definition.
//
// What the fast path does not cover (vectors, natType, index arithmetic, an iterate
// inside another, scans, gather/scatter, reorder, mapFst/mapSnd, ...) makes `compile` return null,
// and Interpreter::run then uses the boxed evaluator for the whole program.
#pragma once

#include <memory>
#include <vector>

#include "rise/expr.h"
#include "rise/value.h"

namespace risec::rise {

class FastProgram;

// A compiled entry: the closed, fully typed function `fun(x1 => ... fun(xk => body))`
// whose inputs are data. Null when the fast path does not cover the program.
std::shared_ptr<FastProgram> fast_compile(const Expr& closed_typed_entry);

// Apply the compiled entry to its inputs (values of the entry's parameter types).
// `threads` > 1 spreads the outermost map over that many threads (the result does not
// depend on it). Returns none when an input's representation is not covered.
Value fast_run(const FastProgram& p, const std::vector<Value>& inputs, int threads = 1);

// How many of the program's maps run their body a block of elements at a time (f32/f64
// arithmetic on the element: see interp_fast_internal.h, BatchProgram); for tests.
int fast_block_maps(const FastProgram& p);

}  // namespace risec::rise
