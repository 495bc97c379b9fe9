// What a held-out tester found (issue 32), each as a class of inputs: negations of
// negations printed as C's decrement, simplification moving a computation that can
// stop the program out of a branch or a loop that never runs it, unbounded or
// directory inputs, and input names of the OpenCL and CUDA APIs.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "e2e_util.h"
#include "runtime/npy.h"

namespace risec::e2e {
namespace {

const char* const kCpuTargets[] = {"c", "openmp"};

// -(-x) is x: C reads `--x` as a decrement, so nested negations (of variables,
// inputs, literals, lets; f32 and f64; 2 to 4 deep) must print apart.
TEST(HeldOut, NestedNegationsAreNotDecrements) {
  // `@` stands for the literal suffix: `f` for f32, none for f64
  const std::vector<std::string> bodies = {
      "r |> reduceSeq(fun(acc, y => -(-acc) + y))(0.0@)",
      "r |> map(fun(x => let t = x * 3.0@ in -(-t) + t)) |> reduce(add)(0.0@)",
      "r |> map(fun(x => -(-x))) |> reduce(add)(0.0@)",
      "r |> map(fun(x => x + -(-1.5@))) |> reduce(add)(0.0@)",
      "r |> map(fun(x => -(-(-x)))) |> reduce(add)(0.0@)",
      "r |> map(fun(x => neg(neg(neg(neg(x)))))) |> reduce(add)(0.0@)",
      "r |> map(fun(x => x - -x)) |> reduce(add)(0.0@)"};
  int k = 0;
  for (const std::string& body : bodies) {
    for (const std::string type : {"f32", "f64"}) {
      std::string b = body;
      for (size_t p = b.find('@'); p != std::string::npos; p = b.find('@'))
        b.replace(p, 1, type == "f32" ? "f" : "");
      std::string file = write_scratch("negneg" + std::to_string(k++) + ".rise",
                                       "def f = depFun((n: Nat, m: Nat) => fun(a: n.m." + type +
                                           " => a |> map(fun(r => " + b + "))))\n");
      // the C printer is shared by every target: C for both types, OpenCL for f32
      for (const char* target : {"c", "opencl"}) {
        if (type == "f64" && std::string(target) == "opencl") continue;
        CliResult r = run_risec({"run", file, "--size", "n=3,m=4", "--target", target, "--check"});
        EXPECT_EQ(r.exit_code, 0) << b << " on " << target << "\n" << show(r);
      }
    }
  }
}

// A computation that can stop the program (integer division, an index made from
// data) under a select, `&&`, `||` or an iterateWhile step that never runs must not
// run: the default lowering's simplification keeps it where it is.
TEST(HeldOut, GuardedComputationsStayGuarded) {
  runtime::NdArray zero = runtime::make_array(runtime::DType::I32, {});
  std::string v0 = scratch_path("v_zero.npy");
  runtime::write_npy(v0, zero);
  runtime::NdArray nine = runtime::make_array(runtime::DType::I32, {});
  nine.as<int32_t>()[0] = 9;
  std::string k9 = scratch_path("k_nine.npy");
  runtime::write_npy(k9, nine);
  struct Case {
    const char* program;
    std::string input;
    const char* sizes = "n=4";
  };
  const std::vector<Case> cases = {
      // a is drawn from [0, 100): no element exceeds 1000, so no branch divides
      {"def f = depFun(n: Nat => fun(a: n.i32 => fun(v: i32 => a |> map(fun(x => x > 1000 && "
       "(100 / v > 3))))))",
       "v=" + v0},
      {"def f = depFun(n: Nat => fun(a: n.i32 => fun(v: i32 => a |> map(fun(x => x < 1000 || "
       "(100 % v > 3))))))",
       "v=" + v0},
      {"def f = depFun(n: Nat => fun(a: n.i32 => fun(v: i32 => a |> map(fun(x => "
       "select(v != 0)(x + 100 / v)(x))))))",
       "v=" + v0},
      {"def f = depFun(n: Nat => fun(a: n.i32 => fun(v: i32 => a |> map(fun(x => "
       "select(x > 1000)(a |> map(fun(y => y / v)) |> reduce(add)(0))(x))))))",
       "v=" + v0},
      {"def f = depFun(n: Nat => fun(a: n.i32 => fun(v: i32 => a |> map(fun(x => x |> "
       "iterateWhile(0)(fun(s => s > 1000))(fun(s => s + 100 / v)))))))",
       "v=" + v0},
      {"def f = depFun((n: Nat, m: Nat) => fun(a: n.f32 => fun(b: m.f32 => fun(v: i32 =>\n"
       "  a |> map(fun(x => select(x > 100.0f)(b |> map(fun(y => y * "
       "b[natAsIndex(m)(cast(v) : natType)])) |> reduce(add)(0.0f))(x)))))))",
       "v=" + k9, "n=4,m=3"},
  };
  int k = 0;
  for (const Case& c : cases) {
    std::string file = write_scratch("guarded" + std::to_string(k++) + ".rise", c.program);
    for (const char* target : kCpuTargets) {
      CliResult r = run_risec(
          {"run", file, "--size", c.sizes, "--input", c.input, "--target", target, "--check"});
      EXPECT_EQ(r.exit_code, 0) << c.program << " on " << target << "\n" << show(r);
    }
  }
}

// A program or strategy that is a directory, or endless (/dev/zero), is refused at
// once (exit 1), not read until memory runs out.
TEST(HeldOut, EndlessAndDirectoryInputsAreRefused) {
  std::string dir = scratch_path("a_directory.rise");
  std::filesystem::create_directories(dir);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"check", "/dev/zero"},
        {"compile", "examples/scal/scal.rise", "--strategy", "/dev/zero"},
        {"check", dir},
        {"compile", "examples/scal/scal.rise", "--strategy", dir}}) {
    CliResult r = run_risec(args);
    EXPECT_EQ(r.exit_code, 1) << show(r);
    EXPECT_NE(r.err.find("cannot read"), std::string::npos) << show(r);
  }
}

