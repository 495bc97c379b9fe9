// The scalar operators have one meaning (rise/scalar_ops.h), whichever evaluator runs
// them: on every scalar operation of the primitive table (the operators and the math
// builtins), on every scalar type its type admits, over the type's edge values (zeros
// of both signs, +-1, the extremes, subnormals, infinities, NaN) and every pair of
// them, the boxed evaluator and the fast path give the same bits, and fail the same
// way (message and place) where there is no result (integer division by zero, the
// least value by -1). The functor itself is checked against integer arithmetic done
// exactly in a wider type and wrapped, as C computes it without undefined overflow.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "rise/check.h"
#include "rise/interp.h"
#include "rise/interp_fast.h"
#include "rise/interp_prims.h"
#include "rise/parser.h"
#include "rise/scalar_ops.h"

namespace risec::rise {
namespace {

const ScalarKind kKinds[] = {ScalarKind::Bool, ScalarKind::I8,  ScalarKind::I16, ScalarKind::I32,
                             ScalarKind::I64,  ScalarKind::U8,  ScalarKind::U16, ScalarKind::U32,
                             ScalarKind::U64,  ScalarKind::F32, ScalarKind::F64};

// The edge values of a lane type, and a few ordinary ones.
template <class T>
std::vector<T> edges() {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_same_v<T, bool>) {
    return {false, true};
  } else if constexpr (std::is_floating_point_v<T>) {
    return {T(0),          -T(0),          T(1),          T(-1),       T(0.5),   T(-2.5),
            T(3),          T(7),           L::max(),      L::lowest(), L::min(), L::denorm_min(),
            L::infinity(), -L::infinity(), L::quiet_NaN()};
  } else if constexpr (std::is_signed_v<T>) {
    return {T(0),  T(1),     T(-1),           T(2),     T(-2),          T(7),
            T(-7), L::min(), T(L::min() + 1), L::max(), T(L::max() - 1)};
  } else {
    return {T(0), T(1), T(2), T(7), L::max(), T(L::max() - 1), T(T(1) << (L::digits - 1))};
  }
}

template <class T>
Value lane_value(ScalarKind k, T x) {
  if constexpr (std::is_same_v<T, float>)
    return Value::f32(x);
  else if constexpr (std::is_same_v<T, double>)
    return Value::f64(x);
  else if constexpr (std::is_same_v<T, bool>)
    return Value::boolean(x);
  else
    return Value::from_u64(k, static_cast<uint64_t>(x));
}

std::vector<Value> edge_values(ScalarKind k) {
  return with_lane_type(k, [&]<class T>() {
    std::vector<Value> out;
    for (T x : edges<T>()) out.push_back(lane_value(k, x));
    return out;
  });
}

Value array_of(ScalarKind k, const std::vector<Value>& xs) {
  ArrayBuilder b(scalar(k), static_cast<int64_t>(xs.size()));
  for (const Value& x : xs) b.push(x);
  return b.finish();
}

// Bit-exact equality of scalar results (NaN payloads included).
bool ops_same_bits(const Value& a, const Value& b) {
  if (a.kind() != b.kind() || a.kind() != ValueKind::Scalar) return false;
  if (a.scalar_kind() != b.scalar_kind()) return false;
  if (a.scalar_kind() == ScalarKind::F32) {
    float x = a.raw_f32(), y = b.raw_f32();
    return std::memcmp(&x, &y, sizeof x) == 0;
  }
  if (a.scalar_kind() == ScalarKind::F64) {
    double x = a.raw_f64(), y = b.raw_f64();
    return std::memcmp(&x, &y, sizeof x) == 0;
  }
  return a.raw_int() == b.raw_int();
}

struct ScalarOutcome {
  bool failed = false;
  std::string error;
  Value result;
};

ScalarOutcome run(const Checked& c, const std::vector<Value>& inputs, bool fast) {
  ScalarOutcome r;
  Interpreter interp;
  interp.fast_path = fast;
  try {
    r.result = interp.run(c.expr, inputs);
  } catch (const Error& e) {
    r.failed = true;
    r.error = e.message() + " @" + std::to_string(e.span().begin);
  }
  return r;
}

// `op` applied to the lanes of x (and y) by a map: the program of one row and type.
std::string program(const PrimitiveInfo& p, ScalarKind k) {
  const std::string t = scalar_name(k);
  const std::string body = p.arity == 1 ? "x |> map(fun(a => " + p.name + "(a)))"
                                        : "zip(x)(y) |> map(fun(q => " + p.name + "(q._1)(q._2)))";
  return "def f = depFun(n: Nat => fun(x: n." + t + " => fun(y: n." + t + " =>\n  " + body +
         ")))\n";
}

TEST(ScalarOps, TheInterpretersAgreeOnEveryOperatorOverEdgeValues) {
  int checked_rows = 0, checked = 0, fast_covered = 0, faults = 0;
  for (const PrimitiveInfo& p : primitives()) {
    if (!scalar_op_of(&p)) continue;
    ++checked_rows;
    for (ScalarKind k : kKinds) {
      const std::string text = program(p, k);
      const std::vector<Value> edge = edge_values(k);
      // the pairs of edge values, split into those with a result and those without
      std::vector<Value> xs, ys;
      std::vector<std::pair<Value, Value>> faulting;
      for (const Value& a : edge)
        for (const Value& b : p.arity == 1 ? std::vector<Value>{a} : edge) {
          try {
            scalar_op(&p, a, b, Span{});
            xs.push_back(a);
            ys.push_back(b);
          } catch (const Error&) {
            faulting.emplace_back(a, b);
          }
        }
      if (xs.empty()) continue;  // no meaning on the type at all (not on i32)
      const auto n = static_cast<int64_t>(xs.size());
      SizeMap sizes{{"n", n}};
      Checked c;
      try {
        c = check_program(parse_program(std::make_shared<SourceFile>(SourceFile{"op.rise", text})),
                          "", &sizes);
      } catch (const Error&) {
        continue;  // the row's type does not admit this scalar type (not on f32)
      }
      const std::string what = p.name + " on " + scalar_name(k);
      ++checked;
      if (fast_compile(c.expr)) ++fast_covered;
      std::vector<Value> inputs{array_of(k, xs), array_of(k, ys)};
      ScalarOutcome boxed = run(c, inputs, false), fast = run(c, inputs, true);
      ASSERT_FALSE(boxed.failed) << what << ": " << boxed.error;
      ASSERT_FALSE(fast.failed) << what << ": " << fast.error;
      for (int64_t i = 0; i < n; ++i)
        EXPECT_TRUE(ops_same_bits(boxed.result.at(i), fast.result.at(i)))
            << what << " of " << xs[i].to_string() << ", " << ys[i].to_string() << ": "
            << boxed.result.at(i).to_string() << " vs " << fast.result.at(i).to_string();
      // each pair without a result alone: the same error from both
      SizeMap one{{"n", 1}};
      Checked c1 = check_program(
          parse_program(std::make_shared<SourceFile>(SourceFile{"op.rise", text})), "", &one);
      for (const auto& [a, b] : faulting) {
        ++faults;
        std::vector<Value> in{array_of(k, {a}), array_of(k, {b})};
        ScalarOutcome rb = run(c1, in, false), rf = run(c1, in, true);
        EXPECT_TRUE(rb.failed && rf.failed)
            << what << " of " << a.to_string() << ", " << b.to_string();
        EXPECT_EQ(rb.error, rf.error) << what;
      }
    }
  }
  EXPECT_GE(checked_rows, 20);  // the operators and the math builtins
  std::cout << checked << " rows and types checked, " << fast_covered
            << " of them through the fast path\n";
  // the fast path covers every scalar operation on scalars (else a row would be
  // compared with itself)
  EXPECT_EQ(fast_covered, checked);
  // division and modulo by zero on every integer type, and the least values by -1
  EXPECT_GE(faults, 2 * 8 * 8 + 2 * 4);
}

// The functor's integer meaning is C's on the exact width with +, -, *, neg wrapping
// around: computed here exactly in a wider type (__int128) and wrapped, on the edge
// values and random ones of every integer type.
__extension__ typedef __int128 W;  // (a GCC and Clang extension: -Wpedantic)
__extension__ typedef unsigned __int128 UW;

template <class T>
void check_integer_functor() {
  std::vector<T> vals = edges<T>();
  std::mt19937_64 rng(17);
  for (int i = 0; i < 40; ++i) vals.push_back(static_cast<T>(rng()));
  auto wrapped = [](W v) {
    return static_cast<T>(static_cast<UW>(v));  // modular, as C++20
  };
  for (T x : vals)
    for (T y : vals) {
      const W a = x, b = y;
      EXPECT_EQ((apply_op<PrimId::Add, T>(x, y)), wrapped(a + b));
      EXPECT_EQ((apply_op<PrimId::Sub, T>(x, y)), wrapped(a - b));
      EXPECT_EQ((apply_op<PrimId::Mul, T>(x, y)),
                wrapped(static_cast<W>(static_cast<UW>(a) * static_cast<UW>(b))));
      EXPECT_EQ((apply_op<PrimId::Neg, T>(x, y)), wrapped(-a));
      EXPECT_EQ((apply_op<PrimId::Gt, T>(x, y)), a > b);
      EXPECT_EQ((apply_op<PrimId::Lt, T>(x, y)), a < b);
      EXPECT_EQ((apply_op<PrimId::Equal, T>(x, y)), a == b);
      EXPECT_EQ((apply_op<PrimId::Fmin, T>(x, y)), wrapped(a < b ? a : b));
      EXPECT_EQ((apply_op<PrimId::Fmax, T>(x, y)), wrapped(a > b ? a : b));
      EXPECT_EQ((apply_op<PrimId::Abs, T>(x, y)), wrapped(a < 0 ? -a : a));
      const OpFault f = op_fault<PrimId::Div>(x, y);
      EXPECT_EQ(f, (op_fault<PrimId::Mod>(x, y)));
      if (b == 0) {
        EXPECT_EQ(f, OpFault::DivByZero);
      } else if (wrapped(a / b) != a / b) {  // the quotient does not fit: least / -1
        EXPECT_EQ(f, OpFault::DivOverflow);
      } else {
        EXPECT_EQ(f, OpFault::None);
        // C truncates towards zero; the remainder has the dividend's sign
        EXPECT_EQ((apply_op<PrimId::Div, T>(x, y)), wrapped(a / b));
        EXPECT_EQ((apply_op<PrimId::Mod, T>(x, y)), wrapped(a % b));
      }
    }
}

TEST(ScalarOps, IntegerOperatorsAreCsWithWrapAround) {
  check_integer_functor<int8_t>();
  check_integer_functor<int16_t>();
  check_integer_functor<int32_t>();
  check_integer_functor<int64_t>();
  check_integer_functor<uint8_t>();
  check_integer_functor<uint16_t>();
  check_integer_functor<uint32_t>();
  check_integer_functor<uint64_t>();
}

// Every row with a C operator has a meaning in the functor (on some lane type), and
// the columns are consistent: comparisons give bool, unary operators bind as unary,
// wrapping operators are the ones whose integer result can leave the type.
TEST(ScalarOps, OperatorColumnsAgreeWithTheFunctor) {
  std::set<std::string> with_c_op;
  for (const PrimitiveInfo& p : primitives()) {
    if (!p.c_op) {
      EXPECT_EQ(p.c_prec, OpPrec::None) << p.name;
      EXPECT_FALSE(p.has(kWraps)) << p.name;
      continue;
    }
    with_c_op.insert(p.name);
    EXPECT_EQ(scalar_op_of(&p), &p) << p.name;
    EXPECT_EQ(p.c_prec == OpPrec::Unary, p.arity == 1) << p.name;
    bool known = with_op(ScalarOperators{}, p.id, [&]<PrimId Op>() {
      EXPECT_EQ(p.compares(), (std::is_same_v<OpResult<Op, int32_t>, bool>)) << p.name;
    });
    EXPECT_TRUE(known) << p.name << " has a C operator but no meaning in scalar_ops.h";
  }
  EXPECT_EQ(with_c_op.size(), 10u);  // neg add sub mul div mod not gt lt equal
}

}  // namespace
}  // namespace risec::rise
