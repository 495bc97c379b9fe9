// Tests of the C layout of RISE data (runtime/layout.h): sizes, alignments and pair
// offsets against what the C compiler itself computes for the same declarations, and
// round trips of interpreter values through C buffers for every kind of data.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "rise/interp.h"
#include "runtime/jit.h"
#include "runtime/layout.h"
#include "runtime/process.h"
#include "support/diagnostics.h"
#include "support/random.h"

namespace risec::runtime {
namespace {

using rise::ScalarKind;
using rise::Type;
using rise::Value;

Type sc(ScalarKind k) {
  return rise::scalar(k);
}
Type f32() {
  return sc(ScalarKind::F32);
}
Type arr(int64_t n, Type t) {
  return rise::array(arith::Nat(n), std::move(t));
}
Type vec(ScalarKind k, int64_t n) {
  return rise::vector(k, arith::Nat(n));
}
Type pr(Type a, Type b) {
  return rise::pair(std::move(a), std::move(b));
}

TEST(Layout, Scalars) {
  EXPECT_EQ(c_layout(f32()).size, 4u);
  EXPECT_EQ(c_layout(sc(ScalarKind::F64)).align, 8u);
  EXPECT_EQ(c_layout(sc(ScalarKind::Bool)).size, 1u);
  EXPECT_EQ(c_layout(sc(ScalarKind::I64)).size, 8u);
  EXPECT_EQ(c_layout(sc(ScalarKind::U16)).align, 2u);
  EXPECT_EQ(c_layout(rise::index_type(arith::Nat(7))).size, sizeof(int));
  EXPECT_EQ(c_layout(rise::nat_data()).size, sizeof(int64_t));
}

TEST(Layout, VectorsArraysPairs) {
  CLayout v = c_layout(vec(ScalarKind::F32, 8));
  EXPECT_EQ(v.size, 32u);
  EXPECT_EQ(v.align, 32u);
  EXPECT_EQ(c_layout(arr(3, vec(ScalarKind::F32, 8))).size, 96u);
  EXPECT_EQ(c_layout(arr(5, arr(3, f32()))).size, 60u);
  EXPECT_EQ(c_layout(arr(0, f32())).size, 0u);
  Type p = pr(f32(), vec(ScalarKind::F32, 8));
  EXPECT_EQ(pair_second_offset(p), 32u);
  EXPECT_EQ(c_layout(p).size, 64u);
  EXPECT_EQ(c_layout(p).align, 32u);
  Type q = pr(sc(ScalarKind::F64), sc(ScalarKind::Bool));
  EXPECT_EQ(c_layout(q).size, 16u);
  EXPECT_EQ(c_layout(arr(10, q)).size, 160u);
  // A pair of arrays: one array after the other, the second aligned for its elements.
  Type pa = pr(arr(3, sc(ScalarKind::I8)), arr(2, f32()));
  EXPECT_EQ(pair_second_offset(pa), 4u);
  EXPECT_EQ(c_layout(pa).size, 12u);
}

TEST(Layout, SymbolicSizesAreAUserError) {
  Type t = rise::array(arith::Nat::size_var("n"), f32());
  try {
    c_layout(t);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User);
    EXPECT_NE(e.message().find("size n has no value"), std::string::npos) << e.message();
  }
}

// The compiler's sizeof, alignment (as the offset after a char) and offset of _2 for
// struct declarations written as the C backend writes pair types.
TEST(Layout, AgreesWithTheCCompiler) {
  struct Case {
    Type t;
    const char* c_name;
  };
  std::vector<Case> cases = {
      {pr(f32(), sc(ScalarKind::F64)), "P1"},
      {pr(sc(ScalarKind::Bool), f32()), "P2"},
      {pr(sc(ScalarKind::I8), pr(sc(ScalarKind::I16), sc(ScalarKind::I64))), "P3"},
      {pr(f32(), vec(ScalarKind::F32, 8)), "P4"},
      {pr(vec(ScalarKind::F32, 16), sc(ScalarKind::Bool)), "P5"},
      {pr(rise::index_type(arith::Nat(4)), f32()), "P6"},
      {pr(sc(ScalarKind::U8), sc(ScalarKind::U8)), "P7"},
      {pr(sc(ScalarKind::F64), pr(sc(ScalarKind::Bool), sc(ScalarKind::Bool))), "P8"},
      {pr(rise::nat_data(), sc(ScalarKind::I8)), "P9"},
      {pr(vec(ScalarKind::F64, 4), pr(sc(ScalarKind::U16), vec(ScalarKind::I32, 4))), "P10"},
  };
  std::string src = R"(
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
typedef float risec_f32x8 __attribute__((vector_size(32)));
typedef float risec_f32x16 __attribute__((vector_size(64)));
typedef double risec_f64x4 __attribute__((vector_size(32)));
typedef int32_t risec_i32x4 __attribute__((vector_size(16)));
typedef struct { float _1; double _2; } P1;
typedef struct { bool _1; float _2; } P2;
typedef struct { int16_t _1; int64_t _2; } P3i;
typedef struct { int8_t _1; P3i _2; } P3;
typedef struct { float _1; risec_f32x8 _2; } P4;
typedef struct { risec_f32x16 _1; bool _2; } P5;
typedef struct { int _1; float _2; } P6;
typedef struct { uint8_t _1; uint8_t _2; } P7;
typedef struct { bool _1; bool _2; } P8i;
typedef struct { double _1; P8i _2; } P8;
typedef struct { int64_t _1; int8_t _2; } P9;
typedef struct { uint16_t _1; risec_i32x4 _2; } P10i;
typedef struct { risec_f64x4 _1; P10i _2; } P10;
#define ROW(T) do { typedef struct { char c; T t; } A_##T; \
  o[k++] = (long long)sizeof(T); o[k++] = (long long)offsetof(A_##T, t); \
  o[k++] = (long long)offsetof(T, _2); } while (0)
void layout__risec_call(void* const* buffers, const int* sizes) {
  long long* o = (long long*)buffers[0];
  int k = 0;
  (void)sizes;
  ROW(P1); ROW(P2); ROW(P3); ROW(P4); ROW(P5); ROW(P6); ROW(P7); ROW(P8); ROW(P9); ROW(P10);
}
)";
  TempDir dir("risec-layout-test-");
  std::optional<std::string> old;
  if (const char* o = std::getenv("RISEC_CACHE_DIR")) old = o;
  ::setenv("RISEC_CACHE_DIR", dir.path().c_str(), 1);
  Module m = jit_compile(src, "layout");
  if (old)
    ::setenv("RISEC_CACHE_DIR", old->c_str(), 1);
  else
    ::unsetenv("RISEC_CACHE_DIR");
  std::vector<long long> out(cases.size() * 3, -1);
  m.call({out.data()}, {});
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(std::string(cases[i].c_name) + " = " + rise::print(cases[i].t));
    CLayout l = c_layout(cases[i].t);
    EXPECT_EQ(static_cast<long long>(l.size), out[3 * i]);
    EXPECT_EQ(static_cast<long long>(l.align), out[3 * i + 1]);
    EXPECT_EQ(static_cast<long long>(pair_second_offset(cases[i].t)), out[3 * i + 2]);
  }
}

