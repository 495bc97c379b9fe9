// Calls of the C++ API that a held-out tester found crashing, refused although valid,
// or answered in unclear words (docs/api.md): a null array in bind_arrays, vectors of
// 3 lanes (which C pads to 4) in and out of Kernel::call, empty arrays whose memory is
// null, library strategies given arguments of the wrong kind (in C++ and in .elv
// files), a call without its sizes, an index input of the wrong element type and more
// shapes than inputs. Only the public headers.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "risec/risec.h"

namespace {

// The message of the risec::Error that `f` throws ("" when it throws none).
template <class F>
std::string held_out_error(F&& f, risec::ErrorKind* kind = nullptr) {
  try {
    f();
  } catch (const risec::Error& e) {
    if (kind) *kind = e.kind();
    return e.message();
  }
  return "";
}

bool held_out_has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const char* const kHeldOutConv =
    "def conv = depFun(n: Nat => fun(x: (n+2).f32 => fun(w: 3.f32 => x |> slide(3)(1) |> "
    "map(fun(win => zip(win)(w) |> map(fun(q => q._1 * q._2)) |> reduce(add)(0.0f))))))";

// A result of vectors of 3 lanes, and an input of them.
const char* const kVec3Result =
    "def f = depFun(n: Nat => fun(a: (3*n).f32 => a |> asVector(3) |> map(fun(v => v * v))))";
const char* const kVec3Input =
    "def g = depFun(n: Nat => fun(a: n.vec[f32, 3] => fun(b: n.f32 => zip(a)(b) |> "
    "map(fun(p => lane(0)(p._1) + lane(2)(p._1) + p._2)))))";

std::vector<float> held_out_random(std::mt19937& g, size_t n) {
  std::uniform_real_distribution<float> d(-4, 4);
  std::vector<float> v(n);
  for (float& x : v) x = d(g);
  return v;
}

risec::ArrayRef held_out_ref(std::vector<float>& v, std::vector<int64_t> shape,
                             std::vector<int64_t> strides = {}) {
  return risec::ArrayRef{v.data(), risec::ScalarType::F32, std::move(shape), std::move(strides)};
}

}  // namespace

TEST(ApiHeldOut, BoundArraysAreCheckedNotRead) {
  risec::Program p = risec::Program::parse(kHeldOutConv, "p.rise");
  risec::ErrorKind kind = risec::ErrorKind::Internal;
  risec::CompileOptions null_data;
  null_data.bind_arrays["w"] = risec::ArrayRef{nullptr, risec::ScalarType::F32, {3}, {}};
  std::string m = held_out_error([&] { risec::compile(p, null_data); }, &kind);
  EXPECT_EQ(kind, risec::ErrorKind::Usage);
  EXPECT_TRUE(held_out_has(m, "bind[\"w\"]: the array is null")) << m;
  // The wrong number of elements, the wrong element type, a negative extent.
  std::vector<float> w4(4, 1.0f);
  std::vector<int32_t> wi(3, 1);
  risec::CompileOptions four;
  four.bind_arrays["w"] = held_out_ref(w4, {4});
  m = held_out_error([&] { risec::compile(p, four); });
  EXPECT_TRUE(held_out_has(m, "w")) << m;
  risec::CompileOptions ints;
  ints.bind_arrays["w"] = risec::ArrayRef{wi.data(), risec::ScalarType::I32, {3}, {}};
  m = held_out_error([&] { risec::compile(p, ints); });
  EXPECT_TRUE(held_out_has(m, "w")) << m;
  risec::CompileOptions negative;
  negative.bind_arrays["w"] = held_out_ref(w4, {-3});
  m = held_out_error([&] { risec::compile(p, negative); }, &kind);
  EXPECT_EQ(kind, risec::ErrorKind::Usage);
  EXPECT_TRUE(held_out_has(m, "negative extent")) << m;
  // A good one still binds.
  std::vector<float> w = {1, 2, 3}, x = {1, 1, 2, 0, 1, 1}, out(4);
  risec::CompileOptions good;
  good.bind_arrays["w"] = held_out_ref(w, {3});
  risec::Kernel k = risec::jit(p, good);
  k(out, {x}, {{"n", 4}});
  EXPECT_EQ(out, (std::vector<float>{1 + 2 + 6, 1 + 4 + 0, 2 + 0 + 3, 0 + 2 + 3}));
}

