// Which values of an imperative program are provably never NaN: the analysis behind
// the cheap fmax and fmin of the CPU printers (codegen/c: one compare-and-select, a
// single maxps/minps, instead of the C library's NaN-ignoring helper).
//
// fmax(x, y) ignores a NaN operand (it returns the other one). When x cannot be NaN it
// is (y > x ? y : x): a NaN y fails the comparison and gives x. A value is provably
// not NaN when it is
//   - of an integer or bool type, a Nat, or a float literal other than NaN;
//   - fmax or fmin with an operand provably not NaN (so a reduction from a non-NaN
//     initial value stays so, unrolled or not);
//   - the negation, broadcast or cast of such a value, or a select of two;
//   - a scalar or vector local (a `new` variable, or a pair component of one) every
//     assignment of which assigns such a value (the greatest fixed point: a loop
//     accumulator initialised to -inf and updated by fmax of itself qualifies).
// A variable written any other way (through an index or a view, as an array, or as
// the private accumulator of an OpenMP reduction, whose copies start at NaN) is not.
// The translation writes every local before reading it, which the fixed point assumes.
#pragma once

#include <set>
#include <string>

#include "dpia/imperative.h"

namespace risec::dpia {

class NotNan {
 public:
  NotNan() = default;
  explicit NotNan(const CommandP& program);
  // Whether e is provably never NaN (in every lane of a vector).
  bool provable(const Expression& e) const;
  // For a call of fmax or fmin: the index (0 or 1) of an operand provably never NaN
  // (the first when both are), or -1.
  int operand(const Expression& call) const;

 private:
  std::set<std::string> vars_;  // "acc", and pair components "acc.1", "acc.2.1", ...
};

}  // namespace risec::dpia
