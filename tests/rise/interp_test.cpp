// Unit tests of the reference interpreter: every primitive's meaning on small,
// hand-checked cases (called directly through PrimCall, so no parser or type checker
// is needed), C integer semantics, f32 arithmetic in float, closures and dependent
// functions on hand-typed expressions, and the conversions to and from NdArray.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "rise/interp.h"
#include "rise/interp_prims.h"
#include "rise/primitives.h"
#include "support/random.h"

namespace risec::rise {
namespace {

// ---- types ----
const Type F32 = scalar(ScalarKind::F32);
const Type F64 = scalar(ScalarKind::F64);
const Type I32 = scalar(ScalarKind::I32);
const Type I8 = scalar(ScalarKind::I8);
const Type U8 = scalar(ScalarKind::U8);
const Type U32 = scalar(ScalarKind::U32);
const Type BOOL = scalar(ScalarKind::Bool);

Type arr(int64_t n, Type e) {
  return array(Nat(n), std::move(e));
}
Type idx(int64_t n) {
  return index_type(Nat(n));
}
// fn({a, b, r}) = a -> b -> r
Type fn(std::vector<Type> ts) {
  Type t = ts.back();
  for (size_t i = ts.size() - 1; i-- > 0;) t = fun(ts[i], t);
  return t;
}

// ---- values ----
Value f(float x) {
  return Value::f32(x);
}
Value i(int64_t x) {
  return Value::integer(ScalarKind::I32, x);
}
Value vf(const std::vector<float>& xs) {
  ArrayBuilder b(F32, static_cast<int64_t>(xs.size()));
  for (float x : xs) b.push(Value::f32(x));
  return b.finish();
}
Value vi(const std::vector<int64_t>& xs, ScalarKind k = ScalarKind::I32) {
  ArrayBuilder b(scalar(k), static_cast<int64_t>(xs.size()));
  for (int64_t x : xs) b.push(Value::integer(k, x));
  return b.finish();
}
// rows x cols matrix of i32 with element r*10 + c
Value mat(int64_t rows, int64_t cols) {
  ArrayBuilder b(arr(cols, I32), rows);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int64_t> row;
    for (int64_t c = 0; c < cols; ++c) row.push_back(r * 10 + c);
    b.push(vi(row));
  }
  return b.finish();
}
Value indices(const std::vector<int64_t>& xs, int64_t n) {
  ArrayBuilder b(idx(n), static_cast<int64_t>(xs.size()));
  for (int64_t x : xs) b.push(Value::index(x, n));
  return b.finish();
}
std::string S(const Value& v) {
  return v.to_string();
}

// ---- primitive calls ----
Value call(PrimId id, const Type& fn_type, std::vector<Value> args,
           std::vector<TypeArg> deps = {}) {
  PrimCall c;
  c.prim = &primitive(id);
  c.fn_type = fn_type;
  c.dep_args = std::move(deps);
  c.args = std::move(args);
  return c.prim->eval(c);
}
// By name, for tests that loop over primitives.
Value call(const std::string& name, const Type& fn_type, std::vector<Value> args,
           std::vector<TypeArg> deps = {}) {
  const PrimitiveInfo* p = find_primitive(name);
  if (!p) throw std::runtime_error("no primitive " + name);
  return call(p->id, fn_type, std::move(args), std::move(deps));
}
Value bin(const std::string& name, const Value& a, const Value& b, const Type& t) {
  return call(find_primitive(name)->id, fn({t, t, t}), {a, b});
}

// A primitive as a function value (a partially applied primitive with no arguments).
Value prim_value(const std::string& name, const Type& t, std::vector<TypeArg> deps = {}) {
  Expr e = with_type(prim_expr(find_primitive(name)->id), t);
  for (const TypeArg& d : deps) e = with_type(dep_app(e, d), t);
  Interpreter interp;
  return interp.eval(e);
}

// ---- hand-typed expressions ----
Expr P(const std::string& name, Type t) {
  return with_type(prim_expr(find_primitive(name)->id), std::move(t));
}
Expr A(Expr f, Expr x) {
  Type r = f->type->b;
  return with_type(app(std::move(f), std::move(x)), r);
}
Expr A(Expr f, Expr x, Expr y) {
  return A(A(std::move(f), std::move(x)), std::move(y));
}
Expr D(Expr f, TypeArg a) {  // dependent application of a primitive: same type
  Type t = f->type;
  return with_type(dep_app(std::move(f), std::move(a)), t);
}
Expr V(const std::string& name, Type t) {
  return with_type(ident(name), std::move(t));
}
Expr L(const std::string& name, Type pt, Expr body) {
  Type t = fun(std::move(pt), body->type);
  return with_type(lambda(name, std::move(body)), t);
}
Expr LI(int64_t x, Type t = I32) {
  return with_type(int_lit(x), std::move(t));
}

// Expect a risec::Error of `kind` whose message contains `text`.
template <class F>
void expect_error(ErrorKind kind, F&& fn, const std::string& text) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one containing \"" << text << "\"";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.message();
    EXPECT_NE(e.message().find(text), std::string::npos) << e.message();
  }
}

// An index made from data out of range: a run-time error of the program (exit 4), as
// compiled code reports it.
template <class F>
void expect_runtime_fault(F&& fn, const std::string& text) {
  expect_error(ErrorKind::External, fn, text);
}

// Expect a risec::Error of kind User whose message contains `text`.
template <class F>
void expect_user_error(F&& fn, const std::string& text) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one containing \"" << text << "\"";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User) << e.message();
    EXPECT_NE(e.message().find(text), std::string::npos) << e.message();
  }
}

// =================================================================================
// Scalars
// =================================================================================

TEST(InterpScalar, IntegerArithmeticI32) {
  EXPECT_EQ(S(bin("add", i(2), i(3), I32)), "5");
  EXPECT_EQ(S(bin("sub", i(2), i(3), I32)), "-1");
  EXPECT_EQ(S(bin("mul", i(-4), i(3), I32)), "-12");
  EXPECT_EQ(S(bin("div", i(7), i(2), I32)), "3");
  EXPECT_EQ(S(bin("div", i(-7), i(2), I32)), "-3");  // truncation towards zero
  EXPECT_EQ(S(bin("mod", i(-7), i(3), I32)), "-1");  // sign of the dividend
  EXPECT_EQ(S(bin("mod", i(7), i(-3), I32)), "1");
  EXPECT_EQ(S(call(PrimId::Neg, fn({I32, I32}), {i(5)})), "-5");
}

TEST(InterpScalar, SignedOverflowWraps) {
  EXPECT_EQ(S(bin("add", i(2147483647), i(1), I32)), "-2147483648");
  EXPECT_EQ(S(bin("mul", i(65536), i(65536), I32)), "0");
  // The least value divided by -1 has no result: a run-time error, as division by zero.
  expect_error(
      ErrorKind::External, [] { bin("div", i(-2147483648LL), i(-1), I32); }, "integer overflow");
  expect_error(
      ErrorKind::External, [] { bin("mod", i(-2147483648LL), i(-1), I32); },
      "the least i32 modulo -1");
  EXPECT_EQ(S(bin("div", i(-2147483647LL), i(-1), I32)), "2147483647");
  Value a = Value::integer(ScalarKind::I8, 127);
  EXPECT_EQ(bin("add", a, Value::integer(ScalarKind::I8, 1), I8).as_i64(), -128);
  Value m = Value::integer(ScalarKind::I8, -128);
  expect_error(
      ErrorKind::External, [&] { bin("div", m, Value::integer(ScalarKind::I8, -1), I8); },
      "integer overflow");
  EXPECT_EQ(call(PrimId::Neg, fn({I8, I8}), {m}).as_i64(), -128);
  EXPECT_EQ(call(PrimId::Abs, fn({I32, I32}), {i(-2147483648LL)}).as_i64(), -2147483648LL);
  Type I64 = scalar(ScalarKind::I64);
  Value big = Value::integer(ScalarKind::I64, std::numeric_limits<int64_t>::min());
  expect_error(
      ErrorKind::External, [&] { bin("div", big, Value::integer(ScalarKind::I64, -1), I64); },
      "integer overflow");
  EXPECT_EQ(bin("sub", big, Value::integer(ScalarKind::I64, 1), I64).as_i64(),
            std::numeric_limits<int64_t>::max());
}

