// `--bind NAME=FILE.npy` (driver/bind.h, docs/cli.md "Binding inputs"): a convolution
// compiled with its weights bound computes what the generic program computes on the
// same weights (conv1d, conv2d with the default lowering and with the example's
// OpenMP strategy, a separable blur with weights as a parameter), and what the
// interpreter computes on the bound program (`run --check`); the generated code has
// the weights as constants, zero weights gone and no loop over the weights; errors
// name the option.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "driver/bind.h"
#include "e2e_util.h"
#include "rise/interp.h"
#include "runtime/npy.h"
#include "support/random.h"

namespace risec::e2e {
namespace {

// A .npy file of f32 values with the shape, in the scratch directory.
std::string npy(const std::string& name, const std::vector<int64_t>& shape,
                const std::vector<float>& values) {
  runtime::NdArray a = runtime::make_array(runtime::DType::F32, shape);
  EXPECT_EQ(a.count(), static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) a.as<float>()[i] = values[i];
  std::string path = scratch_path(name + ".npy");
  runtime::write_npy(path, a);
  return path;
}

// A weight array of `count` values, about half of them 0, the others small integers
// and halves (so that zero weights have something to vanish from).
std::vector<float> weights(int count, uint64_t seed) {
  std::vector<float> w(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    uint64_t r = runtime::derive_seed(seed, static_cast<uint64_t>(i)) % 7;
    w[static_cast<size_t>(i)] = r < 3 ? 0.0f : static_cast<float>(r) * 0.5f - 2.0f;
  }
  return w;
}

// Compiles `file` (with `strategy`, "" for the default lowering) at `sizes`, binding
// `bind`, and runs it on `inputs` by name (every other parameter gets seeded data),
// checked against the interpreter on the program compiled (for a bound program: with
// the bound values in it), as `run --check` does.
CheckReport compile_run(const std::string& file, const std::string& strategy,
                        const std::string& sizes, const std::map<std::string, std::string>& bind,
                        const std::map<std::string, std::string>& inputs,
                        const std::string& target = "c") {
  CheckOptions o;
  o.target = target;
  o.bind = bind;
  o.inputs = inputs;
  o.seed = 3;
  CheckReport r = run_and_compare(file, strategy, sizes, o);
  EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch;
  return r;
}

// The bound program's result equals the generic program's on the same values.
void expect_same_as_unbound(const std::string& file, const std::string& strategy,
                            const std::string& sizes, const std::string& weight_name,
                            const std::string& weight_file, const std::string& data_name,
                            const std::string& data_file, const std::string& target = "c") {
  CheckReport generic = compile_run(file, strategy, sizes, {},
                                    {{weight_name, weight_file}, {data_name, data_file}}, target);
  CheckReport bound = compile_run(file, strategy, sizes, {{weight_name, weight_file}},
                                  {{data_name, data_file}}, target);
  driver::Comparison cmp = driver::compare_values(bound.execution.output, generic.execution.output,
                                                  driver::entry_result_type(generic.compiled.high));
  EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
  EXPECT_GT(cmp.elements, 0);
  // The bound parameter left the signature: one input less.
  EXPECT_EQ(driver::value_parameters(bound.compiled.high).size() + 1,
            driver::value_parameters(generic.compiled.high).size());
  EXPECT_EQ(bound.compiled.unit.source.find("restrict " + weight_name), std::string::npos)
      << bound.compiled.unit.source;
}

std::vector<float> ramp(int count) {
  std::vector<float> v(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i % 13) * 0.25f;
  return v;
}

TEST(Bind, Conv1dEqualsTheGenericProgram) {
  const std::string w = npy("w1", {5}, {1.0f, 0.0f, 2.0f, 0.0f, 0.5f});
  for (int n : {1, 7, 64}) {
    SCOPED_TRACE(n);
    const std::string x = npy("x1_" + std::to_string(n), {n + 4}, ramp(n + 4));
    expect_same_as_unbound("examples/conv1d/conv1d.rise", "", "n=" + std::to_string(n), "w", w, "x",
                           x);
  }
}

TEST(Bind, Conv2dEqualsTheGenericProgram) {
  const std::string img = npy("img", {12, 9}, ramp(12 * 9));
  for (uint64_t seed : {1u, 2u}) {
    SCOPED_TRACE(seed);
    const std::string w = npy("w2_" + std::to_string(seed), {5, 5}, weights(25, seed));
    expect_same_as_unbound("examples/conv2d/conv2d.rise", "", "n=12,m=9", "w", w, "img", img);
    expect_same_as_unbound("examples/conv2d/conv2d.rise", "examples/conv2d/parallel.elv",
                           "n=12,m=9", "w", w, "img", img, "openmp");
  }
}

// blur5 with its weights as a parameter instead of a literal.
const char* kBlurWithWeights = R"(
def blurRows = fun(w: 5.f32 => map(fun(row =>
  row |> padCst(2)(2)(0.0f) |> slide(5)(1) |> map(fun(nbh =>
    zip(nbh)(w) |> map(fun(p => p._1 * p._2)) |> reduce(add)(0.0f))))))
def blur = depFun((n: Nat, m: Nat) => fun(img: n.m.f32 => fun(w: 5.f32 =>
  img |> blurRows(w) |> transpose |> blurRows(w) |> transpose)))
)";

TEST(Bind, SeparableBlurEqualsTheGenericProgram) {
  const std::string file = write_scratch("blur_w.rise", kBlurWithWeights);
  const std::string img = npy("bimg", {10, 11}, ramp(110));
  const std::string w = npy("bw", {5}, {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f});
  expect_same_as_unbound(file, "", "n=10,m=11", "w", w, "img", img);
  const std::string w0 = npy("bw0", {5}, {0.0f, 0.5f, 0.0f, 0.5f, 0.0f});
  expect_same_as_unbound(file, "", "n=10,m=11", "w", w0, "img", img);
}

// Golden: conv1d bound to weights with zeros is one loop over the outputs whose body
// is the sum of the non-zero taps with the weights as constants: no weight array, no
// loop or accumulator over the taps, no multiplication by 0 or 1.
TEST(Bind, ZeroWeightsVanishAndTheTapLoopIsUnrolled) {
  const std::string w = npy("wg", {5}, {1.0f, 0.0f, 2.0f, 0.0f, 0.5f});
  CheckReport o = compile_run("examples/conv1d/conv1d.rise", "", "n=32", {{"w", w}}, {});
  const std::string& c = o.compiled.unit.source;
  EXPECT_NE(c.find("output[i1] = x[i1] + x[i1 + 2] * 2.0f + x[i1 + 4] * 0.5f;"), std::string::npos)
      << c;
  EXPECT_EQ(c.find("0.0f"), std::string::npos) << c;  // no zero weight, no accumulator start
  EXPECT_EQ(c.find("x[i1 + 1]"), std::string::npos) << c;
  EXPECT_EQ(c.find("x[i1 + 3]"), std::string::npos) << c;
  size_t loops = 0;
  for (size_t i = c.find("for ("); i != std::string::npos; i = c.find("for (", i + 1)) ++loops;
  EXPECT_EQ(loops, 1u) << c;

  // conv2d: the 25 taps become the non-zero ones only.
  std::vector<float> w2 = weights(25, 5);
  int nonzero = 0;
  for (float v : w2) nonzero += v != 0.0f;
  CheckReport o2 = compile_run("examples/conv2d/conv2d.rise", "", "n=8,m=8",
                               {{"w", npy("wg2", {5, 5}, w2)}}, {});
  const std::string& c2 = o2.compiled.unit.source;
  EXPECT_GT(nonzero, 0);
  EXPECT_LT(nonzero, 25);
  // Each pixel's sum reads the image once per non-zero weight, in the interior (the
  // largest sums; at the borders, reads of the zero padding are literals).
  size_t most = 0;
  std::istringstream lines(c2);
  for (std::string line; std::getline(lines, line);) {
    size_t reads = 0;
    for (size_t i = line.find("img["); i != std::string::npos; i = line.find("img[", i + 1))
      ++reads;
    most = std::max(most, reads);
  }
  EXPECT_EQ(most, static_cast<size_t>(nonzero)) << c2;
  EXPECT_EQ(c2.find("acc"), std::string::npos) << c2;
}

// Binding with sizes left out: the sizes the bound file determines are fixed, the
// others stay parameters of the generic code.
TEST(Bind, TheBoundShapeFixesSizes) {
  const char* prog =
      "def f = depFun((n: Nat, k: Nat) => fun(x: n.f32 => fun(w: k.f32 =>\n"
      "  x |> map(fun(a => zip(w)(w) |> map(fun(p => p._1 * p._2 * a)) |> reduce(add)(0.0f))))))";
  const std::string file = write_scratch("fix.rise", prog);
  rise::Program p = driver::load_program(file);
  std::map<std::string, std::string> bind = {{"w", npy("wk", {3}, {1.0f, 0.0f, 2.0f})}};
  driver::CompileRequest req;
  req.program = &p;
  req.bind = &bind;
  driver::Compiled c = driver::compile(req);
  EXPECT_EQ(c.size_names, std::vector<std::string>{"n"});
  EXPECT_EQ(c.sizes, (rise::SizeMap{{"k", 3}}));
}

TEST(Bind, ErrorsNameTheOption) {
  const std::string w5 = npy("we5", {5}, {1, 2, 3, 4, 5});
  const std::string w6 = npy("we6", {6}, {1, 2, 3, 4, 5, 6});
  const std::string conv1d = "examples/conv1d/conv1d.rise";
  struct Case {
    std::vector<std::string> args;
    int code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"compile", conv1d, "--bind", "v=" + w5},
       2,
       "--bind v: the entry has no parameter named 'v' (did you mean 'w'?)"},
      {{"compile", conv1d, "--bind", "w=" + w6},
       1,
       "--bind w=" + w6 + " (dimension 0): the extent is 6, but the parameter's type needs 5"},
      {{"compile", "examples/conv2d/conv2d.rise", "--bind", "w=" + w5},
       1,
       "--bind w=" + w5 + ": the parameter w: 5.5.f32 has 2 dimension(s), the file's shape (5,)"},
      {{"compile", conv1d, "--bind", "w=" + w5, "--bind", "w=" + w5}, 2, "--bind w is given twice"},
      {{"run", conv1d, "--size", "n=4", "--bind", "w=" + w5, "--input", "w=" + w5},
       2,
       "--bind w: the parameter w is also given with --input; give it once"},
      {{"compile", conv1d, "--bind", "w"}, 2, "--bind expects NAME=FILE.npy, got 'w'"},
      {{"compile", conv1d, "--bind", "w=/nonexistent.npy"}, 1, "--bind w=/nonexistent.npy: "},
  };
  for (const Case& k : cases) {
    CliResult r = run_risec(k.args);
    EXPECT_EQ(r.exit_code, k.code) << show(r);
    EXPECT_NE(r.err.find(k.message), std::string::npos) << show(r);
  }
  // A dtype that is not the parameter's.
  runtime::NdArray ints = runtime::make_array(runtime::DType::I32, {5});
  const std::string wi = scratch_path("wi.npy");
  runtime::write_npy(wi, ints);
  CliResult r = run_risec({"compile", conv1d, "--bind", "w=" + wi});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_NE(r.err.find("--bind w=" + wi + ": an input of type 5.f32 needs elements of type f32"),
            std::string::npos)
      << show(r);
}

