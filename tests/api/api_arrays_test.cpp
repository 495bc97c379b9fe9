// The public API on arrays in memory (include/risec/risec.h, docs/api.md "Arrays"):
// strided views, sizes from shapes, the interpreter, kernels called on arrays of any
// layout (checked against the interpreter on row-major copies), inputs bound from
// memory, and the tuning API (include/risec/tuning.h). Only the public headers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "risec/risec.h"
#include "risec/tuning.h"

namespace {

const char* kAxpy2 = R"(def axpy2 = depFun((n: Nat, m: Nat) => fun(a: f32 => fun(x: n.m.f32 =>
  fun(y: n.m.f32 => zip(x)(y) |> map(fun(r => zip(r._1)(r._2) |> map(fun(p => a * p._1 + p._2))))))))
)";
const char* kWeighted = R"(def weighted = depFun((n: Nat, k: Nat) => fun(x: n.k.f32 =>
  fun(w: k.f32 => x |> map(fun(row => zip(row)(w) |> map(fun(p => p._1 * p._2)) |> reduce(add)(0.0f))))))
)";

// A strided view of `storage` (an n x m matrix placed with `strides`, from `offset`).
risec::ArrayRef view(std::vector<float>& storage, int64_t offset, std::vector<int64_t> shape,
                     std::vector<int64_t> strides) {
  risec::ArrayRef a;
  a.data = storage.data() + offset;
  a.element = risec::ScalarType::F32;
  a.shape = std::move(shape);
  a.strides = std::move(strides);
  return a;
}

// Element (i, j) of a 2-D view.
float at(const risec::ArrayRef& a, int64_t i, int64_t j) {
  const auto* p = static_cast<const float*>(a.data);
  return p[i * a.strides[0] + j * a.strides[1]];
}

// A random 2-D layout of an n x m matrix: row- or column-major, steps of 1..3 in each
// dimension, either direction. Returns the view and fills its storage.
risec::ArrayRef random_layout(std::mt19937& g, int64_t n, int64_t m, std::vector<float>& storage) {
  std::uniform_int_distribution<int64_t> step(1, 3);
  const int64_t si = step(g), sj = step(g);
  const bool column_major = g() % 2;
  const int64_t rows = n * si, cols = m * sj;  // the storage is rows x cols, laid out
  int64_t s0 = column_major ? 1 : cols, s1 = column_major ? rows : 1;
  s0 *= si;
  s1 *= sj;
  int64_t offset = 0;
  if (g() % 2) {  // backwards in dimension 0
    offset += (n - 1) * s0;
    s0 = -s0;
  }
  if (g() % 2) {
    offset += (m - 1) * s1;
    s1 = -s1;
  }
  storage.assign(static_cast<size_t>(rows * cols), 0.0f);
  std::normal_distribution<float> d;
  for (float& v : storage) v = d(g);
  return view(storage, offset, {n, m}, {s0, s1});
}

std::vector<float> row_major(const risec::ArrayRef& a) {
  std::vector<float> out(static_cast<size_t>(a.count()));
  a.copy_to(out.data());
  return out;
}

TEST(ApiArrays, CopiesFollowTheStrides) {
  std::mt19937 g(5);
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t n = 1 + g() % 6, m = 1 + g() % 6;
    std::vector<float> storage;
    risec::ArrayRef a = random_layout(g, n, m, storage);
    std::vector<float> flat = row_major(a);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) ASSERT_EQ(flat[i * m + j], at(a, i, j));
    // copy_from writes the same places back.
    std::vector<float> twice(flat.size());
    for (size_t k = 0; k < flat.size(); ++k) twice[k] = 2 * flat[k];
    a.copy_from(twice.data());
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) ASSERT_EQ(at(a, i, j), twice[i * m + j]);
    // Row-major: each dimension of more than one element steps over the later ones.
    const bool dense = (m == 1 || a.strides[1] == 1) && (n == 1 || a.strides[0] == m);
    EXPECT_EQ(a.row_major(), dense);
  }
  risec::ArrayRef scalar;
  float x = 3;
  scalar.data = &x;
  EXPECT_TRUE(scalar.row_major());
  EXPECT_EQ(scalar.count(), 1);
  EXPECT_EQ(scalar.bytes(), 4u);
}