TEST(InterpScalar, UnsignedWraparound) {
  Value a = Value::integer(ScalarKind::U8, 200), b = Value::integer(ScalarKind::U8, 100);
  EXPECT_EQ(bin("add", a, b, U8).as_i64(), 44);
  EXPECT_EQ(bin("sub", b, a, U8).as_i64(), 156);
  EXPECT_EQ(bin("mul", a, b, U8).as_i64(), (200 * 100) % 256);
  EXPECT_EQ(call(PrimId::Neg, fn({U8, U8}), {Value::integer(ScalarKind::U8, 1)}).as_i64(), 255);
  EXPECT_EQ(Value::integer(ScalarKind::U8, 300).as_i64(), 44);
  Value big = Value::integer(ScalarKind::U32, 4294967295LL);
  EXPECT_EQ(bin("add", big, Value::integer(ScalarKind::U32, 1), U32).as_i64(), 0);
  EXPECT_EQ(bin("div", big, Value::integer(ScalarKind::U32, 2), U32).as_i64(), 2147483647);
  EXPECT_TRUE(
      call(PrimId::Gt, fn({U32, U32, BOOL}), {big, Value::integer(ScalarKind::U32, 1)}).as_bool());
  Type U64 = scalar(ScalarKind::U64);
  Value top = Value::from_u64(ScalarKind::U64, 0xFFFFFFFFFFFFFFFFull);
  Value two = Value::integer(ScalarKind::U64, 2);
  EXPECT_EQ(bin("div", top, two, U64).as_u64(), 0x7FFFFFFFFFFFFFFFull);
  EXPECT_EQ(bin("mod", top, Value::integer(ScalarKind::U64, 10), U64).as_u64(),
            0xFFFFFFFFFFFFFFFFull % 10);
  EXPECT_TRUE(call(PrimId::Gt, fn({U64, U64, BOOL}), {top, two}).as_bool());
  EXPECT_FALSE(call(PrimId::Lt, fn({U64, U64, BOOL}), {top, two}).as_bool());
  EXPECT_EQ(S(top), "18446744073709551615");
}

TEST(InterpScalar, DivisionByZeroIsAUserErrorWithSpan) {
  auto src = std::make_shared<SourceFile>(SourceFile{"t.rise", "a / b"});
  PrimCall c;
  c.prim = find_primitive("div");
  c.fn_type = fn({I32, I32, I32});
  c.args = {i(1), i(0)};
  c.span = Span{src, 0, 5};
  try {
    c.prim->eval(c);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::External);
    EXPECT_EQ(e.message(), "integer division by zero in `a / b`");
    EXPECT_EQ(e.span().file, src);
    EXPECT_EQ(e.span().end, 5u);
  }
  // `%` is a modulo, in the words generated code uses for it
  expect_error(
      ErrorKind::External, [] { bin("mod", i(1), i(0), I32); }, "integer modulo by zero");
  expect_error(
      ErrorKind::External,
      [] { bin("div", Value::integer(ScalarKind::U8, 1), Value::integer(ScalarKind::U8, 0), U8); },
      "division by zero");
  // Floating-point division by zero is IEEE.
  EXPECT_TRUE(std::isinf(bin("div", f(1), f(0), F32).as_f32()));
}

TEST(InterpScalar, F32ArithmeticIsDoneInFloat) {
  EXPECT_EQ(bin("add", f(16777216.0f), f(1.0f), F32).as_f32(), 16777216.0f);
  EXPECT_EQ(bin("add", Value::f64(16777216.0), Value::f64(1.0), F64).as_f64(), 16777217.0);
  // 0.1f + 0.2f in float differs from the double sum rounded to float.
  float sum = 0.1f;
  sum += 0.2f;
  EXPECT_EQ(bin("add", f(0.1f), f(0.2f), F32).as_f32(), sum);
  EXPECT_EQ(bin("mul", f(1.1f), f(1.1f), F32).as_f32(), 1.1f * 1.1f);
  EXPECT_EQ(bin("div", f(1.0f), f(3.0f), F32).as_f32(), 1.0f / 3.0f);
  EXPECT_EQ(bin("mod", f(7.5f), f(2.0f), F32).as_f32(), 1.5f);
  EXPECT_EQ(call(PrimId::Neg, fn({F32, F32}), {f(2.5f)}).as_f32(), -2.5f);
}

TEST(InterpScalar, BoolArithmeticFollowsC) {
  Value t = Value::boolean(true), fl = Value::boolean(false);
  EXPECT_TRUE(bin("add", t, t, BOOL).as_bool());
  EXPECT_FALSE(bin("sub", t, t, BOOL).as_bool());
  EXPECT_FALSE(bin("mul", t, fl, BOOL).as_bool());
  EXPECT_FALSE(call(PrimId::Not, fn({BOOL, BOOL}), {t}).as_bool());
  EXPECT_TRUE(call(PrimId::Not, fn({BOOL, BOOL}), {fl}).as_bool());
  EXPECT_TRUE(call(PrimId::Equal, fn({BOOL, BOOL, BOOL}), {t, t}).as_bool());
}

TEST(InterpScalar, Comparisons) {
  EXPECT_TRUE(call(PrimId::Gt, fn({I32, I32, BOOL}), {i(3), i(2)}).as_bool());
  EXPECT_FALSE(call(PrimId::Lt, fn({I32, I32, BOOL}), {i(3), i(2)}).as_bool());
  EXPECT_TRUE(call(PrimId::Lt, fn({I32, I32, BOOL}), {i(-3), i(2)}).as_bool());
  EXPECT_TRUE(call(PrimId::Equal, fn({F32, F32, BOOL}), {f(1.5f), f(1.5f)}).as_bool());
  float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(call(PrimId::Equal, fn({F32, F32, BOOL}), {f(nan), f(nan)}).as_bool());
  EXPECT_FALSE(call(PrimId::Gt, fn({F32, F32, BOOL}), {f(nan), f(0)}).as_bool());
  // equal on indices and on structured data
  EXPECT_TRUE(
      call(PrimId::Equal, fn({idx(4), idx(4), BOOL}), {Value::index(2, 4), Value::index(2, 4)})
          .as_bool());
  Type pt = pair(I32, F32);
  EXPECT_TRUE(
      call(PrimId::Equal, fn({pt, pt, BOOL}), {Value::pair(i(1), f(2)), Value::pair(i(1), f(2))})
          .as_bool());
  EXPECT_FALSE(
      call(PrimId::Equal, fn({pt, pt, BOOL}), {Value::pair(i(1), f(2)), Value::pair(i(1), f(3))})
          .as_bool());
}

TEST(InterpScalar, Select) {
  Type t = fn({BOOL, F32, F32, F32});
  EXPECT_EQ(call(PrimId::Select, t, {Value::boolean(true), f(1), f(2)}).as_f32(), 1.0f);
  EXPECT_EQ(call(PrimId::Select, t, {Value::boolean(false), f(1), f(2)}).as_f32(), 2.0f);
  Type vt = vector(ScalarKind::F32, Nat(2));
  Value a = Value::vector(ScalarKind::F32, {f(1), f(2)});
  Value b = Value::vector(ScalarKind::F32, {f(3), f(4)});
  EXPECT_EQ(S(call(PrimId::Select, fn({BOOL, vt, vt, vt}), {Value::boolean(false), a, b})),
            "<3f, 4f>");
}

TEST(InterpScalar, Casts) {
  auto cast = [](const Value& v, Type from, Type to) {
    return call(PrimId::Cast, fn({from, to}), {v});
  };
  EXPECT_EQ(cast(f(3.7f), F32, I32).as_i64(), 3);
  EXPECT_EQ(cast(f(-3.7f), F32, I32).as_i64(), -3);
  EXPECT_EQ(cast(i(300), I32, U8).as_i64(), 44);
  EXPECT_EQ(cast(i(-1), I32, U32).as_i64(), 4294967295LL);
  EXPECT_EQ(cast(i(-1), I32, scalar(ScalarKind::U64)).as_u64(), 0xFFFFFFFFFFFFFFFFull);
  EXPECT_EQ(cast(Value::integer(ScalarKind::U8, 200), U8, I8).as_i64(), -56);
  EXPECT_EQ(cast(i(16777217), I32, F32).as_f32(), 16777216.0f);
  EXPECT_EQ(cast(Value::f64(0.1), F64, F32).as_f32(), 0.1f);
  EXPECT_EQ(cast(f(0.1f), F32, F64).as_f64(), static_cast<double>(0.1f));
  EXPECT_TRUE(cast(i(5), I32, BOOL).as_bool());
  EXPECT_TRUE(cast(f(0.5f), F32, BOOL).as_bool());
  EXPECT_EQ(cast(Value::boolean(true), BOOL, F32).as_f32(), 1.0f);
  // Out of range float -> int saturates; NaN -> 0 (C leaves both undefined).
  EXPECT_EQ(cast(f(1e20f), F32, I32).as_i64(), 2147483647);
  EXPECT_EQ(cast(f(-1e20f), F32, I32).as_i64(), -2147483648LL);
  EXPECT_EQ(cast(f(std::nanf("")), F32, I32).as_i64(), 0);
  EXPECT_EQ(cast(f(-5.0f), F32, U8).as_i64(), 0);
  EXPECT_EQ(cast(f(1000.0f), F32, U8).as_i64(), 255);
  // indices and natType to numbers and back
  EXPECT_EQ(cast(Value::index(3, 8), idx(8), I32).as_i64(), 3);
  EXPECT_EQ(cast(Value::nat(9), nat_data(), F32).as_f32(), 9.0f);
  EXPECT_EQ(cast(i(3), I32, idx(8)).index_value(), 3);
  expect_runtime_fault([&] { cast(i(8), I32, idx(8)); }, "out of range");
  // the identity on equal types of any kind; other structured casts are errors
  EXPECT_EQ(S(cast(vf({1, 2}), arr(2, F32), arr(2, F32))), "[1f, 2f]");
  expect_user_error([&] { cast(vf({1, 2}), arr(2, F32), arr(2, I32)); }, "not supported");
  // lane-wise on vectors
  Type v2 = vector(ScalarKind::F32, Nat(2)), w2 = vector(ScalarKind::I32, Nat(2));
  EXPECT_EQ(S(cast(Value::vector(ScalarKind::F32, {f(1.5f), f(-2.5f)}), v2, w2)), "<1, -2>");
}