TEST(ApiHeldOut, VectorsOfThreeLanesAreCalledAsTheInterpreterReadsThem) {
  std::mt19937 g(29);
  for (const char* target : {"c", "openmp"}) {
    risec::CompileOptions o;
    o.target = target;
    // The result: (n, 3), row-major and column-major (a strided output).
    risec::Program pr = risec::Program::parse(kVec3Result);
    risec::Kernel kr = risec::jit(pr, o);
    const int64_t n = 5;
    EXPECT_EQ(kr.shape("output", {{"n", n}}), (std::vector<int64_t>{n, 3}));
    EXPECT_EQ(kr.output_bytes({{"n", n}}), static_cast<size_t>(n * 4 * 4));  // C pads to 4
    std::vector<float> a = held_out_random(g, 3 * n);
    std::vector<risec::Array> want = risec::interpret(pr, {held_out_ref(a, {3 * n})});
    ASSERT_EQ(want.size(), 1u);
    ASSERT_EQ(want[0].shape, (std::vector<int64_t>{n, 3}));
    std::vector<float> expect(static_cast<size_t>(3 * n));
    std::memcpy(expect.data(), want[0].bytes.data(), expect.size() * sizeof(float));
    std::vector<float> out(static_cast<size_t>(3 * n), -1.0f);
    kr.call(held_out_ref(out, {n, 3}), {held_out_ref(a, {3 * n})}, {{"n", n}});
    EXPECT_EQ(out, expect) << target;
    std::vector<float> col(static_cast<size_t>(3 * n), -1.0f);
    kr.call(held_out_ref(col, {n, 3}, {1, n}), {held_out_ref(a, {3 * n})}, {{"n", n}});
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < 3; ++j)
        EXPECT_EQ(col[static_cast<size_t>(j * n + i)], expect[static_cast<size_t>(i * 3 + j)]);
    // The input: (n, 3) row-major and a strided (transposed) view.
    risec::Program pi = risec::Program::parse(kVec3Input);
    risec::Kernel ki = risec::jit(pi, o);
    std::vector<float> v = held_out_random(g, 3 * n), b = held_out_random(g, n);
    std::vector<risec::Array> wi =
        risec::interpret(pi, {held_out_ref(v, {n, 3}), held_out_ref(b, {n})});
    ASSERT_EQ(wi.size(), 1u);
    std::vector<float> expect_i(static_cast<size_t>(n));
    std::memcpy(expect_i.data(), wi[0].bytes.data(), expect_i.size() * sizeof(float));
    std::vector<float> oi(static_cast<size_t>(n), -1.0f);
    ki.call(held_out_ref(oi, {n}), {held_out_ref(v, {n, 3}), held_out_ref(b, {n})}, {{"n", n}});
    EXPECT_EQ(oi, expect_i) << target;
    std::vector<float> vt(static_cast<size_t>(3 * n));  // v stored column-major
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < 3; ++j)
        vt[static_cast<size_t>(j * n + i)] = v[static_cast<size_t>(i * 3 + j)];
    std::fill(oi.begin(), oi.end(), -1.0f);
    ki.call(held_out_ref(oi, {n}), {held_out_ref(vt, {n, 3}, {1, n}), held_out_ref(b, {n})},
            ki.sizes({{n, 3}, {n}}));
    EXPECT_EQ(oi, expect_i) << target;
  }
}

TEST(ApiHeldOut, EmptyArraysMayHaveNullMemory) {
  // An empty result (drop(n) of n elements) and an empty input ((n - 1) at n = 1).
  risec::Program z =
      risec::Program::parse("def z = depFun(n: Nat => fun(a: n.f32 => a |> drop(n)))");
  risec::Program e = risec::Program::parse(
      "def f = depFun(n: Nat => fun(a: n.f32 => fun(b: (n - 1).f32 => "
      "(a |> reduce(add)(0.0f)) + (b |> reduce(add)(0.0f)))))");
  for (const char* target : {"c", "openmp"}) {
    risec::CompileOptions o;
    o.target = target;
    risec::Kernel kz = risec::jit(z, o);
    std::vector<float> a = {1, 2, 3};
    kz(risec::Buffer(static_cast<float*>(nullptr), 0), {a}, {{"n", 3}});
    kz.call(risec::ArrayRef{nullptr, risec::ScalarType::F32, {0}, {}}, {held_out_ref(a, {3})},
            {{"n", 3}});
    risec::Kernel ke = risec::jit(e, o);
    std::vector<float> one = {2.5f}, out = {-1};
    ke(out, {one, risec::Buffer(static_cast<float*>(nullptr), 0)}, {{"n", 1}});
    EXPECT_EQ(out[0], 2.5f) << target;
    out[0] = -1;
    ke.call(held_out_ref(out, {}),
            {held_out_ref(one, {1}), risec::ArrayRef{nullptr, risec::ScalarType::F32, {0}, {}}},
            {{"n", 1}});
    EXPECT_EQ(out[0], 2.5f) << target;
    // Null memory for elements is still refused.
    const std::string m = held_out_error([&] {
      ke(out, {risec::Buffer(static_cast<float*>(nullptr), 1), one}, {{"n", 2}});
    });
    EXPECT_TRUE(held_out_has(m, "the buffer for a of f is null")) << m;
  }
}