TEST(ApiArrays, KernelOnAnyLayoutAgreesWithTheInterpreter) {
  risec::Program p = risec::Program::parse(kAxpy2);
  risec::Kernel k = risec::jit(p);
  std::mt19937 g(9);
  for (int trial = 0; trial < 60; ++trial) {
    const int64_t n = 1 + g() % 9, m = 1 + g() % 9;
    std::vector<float> xs, ys, os;
    risec::ArrayRef x = random_layout(g, n, m, xs), y = random_layout(g, n, m, ys);
    risec::ArrayRef out = random_layout(g, n, m, os);
    float a = 0.75f;
    risec::ArrayRef alpha;
    alpha.data = &a;
    const risec::Sizes sizes = k.sizes({{}, x.shape, y.shape});
    EXPECT_EQ(sizes, (risec::Sizes{{"n", n}, {"m", m}}));
    k.call(out, {alpha, x, y}, sizes);
    // The interpreter on row-major copies.
    std::vector<float> xr = row_major(x), yr = row_major(y);
    risec::ArrayRef xc, yc;
    xc.data = xr.data();
    xc.shape = {n, m};
    yc.data = yr.data();
    yc.shape = {n, m};
    std::vector<risec::Array> want = risec::interpret(p, {alpha, xc, yc});
    ASSERT_EQ(want.size(), 1u);
    ASSERT_EQ(want[0].shape, (std::vector<int64_t>{n, m}));
    const auto* w = reinterpret_cast<const float*>(want[0].bytes.data());
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j)
        ASSERT_NEAR(at(out, i, j), w[i * m + j], 1e-6f * (1 + std::fabs(w[i * m + j])))
            << "trial " << trial << " (" << i << ", " << j << ")";
  }
}

TEST(ApiArrays, CallErrorsNameTheArray) {
  risec::Kernel k = risec::jit(risec::Program::parse(kAxpy2));
  std::vector<float> xs(12), ys(12), os(12);
  float a = 1;
  risec::ArrayRef alpha;
  alpha.data = &a;
  risec::ArrayRef x = view(xs, 0, {3, 4}, {}), y = view(ys, 0, {3, 4}, {});
  risec::ArrayRef out = view(os, 0, {3, 4}, {});
  const risec::Sizes s = {{"n", 3}, {"m", 4}};
  auto message = [&](const std::function<void()>& f) {
    try {
      f();
    } catch (const risec::Error& e) {
      EXPECT_EQ(e.kind(), risec::ErrorKind::Usage);
      return e.message();
    }
    return std::string("no error");
  };
  risec::ArrayRef wrong = view(ys, 0, {4, 3}, {});
  EXPECT_NE(message([&] {
              k.call(out, {alpha, x, wrong}, s);
            }).find("inputs[2] (y)"),
            std::string::npos);
  risec::ArrayRef f64 = y;
  f64.element = risec::ScalarType::F64;
  EXPECT_NE(message([&] { k.call(out, {alpha, x, f64}, s); }).find("holds f64"), std::string::npos);
  EXPECT_NE(message([&] {
              k.call(x, {alpha, x, y}, s);
            }).find("shares memory with inputs[1] (x)"),
            std::string::npos);
  // An output whose elements overlap each other: a zero stride (a broadcast row), and
  // strides that interleave (rows 2 apart of 4 elements).
  for (const std::vector<int64_t>& strides :
       {std::vector<int64_t>{0, 1}, std::vector<int64_t>{2, 1}, std::vector<int64_t>{1, 1}}) {
    risec::ArrayRef overlapping = view(os, 0, {3, 4}, strides);
    EXPECT_NE(message([&] {
                k.call(overlapping, {alpha, x, y}, s);
              }).find("the output's elements overlap"),
              std::string::npos);
  }
  std::vector<float> wide(24);
  risec::ArrayRef disjoint = view(wide, 0, {3, 4}, {1, 6});  // interleaved yet disjoint
  EXPECT_EQ(message([&] { k.call(disjoint, {alpha, x, y}, s); }), "no error");
  EXPECT_NE(message([&] {
              k.sizes({{}, x.shape, y.shape}, {{"nn", 3}});
            }).find("did you mean 'n'"),
            std::string::npos);
  EXPECT_EQ(k.shape("output", s), (std::vector<int64_t>{3, 4}));
  EXPECT_TRUE(k.shape("a", s).empty());
}

