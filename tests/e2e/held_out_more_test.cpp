// What a held-out tester found after issue 32's mechanisms were in (the second round),
// each as a class of inputs checked against the interpreter: reduceSeq accumulators
// that are pairs holding arrays, integer division in the branch of a vector blend,
// results with a zero extent on every target, the exit code of an index out of range
// in eval and run, with-loop messages and preconditions, located OpenCL errors, and
// outputs that are not regular files.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "e2e_util.h"
#include "runtime/npy.h"

namespace risec::e2e {
namespace {

bool held_out_has(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

// An i32 input of n values, every third one 0 (the others 1..7).
std::string zeros_every_third(const std::string& name, int64_t n) {
  runtime::NdArray a = runtime::make_array(runtime::DType::I32, {n});
  for (int64_t i = 0; i < n; ++i)
    a.as<int32_t>()[i] = i % 3 == 0 ? 0 : static_cast<int32_t>(i % 7 + 1);
  std::string path = scratch_path(name + ".npy");
  runtime::write_npy(path, a);
  return path;
}

// A reduceSeq whose accumulator is a pair holding arrays (a row and a count, two rows,
// nested pairs), on the stack and (long rows) on the heap, on every CPU target and
// OpenCL, and per work item under mapGlobal and mapPar.
TEST(HeldOutMore, PairAccumulatorsHoldingArrays) {
  struct Acc {
    const char* init;
    const char* step;
  };
  const std::string plus = "zip(acc._1)(row) |> map(fun(p => p._1 + p._2))";
  const std::vector<Acc> accs = {
      // (row, count)
      {"(generate(fun(i => 0.0f)), 0.0f)",
       "(zip(acc._1)(row) |> map(fun(p => p._1 + p._2)), acc._2 + 1.0f)"},
      // (count, row)
      {"(0.0f, generate(fun(i => 1.0f)))",
       "(acc._1 + 2.0f, zip(acc._2)(row) |> map(fun(p => p._1 * p._2)))"},
      // (row, row): sum and maximum
      {"(generate(fun(i => 0.0f)), generate(fun(i => -inff)))",
       "(zip(acc._1)(row) |> map(fun(p => p._1 + p._2)), zip(acc._2)(row) |> map(fun(p => "
       "fmax(p._1)(p._2))))"},
      // ((row, count), row)
      {"((generate(fun(i => 0.0f)), 0.0f), generate(fun(i => 0.0f)))",
       "((zip(acc._1._1)(row) |> map(fun(p => p._1 + p._2)), acc._1._2 + 1.0f), zip(acc._2)(row) "
       "|> map(fun(p => p._1 - p._2)))"},
      // (count, (row, count))
      {"(0.0f, (generate(fun(i => 0.0f)), 0.0f))",
       "(acc._1 + row[0], (zip(acc._2._1)(row) |> map(fun(p => p._1 + 2.0f * p._2)), "
       "acc._2._2 - 1.0f))"},
  };
  int k = 0;
  for (const Acc& a : accs) {
    const std::string fold =
        "reduceSeq(fun(acc, row => " + std::string(a.step) + "))(" + a.init + ")";
    std::string whole =
        write_scratch("pairacc" + std::to_string(k) + ".rise",
                      "def f = depFun((n: Nat, m: Nat) => fun(a: n.m.f32 => a |> " + fold + "))\n");
    std::string blocks = write_scratch(
        "pairaccblocks" + std::to_string(k) + ".rise",
        "def f = depFun((b: Nat, n: Nat, m: Nat) => fun(a: b.n.m.f32 => a |> map(fun(x => x |> " +
            fold + "))))\n");
    ++k;
    for (const char* sizes : {"n=1,m=1", "n=3,m=17"})
      for (const char* target : {"c", "openmp", "opencl"}) {
        CliResult r = run_risec({"run", whole, "--size", sizes, "--target", target, "--check"});
        EXPECT_EQ(r.exit_code, 0) << a.step << " at " << sizes << " on " << target << "\n"
                                  << show(r);
      }
    // rows too long for the stack (the accumulator is on the heap)
    CliResult heap = run_risec({"run", whole, "--size", "n=2,m=9000", "--check"});
    EXPECT_EQ(heap.exit_code, 0) << a.step << "\n" << show(heap);
    struct Mapping {
      const char* target;
      const char* strategy;
    };
    for (const Mapping& m :
         {Mapping{"opencl", "mapGlobal(0) @ outermost(isApplied(isMap)) ; lowerToC"},
          Mapping{"openmp", "parallel @ outermost(isApplied(isMap)) ; lowerToC"},
          Mapping{"c", "lowerToC"}}) {
      CliResult r = run_risec({"run", blocks, "--size", "b=5,n=3,m=4", "--target", m.target,
                               "--strategy", m.strategy, "--check"});
      EXPECT_EQ(r.exit_code, 0) << a.step << " with " << m.strategy << "\n" << show(r);
    }
  }
  // an iterateWhile state that is a pair holding an array
  std::string state = write_scratch(
      "pairstate.rise",
      "def f = depFun((n: Nat, m: Nat) => fun(a: n.m.f32 => a |> map(fun(row => (row, 0.0f) |> "
      "iterateWhile(5)(fun(s => s._2 < 3.0f))(fun(s => (s._1 |> map(fun(x => x * 2.0f)), s._2 + "
      "1.0f)))))))\n");
  for (const char* target : {"c", "openmp", "opencl"}) {
    CliResult r = run_risec({"run", state, "--size", "n=3,m=4", "--target", target, "--check"});
    EXPECT_EQ(r.exit_code, 0) << "iterateWhile on " << target << "\n" << show(r);
  }
}

// A blend (select on a mask) computes both branches in every lane; an integer division
// or modulo in a branch must not fail in the lanes the mask does not choose, where the
// scalar program never divides (then and else branches, nested selects, types, an
// iterateWhile step in its frozen lanes), at several widths, on C and OpenCL.
TEST(HeldOutMore, VectorBlendsDivideOnlyInChosenLanes) {
  const int64_t n = 48;
  std::string b = zeros_every_third("blend_b", n);
  const std::vector<std::string> bodies = {
      "select(p._2 != 0)(p._1 / p._2)(p._1)",
      "select(p._2 != 0)(p._1 % p._2)(0)",
      "select(p._2 == 0)(p._1)(p._1 / p._2 + 1)",
      "select(p._2 > 0)(select(p._2 > 2)(100 / (p._2 - 2))(p._1 % p._2))(-1)",
      "select(p._2 != 0)(let q = p._1 / p._2 in q * q)(p._1 + 1)",
      "p._2 != 0 && p._1 / p._2 > 3 |> fun(c => select(c)(1)(0))",
      "p._2 |> iterateWhile(4)(fun(s => s != 0))(fun(s => 100 / s / 200))",
  };
  int k = 0;
  for (const std::string& body : bodies) {
    std::string file = write_scratch(
        "blend" + std::to_string(k++) + ".rise",
        "def f = depFun(n: Nat => fun(a: n.i32 => fun(b: n.i32 => zip(a)(b) |> map(fun(p => " +
            body + ")))))\n");
    for (int w : {4, 8})
      for (const char* target : {"c", "opencl"}) {
        std::string s =
            "vectorize(" + std::to_string(w) + ") @ outermost(isApplied(isMap)) ; lowerToC";
        CliResult r = run_risec({"run", file, "--size", "n=" + std::to_string(n), "--input",
                                 "b=" + b, "--target", target, "--strategy", s, "--check"});
        EXPECT_EQ(r.exit_code, 0) << body << " width " << w << " on " << target << "\n" << show(r);
      }
  }
}

// A result (or a part of it) with a zero extent: an empty result on every target, as
// the interpreter gives, not an OpenCL error for a buffer of 0 bytes.
TEST(HeldOutMore, ZeroExtentResultsOnEveryTarget) {
  const std::vector<std::string> programs = {
      "fun(a: n.f32 => a |> drop(n) |> map(fun(x => x + 1.0f)))",
      "fun(a: n.f32 => a |> take(0) |> map(fun(x => x * 2.0f)))",
      "fun(a: n.f32 => (a |> drop(n), a |> map(fun(x => x + 1.0f))))",
      "fun(a: n.f32 => a |> split(1) |> map(fun(r => r |> drop(1))))",
  };
  int k = 0;
  for (const std::string& p : programs) {
    std::string file = write_scratch("zero" + std::to_string(k++) + ".rise",
                                     "def f = depFun(n: Nat => " + p + ")\n");
    for (const char* target : {"c", "openmp", "opencl"}) {
      CliResult r = run_risec({"run", file, "--size", "n=4", "--target", target, "--check"});
      EXPECT_EQ(r.exit_code, 0) << p << " on " << target << "\n" << show(r);
      EXPECT_TRUE(held_out_has(r.out, "check: passed")) << show(r);
    }
    CliResult g = run_risec({"run", file, "--size", "n=4", "--target", "opencl", "--strategy",
                             "mapGlobal(0) @ outermost(isApplied(isMap)) ; lowerToC", "--check"});
    EXPECT_EQ(g.exit_code, 0) << p << " under mapGlobal\n" << show(g);
  }
}

// An index made from data that is out of range is a run-time failure of the program:
// exit 4 with the same message in eval and run (docs/guarantees.md).
TEST(HeldOutMore, IndexFailuresExitFourInEvalAndRun) {
  runtime::NdArray k = runtime::make_array(runtime::DType::I32, {4});
  for (int i = 0; i < 4; ++i) k.as<int32_t>()[i] = i == 2 ? 9 : i;
  std::string ks = scratch_path("bad_indices.npy");
  runtime::write_npy(ks, k);
  struct Case {
    const char* body;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"k |> map(fun(j => a[natAsIndex(n)(cast(j) : natType)]))",
       "natAsIndex(4): 9 is out of range"},
      {"k |> map(fun(j => a[cast(j) : idx[n]]))", "cast: 9 is out of range for idx[4]"},
      {"a |> scatter(k |> map(fun(j => natAsIndex(n)(cast(j) : natType))))", "out of range"},
      {"a |> update(natAsIndex(n)(cast(k[2]) : natType))(0.0f)", "out of range"},
  };
  int c = 0;
  for (const Case& x : cases) {
    std::string file = write_scratch("badidx" + std::to_string(c++) + ".rise",
                                     "def f = depFun(n: Nat => fun(a: n.f32 => fun(k: n.i32 => " +
                                         std::string(x.body) + ")))\n");
    for (const char* cmd : {"eval", "run"}) {
      CliResult r = run_risec({cmd, file, "--size", "n=4", "--input", "k=" + ks});
      EXPECT_EQ(r.exit_code, 4) << cmd << " " << x.body << "\n" << show(r);
      EXPECT_TRUE(held_out_has(r.err, x.message)) << cmd << " " << x.body << "\n" << show(r);
    }
  }
}

// With-loop messages speak of the with-loop, not of the primitives it becomes; index
// arithmetic that is in bounds for large enough sizes is a precondition, not an error.
TEST(HeldOutMore, WithLoopMessagesAndPreconditions) {
  std::string mod = write_scratch(
      "wl_mod.rise",
      "def f = depFun((n: Nat, k: Nat) => fun(a: n.f32 =>\n  with {\n    ([0] <= [i] < [k]) : "
      "a[i] * 2.0f;\n  } : modarray(a)))\n");
  CliResult r = run_risec({"check", mod});
  EXPECT_EQ(r.exit_code, 0) << show(r);
  EXPECT_TRUE(held_out_has(r.out, "requires: n - k >= 0 (in the with-loop)")) << show(r);
  EXPECT_FALSE(held_out_has(r.out + r.err, "drop")) << show(r);
  std::string ty = write_scratch(
      "wl_type.rise",
      "def f = depFun(n: Nat => fun(a: n.f32 =>\n  with {\n    ([0] <= [i] < [n - 2]) : 1;\n  "
      "} : genarray([n], 0.0f)))\n");
  r = run_risec({"check", ty});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  // at the body, not at `with {` (tests/e2e/with_loop_errors_test.cpp)
  EXPECT_TRUE(
      held_out_has(r.err, "wl_type.rise:3:30: error: in the with-loop, this part's elements"))
      << show(r);
  EXPECT_FALSE(held_out_has(r.err, "concat")) << show(r);
  // stepped generators whose indices are in bounds only from some size on
  for (const char* gen : {"([2] <= [i] < [n - 1] step [4]) : a[i + 1] - a[i - 2]",
                          "([1] <= [i] < [n] step [3] width [2]) : a[i - 1] + a[i]",
                          "([0] <= [i] < [n - 2] step [5]) : a[i + 2]"}) {
    std::string file =
        write_scratch("wl_step.rise", "def f = depFun(n: Nat => fun(a: n.f32 =>\n  with {\n    " +
                                          std::string(gen) + ";\n  } : genarray([n], 0.0f)))\n");
    CliResult c = run_risec({"compile", file});
    EXPECT_EQ(c.exit_code, 0) << gen << "\n" << show(c);
    for (int size = 3; size <= 13; ++size) {
      CliResult x = run_risec({"run", file, "--size", "n=" + std::to_string(size), "--check"});
      EXPECT_EQ(x.exit_code, 0) << gen << " at n = " << size << "\n" << show(x);
    }
    CheckOptions o;
    o.generic = true;
    EXPECT_TRUE(compile_and_check(file, "", "n=11", o)) << gen;
  }
}

// Errors of the OpenCL printer say where: a vector width OpenCL has no type for, and a
// parallel map inside a sequential loop at the top of the program.
TEST(HeldOutMore, OpenclErrorsAreLocated) {
  std::string file = write_scratch(
      "ocl_loc.rise",
      "def f = depFun((n: Nat, m: Nat) => fun(a: n.m.f32 =>\n  a |> reduceSeq(fun(acc, row => "
      "zip(acc)(row) |> map(fun(p => p._1 + p._2))))(generate(fun(i => 0.0f)))))\n");
  CliResult r = run_risec({"compile", file, "--size", "n=4,m=8", "--target", "opencl", "--strategy",
                           "mapGlobal(0) @ outermost(isApplied(isMap)) ; lowerToC"});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_TRUE(held_out_has(r.err, "ocl_loc.rise:2:")) << show(r);
  EXPECT_TRUE(held_out_has(r.err, "launches a kernel per top-level parallel map")) << show(r);
  // an input of vectors of 5 lanes: the loop lowerToC writes has no place of its own
  std::string vec = write_scratch(
      "ocl_vec5.rise",
      "def f = depFun(n: Nat => fun(a: n.vec[f32, 5] =>\n  a |> map(fun(x => x + x))))\n");
  r = run_risec({"compile", vec, "--size", "n=4", "--target", "opencl"});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_TRUE(held_out_has(r.err, "ocl_vec5.rise:2:")) << show(r);
  EXPECT_TRUE(held_out_has(r.err, "a vector of 5 lanes")) << show(r);
}

// compile -o naming a device or a directory is refused (exit 2), never taken as the
// stem of files beside it (/dev/null.c).
TEST(HeldOutMore, OutputsThatAreNotRegularFilesAreRefused) {
  std::string dir = scratch_path("out_dir");
  std::filesystem::create_directories(dir);
  std::string fifo = scratch_path("out_fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& out : {dir, fifo}) {
    CliResult r = run_risec({"compile", "examples/scal/scal.rise", "--size", "n=8", "-o", out});
    EXPECT_EQ(r.exit_code, 2) << out << "\n" << show(r);
    EXPECT_TRUE(held_out_has(r.err, "-o " + out)) << show(r);
    EXPECT_FALSE(std::filesystem::exists(out + ".c")) << out;
    EXPECT_FALSE(std::filesystem::exists(out + ".h")) << out;
  }
  // /dev/null.c may exist, left by another program: it must not be written
  auto stamp = [](const std::string& p) {
    std::error_code ec;
    return std::filesystem::last_write_time(p, ec);
  };
  auto before = stamp("/dev/null.c");
  CliResult r =
      run_risec({"compile", "examples/scal/scal.rise", "--size", "n=8", "-o", "/dev/null"});
  EXPECT_EQ(r.exit_code, 2) << show(r);
  EXPECT_EQ(stamp("/dev/null.c"), before);
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
}

}  // namespace
}  // namespace risec::e2e