TEST(Bind, RunChecksTheBoundProgram) {
  const std::string w = npy("wr", {5, 5}, weights(25, 9));
  CliResult r = run_risec(
      {"run", "examples/conv2d/conv2d.rise", "--size", "n=6,m=7", "--bind", "w=" + w, "--check"});
  EXPECT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.out.find("check: passed (42 elements"), std::string::npos) << show(r);
}

// `eval --bind` interprets the bound program: what `eval --input` prints on the same
// file (the other inputs drawn as without --bind); `rewrite --bind` prints the
// specialised program (the weights folded in, the parameter gone); the commands that
// do not take --bind refuse it instead of ignoring it.
TEST(Bind, EvalAndRewriteHonourIt) {
  const std::string w = npy("wev", {5}, {1, 0, 2, 0, 0.5f});
  const std::string conv1d = "examples/conv1d/conv1d.rise";
  CliResult bound = run_risec({"eval", conv1d, "--size", "n=9", "--seed", "4", "--bind", "w=" + w});
  CliResult given =
      run_risec({"eval", conv1d, "--size", "n=9", "--seed", "4", "--input", "w=" + w});
  CliResult drawn = run_risec({"eval", conv1d, "--size", "n=9", "--seed", "4"});
  EXPECT_EQ(bound.exit_code, 0) << show(bound);
  EXPECT_EQ(bound.out, given.out) << show(bound) << show(given);
  EXPECT_NE(bound.out, drawn.out) << show(bound);
  // sizes from the bound shape and the other inputs: n from x's extent (n + 4)
  const std::string x = npy("xev", {13}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13});
  CliResult from_shapes = run_risec({"eval", conv1d, "--bind", "w=" + w, "--input", "x=" + x});
  EXPECT_EQ(from_shapes.exit_code, 0) << show(from_shapes);
  // 1*x[i] + 2*x[i+2] + 0.5*x[i+4] for x[i] = i + 1: 3.5 i + 9.5
  EXPECT_NE(from_shapes.out.find("f32(9,) = [9.5, 13, 16.5"), std::string::npos)
      << show(from_shapes);
  CliResult twice =
      run_risec({"eval", conv1d, "--size", "n=9", "--bind", "w=" + w, "--input", "w=" + w});
  EXPECT_EQ(twice.exit_code, 2) << show(twice);

  CliResult rw = run_risec({"rewrite", conv1d, "--strategy", "lowerToC", "--bind", "w=" + w});
  EXPECT_EQ(rw.exit_code, 0) << show(rw);
  EXPECT_EQ(rw.out.find("w: 5.f32"), std::string::npos) << show(rw);   // w is no parameter
  EXPECT_NE(rw.out.find("0.5f"), std::string::npos) << show(rw);       // its values are code
  EXPECT_EQ(rw.out.find("reduceSeq"), std::string::npos) << show(rw);  // the taps unrolled
  EXPECT_NE(rw.out.find("depFun(n"), std::string::npos) << show(rw);   // n stays a size

  for (const char* cmd : {"check", "print", "graph"}) {
    CliResult r = run_risec({cmd, conv1d, "--bind", "w=" + w});
    EXPECT_EQ(r.exit_code, 2) << cmd << show(r);
    EXPECT_NE(r.err.find("does not take --bind"), std::string::npos) << show(r);
  }
}