TEST(InterpScalar, IndexAndNat) {
  EXPECT_EQ(call(PrimId::IndexAsNat, fn({idx(5), nat_data()}), {Value::index(3, 5)}).nat_value(),
            3);
  Value r = call(PrimId::NatAsIndex, fn({nat_data(), idx(5)}), {Value::nat(4)}, {Nat(5)});
  EXPECT_EQ(r.index_value(), 4);
  EXPECT_EQ(r.index_bound(), 5);
  expect_runtime_fault(
      [] {
        call(PrimId::NatAsIndex, fn({nat_data(), idx(5)}), {Value::nat(5)}, {Nat(5)});
      },
      "out of range");
  expect_user_error([] { Value::index(4, 4); }, "out of range");
  // arithmetic on natType values and on indices (results checked)
  EXPECT_EQ(bin("add", Value::nat(2), Value::nat(3), nat_data()).nat_value(), 5);
  expect_user_error([] { bin("sub", Value::nat(2), Value::nat(3), nat_data()); }, "negative");
  EXPECT_EQ(bin("add", Value::index(1, 4), Value::index(2, 4), idx(4)).index_value(), 3);
  expect_runtime_fault([] { bin("add", Value::index(3, 4), Value::index(2, 4), idx(4)); },
                       "out of range");
}

TEST(InterpScalar, MathF32UsesFloatFunctions) {
  auto un = [](const char* name, float x) { return call(name, fn({F32, F32}), {f(x)}).as_f32(); };
  EXPECT_EQ(un("sqrt", 2.0f), std::sqrt(2.0f));
  EXPECT_EQ(un("rsqrt", 4.0f), 0.5f);
  EXPECT_EQ(un("exp", 1.0f), std::exp(1.0f));
  EXPECT_EQ(un("log", 10.0f), std::log(10.0f));
  EXPECT_EQ(un("sin", 0.5f), std::sin(0.5f));
  EXPECT_EQ(un("cos", 0.5f), std::cos(0.5f));
  EXPECT_EQ(un("tan", 0.5f), std::tan(0.5f));
  EXPECT_EQ(un("tanh", 0.5f), std::tanh(0.5f));
  EXPECT_EQ(un("abs", -1.25f), 1.25f);
  EXPECT_EQ(un("floor", -1.25f), -2.0f);
  EXPECT_EQ(un("ceil", -1.25f), -1.0f);
  EXPECT_EQ(un("erf", 0.3f), std::erf(0.3f));
  EXPECT_EQ(bin("pow", f(2.0f), f(10.0f), F32).as_f32(), 1024.0f);
  EXPECT_EQ(bin("fmin", f(2.0f), f(-1.0f), F32).as_f32(), -1.0f);
  EXPECT_EQ(bin("fmax", f(2.0f), f(-1.0f), F32).as_f32(), 2.0f);
  EXPECT_EQ(bin("fmin", f(std::nanf("")), f(1.0f), F32).as_f32(), 1.0f);  // C fminf
  EXPECT_EQ(call(PrimId::Sqrt, fn({F64, F64}), {Value::f64(2.0)}).as_f64(), std::sqrt(2.0));
  EXPECT_EQ(call(PrimId::Erf, fn({F64, F64}), {Value::f64(0.3)}).as_f64(), std::erf(0.3));
}

TEST(InterpScalar, VectorsAreLaneWise) {
  Type v4 = vector(ScalarKind::F32, Nat(4));
  Value a = Value::vector(ScalarKind::F32, {f(1), f(2), f(3), f(4)});
  Value b = Value::vector(ScalarKind::F32, {f(10), f(20), f(30), f(40)});
  EXPECT_EQ(S(bin("add", a, b, v4)), "<11f, 22f, 33f, 44f>");
  EXPECT_EQ(S(bin("mul", a, b, v4)), "<10f, 40f, 90f, 160f>");
  EXPECT_EQ(S(call(PrimId::Neg, fn({v4, v4}), {a})), "<-1f, -2f, -3f, -4f>");
  EXPECT_EQ(S(call(PrimId::Sqrt, fn({v4, v4}), {b})).substr(0, 12), "<3.1622777f,");
  // comparisons of vectors are masks (vectors of bools), lane by lane
  Type m4 = vector(ScalarKind::Bool, Nat(4));
  Value c = Value::vector(ScalarKind::F32, {f(1), f(0), f(3), f(5)});
  EXPECT_EQ(S(call(PrimId::Equal, fn({v4, v4, m4}), {a, c})), "<true, false, true, false>");
  EXPECT_EQ(S(call(PrimId::Lt, fn({v4, v4, m4}), {a, c})), "<false, false, false, true>");
  Value m = call(PrimId::Gt, fn({v4, v4, m4}), {a, c});
  EXPECT_EQ(S(m), "<false, true, false, false>");
  EXPECT_EQ(S(call(PrimId::Not, fn({m4, m4}), {m})), "<true, false, true, true>");
  EXPECT_EQ(S(call(PrimId::Select, fn({m4, v4, v4, v4}), {m, a, b})), "<10f, 2f, 30f, 40f>");
  EXPECT_TRUE(call(PrimId::Any, fn({m4, BOOL}), {m}).as_bool());
  EXPECT_FALSE(call(PrimId::All, fn({m4, BOOL}), {m}).as_bool());
  Type w = vector(ScalarKind::I32, Nat(2));
  expect_error(
      ErrorKind::External,
      [&] {
        bin("div", Value::vector(ScalarKind::I32, {i(1), i(2)}),
            Value::vector(ScalarKind::I32, {i(1), i(0)}), w);
      },
      "division by zero");
  Value v = call(PrimId::VectorFromScalar, fn({F32, v4}), {f(7)});
  EXPECT_EQ(S(v), "<7f, 7f, 7f, 7f>");
}

// =================================================================================
// Arrays
// =================================================================================

TEST(InterpArray, MakeArrayAndGenerate) {
  PrimCall c;
  c.count = 3;
  c.fn_type = fn({I32, I32, I32, arr(3, I32)});
  c.args = {i(4), i(5), i(6)};
  EXPECT_EQ(S(eval_makeArray(c)), "[4, 5, 6]");
  Value sq =
      Value::native("sq", [](const Value& x) { return i(x.index_value() * x.index_value()); });
  EXPECT_EQ(S(call(PrimId::Generate, fn({fn({idx(4), I32}), arr(4, I32)}), {sq})), "[0, 1, 4, 9]");
  // arrays of arrays built by makeArray are dense
  PrimCall c2;
  c2.count = 2;
  c2.fn_type = fn({arr(2, I32), arr(2, I32), arr(2, arr(2, I32))});
  c2.args = {vi({1, 2}), vi({3, 4})};
  Value m = eval_makeArray(c2);
  EXPECT_EQ(S(m), "[[1, 2], [3, 4]]");
  EXPECT_EQ(m.obj()->tag, Obj::Tag::Dense);
}