void expect_round_trip(const Type& t, uint64_t seed) {
  SCOPED_TRACE(rise::print(t));
  Value v = rise::random_input(t, seed);
  AlignedBuffer b = to_c_buffer(v, t);
  EXPECT_EQ(b.size(), c_layout(t).size);
  Value back = from_c_bytes(b.data(), t);
  std::string where;
  EXPECT_TRUE(rise::values_close(v, back, 0, 0, &where)) << where;
  EXPECT_TRUE(rise::values_equal(v, back));
}

// A vector whose width is not a power of two is padded to the next one, as C's
// vector types are: 3 floats take 16 bytes, 6 take 32; values survive the padding.
TEST(Layout, OddWidthVectorsArePadded) {
  EXPECT_EQ(c_layout(vec(ScalarKind::F32, 3)).size, 16u);
  EXPECT_EQ(c_layout(vec(ScalarKind::F32, 3)).align, 16u);
  EXPECT_EQ(c_layout(vec(ScalarKind::F32, 6)).size, 32u);
  EXPECT_EQ(c_layout(vec(ScalarKind::F64, 12)).size, 128u);
  EXPECT_EQ(c_layout(arr(5, vec(ScalarKind::F32, 3))).size, 80u);
  uint64_t seed = 11;
  for (int64_t w : {3, 5, 6, 7, 12}) {
    expect_round_trip(vec(ScalarKind::F32, w), seed++);
    expect_round_trip(arr(4, vec(ScalarKind::F32, w)), seed++);
    expect_round_trip(arr(2, arr(3, vec(ScalarKind::I32, w))), seed++);
  }
}