// A zero the program itself writes is not a zero weight: `t[i] * 0.0f` keeps the NaN
// of a bound table's NaN or infinite entry (specialise folds x * 0 only for bound
// zeros), and a bound table's non-finite values reach the result unchanged; checked
// against the interpreter on the bound program and against the generic program, on
// every CPU target.
TEST(Bind, WrittenZerosKeepTheNaNOfBoundValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> table = ramp(16);
  table[3] = nan;
  table[4] = inf;
  table[5] = -inf;
  table[6] = -0.0f;
  table[7] = 1e-45f;
  const std::string t = npy("tnan", {16}, table);
  const std::string x = npy("xnan", {16}, ramp(16));
  const std::string file = write_scratch(
      "tnan.rise",
      "def tnan = depFun(n: Nat => fun(t: n.f32 => fun(x: n.f32 =>\n"
      "  zip(x)(t) |> map(fun(p => fmax(p._1, p._2) + p._2 * 0.0f + 0.0f * p._2)))))");
  for (const char* target : {"c", "openmp"}) {
    SCOPED_TRACE(target);
    CheckReport bound = compile_run(file, "", "n=16", {{"t", t}}, {{"x", x}}, target);
    CheckReport generic = compile_run(file, "", "n=16", {}, {{"t", t}, {"x", x}}, target);
    driver::Comparison cmp =
        driver::compare_values(bound.execution.output, generic.execution.output,
                               driver::entry_result_type(generic.compiled.high));
    EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
    // elements 3, 4 and 5 are NaN (inf * 0), in both
    const rise::Value& out = bound.execution.output;
    for (int64_t i : {3, 4, 5}) EXPECT_TRUE(std::isnan(out.at(i).as_f32())) << i;
  }
}

}  // namespace
}  // namespace risec::e2e