TEST(InterpArray, Idx) {
  Value x = vi({5, 6, 7});
  Type t = fn({idx(3), arr(3, I32), I32});
  EXPECT_EQ(S(call(PrimId::Idx, t, {Value::index(2, 3), x})), "7");
  EXPECT_EQ(S(call(PrimId::Idx, fn({idx(2), arr(2, arr(3, I32)), arr(3, I32)}),
                   {Value::index(1, 2), mat(2, 3)})),
            "[10, 11, 12]");
  // An index whose bound disagrees with the array (a bug elsewhere) is caught.
  expect_runtime_fault([&] { call(PrimId::Idx, t, {Value::index(3, 4), x}); }, "out of range");
}

TEST(InterpArray, TakeDropConcat) {
  Value x = vi({1, 2, 3, 4, 5});
  EXPECT_EQ(S(call(PrimId::Take, fn({arr(5, I32), arr(2, I32)}), {x}, {Nat(2)})), "[1, 2]");
  EXPECT_EQ(S(call(PrimId::Drop, fn({arr(5, I32), arr(3, I32)}), {x}, {Nat(2)})), "[3, 4, 5]");
  EXPECT_EQ(S(call(PrimId::Drop, fn({arr(5, I32), arr(0, I32)}), {x}, {Nat(5)})), "[]");
  EXPECT_EQ(S(call(PrimId::Concat, fn({arr(2, I32), arr(3, I32), arr(5, I32)}),
                   {vi({1, 2}), vi({3, 4, 5})})),
            "[1, 2, 3, 4, 5]");
  // concat of 2-D arrays and of a view
  Value m = mat(2, 2);
  Value t = call(PrimId::Transpose, fn({arr(2, arr(2, I32)), arr(2, arr(2, I32))}), {m});
  EXPECT_EQ(S(call(PrimId::Concat,
                   fn({arr(2, arr(2, I32)), arr(2, arr(2, I32)), arr(4, arr(2, I32))}), {m, t})),
            "[[0, 1], [10, 11], [0, 10], [1, 11]]");
}

TEST(InterpArray, SplitJoin) {
  Value x = vi({1, 2, 3, 4, 5, 6});
  Value s = call(PrimId::Split, fn({arr(6, I32), arr(3, arr(2, I32))}), {x}, {Nat(2)});
  EXPECT_EQ(S(s), "[[1, 2], [3, 4], [5, 6]]");
  EXPECT_EQ(S(call(PrimId::Join, fn({arr(3, arr(2, I32)), arr(6, I32)}), {s})),
            "[1, 2, 3, 4, 5, 6]");
  // join of a non-contiguous view (a transpose) copies
  Value t = call(PrimId::Transpose, fn({arr(3, arr(2, I32)), arr(2, arr(3, I32))}), {s});
  EXPECT_EQ(S(call(PrimId::Join, fn({arr(2, arr(3, I32)), arr(6, I32)}), {t})),
            "[1, 3, 5, 2, 4, 6]");
  // split of a strided view (a column of a matrix)
  Value col =
      call(PrimId::Idx, fn({idx(3), arr(3, arr(4, I32)), arr(4, I32)}),
           {Value::index(1, 3),
            call(PrimId::Transpose, fn({arr(4, arr(3, I32)), arr(3, arr(4, I32))}), {mat(4, 3)})});
  EXPECT_EQ(S(col), "[1, 11, 21, 31]");
  EXPECT_EQ(S(call(PrimId::Split, fn({arr(4, I32), arr(2, arr(2, I32))}), {col}, {Nat(2)})),
            "[[1, 11], [21, 31]]");
}

TEST(InterpArray, Slide) {
  Value x = vi({1, 2, 3, 4, 5});
  EXPECT_EQ(S(call(PrimId::Slide, fn({arr(5, I32), arr(3, arr(3, I32))}), {x}, {Nat(3), Nat(1)})),
            "[[1, 2, 3], [2, 3, 4], [3, 4, 5]]");
  EXPECT_EQ(S(call(PrimId::Slide, fn({arr(5, I32), arr(2, arr(3, I32))}), {x}, {Nat(3), Nat(2)})),
            "[[1, 2, 3], [3, 4, 5]]");
  EXPECT_EQ(S(call(PrimId::Slide, fn({arr(5, I32), arr(2, arr(2, I32))}), {vi({1, 2, 3, 4, 5})},
                   {Nat(2), Nat(3)})),
            "[[1, 2], [4, 5]]");
}

TEST(InterpArray, Transpose) {
  Value m = mat(2, 3);
  Value t = call(PrimId::Transpose, fn({arr(2, arr(3, I32)), arr(3, arr(2, I32))}), {m});
  EXPECT_EQ(S(t), "[[0, 10], [1, 11], [2, 12]]");
  // three dimensions: swaps the outer two only
  Value x3 = call(PrimId::Split, fn({arr(8, I32), arr(4, arr(2, I32))}),
                  {vi({0, 1, 2, 3, 4, 5, 6, 7})}, {Nat(2)});
  x3 = call(PrimId::Split, fn({arr(4, arr(2, I32)), arr(2, arr(2, arr(2, I32)))}), {x3}, {Nat(2)});
  EXPECT_EQ(S(x3), "[[[0, 1], [2, 3]], [[4, 5], [6, 7]]]");
  Type t3 = arr(2, arr(2, arr(2, I32)));
  EXPECT_EQ(S(call(PrimId::Transpose, fn({t3, t3}), {x3})), "[[[0, 1], [4, 5]], [[2, 3], [6, 7]]]");
  // transposing boxed arrays (of pairs)
  Value z0 = zip_arrays(vi({1, 2}), vi({3, 4}));
  Value z1 = zip_arrays(vi({5, 6}), vi({7, 8}));
  Type pt = pair(I32, I32);
  Value zz = boxed_array({z0, z1});
  EXPECT_EQ(S(call(PrimId::Transpose, fn({arr(2, arr(2, pt)), arr(2, arr(2, pt))}), {zz})),
            "[[(1, 3), (5, 7)], [(2, 4), (6, 8)]]");
}

TEST(InterpArray, GatherScatterReorder) {
  Value x = vi({10, 20, 30, 40});
  EXPECT_EQ(S(call(PrimId::Gather, fn({arr(3, idx(4)), arr(4, I32), arr(3, I32)}),
                   {indices({3, 0, 3}, 4), x})),
            "[40, 10, 40]");
  // scatter: result[indices[i]] = x[i]; unset positions are zero; the last write wins.
  EXPECT_EQ(S(call(PrimId::Scatter, fn({arr(3, idx(5)), arr(3, I32), arr(5, I32)}),
                   {indices({4, 1, 4}, 5), vi({7, 8, 9})})),
            "[0, 8, 0, 0, 9]");
  // update(i)(v)(x): x with element i replaced by v; an index out of range is an error.
  EXPECT_EQ(S(call(PrimId::Update, fn({idx(4), I32, arr(4, I32), arr(4, I32)}),
                   {Value::index(2, 4), i(7), x})),
            "[10, 20, 7, 40]");
  expect_runtime_fault(
      [&] {
        call(PrimId::Update, fn({idx(4), I32, arr(4, I32), arr(4, I32)}),
             {Value::index(5, 6), i(7), x});
      },
      "out of range");
  // reorder(n)(f)(finv): result[i] = x[f(i)]
  NatFun rev{"i", Nat(3) - Nat::var("i")};
  Value r = call(PrimId::Reorder, fn({arr(4, I32), arr(4, I32)}), {x}, {Nat(4), rev, rev});
  EXPECT_EQ(S(r), "[40, 30, 20, 10]");
  NatFun rot{"i", arith::mod(Nat::var("i") + 1, Nat(4))};
  NatFun rotinv{"i", arith::mod(Nat::var("i") + 3, Nat(4))};
  EXPECT_EQ(S(call(PrimId::Reorder, fn({arr(4, I32), arr(4, I32)}), {x}, {Nat(4), rot, rotinv})),
            "[20, 30, 40, 10]");
}

TEST(InterpArray, Padding) {
  Value x = vi({1, 2, 3});
  EXPECT_EQ(
      S(call(PrimId::PadCst, fn({I32, arr(3, I32), arr(6, I32)}), {i(0), x}, {Nat(1), Nat(2)})),
      "[0, 1, 2, 3, 0, 0]");
  EXPECT_EQ(S(call(PrimId::PadClamp, fn({arr(3, I32), arr(7, I32)}), {x}, {Nat(2), Nat(2)})),
            "[1, 1, 1, 2, 3, 3, 3]");
  EXPECT_EQ(S(call(PrimId::PadEmpty, fn({arr(3, I32), arr(5, I32)}), {x}, {Nat(2)})),
            "[1, 2, 3, 0, 0]");
  // 2-D: padding the outer dimension repeats rows
  Value m = mat(2, 2);
  Type m22 = arr(2, arr(2, I32));
  EXPECT_EQ(S(call(PrimId::PadClamp, fn({m22, arr(3, arr(2, I32))}), {m}, {Nat(0), Nat(1)})),
            "[[0, 1], [10, 11], [10, 11]]");
  EXPECT_EQ(S(call(PrimId::PadCst, fn({arr(2, I32), m22, arr(3, arr(2, I32))}), {vi({-1, -1}), m},
                   {Nat(1), Nat(0)})),
            "[[-1, -1], [0, 1], [10, 11]]");
  expect_user_error(
      [] {
        call(PrimId::PadClamp, fn({arr(0, I32), arr(2, I32)}), {vi({})}, {Nat(1), Nat(1)});
      },
      "empty");
}

