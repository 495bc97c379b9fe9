// End-to-end tests of the reference interpreter: programs from examples/ are parsed,
// type-checked with concrete sizes, evaluated on seeded random inputs and compared
// with straightforward C++ loops; plus a timing sanity run of the sizes the
// interpreter must handle in a few seconds (printed, never asserted).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>

#include "rise/check.h"
#include "rise/interp.h"
#include "rise/parser.h"
#include "support/random.h"

namespace risec::rise {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct ExampleRun {
  Checked checked;
  std::vector<Value> inputs;
  Value result;
  double seconds = 0;
};

Checked check_source(const std::string& name, const std::string& text, const SizeMap& sizes,
                     const std::string& entry = "") {
  auto src = std::make_shared<SourceFile>(SourceFile{name, text});
  Program p = parse_program(src);
  return check_program(p, entry, &sizes);
}

// Check `text` with `sizes`, draw the inputs with seed 42 and evaluate.
ExampleRun run_source(const std::string& name, const std::string& text, const SizeMap& sizes,
                      const std::string& entry = "") {
  ExampleRun r;
  r.checked = check_source(name, text, sizes, entry);
  EntrySignature sig = entry_signature(r.checked.type);
  for (size_t i = 0; i < sig.params.size(); ++i)
    r.inputs.push_back(random_input(sig.params[i], runtime::derive_seed(42, i)));
  Interpreter interp;
  auto t0 = std::chrono::steady_clock::now();
  r.result = interp.run(r.checked.expr, r.inputs);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

ExampleRun run_example(const std::string& name, const SizeMap& sizes) {
  std::string path = std::string(RISEC_SOURCE_DIR) + "/examples/" + name + "/" + name + ".rise";
  return run_source(path, read_file(path), sizes);
}

// Row-major float matrix of a value of type n.m.f32 (or n.f32 with m = 1).
std::vector<float> floats(const Value& v, const Type& t) {
  runtime::NdArray a = to_ndarray(v, t);
  return std::vector<float>(a.as<float>(), a.as<float>() + a.count());
}

Value dense_f32(const std::vector<float>& xs, const Type& t) {
  std::vector<int64_t> shape;
  for (Type c = t; c->kind == TypeKind::Array; c = c->a) shape.push_back(*c->size.as_const());
  runtime::NdArray a = runtime::make_array(runtime::DType::F32, shape);
  std::copy(xs.begin(), xs.end(), a.as<float>());
  return from_ndarray(a, t);
}

void expect_close(const Value& got, const Value& want, double rtol, double atol) {
  std::string where;
  EXPECT_TRUE(values_close(got, want, rtol, atol, &where)) << where;
}

TEST(InterpExamples, MatrixMatrix) {
  const int64_t n = 64, m = 48, k = 40;
  ExampleRun r = run_example("mm", {{"n", n}, {"m", m}, {"k", k}});
  EXPECT_EQ(print(r.checked.type), "64.40.f32 -> 40.48.f32 -> 64.48.f32");
  std::vector<float> A = floats(r.inputs[0], array(Nat(n), array(Nat(k), scalar(ScalarKind::F32))));
  std::vector<float> B = floats(r.inputs[1], array(Nat(k), array(Nat(m), scalar(ScalarKind::F32))));
  std::vector<float> C(static_cast<size_t>(n * m));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      float acc = 0.0f;
      for (int64_t q = 0; q < k; ++q)
        acc += A[static_cast<size_t>(i * k + q)] * B[static_cast<size_t>(q * m + j)];
      C[static_cast<size_t>(i * m + j)] = acc;
    }
  Type ct = array(Nat(n), array(Nat(m), scalar(ScalarKind::F32)));
  expect_close(r.result, dense_f32(C, ct), 1e-4, 0);
  // The fold is sequential and in float: the same operations as the loop above.
  EXPECT_TRUE(values_equal(r.result, dense_f32(C, ct)));
}

TEST(InterpExamples, MatrixVector) {
  const int64_t n = 33, m = 17;
  ExampleRun r = run_example("mv", {{"n", n}, {"m", m}});
  std::vector<float> M = floats(r.inputs[0], array(Nat(n), array(Nat(m), scalar(ScalarKind::F32))));
  std::vector<float> x = floats(r.inputs[1], array(Nat(m), scalar(ScalarKind::F32)));
  std::vector<float> y(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    float acc = 0.0f;
    for (int64_t j = 0; j < m; ++j)
      acc += M[static_cast<size_t>(i * m + j)] * x[static_cast<size_t>(j)];
    y[static_cast<size_t>(i)] = acc;
  }
  expect_close(r.result, dense_f32(y, array(Nat(n), scalar(ScalarKind::F32))), 1e-5, 0);
}

TEST(InterpExamples, Jacobi5ClampedBorders) {
  const int64_t n = 20, m = 13;
  ExampleRun r = run_example("jacobi5", {{"n", n}, {"m", m}});
  Type t = array(Nat(n), array(Nat(m), scalar(ScalarKind::F32)));
  std::vector<float> A = floats(r.inputs[0], t);
  auto at = [&](int64_t i, int64_t j) {
    i = std::clamp<int64_t>(i, 0, n - 1);
    j = std::clamp<int64_t>(j, 0, m - 1);
    return A[static_cast<size_t>(i * m + j)];
  };
  std::vector<float> out(static_cast<size_t>(n * m));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j)
      out[static_cast<size_t>(i * m + j)] =
          0.2f * (at(i - 1, j) + at(i + 1, j) + at(i, j + 1) + at(i, j - 1) + at(i, j));
  expect_close(r.result, dense_f32(out, t), 1e-6, 0);
  EXPECT_TRUE(values_equal(r.result, dense_f32(out, t)));
}