TEST(Layout, RoundTrips) {
  uint64_t seed = 1;
  for (const Type& t : std::vector<Type>{
           f32(), sc(ScalarKind::F64), sc(ScalarKind::Bool), sc(ScalarKind::U64),
           sc(ScalarKind::I8), arr(7, f32()), arr(3, arr(5, sc(ScalarKind::I16))),
           arr(4, vec(ScalarKind::F32, 8)), vec(ScalarKind::F64, 4),
           arr(6, rise::index_type(arith::Nat(5))), arr(3, rise::nat_data()),
           rise::index_type(arith::Nat(9)), pr(f32(), sc(ScalarKind::I32)),
           arr(5, pr(f32(), sc(ScalarKind::I32))),
           arr(3, pr(sc(ScalarKind::Bool), pr(sc(ScalarKind::I64), sc(ScalarKind::F64)))),
           arr(2, arr(3, pr(sc(ScalarKind::U8), vec(ScalarKind::F32, 4)))),
           pr(arr(3, f32()), arr(2, sc(ScalarKind::I32))), arr(0, f32()),
           arr(4, pr(rise::index_type(arith::Nat(3)), sc(ScalarKind::Bool)))})
    expect_round_trip(t, seed++);
}

TEST(Layout, BytesOfAnArrayOfPairs) {
  Type t = arr(2, pr(sc(ScalarKind::Bool), f32()));
  Value v = rise::array_of(pr(sc(ScalarKind::Bool), f32()),
                           {Value::pair(Value::boolean(true), Value::f32(1.5f)),
                            Value::pair(Value::boolean(false), Value::f32(-2.0f))});
  AlignedBuffer b = to_c_buffer(v, t);
  ASSERT_EQ(b.size(), 16u);
  const unsigned char* p = reinterpret_cast<const unsigned char*>(b.data());
  EXPECT_EQ(p[0], 1);
  EXPECT_EQ(p[1] | p[2] | p[3], 0);  // padding is zero
  float x;
  std::memcpy(&x, p + 4, 4);
  EXPECT_EQ(x, 1.5f);
  EXPECT_EQ(p[8], 0);
  std::memcpy(&x, p + 12, 4);
  EXPECT_EQ(x, -2.0f);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 64, 0u);
}

// Elements that are pairs holding arrays: one array per component (nested pairs split
// too), each over the outer dimensions and then the inner ones, aligned for its elements.
TEST(Layout, ArraysOfPairsHoldingArraysAreOneArrayPerComponent) {
  Type e = pr(arr(3, sc(ScalarKind::I8)), pr(sc(ScalarKind::F64), sc(ScalarKind::I16)));
  Type t = arr(2, e);
  // i8[6] at 0, f64[2] at 8, i16[2] at 24; 28 bytes rounded up to 8.
  EXPECT_EQ(c_layout(t).size, 32u);
  EXPECT_EQ(c_layout(t).align, 8u);
  Value v = rise::random_input(t, 5);
  AlignedBuffer b = to_c_buffer(v, t);
  const std::byte* p = b.data();
  for (int64_t i = 0; i < 2; ++i) {
    Value x = v.at(i);
    for (int64_t j = 0; j < 3; ++j)
      EXPECT_TRUE(rise::values_equal(
          rise::load_scalar(ScalarKind::I8, p + static_cast<size_t>(3 * i + j)), x.first().at(j)));
    EXPECT_TRUE(
        rise::values_equal(rise::load_scalar(ScalarKind::F64, p + 8 + static_cast<size_t>(8 * i)),
                           x.second().first()));
    EXPECT_TRUE(
        rise::values_equal(rise::load_scalar(ScalarKind::I16, p + 24 + static_cast<size_t>(2 * i)),
                           x.second().second()));
  }
  uint64_t seed = 40;
  for (const Type& u :
       std::vector<Type>{t, e, pr(arr(5, sc(ScalarKind::U8)), arr(5, f32())),
                         arr(3, pr(arr(2, vec(ScalarKind::F32, 4)), sc(ScalarKind::I8))),
                         pr(arr(2, pr(f32(), arr(3, sc(ScalarKind::I16)))), sc(ScalarKind::F64)),
                         arr(0, pr(arr(2, f32()), f32()))})
    expect_round_trip(u, seed++);
}

TEST(Layout, IndicesAreCheckedOnTheWayBack) {
  Type t = arr(2, rise::index_type(arith::Nat(3)));
  int bytes[2] = {1, 3};
  EXPECT_THROW(from_c_bytes(reinterpret_cast<const std::byte*>(bytes), t), Error);
  bytes[1] = 2;
  Value v = from_c_bytes(reinterpret_cast<const std::byte*>(bytes), t);
  EXPECT_EQ(v.at(1).index_value(), 2);
  int64_t neg = -1;
  EXPECT_THROW(from_c_bytes(reinterpret_cast<const std::byte*>(&neg), rise::nat_data()), Error);
  // natType values are 64-bit, as the interpreter's: 2^33 + 5 comes back whole.
  const int64_t big = (int64_t{1} << 33) + 5;
  EXPECT_EQ(from_c_bytes(reinterpret_cast<const std::byte*>(&big), rise::nat_data()).nat_value(),
            big);
}

}  // namespace
}  // namespace risec::runtime