TEST(InterpArray, Reverse) {
  // reverse(x)[i] = x[n-1-i], on scalars and on rows
  EXPECT_EQ(S(call(PrimId::Reverse, fn({arr(3, I32), arr(3, I32)}), {vi({1, 2, 3})})), "[3, 2, 1]");
  Type m22 = arr(2, arr(2, I32));
  EXPECT_EQ(S(call(PrimId::Reverse, fn({m22, m22}), {mat(2, 2)})), "[[10, 11], [0, 1]]");
  EXPECT_EQ(S(call(PrimId::Reverse, fn({arr(0, I32), arr(0, I32)}), {vi({})})), "[]");
}

TEST(InterpArray, ZipUnzipPairs) {
  Type pt = pair(I32, F32);
  Value z =
      call(PrimId::Zip, fn({arr(2, I32), arr(2, F32), arr(2, pt)}), {vi({1, 2}), vf({0.5f, 1.5f})});
  EXPECT_EQ(S(z), "[(1, 0.5f), (2, 1.5f)]");
  Value u = call(PrimId::Unzip, fn({arr(2, pt), pair(arr(2, I32), arr(2, F32))}), {z});
  EXPECT_EQ(S(u), "([1, 2], [0.5f, 1.5f])");
  // unzip of a boxed array of pairs
  Value b = boxed_array({Value::pair(i(1), f(2)), Value::pair(i(3), f(4))});
  EXPECT_EQ(S(call(PrimId::Unzip, fn({arr(2, pt), pair(arr(2, I32), arr(2, F32))}), {b})),
            "([1, 3], [2f, 4f])");
  Value p = call(PrimId::MakePair, fn({I32, F32, pt}), {i(1), f(2)});
  EXPECT_EQ(S(call(PrimId::Fst, fn({pt, I32}), {p})), "1");
  EXPECT_EQ(S(call(PrimId::Snd, fn({pt, F32}), {p})), "2f");
  Value inc = Value::native("inc", [](const Value& x) { return i(x.as_i64() + 1); });
  Value dbl = Value::native("dbl", [](const Value& x) { return f(x.as_f32() * 2); });
  EXPECT_EQ(S(call(PrimId::MapFst, fn({fn({I32, I32}), pt, pt}), {inc, p})), "(2, 2f)");
  EXPECT_EQ(S(call(PrimId::MapSnd, fn({fn({F32, F32}), pt, pt}), {dbl, p})), "(1, 4f)");
  expect_user_error(
      [] {
        call(PrimId::Zip, fn({arr(2, I32), arr(3, I32), arr(2, pair(I32, I32))}),
             {vi({1, 2}), vi({1, 2, 3})});
      },
      "zip");
}

TEST(InterpScalar, LaneReadsOneLane) {
  Type v4 = vector(ScalarKind::I32, Nat(4));
  Value v = Value::vector(ScalarKind::I32, {i(1), i(-2), i(3), i(40)});
  const int64_t want[] = {1, -2, 3, 40};
  for (int64_t l = 0; l < 4; ++l) {
    Value got = call(PrimId::Lane, fn({v4, I32}), {v}, {Nat(l)});
    EXPECT_EQ(got.as_i64(), want[l]);
  }
  // type checking refuses this; the interpreter still reports it, located
  expect_user_error([&] { call(PrimId::Lane, fn({v4, I32}), {v}, {Nat(4)}); }, "lane(4)");
}

TEST(InterpArray, AsVectorAsScalar) {
  Type v2 = vector(ScalarKind::F32, Nat(2));
  Value x = vf({1, 2, 3, 4, 5, 6});
  Value v = call(PrimId::AsVector, fn({arr(6, F32), arr(3, v2)}), {x}, {Nat(2)});
  EXPECT_EQ(S(v), "[<1f, 2f>, <3f, 4f>, <5f, 6f>]");
  EXPECT_EQ(S(call(PrimId::AsVectorAligned, fn({arr(6, F32), arr(3, v2)}), {x}, {Nat(2)})), S(v));
  Value s = call(PrimId::AsScalar, fn({arr(3, v2), arr(6, F32)}), {v});
  EXPECT_EQ(S(s), "[1f, 2f, 3f, 4f, 5f, 6f]");
  // a map over vectors gives a dense array of vectors, and back
  Value twice = prim_value("add", fn({v2, v2, v2}));
  Value mapped = call(
      PrimId::Map, fn({fn({v2, v2}), arr(3, v2), arr(3, v2)}),
      {Value::native("d", [&](const Value& a) { return Interpreter().apply(twice, a, a); }), v});
  EXPECT_EQ(mapped.obj()->tag, Obj::Tag::Dense);
  EXPECT_EQ(S(call(PrimId::AsScalar, fn({arr(3, v2), arr(6, F32)}), {mapped})),
            "[2f, 4f, 6f, 8f, 10f, 12f]");
  // asVector of a strided view
  Value col =
      call(PrimId::Idx, fn({idx(2), arr(2, arr(4, I32)), arr(4, I32)}),
           {Value::index(0, 2),
            call(PrimId::Transpose, fn({arr(4, arr(2, I32)), arr(2, arr(4, I32))}), {mat(4, 2)})});
  Type w2 = vector(ScalarKind::I32, Nat(2));
  EXPECT_EQ(S(call(PrimId::AsVector, fn({arr(4, I32), arr(2, w2)}), {col}, {Nat(2)})),
            "[<0, 10>, <20, 30>]");
}

TEST(InterpArray, EmptyArrays) {
  Value e = vi({});
  Value neg = prim_value("neg", fn({I32, I32}));
  EXPECT_EQ(S(call(PrimId::Map, fn({fn({I32, I32}), arr(0, I32), arr(0, I32)}), {neg, e})), "[]");
  Value s = call(PrimId::Split, fn({arr(0, I32), arr(0, arr(2, I32))}), {e}, {Nat(2)});
  EXPECT_EQ(S(s), "[]");
  EXPECT_EQ(S(call(PrimId::Join, fn({arr(0, arr(2, I32)), arr(0, I32)}), {s})), "[]");
  EXPECT_EQ(S(call(PrimId::Transpose, fn({arr(2, arr(0, I32)), arr(0, arr(2, I32))}), {mat(2, 0)})),
            "[]");
  EXPECT_EQ(S(zero_value(arr(0, arr(3, F32)))), "[]");
  EXPECT_EQ(S(zero_value(arr(2, pair(I32, idx(3))))), "[(0, lidx(0, 3)), (0, lidx(0, 3))]");
  EXPECT_EQ(to_ndarray(mat(2, 0), arr(2, arr(0, I32))).shape, (std::vector<int64_t>{2, 0}));
}

// =================================================================================
// Patterns
// =================================================================================

TEST(InterpPattern, MapVariants) {
  Value neg = prim_value("neg", fn({I32, I32}));
  Type t = fn({fn({I32, I32}), arr(3, I32), arr(3, I32)});
  for (const char* m : {"map", "mapSeq", "mapSeqUnroll", "mapPar"})
    EXPECT_EQ(S(call(m, t, {neg, vi({1, 2, 3})})), "[-1, -2, -3]") << m;
  for (const char* m : {"mapGlobal", "mapWorkGroup", "mapLocal"})
    EXPECT_EQ(S(call(m, t, {neg, vi({1, 2, 3})}, {Nat(0)})), "[-1, -2, -3]") << m;
  // map producing arrays gives a dense 2-D array
  Value row = Value::native("row", [](const Value& x) { return vi({x.as_i64(), x.as_i64() * 2}); });
  Value m2 = call(PrimId::Map, fn({fn({I32, arr(2, I32)}), arr(3, I32), arr(3, arr(2, I32))}),
                  {row, vi({1, 2, 3})});
  EXPECT_EQ(S(m2), "[[1, 2], [2, 4], [3, 6]]");
  EXPECT_EQ(m2.obj()->tag, Obj::Tag::Dense);
}