// Input names that the OpenCL host code, kernels or CUDA files use themselves.
TEST(HeldOut, GpuApiNamesAsInputs) {
  for (const char* name : {"image2d_t", "image1d_buffer_t", "FLT_MAX", "INT_MIN", "CHAR_MIN",
                           "CLK_LOCAL_MEM_FENCE", "cl_mem", "cl_int", "CL_SUCCESS",
                           "CL_MEM_READ_ONLY", "clSetKernelArg", "cudaMalloc", "cudaSuccess"}) {
    std::string n = name;
    std::string file =
        write_scratch("api_" + n + ".rise", "def f = depFun(n: Nat => fun(x: n.f32 => fun(" + n +
                                                ": n.f32 => zip(x)(" + n +
                                                ") |> map(fun(p => sin(p._1) + p._2)))))\n");
    CliResult r =
        run_risec({"run", file, "--size", "n=5", "--check", "--target", "opencl", "--strategy",
                   "mapGlobal(0) @ outermost(isApplied(isMap)) ; lowerToC"});
    EXPECT_EQ(r.exit_code, 0) << name << "\n" << show(r);
    CliResult c = run_risec({"run", file, "--size", "n=5", "--check"});
    EXPECT_EQ(c.exit_code, 0) << name << "\n" << show(c);
  }
}

// Integer division and modulo of vectors of any width (3, 5 and 6 lanes are stored
// in vectors of 4 and 8 whose padding lanes must not be divided), on the C and OpenCL
// targets (OpenCL names its vectors int4: the helper's name is risec's own). Two
// tests, one per target, so that the OpenCL one (whose kernels PoCL compiles, not GCC
// with RISEC_CFLAGS) is left out of the AVX2 pass of scripts/test.sh by its name, as
// the other OpenCL tests are (tests/CMakeLists.txt, RISEC_NOT_WIDTH_TESTS).
void held_out_vector_division(const std::string& target) {
  for (const char* op : {"/", "%"}) {
    for (const char* type : {"i32", "u32", "i64", "i16"}) {
      std::string t = type;
      std::string file =
          write_scratch(std::string("vdiv_") + (op[0] == '/' ? "div_" : "mod_") + t + ".rise",
                        "def f = depFun(n: Nat => fun(a: n." + t + " => fun(b: n." + t +
                            " => zip(a)(b) |> map(fun(p => p._1 " + op + " (p._2 + 1))))))\n");
      for (int w : {3, 4, 5, 6}) {
        // OpenCL's vectors have 2, 3, 4, 8 or 16 lanes (a located error otherwise)
        if (target == "opencl" && (w == 5 || w == 6)) continue;
        std::string s = "vectorizeRemainder(" + std::to_string(w) +
                        ") @ outermost(isFullyApplied(isMap)) ; lowerToC";
        CliResult r = run_risec(
            {"run", file, "--size", "n=13", "--target", target, "--strategy", s, "--check"});
        EXPECT_EQ(r.exit_code, 0) << t << " " << op << " width " << w << " on " << target << "\n"
                                  << show(r);
      }
    }
  }
}

TEST(HeldOut, VectorIntegerDivisionAtAnyWidth) {
  held_out_vector_division("c");
}

TEST(HeldOut, VectorIntegerDivisionAtAnyWidthOnOpenCL) {
  held_out_vector_division("opencl");
}