TEST(ApiHeldOut, StrategyArgumentsOfTheWrongKindAreErrors) {
  risec::ErrorKind kind = risec::ErrorKind::Internal;
  std::string m =
      held_out_error([] { risec::Strategy::library("isApplied", {int64_t{3}}); }, &kind);
  EXPECT_EQ(kind, risec::ErrorKind::User);
  EXPECT_TRUE(held_out_has(m, "argument 1 of 'isApplied' must be a strategy, not a number")) << m;
  m = held_out_error([] { risec::Strategy::library("isApplied", {std::string("x")}); });
  EXPECT_TRUE(held_out_has(m, "must be a strategy, not a name")) << m;
  m = held_out_error(
      [] { risec::Strategy::library("tileND", {risec::Strategy::library("isMap")}); });
  EXPECT_TRUE(held_out_has(m, "argument 1 of 'tileND' must be a list of numbers")) << m;
  m = held_out_error([] { risec::Strategy::library("splitJoin", {std::vector<int64_t>{4}}); });
  EXPECT_TRUE(held_out_has(m, "must be a number, not a list of numbers")) << m;
  // The right kinds still build.
  EXPECT_FALSE(risec::Strategy::library("splitJoin", {int64_t{4}}).name().empty());
  // In a .elv file, a let's parameter carries any kind to the entry it calls: a located
  // error there too.
  for (const char* text : {"let f(x) = isApplied(x);\nlet main = f(3) @ topDown;\n",
                           "let f(x) = tileND(x);\nlet main = f(isMap) @ topDown;\n",
                           "let f(x) = splitJoin(x);\nlet main = f([4]) @ topDown;\n"}) {
    std::optional<risec::Error> caught;
    try {
      risec::Strategy::parse(text, "s.elv");
    } catch (const risec::Error& e) {
      caught = e;
    }
    ASSERT_TRUE(caught) << text;
    EXPECT_EQ(caught->kind(), risec::ErrorKind::User) << text;
    EXPECT_TRUE(held_out_has(caught->message(), "must be")) << caught->message();
    EXPECT_TRUE(held_out_has(risec::format_error(*caught), "s.elv:"))
        << risec::format_error(*caught);
  }
}

TEST(ApiHeldOut, CallMessagesSayWhatIsMissing) {
  risec::Program p = risec::Program::parse(
      "def g = depFun((n: Nat, m: Nat) => fun(a: n.m.f32 => a |> map(reduce(add)(0.0f))))\n"
      "def ix = depFun(n: Nat => fun(a: n.f32 => fun(i: 3.idx[n] => i |> map(fun(j => a[j])))))\n");
  risec::CompileOptions og;
  og.entry = "g";
  risec::Kernel k = risec::jit(p, og);
  std::vector<float> a(15), out(5);
  // call() without its sizes says which one is missing, as operator() does.
  std::string m = held_out_error([&] {
    k.call(held_out_ref(out, {5}), {held_out_ref(a, {5, 3})});
  });
  EXPECT_TRUE(held_out_has(m, "size n has no value; the kernel g takes the sizes n, m")) << m;
  m = held_out_error([&] { k.shape("output", {{"n", 5}}); });
  EXPECT_TRUE(held_out_has(m, "size m has no value")) << m;
  // An index input of i64 elements: the message names the i32 it needs.
  risec::CompileOptions oi;
  oi.entry = "ix";
  risec::Kernel ki = risec::jit(p, oi);
  std::vector<float> av = {1, 2, 3, 4}, oo(3);
  std::vector<int64_t> iv = {0, 1, 2};
  m = held_out_error([&] { ki(oo, {av, iv}, {{"n", 4}}); });
  EXPECT_TRUE(held_out_has(m, "holds i64, the parameter (3.idx[n]) needs i32")) << m;
  // More shapes than inputs are refused (fewer leave sizes to `given`).
  m = held_out_error([&] { k.sizes({{5, 3}, {7}, {1, 2, 3}}); });
  EXPECT_TRUE(held_out_has(m, "the kernel g takes 1 input(s), 3 shapes given")) << m;
  EXPECT_EQ(k.sizes({}, {{"n", 5}, {"m", 3}}), (risec::Sizes{{"m", 3}, {"n", 5}}));
  EXPECT_EQ(k.sizes({{5, 3}}), (risec::Sizes{{"m", 3}, {"n", 5}}));
}
