// How far a correct compiled float result may be from the interpreter's: a bound on
// the rounding error of any evaluation order of the same expression (`run --check`,
// the autoscheduler's candidate checks; docs/cli.md, "--check").
//
// For an expression of +, -, * over inputs and constants, evaluated in any order
// (sums reassociated, products fused into multiply-adds), the computed value differs
// from the exact one by at most gamma(k) * M, where M is the same expression over the
// absolute values (|a| + |b| for a - b: the magnitude) and k counts the roundings on
// a path (gamma(k) = k u / (1 - k u), u the unit roundoff). Both the interpreter's
// and the compiled result obey it, so they differ by at most 2 gamma(k) M.
//
// The interpreter itself is not changed: two more runs of it compute M and an
// order-independent count K >= k per float leaf of the result, on copies of the
// program whose float primitives are replaced (shadow runs):
//   magnitude  inputs and constants by their absolute values; sub -> add,
//              neg -> abs; log, sin, cos, tan, tanh, erf and int-to-float casts
//              followed by abs; add, mul, div, sqrt, exp, ... as they are.
//   count      inputs and constants by 1, int-to-float casts by 1; every binary
//              float operator (add, sub, mul, div, mod, fmin, fmax) -> add, every
//              unary one (neg and the math functions) -> abs: K is the number of
//              leaves of the expression tree, more than the operations on any path of
//              any tree with those leaves (a reassociated sum of n terms has n - 1).
// A select of floats is the larger of its branches' shadows whatever its condition
// (the condition on shadow values is not the program's: |-1| > |-2| is false); fmin
// is fmax in the magnitude run, floor is ceil. Programs whose control or indices can
// follow float values have no bound: iterateWhile, float-to-integer or -bool casts,
// a float comparison whose result selects non-floats or is cast to an integer, pow
// (its exponent would be a magnitude) and foreign functions; nor has a run whose
// shadow run fails. The unit roundoff u is that of the widest-error float type the
// program computes in (f32 anywhere: 2^-24), not the result leaf's.
#pragma once

#include <optional>
#include <vector>

#include "rise/expr.h"
#include "rise/value.h"

namespace risec::rise {

struct RoundingBound {
  Value magnitude;  // M, of the entry's result type (non-float leaves unchanged)
  Value count;      // K, likewise
  // u: the largest unit roundoff of the float types the program computes in, 2^-24
  // when any operation is in f32 (or a cast to f32, or an f32 result leaf), else
  // 2^-53: an f32 a*b - c*d cast to an f64 result rounds in f32.
  double unit_roundoff = 0x1p-24;
};

// The shadow runs of the closed typed entry `entry` on `inputs` (the values the
// interpreter ran it on); nullopt when the program has no bound (above).
std::optional<RoundingBound> rounding_bound(const Expr& entry, const std::vector<Value>& inputs);

// The largest allowance, as a share of M: the sound bound 2 gamma(K) M passes 1% of M
// past about 84,000 leaves in f32 and is infinite past 2^24, where it would accept
// almost any value (a 4194304-term dot product: 2.09e6 for a sum of 1.05e6); a correct
// reassociated sum of that dot product differs by 0.19% of M. Past the cap a
// difference fails the check: a dropped block of terms, a wrong stride of a long sum
// are caught at any length.
inline constexpr double kMaxRoundingAllowance = 0.01;

// The allowance of one float leaf: 2 gamma(K) M = 2 u K M / (1 - K u), u the unit
// roundoff (RoundingBound::unit_roundoff: 2^-24 for f32, 2^-53 for f64), at most
// kMaxRoundingAllowance M; 0 when M or K is not a finite non-negative number.
double rounding_allowance(double unit_roundoff, double magnitude, double count);

}  // namespace risec::rise