TEST(InterpPattern, ReduceIsALeftFold) {
  Value sub = prim_value("sub", fn({I32, I32, I32}));
  Type t = fn({fn({I32, I32, I32}), I32, arr(3, I32), I32});
  // ((0 - 1) - 2) - 3
  for (const char* r : {"reduce", "reduceSeq", "reduceSeqUnroll", "reducePar"})
    EXPECT_EQ(S(call(r, t, {sub, i(0), vi({1, 2, 3})})), "-6") << r;
  Addr global{AddrSpace::Global, ""};
  EXPECT_EQ(S(call(PrimId::OclReduceSeq, t, {sub, i(100), vi({1, 2, 3})}, {global})), "94");
  // reduceSeq's operator takes the accumulator first: acc * 10 + x
  Value horner = Value::native("h", [](const Value& acc) {
    return Value::native("h2", [acc](const Value& x) { return i(acc.as_i64() * 10 + x.as_i64()); });
  });
  EXPECT_EQ(S(call(PrimId::ReduceSeq, t, {horner, i(0), vi({1, 2, 3})})), "123");
  // f32 sums are accumulated in float, in order
  Value add = prim_value("add", fn({F32, F32, F32}));
  float acc = 0.0f;
  std::vector<float> xs = {1e8f, 1.0f, -1e8f, 0.5f};
  for (float x : xs) acc += x;
  EXPECT_EQ(
      call(PrimId::Reduce, fn({fn({F32, F32, F32}), F32, arr(4, F32), F32}), {add, f(0), vf(xs)})
          .as_f32(),
      acc);
  // empty input gives init
  EXPECT_EQ(S(call(PrimId::Reduce, fn({fn({I32, I32, I32}), I32, arr(0, I32), I32}),
                   {sub, i(7), vi({})})),
            "7");
}

TEST(InterpPattern, ScanSeq) {
  // f(x)(acc) = acc * 10 + x: out[i] is the accumulator after element i
  Value step = Value::native("s", [](const Value& x) {
    return Value::native("s2", [x](const Value& acc) { return i(acc.as_i64() * 10 + x.as_i64()); });
  });
  EXPECT_EQ(S(call(PrimId::ScanSeq, fn({fn({I32, I32, I32}), I32, arr(3, I32), arr(3, I32)}),
                   {step, i(5), vi({1, 2, 3})})),
            "[51, 512, 5123]");
}

TEST(InterpPattern, CircularBufferAndRotateValues) {
  Value neg = prim_value("neg", fn({I32, I32}));
  Value x = vi({1, 2, 3, 4});
  // n = 2 windows of sz = 3 over map(neg)(x)
  Type t = fn({fn({I32, I32}), arr(4, I32), arr(2, arr(3, I32))});
  EXPECT_EQ(S(call(PrimId::CircularBuffer, t, {neg, x}, {Nat(3), Nat(3)})),
            "[[-1, -2, -3], [-2, -3, -4]]");
  EXPECT_EQ(S(call(PrimId::RotateValues, t, {neg, x}, {Nat(3)})), "[[-1, -2, -3], [-2, -3, -4]]");
}

TEST(InterpPattern, LetAndId) {
  Value neg = prim_value("neg", fn({I32, I32}));
  EXPECT_EQ(S(call(PrimId::Let, fn({I32, fn({I32, I32}), I32}), {i(4), neg})), "-4");
  EXPECT_EQ(S(call(PrimId::Id, fn({I32, I32}), {i(4)})), "4");
  EXPECT_EQ(S(call(PrimId::ToMem, fn({I32, I32}), {i(4)})), "4");
  EXPECT_EQ(S(call(PrimId::OclToMem, fn({I32, I32}), {i(4)}, {Addr{AddrSpace::Local, ""}})), "4");
}

// =================================================================================
// Expressions: closures, partial application, dependent functions
// =================================================================================

TEST(InterpExpr, LambdaCapturesAndMap) {
  // fun(c => fun(xs => map(fun(x => x * c))(xs)))
  Type mulT = fn({F32, F32, F32});
  Expr body = A(P("mul", mulT), V("x", F32), V("c", F32));
  Expr mapf = A(P("map", fn({fn({F32, F32}), arr(3, F32), arr(3, F32)})), L("x", F32, body),
                V("xs", arr(3, F32)));
  Expr e = L("c", F32, L("xs", arr(3, F32), mapf));
  Interpreter interp;
  Value r = interp.run(e, {f(2.0f), vf({1, 2, 3})});
  EXPECT_EQ(S(r), "[2f, 4f, 6f]");
}

TEST(InterpExpr, NestedClosuresDoNotShareFrames) {
  // map(fun(x => map(fun(y => x * 10 + y))(ys)))(xs): the inner closure captures x
  Type mulT = fn({I32, I32, I32});
  Expr inner = L("y", I32, A(P("add", mulT), A(P("mul", mulT), V("x", I32), LI(10)), V("y", I32)));
  Expr innerMap =
      A(P("map", fn({fn({I32, I32}), arr(2, I32), arr(2, I32)})), inner, V("ys", arr(2, I32)));
  Expr outer = L("x", I32, innerMap);
  Expr e = L("xs", arr(3, I32),
             L("ys", arr(2, I32),
               A(P("map", fn({fn({I32, arr(2, I32)}), arr(3, I32), arr(3, arr(2, I32))})), outer,
                 V("xs", arr(3, I32)))));
  Interpreter interp;
  EXPECT_EQ(S(interp.run(e, {vi({1, 2, 3}), vi({4, 5})})), "[[14, 15], [24, 25], [34, 35]]");
  // closures returned from a function keep their captured values
  Expr adder = L("a", I32, L("b", I32, A(P("add", mulT), V("a", I32), V("b", I32))));
  Value add3 = interp.apply(interp.eval(adder), i(3));
  Value add4 = interp.apply(interp.eval(adder), i(4));
  EXPECT_EQ(S(interp.apply(add3, i(1))), "4");
  EXPECT_EQ(S(interp.apply(add4, i(1))), "5");
  // reduce with a curried two-argument lambda capturing a variable: acc + x * k
  Expr op =
      L("acc", I32,
        L("x", I32, A(P("add", mulT), V("acc", I32), A(P("mul", mulT), V("x", I32), V("k", I32)))));
  Expr red = L("k", I32,
               L("xs", arr(3, I32),
                 A(A(P("reduce", fn({fn({I32, I32, I32}), I32, arr(3, I32), I32})), op, LI(1)),
                   V("xs", arr(3, I32)))));
  EXPECT_EQ(S(interp.run(red, {i(2), vi({1, 2, 3})})), "13");
}

TEST(InterpExpr, PartialApplicationAndComposition) {
  // map(add(1))(xs), with add partially applied in the source
  Type addT = fn({I32, I32, I32});
  Expr e = L("xs", arr(3, I32),
             A(P("map", fn({fn({I32, I32}), arr(3, I32), arr(3, I32)})), A(P("add", addT), LI(1)),
               V("xs", arr(3, I32))));
  Interpreter interp;
  EXPECT_EQ(S(interp.run(e, {vi({1, 2, 3})})), "[2, 3, 4]");
  // split(2) >> join as a function value: fun(x => join(split(2)(x)))
  Expr sp = D(P("split", fn({arr(4, I32), arr(2, arr(2, I32))})), Nat(2));
  Expr j = P("join", fn({arr(2, arr(2, I32)), arr(4, I32)}));
  Expr comp = L("x", arr(4, I32), A(j, A(sp, V("x", arr(4, I32)))));
  EXPECT_EQ(S(interp.run(comp, {vi({1, 2, 3, 4})})), "[1, 2, 3, 4]");
  // a partially applied primitive with a type-level argument as a map function
  Expr takeF = D(P("take", fn({arr(3, I32), arr(1, I32)})), Nat(1));
  Expr m =
      L("x", arr(2, arr(3, I32)),
        A(P("map", fn({fn({arr(3, I32), arr(1, I32)}), arr(2, arr(3, I32)), arr(2, arr(1, I32))})),
          takeF, V("x", arr(2, arr(3, I32)))));
  EXPECT_EQ(S(interp.run(m, {mat(2, 3)})), "[[0], [10]]");
}

