// The meaning of the scalar operators of the primitive table on one C++ lane type:
// the rows with a C operator (neg, add, sub, mul, div, mod, not, gt, lt, equal), and
// abs, floor, ceil, fmin and fmax where they are exact on the type (integers; abs also
// on floats). One definition, used by the reference interpreter (interp_prims.cpp:
// scalars, indices, natType values, vector lanes, and so constant folding), by the
// fast interpreter's unboxed nodes and block programs (interp_fast*), and checked
// against the C the printers emit (tests/rise/scalar_ops_test.cpp). The math builtins
// that are not exact on a type keep their table function (primitives.def's math1 and
// math2, evaluated in double).
//
// Integers (bool, intN_t, uintN_t) have C's meaning on their exact width, except that
// +, -, * and negation wrap (two's complement) where C's signed overflow is undefined,
// and that division and modulo have no result by zero or for the least signed value
// by -1 (op_fault says so before the operation). Floating-point operators are IEEE in
// the operand's own precision (float for f32).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "rise/primitives.h"
#include "rise/type.h"

namespace risec::rise {

// Why an operation has no result.
enum class OpFault : uint8_t {
  None,
  DivByZero,    // integer division or modulo by zero
  DivOverflow,  // integer division or modulo of the least signed value by -1
};

// A list of operators, for dispatching a PrimId known at run time to a template.
template <PrimId... Ops>
struct OpList {};
// Every operator the functor below knows.
using ScalarOperators =
    OpList<PrimId::Neg, PrimId::Add, PrimId::Sub, PrimId::Mul, PrimId::Div, PrimId::Mod,
           PrimId::Not, PrimId::Gt, PrimId::Lt, PrimId::Equal, PrimId::Abs, PrimId::Floor,
           PrimId::Ceil, PrimId::Fmin, PrimId::Fmax>;

// Calls k.template operator()<Op>() with Op == op when op is in the list; whether it is.
template <PrimId... Ops, class K>
bool with_op(OpList<Ops...>, PrimId op, K&& k) {
  return ((op == Ops && (k.template operator()<Ops>(), true)) || ...);
}

// Calls f.template operator()<T>() with the C++ type of scalar kind k's lanes.
template <class F>
decltype(auto) with_lane_type(ScalarKind k, F&& f) {
  switch (k) {
    case ScalarKind::Bool:
      return f.template operator()<bool>();
    case ScalarKind::I8:
      return f.template operator()<int8_t>();
    case ScalarKind::I16:
      return f.template operator()<int16_t>();
    case ScalarKind::I32:
      return f.template operator()<int32_t>();
    case ScalarKind::I64:
      return f.template operator()<int64_t>();
    case ScalarKind::U8:
      return f.template operator()<uint8_t>();
    case ScalarKind::U16:
      return f.template operator()<uint16_t>();
    case ScalarKind::U32:
      return f.template operator()<uint32_t>();
    case ScalarKind::U64:
      return f.template operator()<uint64_t>();
    case ScalarKind::F32:
      return f.template operator()<float>();
    case ScalarKind::F64:
      break;
  }
  return f.template operator()<double>();
}

// Whether operator Op has a meaning of the functor's on lanes of type T (else: the
// table's math function, or no meaning at all: `not` of a number).
template <PrimId Op, class T>
constexpr bool op_defined() {
  if constexpr (Op == PrimId::Not) return std::is_same_v<T, bool>;
  if constexpr (Op == PrimId::Floor || Op == PrimId::Ceil || Op == PrimId::Fmin ||
                Op == PrimId::Fmax)
    return !std::is_floating_point_v<T>;
  return true;
}

// The type of x Op y: bool for the comparisons, T otherwise.
template <PrimId Op, class T>
using OpResult =
    std::conditional_t<Op == PrimId::Gt || Op == PrimId::Lt || Op == PrimId::Equal, bool, T>;

// Whether x Op y has no result (integer division and modulo).
template <PrimId Op, class T>
constexpr OpFault op_fault(T x, T y) {
  if constexpr ((Op == PrimId::Div || Op == PrimId::Mod) && !std::is_floating_point_v<T>) {
    if (y == 0) return OpFault::DivByZero;
    if constexpr (std::is_signed_v<T>)
      if (y == -1 && x == std::numeric_limits<T>::min()) return OpFault::DivOverflow;
  }
  return OpFault::None;
}

namespace scalar_ops_detail {
// An integer result computed on 64 bits, wrapped to T (modular conversion, C++20).
template <class T>
constexpr T wrap(uint64_t v) {
  if constexpr (std::is_same_v<T, bool>)
    return v != 0;
  else
    return static_cast<T>(v);
}
template <class T>
constexpr uint64_t bits(T x) {
  return static_cast<uint64_t>(x);
}
}  // namespace scalar_ops_detail

// x Op y (y unused by the one-argument operators), for op_defined<Op, T>() and when
// op_fault(x, y) is None.
template <PrimId Op, class T>
constexpr OpResult<Op, T> apply_op(T x, [[maybe_unused]] T y) {
  static_assert(op_defined<Op, T>());
  using scalar_ops_detail::bits;
  using scalar_ops_detail::wrap;
  constexpr bool fp = std::is_floating_point_v<T>;
  if constexpr (Op == PrimId::Gt) {
    return x > y;
  } else if constexpr (Op == PrimId::Lt) {
    return x < y;
  } else if constexpr (Op == PrimId::Equal) {
    return x == y;
  } else if constexpr (Op == PrimId::Not) {
    return !x;
  } else if constexpr (fp) {
    if constexpr (Op == PrimId::Neg) return -x;
    if constexpr (Op == PrimId::Add) return x + y;
    if constexpr (Op == PrimId::Sub) return x - y;
    if constexpr (Op == PrimId::Mul) return x * y;
    if constexpr (Op == PrimId::Div) return x / y;
    if constexpr (Op == PrimId::Mod) return std::fmod(x, y);
    if constexpr (Op == PrimId::Abs) return std::fabs(x);
  } else {
    if constexpr (Op == PrimId::Neg) return wrap<T>(0 - bits(x));
    if constexpr (Op == PrimId::Add) return wrap<T>(bits(x) + bits(y));
    if constexpr (Op == PrimId::Sub) return wrap<T>(bits(x) - bits(y));
    if constexpr (Op == PrimId::Mul) return wrap<T>(bits(x) * bits(y));
    if constexpr (Op == PrimId::Div) {
      if constexpr (std::is_signed_v<T>)
        if (y == -1) return wrap<T>(0 - bits(x));  // (the least value is a fault)
      return static_cast<T>(x / y);
    }
    if constexpr (Op == PrimId::Mod) {
      if constexpr (std::is_signed_v<T>)
        if (y == -1) return T{0};
      return static_cast<T>(x % y);
    }
    if constexpr (Op == PrimId::Abs) {
      if constexpr (std::is_signed_v<T>)
        if (x < 0) return wrap<T>(0 - bits(x));
      return x;
    }
    if constexpr (Op == PrimId::Floor || Op == PrimId::Ceil) return x;
    if constexpr (Op == PrimId::Fmin) return x < y ? x : y;
    if constexpr (Op == PrimId::Fmax) return x > y ? x : y;
  }
}

}  // namespace risec::rise