TEST(InterpExamples, Jacobi3) {
  const int64_t n = 5, m = 9;
  ExampleRun r = run_example("jacobi3", {{"n", n}, {"m", m}});
  Type t = array(Nat(n), array(Nat(m), scalar(ScalarKind::F32)));
  std::vector<float> A = floats(r.inputs[0], t);
  std::vector<float> out(static_cast<size_t>(n * m));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      auto a = [&](int64_t jj) {
        return A[static_cast<size_t>(i * m + std::clamp<int64_t>(jj, 0, m - 1))];
      };
      out[static_cast<size_t>(i * m + j)] = (a(j - 1) + a(j) + a(j + 1)) / 3.0f;
    }
  EXPECT_TRUE(values_equal(r.result, dense_f32(out, t)));
}

TEST(InterpExamples, Conv1dDotAsumScalGemv) {
  {
    const int64_t n = 30;
    ExampleRun r = run_example("conv1d", {{"n", n}});
    std::vector<float> x = floats(r.inputs[0], array(Nat(n + 4), scalar(ScalarKind::F32)));
    std::vector<float> w = floats(r.inputs[1], array(Nat(5), scalar(ScalarKind::F32)));
    std::vector<float> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      float acc = 0.0f;
      for (int64_t j = 0; j < 5; ++j)
        acc += x[static_cast<size_t>(i + j)] * w[static_cast<size_t>(j)];
      out[static_cast<size_t>(i)] = acc;
    }
    EXPECT_TRUE(values_equal(r.result, dense_f32(out, array(Nat(n), scalar(ScalarKind::F32)))));
  }
  {
    ExampleRun r = run_example("dot", {{"n", 100}});
    std::vector<float> x = floats(r.inputs[0], array(Nat(100), scalar(ScalarKind::F32)));
    std::vector<float> y = floats(r.inputs[1], array(Nat(100), scalar(ScalarKind::F32)));
    float acc = 0.0f;
    for (size_t i = 0; i < 100; ++i) acc += x[i] * y[i];
    EXPECT_EQ(r.result.as_f32(), acc);
  }
  {
    ExampleRun r = run_example("asum", {{"n", 50}});
    std::vector<float> x = floats(r.inputs[0], array(Nat(50), scalar(ScalarKind::F32)));
    float acc = 0.0f;
    for (float v : x) acc += std::fabs(v);
    EXPECT_EQ(r.result.as_f32(), acc);
  }
  {
    ExampleRun r = run_example("scal", {{"n", 10}});
    float alpha = r.inputs[0].as_f32();
    std::vector<float> x = floats(r.inputs[1], array(Nat(10), scalar(ScalarKind::F32)));
    for (float& v : x) v = alpha * v;
    EXPECT_TRUE(values_equal(r.result, dense_f32(x, array(Nat(10), scalar(ScalarKind::F32)))));
  }
  {
    const int64_t n = 7, m = 9;
    ExampleRun r = run_example("gemv", {{"n", n}, {"m", m}});
    std::vector<float> A =
        floats(r.inputs[0], array(Nat(n), array(Nat(m), scalar(ScalarKind::F32))));
    std::vector<float> x = floats(r.inputs[1], array(Nat(m), scalar(ScalarKind::F32)));
    std::vector<float> y = floats(r.inputs[2], array(Nat(n), scalar(ScalarKind::F32)));
    float alpha = r.inputs[3].as_f32(), beta = r.inputs[4].as_f32();
    std::vector<float> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      float acc = 0.0f;
      for (int64_t j = 0; j < m; ++j)
        acc += A[static_cast<size_t>(i * m + j)] * x[static_cast<size_t>(j)];
      out[static_cast<size_t>(i)] = alpha * acc + beta * y[static_cast<size_t>(i)];
    }
    EXPECT_TRUE(values_equal(r.result, dense_f32(out, array(Nat(n), scalar(ScalarKind::F32)))));
  }
}