TEST(InterpExpr, MakeArray) {
  // fun(x => [x, 2.0f, x]) and an array of arrays
  Expr ma = with_type(make_array_prim(3), fn({F32, F32, F32, arr(3, F32)}));
  Expr two = with_type(f32_lit(2.0), F32);
  Expr e = L("x", F32, A(A(A(ma, V("x", F32)), two), V("x", F32)));
  Interpreter interp;
  EXPECT_EQ(S(interp.run(e, {f(1)})), "[1f, 2f, 1f]");
  Expr ma2 = with_type(make_array_prim(2), fn({arr(3, F32), arr(3, F32), arr(2, arr(3, F32))}));
  Expr e2 = L("x", F32,
              A(A(ma2, A(A(A(ma, V("x", F32)), two), V("x", F32))), A(A(A(ma, two), two), two)));
  Value r = interp.run(e2, {f(1)});
  EXPECT_EQ(S(r), "[[1f, 2f, 1f], [2f, 2f, 2f]]");
  EXPECT_EQ(r.obj()->tag, Obj::Tag::Dense);
  // partially applied makeArray
  Expr part = L("x", F32,
                A(P("map", fn({fn({F32, arr(3, F32)}), arr(2, F32), arr(2, arr(3, F32))})),
                  A(A(ma, two), two), V("xs", arr(2, F32))));
  Expr e3 = L("xs", arr(2, F32), A(part, with_type(f32_lit(0.0), F32)));
  EXPECT_EQ(S(interp.run(e3, {vf({5, 6})})), "[[2f, 2f, 5f], [2f, 2f, 6f]]");
}

TEST(InterpExpr, LambdaLiteralsAppliedDirectly) {
  // fun(c => (fun(a => fun(b => a * b - c)))(2)(3)): both frames see c
  Type t = fn({I32, I32, I32});
  Expr inner = L(
      "a", I32, L("b", I32, A(P("sub", t), A(P("mul", t), V("a", I32), V("b", I32)), V("c", I32))));
  Expr e = L("c", I32, A(A(inner, LI(2)), LI(3)));
  Interpreter interp;
  EXPECT_EQ(S(interp.run(e, {i(1)})), "5");
  // applied to fewer arguments than it has parameters: the rest is a closure
  Expr half = A(P("map", fn({fn({I32, I32}), arr(2, I32), arr(2, I32)})), A(inner, LI(10)),
                V("xs", arr(2, I32)));
  Expr e2 = L("xs", arr(2, I32), half);
  EXPECT_EQ(S(interp.run(L("c", I32, e2), {i(1), vi({1, 2})})), "[9, 19]");
  // applied to more arguments than its nesting: the result is applied to the rest
  Expr curried = L("a", I32, A(P("add", t), V("a", I32)));  // fun(a => add(a))
  EXPECT_EQ(S(interp.eval(A(A(curried, LI(4)), LI(5)))), "9");
}

TEST(InterpExpr, SelectEvaluatesOnlyItsBranch) {
  // fun(x => select(x == 0)(0)(100 / x))
  Type t = fn({I32, I32, I32});
  Expr cond = A(P("equal", fn({I32, I32, BOOL})), V("x", I32), LI(0));
  Expr e = L("x", I32,
             A(A(A(P("select", fn({BOOL, I32, I32, I32})), cond), LI(0)),
               A(P("div", t), LI(100), V("x", I32))));
  Interpreter interp;
  EXPECT_EQ(S(interp.run(e, {i(0)})), "0");
  EXPECT_EQ(S(interp.run(e, {i(7)})), "14");
}

TEST(InterpExpr, LetBindsWithoutAClosure) {
  // let(x * x)(fun(y => y + x))
  Type t = fn({I32, I32, I32});
  Expr e =
      L("x", I32,
        A(A(P("let", fn({I32, fn({I32, I32}), I32})), A(P("mul", t), V("x", I32), V("x", I32))),
          L("y", I32, A(P("add", t), V("y", I32), V("x", I32)))));
  Interpreter interp;
  EXPECT_EQ(S(interp.run(e, {i(5)})), "30");
}

TEST(InterpExpr, Literals) {
  Interpreter interp;
  EXPECT_EQ(S(interp.eval(LI(-3, I8))), "-3i8");
  EXPECT_EQ(S(interp.eval(LI(2, F32))), "2f");
  EXPECT_EQ(S(interp.eval(LI(2, idx(4)))), "lidx(2, 4)");
  EXPECT_EQ(S(interp.eval(with_type(scalar_lit(ScalarKind::U8, 255, 0), U8))), "255u8");
  EXPECT_EQ(S(interp.eval(with_type(f64_lit(0.25), F64))), "0.25");
  EXPECT_EQ(S(interp.eval(with_type(bool_lit(true), BOOL))), "true");
  Literal nl;
  nl.kind = LitKind::NatVal;
  nl.nat = Nat(6);
  EXPECT_EQ(S(interp.eval(with_type(literal(nl), nat_data()))), "6n");
  expect_user_error([&] { interp.eval(LI(4, idx(4))); }, "out of range");
}

TEST(InterpExpr, DependentFunctionsBindSizes) {
  // depFun(l: Nat => fun(a: (l*2).i32 => a |> split(2) |> map(fun(p => p[0] + p[1])))):
  // the types inside mention l and are instantiated at run time.
  Nat l = Nat::var("l");
  Type in = array(l * 2, I32), pairs = array(l, arr(2, I32)), out = array(l, I32);
  Type addT = fn({I32, I32, I32});
  Type idxT = fn({idx(2), arr(2, I32), I32});
  Expr pbody = A(P("add", addT), A(P("idx", idxT), LI(0, idx(2)), V("p", arr(2, I32))),
                 A(P("idx", idxT), LI(1, idx(2)), V("p", arr(2, I32))));
  Expr step = A(P("map", fn({fn({arr(2, I32), I32}), pairs, out})), L("p", arr(2, I32), pbody),
                A(D(P("split", fn({in, pairs})), Nat(2)), V("a", in)));
  Type stepT = dep_fun(Kind::Nat, "l", fun(in, out), false);
  Expr f = with_type(dep_lambda(Kind::Nat, "l", L("a", in, step)), stepT);
  Interpreter interp;
  Value fv = interp.eval(f);
  Value g = interp.apply_dep(fv, Nat(3));
  EXPECT_EQ(S(interp.apply(g, vi({1, 2, 3, 4, 5, 6}))), "[3, 7, 11]");
  // iterate(k = 3)(f) on 8 elements: the sum of the whole array, in 1.i32
  Value it = call(PrimId::Iterate, fn({stepT, arr(8, I32), arr(1, I32)}),
                  {fv, vi({1, 2, 3, 4, 5, 6, 7, 8})}, {Nat(3)});
  EXPECT_EQ(S(it), "[36]");
  // k = 0 is the identity
  EXPECT_EQ(
      S(call(PrimId::Iterate, fn({stepT, arr(2, I32), arr(2, I32)}), {fv, vi({1, 2})}, {Nat(0)})),
      "[1, 2]");
  // natAsIndex with a size bound in scope: depFun(n => natAsIndex(n)(k))
  Nat n = Nat::var("n");
  Expr nai = with_type(
      dep_lambda(Kind::Nat, "n",
                 L("k", nat_data(),
                   A(D(P("natAsIndex", fn({nat_data(), index_type(n)})), n), V("k", nat_data())))),
      dep_fun(Kind::Nat, "n", fun(nat_data(), index_type(n)), false));
  Value r = interp.apply(interp.apply_dep(interp.eval(nai), Nat(7)), Value::nat(6));
  EXPECT_EQ(S(r), "lidx(6, 7)");
  expect_runtime_fault(
      [&] { interp.apply(interp.apply_dep(interp.eval(nai), Nat(7)), Value::nat(7)); },
      "out of range");
}

TEST(InterpExpr, EntryErrors) {
  Interpreter interp;
  Nat n = Nat::var("n");
  Expr e = with_type(dep_lambda(Kind::Nat, "n", L("x", array(n, F32), V("x", array(n, F32)))),
                     dep_fun(Kind::Nat, "n", fun(array(n, F32), array(n, F32)), false));
  expect_user_error([&] { interp.run(e, {vf({1})}); }, "size n has no value; pass --size");
  expect_user_error([&] { entry_signature(e->type); }, "size n has no value");
  // a primitive whose sizes are not known
  Expr s = L("x", array(n, F32),
             A(P("map", fn({fn({F32, F32}), array(n, F32), array(n, F32)})),
               P("neg", fn({F32, F32})), V("x", array(n, F32))));
  expect_user_error([&] { interp.run(s, {vf({1})}); }, "size n has no value");
  // a foreign function cannot be run
  auto ff = std::make_shared<ForeignFun>();
  ff->name = "clampf";
  ff->params = {"x"};
  ff->param_types = {F32};
  ff->result = F32;
  ff->body = "{ return x; }";
  Expr fe = L("x", F32, A(with_type(foreign(ff), fn({F32, F32})), V("x", F32)));
  expect_user_error([&] { interp.run(fe, {f(1)}); },
                    "foreign function clampf cannot be interpreted");
  // wrong number of inputs
  try {
    interp.run(L("x", F32, V("x", F32)), {});
    ADD_FAILURE();
  } catch (const Error& err) {
    EXPECT_EQ(err.kind(), ErrorKind::Usage);
  }
}