TEST(ApiArrays, SizesAndParametersFromTheProgram) {
  risec::Program p = risec::Program::parse(kWeighted);
  EXPECT_EQ(p.infer_sizes({{5, 3}, {3}}), (risec::Sizes{{"n", 5}, {"k", 3}}));
  try {
    p.infer_sizes({{5, 3}, {4}});
    FAIL() << "no error";
  } catch (const risec::Error& e) {
    EXPECT_NE(e.message().find("inputs[1] (w) (dimension 0)"), std::string::npos) << e.message();
  }
  std::vector<risec::Parameter> ps = p.check().parameters();
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_EQ(ps[1].name, "w");
  EXPECT_EQ(ps[1].type, "k.f32");
  EXPECT_EQ(ps[1].element, risec::ScalarType::F32);
}

TEST(ApiArrays, InputsBoundFromMemory) {
  risec::Program p = risec::Program::parse(kWeighted);
  std::vector<float> ws = {1, -5, 0, -5, 2, -5};  // w = [1, 0, 2], every other element
  risec::CompileOptions o;
  o.bind_arrays.emplace("w", view(ws, 0, {3}, {2}));
  risec::Kernel k = risec::jit(p, o);
  ASSERT_EQ(k.source().inputs().size(), 1u);  // w became constants
  EXPECT_EQ(k.source().fixed_sizes(), (risec::Sizes{{"k", 3}}));
  EXPECT_EQ(k.source().code().find("w["), std::string::npos);
  std::vector<float> x = {1, 2, 3, 4, 5, 6}, y(2);
  k(y, {x}, {{"n", 2}});
  EXPECT_EQ(y, (std::vector<float>{1 + 6, 4 + 12}));
  // A name that is no parameter: the nearest is suggested.
  risec::CompileOptions bad;
  bad.bind_arrays.emplace("v", view(ws, 0, {3}, {2}));
  try {
    risec::compile(p, bad);
    FAIL() << "no error";
  } catch (const risec::Error& e) {
    EXPECT_EQ(e.kind(), risec::ErrorKind::Usage);
    EXPECT_NE(e.message().find("bind[\"v\"]"), std::string::npos) << e.message();
  }
}

TEST(ApiArrays, TunerOverTheTemplate) {
  const std::string program = kWeighted;
  const std::string tmpl = "param v in [4, 8];\nlet main = lowerToC;\n";
  risec::TunerOptions o;
  o.sizes = {{"n", 16}, {"k", 8}};
  o.repeat = 1;
  risec::Tuner t(program, "w.rise", tmpl, "t.elv", o);
  ASSERT_EQ(t.parameters().size(), 1u);
  EXPECT_EQ(t.parameters()[0].name, "v");
  EXPECT_EQ(t.parameters()[0].values, (std::vector<int64_t>{4, 8}));
  EXPECT_FALSE(t.key().empty());
  EXPECT_EQ(t.strategy({{"v", 8}}).find("param"), std::string::npos);
  risec::TrialResult r = t.trial({{"v", 8}});
  EXPECT_EQ(r.status, risec::TrialResult::Status::Measured) << r.error;
  EXPECT_GT(r.time_ms, 0);
  EXPECT_THROW(t.trial({}), risec::Error);
  EXPECT_THROW(risec::Tuner(program, "w.rise", "let main = lowerToC;\n", "t.elv", o), risec::Error);
}

}  // namespace