TEST(InterpExamples, ConcatPad) {
  ExampleRun r = run_example("concatpad", {{"n", 3}, {"m", 2}});
  std::vector<float> x = floats(r.inputs[0], array(Nat(3), scalar(ScalarKind::F32)));
  std::vector<float> y = floats(r.inputs[1], array(Nat(2), scalar(ScalarKind::F32)));
  std::vector<float> want = {2 * x[0], 2 * x[1], 2 * x[2], 0.0f, y[0], y[1], 0.0f};
  EXPECT_TRUE(values_equal(r.result, dense_f32(want, array(Nat(7), scalar(ScalarKind::F32)))));
}

TEST(InterpExamples, TreeSumIterates) {
  const int64_t m = 3, k = 4;  // 3 blocks of 16
  ExampleRun r = run_example("treesum", {{"m", m}, {"k", k}});
  std::vector<float> x = floats(r.inputs[0], array(Nat(m * 16), scalar(ScalarKind::F32)));
  // each round adds neighbouring pairs
  std::vector<float> cur = x;
  for (int round = 0; round < k; ++round) {
    std::vector<float> next(cur.size() / 2);
    for (size_t i = 0; i < next.size(); ++i) next[i] = cur[2 * i] + cur[2 * i + 1];
    cur = next;
  }
  EXPECT_TRUE(values_equal(r.result, dense_f32(cur, array(Nat(m), scalar(ScalarKind::F32)))));
}

TEST(InterpExamples, BlackScholesPairs) {
  const int64_t n = 16;
  ExampleRun r = run_example("blackscholes", {{"n", n}});
  Type vt = array(Nat(n), scalar(ScalarKind::F32));
  std::vector<float> S = floats(r.inputs[0], vt), K = floats(r.inputs[1], vt),
                     T = floats(r.inputs[2], vt);
  float rate = r.inputs[3].as_f32(), vol = r.inputs[4].as_f32();
  auto cnd = [](float x) { return 0.5f * (1.0f + std::erf(x / std::sqrt(2.0f))); };
  ASSERT_EQ(r.result.size(), n);
  for (int64_t i = 0; i < n; ++i) {
    float s = S[static_cast<size_t>(i)], kk = K[static_cast<size_t>(i)],
          t = T[static_cast<size_t>(i)];
    float sqrtT = std::sqrt(t);
    float d1 = (std::log(s / kk) + (rate + 0.5f * vol * vol) * t) / (vol * sqrtT);
    float d2 = d1 - vol * sqrtT;
    float discK = kk * std::exp(-rate * t);
    float call = s * cnd(d1) - discK * cnd(d2);
    float put = discK * cnd(-d2) - s * cnd(-d1);
    Value got = r.result.at(i);
    EXPECT_NEAR(got.first().as_f32(), call, 1e-5f * std::max(1.0f, std::fabs(call))) << i;
    EXPECT_NEAR(got.second().as_f32(), put, 1e-5f * std::max(1.0f, std::fabs(put))) << i;
  }
  // the result as arrays: one per component
  auto parts = to_ndarrays(r.result, entry_signature(r.checked.type).result);
  EXPECT_EQ(parts.size(), 2u);
}

TEST(InterpExamples, GaussianMakeArrayAndPrelude) {
  const int64_t n = 9, m = 11;
  ExampleRun r = run_example("gaussian", {{"n", n}, {"m", m}});
  Type t = array(Nat(n), array(Nat(m), scalar(ScalarKind::F32)));
  std::vector<float> A = floats(r.inputs[0], t);
  const float g[3][3] = {{1, 2, 1}, {2, 4, 2}, {1, 2, 1}};
  std::vector<float> out(static_cast<size_t>(n * m));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      float acc = 0.0f;
      for (int64_t di = 0; di < 3; ++di)
        for (int64_t dj = 0; dj < 3; ++dj) {
          int64_t ii = std::clamp<int64_t>(i + di - 1, 0, n - 1);
          int64_t jj = std::clamp<int64_t>(j + dj - 1, 0, m - 1);
          acc += A[static_cast<size_t>(ii * m + jj)] * (g[di][dj] / 16.0f);
        }
      out[static_cast<size_t>(i * m + j)] = acc;
    }
  expect_close(r.result, dense_f32(out, t), 1e-6, 0);
  EXPECT_TRUE(values_equal(r.result, dense_f32(out, t)));
}