// =================================================================================
// Conversions and comparison
// =================================================================================

TEST(InterpConvert, NdArrayRoundTrip) {
  runtime::NdArray a = runtime::make_array(runtime::DType::F32, {2, 3});
  for (int k = 0; k < 6; ++k) a.as<float>()[k] = static_cast<float>(k) + 0.5f;
  Type t = arr(2, arr(3, F32));
  Value v = from_ndarray(a, t);
  EXPECT_EQ(S(v), "[[0.5f, 1.5f, 2.5f], [3.5f, 4.5f, 5.5f]]");
  // a transposed view comes back in C order of its own shape
  Value tv = call(PrimId::Transpose, fn({t, arr(3, arr(2, F32))}), {v});
  runtime::NdArray b = to_ndarray(tv, arr(3, arr(2, F32)));
  EXPECT_EQ(b.shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(b.as<float>()[1], 3.5f);
  EXPECT_EQ(b.as<float>()[2], 1.5f);
  // scalars have shape ()
  runtime::NdArray s = to_ndarray(f(2.5f), F32);
  EXPECT_TRUE(s.shape.empty());
  EXPECT_EQ(s.as<float>()[0], 2.5f);
  EXPECT_EQ(from_ndarray(s, F32).as_f32(), 2.5f);
  // vectors add an innermost dimension
  Type vt = arr(2, vector(ScalarKind::I32, Nat(2)));
  runtime::NdArray c = runtime::make_array(runtime::DType::I32, {2, 2});
  for (int k = 0; k < 4; ++k) c.as<int32_t>()[k] = k;
  EXPECT_EQ(S(from_ndarray(c, vt)), "[<0, 1>, <2, 3>]");
  EXPECT_EQ(to_ndarray(from_ndarray(c, vt), vt).shape, (std::vector<int64_t>{2, 2}));
  // errors: shape and element type
  expect_user_error([&] { from_ndarray(a, arr(3, arr(2, F32))); }, "needs shape (3, 2)");
  expect_user_error([&] { from_ndarray(a, arr(2, arr(3, I32))); }, "needs elements of type i32");
  // index arrays come from integers, checked
  runtime::NdArray ix = runtime::make_array(runtime::DType::I64, {3});
  ix.as<int64_t>()[0] = 2;
  ix.as<int64_t>()[2] = 1;
  EXPECT_EQ(S(from_ndarray(ix, arr(3, idx(3)))), "[lidx(2, 3), lidx(0, 3), lidx(1, 3)]");
  expect_user_error([&] { from_ndarray(ix, arr(3, idx(2))); }, "out of range");
  EXPECT_EQ(to_ndarray(from_ndarray(ix, arr(3, idx(3))), arr(3, idx(3))).as<int64_t>()[0], 2);
}

TEST(InterpConvert, PairsAreLeaves) {
  Type pt = arr(2, pair(I32, F32));
  Value z = zip_arrays(vi({1, 2}), vf({0.5f, 1.5f}));
  expect_user_error([&] { to_ndarray(z, pt); }, "pairs");
  auto parts = to_ndarrays(z, pt);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].dtype, runtime::DType::I32);
  EXPECT_EQ(parts[1].as<float>()[1], 1.5f);
  auto lt = leaf_types(pt);
  ASSERT_EQ(lt.size(), 2u);
  EXPECT_EQ(print(lt[1]), "2.f32");
  // a boxed array of pairs
  auto parts2 = to_ndarrays(boxed_array({Value::pair(i(1), f(2)), Value::pair(i(3), f(4))}), pt);
  EXPECT_EQ(parts2[0].as<int32_t>()[1], 3);
  // a nested pair
  Type np = pair(F32, pair(I32, arr(2, F32)));
  auto parts3 = to_ndarrays(Value::pair(f(1), Value::pair(i(2), vf({3, 4}))), np);
  ASSERT_EQ(parts3.size(), 3u);
  EXPECT_EQ(parts3[2].as<float>()[1], 4.0f);
}

// values_identical compares floats by their bits: -0.0 is not 0.0, a NaN is itself.
TEST(InterpConvert, IdenticalValuesCompareBits) {
  Value zero = Value::f32(0.0f), neg = Value::f32(-0.0f);
  Value nan = Value::f32(std::numeric_limits<float>::quiet_NaN());
  EXPECT_TRUE(values_equal(zero, neg));
  EXPECT_FALSE(values_identical(zero, neg));
  EXPECT_FALSE(values_equal(nan, nan));
  EXPECT_TRUE(values_identical(nan, nan));
  EXPECT_TRUE(
      values_identical(Value::pair(zero, Value::f64(1.5)), Value::pair(zero, Value::f64(1.5))));
  EXPECT_FALSE(values_identical(Value::pair(zero, zero), Value::pair(zero, neg)));
}

TEST(InterpConvert, RandomInputs) {
  Type t = arr(4, arr(3, F32));
  Value a = random_input(t, 7), b = random_input(t, 7), c = random_input(t, 8);
  EXPECT_TRUE(values_equal(a, b));
  EXPECT_FALSE(values_equal(a, c));
  // the same numbers as runtime::fill_random
  runtime::NdArray ref = runtime::make_array(runtime::DType::F32, {4, 3});
  runtime::fill_random(ref, 7);
  EXPECT_TRUE(values_equal(a, from_ndarray(ref, t)));
  Value ix = random_input(arr(50, idx(5)), 1);
  for (int64_t k = 0; k < 50; ++k) EXPECT_LT(ix.at(k).index_value(), 5);
  Value p = random_input(arr(3, pair(F32, I32)), 3);
  EXPECT_EQ(p.at(2).second().scalar_kind(), ScalarKind::I32);
  Value s = random_input(I32, 3);
  EXPECT_GE(s.as_i64(), 0);
  EXPECT_LT(s.as_i64(), 100);
}

TEST(InterpConvert, ValuesClose) {
  std::string where;
  Value a =
      call(PrimId::Split, fn({arr(4, F32), arr(2, arr(2, F32))}), {vf({1, 2, 3, 4})}, {Nat(2)});
  Value b =
      call(PrimId::Split, fn({arr(4, F32), arr(2, arr(2, F32))}), {vf({1, 2, 3, 4.5f})}, {Nat(2)});
  EXPECT_TRUE(values_close(a, a, 0, 0, &where));
  EXPECT_FALSE(values_close(a, b, 1e-5, 1e-5, &where));
  EXPECT_EQ(where, "element [1][1]: 4 vs 4.5");
  EXPECT_TRUE(values_close(a, b, 0.2, 0, &where));
  EXPECT_FALSE(values_close(vi({1, 2}), vi({1, 3}), 1, 1, &where));  // integers: exact
  EXPECT_EQ(where, "element [1]: 2 vs 3");
  float nan = std::nanf("");
  EXPECT_TRUE(values_close(f(nan), f(nan), 0, 0));
  EXPECT_FALSE(values_close(f(nan), f(1), 1, 1));
  EXPECT_FALSE(values_close(f(1), f(1.5f), 0.1, 0.1, &where));
  EXPECT_EQ(where, "value: 1 vs 1.5");
  EXPECT_FALSE(values_close(vi({1}), vi({1, 2}), 0, 0, &where));
  EXPECT_EQ(where, "value: length 1 vs 2");
  EXPECT_FALSE(values_close(Value::pair(i(1), f(2)), Value::pair(i(1), f(3)), 0, 0, &where));
  EXPECT_EQ(where, "element ._2: 2 vs 3");
}

TEST(InterpConvert, HighRankArraysStayCorrect) {
  // 12 dimensions of 2: more than a dense view holds; element access still works.
  Type t = I32;
  for (int k = 0; k < 12; ++k) t = arr(2, t);
  Value v = random_input(t, 5);
  runtime::NdArray a = to_ndarray(v, t);
  EXPECT_EQ(a.count(), 4096);
  EXPECT_TRUE(values_equal(from_ndarray(a, t), v));
  Value x = v;
  int64_t flat = 0;
  for (int k = 0; k < 12; ++k) {
    x = x.at(1);
    flat = flat * 2 + 1;
  }
  EXPECT_EQ(x.as_i64(), a.as<int32_t>()[flat]);
}

}  // namespace
}  // namespace risec::rise
