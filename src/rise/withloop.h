// With-loops (spec/rise-syntax.md, "With-loops"; docs/language.md): the parser reads
// one into a WithLoop and desugar_with_loop turns it into RISE primitives, so that
// the interpreter, strategies and DPIA see ordinary RISE.
//
// A genarray or modarray becomes a concatenation of regions, dimension by
// dimension: the generators' bounds cut each dimension into slabs (take/drop of the
// default array: a generate of the default value, or the modified array), a slab
// covered by a part is a generate whose body is the part's expression, and a
// stepped part is split(step) into blocks whose first `width` rows are the part and
// the rest the default (concat, then join), or, with other parts over the same rows
// (stepped ones maybe starting at other rows: red/black), runs of rows each covered by
// the same parts (stepped_rows); a step that does not divide the slab leaves the first
// rows of one more block (in a fold, a tail concatenated after the whole blocks
// within each row). No region tests a condition. A fold is a chain of reduces, one per
// part in source order, each over the part's indices in row-major order: ((neutral op
// v0) op v1) ... (docs/language.md, "Fold order").
//
// Index names are values of type natType inside the bodies; indexing with them
// (`a[i - 1]`) is index arithmetic, converted by type inference to natAsIndex and
// proven in bounds there (infer.cpp, check_index_arithmetic).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rise/expr.h"

namespace risec::rise {

struct WithPart {
  Span span;  // the generator, `(... )`
  std::vector<std::string> names;
  std::vector<Expr> lb, ub, step, width;  // step/width empty when not given
  Span width_span;
  Expr body;
};

struct WithLoop {
  enum class Op { Genarray, Modarray, Fold };
  Span span;     // the whole with-loop
  Span op_span;  // the operation
  Op op = Op::Genarray;
  std::vector<WithPart> parts;
  std::vector<Expr> shape;  // genarray
  Expr deflt;               // genarray
  Expr array;               // modarray
  Expr fold_op, neutral;    // fold
};

// The with-loop as RISE; refuses (located, exit 1) overlapping parts, generators whose
// rank differs from the shape's, bounds provably outside the shape (or below 0, or
// above their upper bound), bounds it cannot order and unsupported mixes of stepped
// parts. What holds only for some sizes (a bound within the shape, an order of bounds
// taken for large sizes) is left to the checker as side conditions: each slab's length
// is a written idx[len] or a take(len), which must not be negative.
Expr desugar_with_loop(const WithLoop& w);

// Whether `f`, applied to an element of the with-loop's default (genarray) or
// modified array (modarray), is a part's body that must have that element's type
// (withloop.cpp, checked_body), and which of the two the element is from.
std::optional<WithLoop::Op> element_check(const Expr& f);

// Whether `s` is the span the desugaring gives the primitives it writes: the
// with-loop's own, whose text starts with the keyword `with`. The checker's messages
// then speak of the with-loop, not of the take, drop or concat it became.
bool written_by_with_loop(const Span& s);

}  // namespace risec::rise