TEST(InterpExamples, SmallPrograms) {
  // prelude helpers, reduceSeq with a lambda, scanSeq, padCst2D, split2D/join2D
  const char* text = R"(
def tile = depFun((n: Nat) => fun(x: n.n.i32 => x |> split2D(2)(2) |> join2D))
def prefix = depFun((n: Nat) => fun(x: n.i32 => x |> scanSeq(fun(a, acc => acc + a))(0)))
def horner = depFun((n: Nat) => fun(x: n.i32 => x |> reduceSeq(fun(acc, a => acc * 10 + a))(0)))
def border = depFun((n: Nat) => fun(x: n.n.i32 => x |> padCst2D(1)(1)(7)))
)";
  Interpreter interp;
  {
    Checked c = check_source("small.rise", text, {{"n", 4}}, "tile");
    Value in = random_input(entry_signature(c.type).params[0], 3);
    EXPECT_TRUE(values_equal(interp.run(c.expr, {in}), in));
  }
  {
    Checked c = check_source("small.rise", text, {{"n", 4}}, "prefix");
    runtime::NdArray a = runtime::make_array(runtime::DType::I32, {4});
    for (int k = 0; k < 4; ++k) a.as<int32_t>()[k] = k + 1;
    Value in = from_ndarray(a, entry_signature(c.type).params[0]);
    EXPECT_EQ(interp.run(c.expr, {in}).to_string(), "[1, 3, 6, 10]");
    Checked h = check_source("small.rise", text, {{"n", 4}}, "horner");
    EXPECT_EQ(interp.run(h.expr, {in}).to_string(), "1234");
  }
  {
    Checked c = check_source("small.rise", text, {{"n", 2}}, "border");
    runtime::NdArray a = runtime::make_array(runtime::DType::I32, {2, 2});
    for (int k = 0; k < 4; ++k) a.as<int32_t>()[k] = k;
    Value in = from_ndarray(a, entry_signature(c.type).params[0]);
    EXPECT_EQ(interp.run(c.expr, {in}).to_string(),
              "[[7, 7, 7, 7], [7, 0, 1, 7], [7, 2, 3, 7], [7, 7, 7, 7]]");
  }
}

TEST(InterpExamples, DivisionByZeroInAProgram) {
  const char* text = "def f = fun(x: i32 => fun(y: i32 => x / y))";
  Checked c = check_source("div.rise", text, {});
  Interpreter interp;
  try {
    interp.run(c.expr, {Value::integer(ScalarKind::I32, 1), Value::integer(ScalarKind::I32, 0)});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "integer division by zero in `x / y`");
    EXPECT_EQ(e.kind(), ErrorKind::External);
    EXPECT_TRUE(e.span().known());
    std::cout << format_error(e) << "\n";
  }
}

TEST(InterpExamples, MissingSize) {
  std::string path = std::string(RISEC_SOURCE_DIR) + "/examples/mv/mv.rise";
  Checked c = check_source(path, read_file(path), {{"n", 4}});
  Interpreter interp;
  try {
    interp.run(c.expr, {});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User);
    EXPECT_EQ(e.message(), "size m has no value; pass --size m=...");
  }
}

// Not a benchmark: makes sure the sizes the interpreter must handle stay in the
// range of seconds (Release build). Prints the times.
TEST(InterpExamples, TimingSanity) {
  ExampleRun mm = run_example("mm", {{"n", 256}, {"m", 256}, {"k", 256}});
  std::cout << "[ timing ] mm 256x256x256: " << mm.seconds << " s\n";
  ExampleRun j5 = run_example("jacobi5", {{"n", 1024}, {"m", 1024}});
  std::cout << "[ timing ] jacobi5 1024x1024: " << j5.seconds << " s\n";
  // spot-check one element of each
  Value c00 = mm.result.at(17).at(42);
  float acc = 0.0f;
  for (int64_t q = 0; q < 256; ++q)
    acc += mm.inputs[0].at(17).at(q).as_f32() * mm.inputs[1].at(q).at(42).as_f32();
  EXPECT_EQ(c00.as_f32(), acc);
  EXPECT_EQ(j5.result.size(), 1024);
}

}  // namespace
}  // namespace risec::rise