// A let-bound pair of two split arrays, joined and zipped (held-out N F4): the body
// is inferred before the pair, so zip's sizes were a1*b1 = a2*b2 of unknowns; binding
// a1 to the quotient made its dividend -2 for a divisor 4 once the rest was known, and
// every call was refused ("size arithmetic overflows 64 bits"), as was the same
// program written with unzip during rewriting. Both orders of the components, the
// let and the unzip forms, symbolic and at a size, on C and OpenMP.
TEST(HeldOut, LetBoundPairsOfSplitsJoinedAndZipped) {
  const std::vector<std::string> bodies = {
      "let q = (split(4)(x), split(4)(y)) in zip(join(q._1))(join(q._2))",
      "let q = (split(4)(x), split(4)(y)) in zip(join(q._2))(join(q._1))",
      "let q = (split(4)(x), split(2)(y)) in zip(join(q._1))(join(q._2))",
      "zip(split(4)(x))(split(4)(y)) |> unzip |> fun(q => zip(join(q._1))(join(q._2)))"};
  int k = 0;
  for (const std::string& body : bodies) {
    const std::string file = write_scratch(
        "letpair" + std::to_string(k++) + ".rise",
        "def f = depFun(n: Nat => fun(x: (4*n).f32 => fun(y: (4*n).f32 =>\n  " + body + ")))\n");
    CliResult c = run_risec({"check", file});
    EXPECT_EQ(c.exit_code, 0) << show(c);
    EXPECT_NE(c.out.find("(n: Nat) -> (4*n).f32 -> (4*n).f32 -> (4*n).(f32, f32)"),
              std::string::npos)
        << show(c);
    for (const char* target : kCpuTargets) EXPECT_TRUE(compile_and_check(file, "", "n=5", target));
  }
}

// asVectorAligned promises aligned vector loads (held-out O3, P): vectors that start a
// known number of elements into their buffer that the lanes do not divide (drop(1)),
// or whose starts move by such a step from one iteration to the next (rows of 4m + 2
// elements, windows 2 apart), faulted at run time (SIGSEGV); refused at compile, where
// the primitive is written, on every target that prints C. Offsets and steps the lanes
// divide still compile and compute the interpreter's values; generic code, whose
// offsets involve size names, loads without the alignment promise (it faulted at
// drop(k) with k = 1, called from C).
TEST(HeldOut, MisalignedAsVectorAlignedIsRefused) {
  const std::string vec = " |> asVectorAligned(4) |> map(fun(v => v * vectorFromScalar(2.0f)))";
  struct Misaligned {
    std::string name, type, body, message;
  };
  const std::vector<Misaligned> bad = {
      {"drop", "(n*4+1)", "x |> drop(1)" + vec + " |> asScalar",
       "reads vectors that start 1 element into their buffer"},
      {"rows", "n.(4*8+2)", "x |> map(fun(row => row |> take(4*8)" + vec + " |> asScalar))",
       "reads vectors whose starts are 34 elements apart"},
      {"windows", "(4*n+2)", "x |> slide(4)(2) |> map(fun(w => w" + vec + " |> asScalar))",
       "reads vectors whose starts are 2 elements apart"}};
  for (const Misaligned& m : bad) {
    const std::string file = write_scratch(
        "misaligned_" + m.name + ".rise",
        "def f = depFun(n: Nat => fun(x: " + m.type + ".f32 =>\n  " + m.body + "))\n");
    for (const char* target : {"c", "openmp", "opencl"}) {
      CliResult r = run_risec({"compile", file, "--size", "n=8", "--target", target});
      EXPECT_EQ(r.exit_code, 1) << show(r);
      EXPECT_NE(r.err.find("misaligned_" + m.name + ".rise:2:"), std::string::npos) << show(r);
      EXPECT_NE(r.err.find("asVectorAligned(4) " + m.message), std::string::npos) << show(r);
    }
  }
  const std::vector<std::pair<std::string, std::string>> good = {
      {"(n*4+8)", "x |> drop(8)" + vec + " |> asScalar"},
      {"n.(4*8)", "x |> map(fun(row => row" + vec + " |> asScalar))"},
      {"(4*n+4)", "x |> slide(8)(4) |> map(fun(w => w" + vec + " |> asScalar))"}};
  int k = 0;
  for (const auto& [type, body] : good) {
    const std::string file =
        write_scratch("aligned" + std::to_string(k++) + ".rise",
                      "def f = depFun(n: Nat => fun(x: " + type + ".f32 =>\n  " + body + "))\n");
    for (const char* target : kCpuTargets)
      EXPECT_TRUE(compile_and_check(file, "", "n=8", target)) << body;
  }
  const std::string generic =
      write_scratch("generic_drop.rise",
                    "def f = depFun((n: Nat, k: Nat) => fun(x: (n*4+k).f32 =>\n  x |> drop(k)" +
                        vec + " |> asScalar))\n");
  CliResult g = run_risec({"compile", generic});
  EXPECT_EQ(g.exit_code, 0) << show(g);
  EXPECT_EQ(g.out.find("_load_aligned(&x"), std::string::npos) << g.out;
  for (const std::string sizes : {"n=8,k=1", "n=8,k=4"}) {
    CheckOptions o;
    o.generic = true;
    EXPECT_TRUE(compile_and_check(generic, "", sizes, o)) << sizes;
  }
}

}  // namespace
}  // namespace risec::e2e
