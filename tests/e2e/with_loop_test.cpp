// With-loops (docs/language.md, "With-loops"): every operation and generator form is
// compiled to C and run on seeded random inputs; the output is compared with a
// reference written here with plain loops (NumPy-style slicing semantics, not the
// interpreter), and with the interpreter. Genarrays whose parts tile the shape must
// compile to loops without conditionals. Wrong with-loops are refused, located, with
// exit code 1.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "e2e_util.h"
#include "runtime/npy.h"

namespace risec::e2e {
namespace {

using Reference = std::function<std::vector<double>(const std::vector<double>& a)>;

struct WithLoopCase {
  const char* name;
  const char* program;
  const char* sizes;
  Reference reference;
  bool no_conditionals;  // the genarray tiles its shape: no `?` and no `if` in the loops
};
// How ctest and gtest name a case's parameter (else: "N-byte object <...>").
void PrintTo(const WithLoopCase& c, std::ostream* os) {
  *os << c.name;
}

constexpr int N = 10, M = 12;

const WithLoopCase kWithLoopCases[] = {
    {"genarrayBoundsAndDefault",
     "def f = depFun((n: Nat, m: Nat) => fun(a: n.m.f32 =>\n"
     "  with { ([1, 2] <= [i, j] < [n - 1, m - 3]) : a[i - 1][j + 3] * 2.0f; }\n"
     "  : genarray([n, m], 7.0f)))",
     "n=10,m=12",
     [](const std::vector<double>& a) {
       std::vector<double> r(N * M, 7.0);  // r = np.full((n, m), 7); r[1:n-1, 2:m-3] = ...
       for (int i = 1; i < N - 1; ++i)
         for (int j = 2; j < M - 3; ++j) r[i * M + j] = 2.0 * a[(i - 1) * M + j + 3];
       return r;
     },
     true},
    {"genarrayStepWidth",
     "def f = depFun((n: Nat, m: Nat) => fun(a: n.m.f32 =>\n"
     "  with { ([1, 0] <= [i, j] < [n - 3, m] step [3, 4] width [2, 1]) :\n"
     "           a[i][j] + natAsScalar(i) * 100.0f + natAsScalar(j); }\n"
     "  : genarray([n, m], -1.0f)))",
     "n=10,m=12",
     [](const std::vector<double>& a) {
       std::vector<double> r(N * M, -1.0);  // r[1:7:3] and r[2:8:3] rows, columns 0::4
       for (int i = 1; i < N - 3; ++i)
         for (int j = 0; j < M; ++j)
           if ((i - 1) % 3 < 2 && j % 4 < 1) r[i * M + j] = a[i * M + j] + 100.0 * i + j;
       return r;
     },
     true},
    {"genarraySeveralPartsTiling",
     // a dead border written by three parts and an interior by a fourth
     "def f = depFun((n: Nat, m: Nat) => fun(a: n.m.f32 =>\n"
     "  with {\n"
     "    ([0, 0] <= [i, j] < [1, m]) : 1.0f;\n"
     "    ([1, 0] <= [i, j] < [n, 1]) : 2.0f;\n"
     "    ([1, 1] <= [i, j] < [n, m]) : a[i][j] - a[i - 1][j - 1];\n"
     "  } : genarray([n, m], 0.0f)))",
     "n=10,m=12",
     [](const std::vector<double>& a) {
       std::vector<double> r(N * M);
       for (int i = 0; i < N; ++i)
         for (int j = 0; j < M; ++j)
           r[i * M + j] = i == 0 ? 1.0 : j == 0 ? 2.0 : a[i * M + j] - a[(i - 1) * M + j - 1];
       return r;
     },
     true},
    {"modarrayKeepsUntouchedElements",
     "def f = depFun((n: Nat, m: Nat) => fun(a: n.m.f32 =>\n"
     "  with {\n"
     "    ([2, 3] <= [i, j] < [5, m - 1]) : a[i + 1][j - 3] + 1.0f;\n"
     "    ([6, 0] <= [i, j] < [n, m] step [2, 3]) : 0.0f;\n"
     "  } : modarray(a)))",
     "n=10,m=12",
     [](const std::vector<double>& a) {
       std::vector<double> r = a;  // r = a.copy(); r[2:5, 3:m-1] = ...; r[6::2, ::3] = 0
       for (int i = 2; i < 5; ++i)
         for (int j = 3; j < M - 1; ++j) r[i * M + j] = a[(i + 1) * M + j - 3] + 1.0;
       for (int i = 6; i < N; i += 2)
         for (int j = 0; j < M; j += 3) r[i * M + j] = 0.0;
       return r;
     },
     true},
    {"foldNonCommutativeOrder",
     // (acc * 0.5 + x): the result depends on the order, which is the parts in source
     // order, each in row-major order of its indices
     "def f = depFun((n: Nat, m: Nat) => fun(a: n.m.f32 =>\n"
     "  with {\n"
     "    ([5, 1] <= [i, j] < [7, 4]) : a[i][j];\n"
     "    ([0, 0] <= [i, j] < [4, m] step [2, 6] width [1, 2]) : a[i][j] * 3.0f;\n"
     "  } : fold(fun(acc, x => acc * 0.5f + x), 1.0f)))",
     "n=10,m=12",
     [](const std::vector<double>& a) {
       double acc = 1.0;
       for (int i = 5; i < 7; ++i)
         for (int j = 1; j < 4; ++j) acc = acc * 0.5 + a[i * M + j];
       for (int i = 0; i < 4; ++i)
         for (int j = 0; j < M; ++j)
           if (i % 2 < 1 && j % 6 < 2) acc = acc * 0.5 + 3.0 * a[i * M + j];
       return std::vector<double>{acc};
     },
     false},
    {"genarrayBorderRows",
     // issue 32: the border rows of a matrix, ordered only for n >= 2 (a side
     // condition), in an order that is not the rows'
     "def f = depFun((n: Nat, m: Nat) => fun(a: n.m.f32 =>\n"
     "  with {\n"
     "    ([0, 0] <= [i, j] < [1, m]) : 1.0f;\n"
     "    ([n - 1, 0] <= [i, j] < [n, m]) : 2.0f;\n"
     "    ([1, 0] <= [i, j] < [n - 1, m]) : a[i][j];\n"
     "  } : genarray([n, m], 0.0f)))",
     "n=10,m=12",
     [](const std::vector<double>& a) {
       std::vector<double> r = a;
       for (int j = 0; j < M; ++j) r[j] = 1.0, r[(N - 1) * M + j] = 2.0;
       return r;
     },
     true},
    {"modarrayStepNotDividing",
     // issue 32: SaC's indices lb + k*step + w < ub; 3 does not divide 9 - 1, nor 4 12 - 2
     "def f = depFun((n: Nat, m: Nat) => fun(a: n.m.f32 =>\n"
     "  with { ([1, 2] <= [i, j] < [n - 1, m] step [3, 4] width [2, 3]) : a[i][j] + 10.0f; }\n"
     "  : modarray(a)))",
     "n=10,m=12",
     [](const std::vector<double>& a) {
       std::vector<double> r = a;  // rows 1, 2, 4, 5, 7, 8; columns 2..4, 6..8, 10..11
       for (int i = 1; i < N - 1; ++i)
         for (int j = 2; j < M; ++j)
           if ((i - 1) % 3 < 2 && (j - 2) % 4 < 3) r[i * M + j] = a[i * M + j] + 10.0;
       return r;
     },
     true},
    {"foldSum1D",
     "def f = depFun(n: Nat => fun(a: n.f32 =>\n"
     "  with { ([1] <= [i] < [n - 1]) : a[i - 1] * a[i + 1]; } : fold(add, 0.0f)))",
     "n=10",
     [](const std::vector<double>& a) {
       double s = 0;
       for (int i = 1; i < N - 1; ++i) s += a[i - 1] * a[i + 1];
       return std::vector<double>{s};
     },
     false},
};

class WithLoops : public ::testing::TestWithParam<WithLoopCase> {};

TEST_P(WithLoops, MatchTheReferenceAndTheInterpreter) {
  const WithLoopCase& c = GetParam();
  std::string file = write_scratch(std::string(c.name) + ".rise", c.program);
  CheckReport r = run_and_compare(file, "", c.sizes);
  EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch << "\n" << r.compiled.unit.source;
  std::vector<double> got = flat_values(r.execution.output);
  std::vector<double> want = c.reference(flat_values(r.inputs.at(0)));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-4 * (1.0 + std::fabs(want[i]))) << "element " << i;
  const std::string& src = r.compiled.unit.source;
  if (c.no_conditionals) {
    size_t body = src.find("void f(");
    ASSERT_NE(body, std::string::npos) << src;
    std::string entry = src.substr(body, src.find("\n}\n", body) - body);
    EXPECT_EQ(entry.find('?'), std::string::npos) << entry;
    EXPECT_EQ(entry.find("if ("), std::string::npos) << entry;
  }
}

INSTANTIATE_TEST_SUITE_P(All, WithLoops, ::testing::ValuesIn(kWithLoopCases),
                         [](const ::testing::TestParamInfo<WithLoopCase>& i) {
                           return i.param.name;
                         });

struct Bad {
  const char* name;
  const char* program;
  const char* message;   // part of the error
  const char* location;  // "file:line:col"
};
// How ctest and gtest name a case's parameter (else: "N-byte object <...>").
void PrintTo(const Bad& c, std::ostream* os) {
  *os << c.name;
}

const Bad kBad[] = {
    {"indexBelowZero",
     "def f = depFun((n: Nat, m: Nat) => fun(a: n.m.f32 =>\n"
     "  with { ([0, 1] <= [i, j] < [n - 1, m - 1]) : a[i - 1][j + 1]; }\n"
     "  : genarray([n, m], 0.0f)))",
     "the index 'i - 1' may be negative", ":2:50:"},
    {"indexPastTheEnd",
     "def f = depFun(n: Nat => fun(a: n.f32 =>\n"
     "  with { ([0] <= [i] < [n]) : a[i + 1]; } : modarray(a)))",
     "may be out of bounds of idx[8]", ":2:33:"},
    {"overlappingParts",
     "def f = depFun(n: Nat => fun(a: n.f32 =>\n"
     "  with {\n"
     "    ([0] <= [i] < [4]) : a[i];\n"
     "    ([3] <= [i] < [n]) : a[i];\n"
     "  } : genarray([n], 0.0f)))",
     "with-loop parts overlap", ":4:5:"},
    {"shapeRankMismatch",
     "def f = depFun(n: Nat => fun(a: n.f32 =>\n"
     "  with { ([0] <= [i] < [n]) : a[i]; } : genarray([n, n], 0.0f)))",
     "the shape has 2 dimensions but the generators have 1", ":2:41:"},
    {"partRankMismatch",
     "def f = depFun(n: Nat => fun(a: n.f32 =>\n"
     "  with { ([0] <= [i] < [n]) : a[i]; ([0, 0] <= [i, j] < [n, 1]) : a[i]; }\n"
     "  : genarray([n], 0.0f)))",
     "this generator has 2 index names but the first has 1", ":2:37:"},
    {"modarrayShapeMismatch",
     // a 2-D generator over a 1-D array
     "def f = depFun(n: Nat => fun(a: n.f32 =>\n"
     "  with { ([0, 0] <= [i, j] < [n, 1]) : a[i]; } : modarray(a)))",
     "expected (_ + 1)._ but found f32", ":2:3:"},
    {"negativeLowerBound",
     // issue 32: genarray([n]) returned n + 1 elements
     "def f = depFun(n: Nat => fun(a: n.f32 =>\n"
     "  with { ([-1] <= [i] < [n]) : 1.0f; } : genarray([n], 0.0f)))",
     "the lower bound -1 is below 0", ":2:12:"},
    {"upperBoundOutsideTheShape",
     "def f = depFun(n: Nat => fun(a: n.f32 =>\n"
     "  with { ([0] <= [i] < [n + 1]) : 1.0f; } : genarray([n], 0.0f)))",
     "the upper bound n + 1 is outside the shape", ":2:25:"},
    {"borderRowsAtOneRow",
     // ordered only for n >= 2: at n = 1 the first two rows are the same row
     "def f = depFun(n: Nat => fun(a: n.f32 =>\n"
     "  with { ([0] <= [i] < [1]) : 1.0f; ([n - 1] <= [i] < [n]) : 2.0f;\n"
     "         ([1] <= [i] < [n - 1]) : a[i]; } : genarray([n], 0.0f)))",
     // located at the part whose bounds need the order, which it names
     "the part ([1] <= [i] < [n - 1]) needs 1 <= n - 1: a size would be", ":3:10:"},
    {"overlapNamesAnIndex",
     "def f = depFun(n: Nat => fun(a: n.f32 =>\n"
     "  with { ([0] <= [i] < [5]) : a[i]; ([2] <= [i] < [n] step [2]) : a[i]; }\n"
     "  : genarray([n], 0.0f)))",
     "both cover the index [2]", ":2:37:"},
    {"widthAboveStep",
     "def f = depFun(n: Nat => fun(a: n.f32 =>\n"
     "  with { ([0] <= [i] < [n] step [2] width [3]) : a[i]; } : modarray(a)))",
     "a width must be positive and at most the step", ":2:44:"},
};

class BadWithLoops : public ::testing::TestWithParam<Bad> {};

TEST_P(BadWithLoops, AreRefusedLocatedWithExitCode1) {
  const Bad& b = GetParam();
  std::string file = write_scratch(std::string(b.name) + ".rise", b.program);
  CliResult r = run_risec(
      {"check", file, "--size", std::string(b.name) == "borderRowsAtOneRow" ? "n=1" : "n=8"});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_NE(r.err.find(b.message), std::string::npos) << show(r);
  EXPECT_NE(r.err.find(std::string(b.name) + ".rise" + b.location), std::string::npos) << show(r);
}

INSTANTIATE_TEST_SUITE_P(All, BadWithLoops, ::testing::ValuesIn(kBad),
                         [](const ::testing::TestParamInfo<Bad>& i) { return i.param.name; });

// Without --size, run takes the sizes from the input's shape (n = 7, m = 9 here),
// compiles the with-loop for them and checks it against the interpreter; a size the
// inputs do not determine is an error naming it, located at the entry's size
// parameters (exit 1).
TEST(WithLoopCli, SizesFromTheInputShape) {
  std::string file = write_scratch("life_sizes.rise", kWithLoopCases[0].program);
  std::string a = scratch_path("a_7x9.npy");
  runtime::write_npy(a, runtime::make_array(runtime::DType::F32, {7, 9}));
  CliResult r = run_risec({"run", file, "--input", "a=" + a, "--check"});
  EXPECT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.out.find("f32(7, 9) = "), std::string::npos) << show(r);
  EXPECT_NE(r.out.find("check: passed (63 elements"), std::string::npos) << show(r);
  std::string two = write_scratch("two_sizes.rise",
                                  "def f = depFun((n: Nat, k: Nat) => fun(a: n.f32 =>\n"
                                  "  with { ([0] <= [i] < [k]) : a[i % n]; } : fold(add, 0.0f)))");
  std::string x = scratch_path("x_5.npy");
  runtime::write_npy(x, runtime::make_array(runtime::DType::F32, {5}));
  r = run_risec({"run", two, "--input", "a=" + x});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_NE(r.err.find("two_sizes.rise:1:25: error: size k has no value"), std::string::npos)
      << show(r);
}

// issue 32: the border rows compile generic code with the precondition n - 2 >= 0,
// which risec check prints and eval decides at the given size.
TEST(WithLoopCli, OrderForLargeSizesIsAPrecondition) {
  std::string file =
      write_scratch("border.rise",
                    "def f = depFun(n: Nat => fun(a: n.f32 =>\n"
                    "  with { ([0] <= [i] < [1]) : 1.0f; ([n - 1] <= [i] < [n]) : 2.0f;\n"
                    "         ([1] <= [i] < [n - 1]) : a[i]; } : genarray([n], 0.0f)))");
  CliResult r = run_risec({"check", file});
  EXPECT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.out.find("requires: n - 2 >= 0"), std::string::npos) << show(r);
  r = run_risec({"eval", file, "--size", "n=1"});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  r = run_risec({"run", file, "--size", "n=2", "--check"});
  EXPECT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.out.find("= [1, 2]"), std::string::npos) << show(r);
}

// Found by differential_fuzzer (fuzz/seeds/differential/inverted_part): a part whose
// bounds the sizes invert ([n] <= [i] < [1] at n = 6, lb > ub) was read as empty by
// genarray and modarray, where the language requires lb <= ub; now its extent 1 - n is
// a side condition like the other orders of bounds, for every operation.
TEST(WithLoopCli, PartInvertedByTheSizesIsRefused) {
  for (const char* op : {"genarray([n], 0.0f)", "modarray(a)", "fold(add, 0.0f)"}) {
    for (const char* parts : {"([n] <= [i] < [1]) : 5.0f;",
                              "([n] <= [i] < [1]) : 5.0f; ([n - 2] <= [i] < [n]) : 7.0f;"}) {
      std::string text = std::string("def f = depFun(n: Nat => fun(a: n.f32 =>\n  with { ") +
                         parts + " } : " + op + "))\n";
      std::string file = write_scratch("inverted.rise", text);
      SCOPED_TRACE(text);
      CliResult r = run_risec({"check", file});
      EXPECT_NE(r.out.find("-n + 1 >= 0"), std::string::npos) << show(r);
      for (const char* cmd : {"eval", "run"}) {
        r = run_risec({cmd, file, "--size", "n=6"});
        EXPECT_EQ(r.exit_code, 1) << cmd << show(r);
        // at the inverted part, naming it and the order it needs
        EXPECT_NE(r.err.find("inverted.rise:2:10: error: in the with-loop, the part ([n] <= [i] "
                             "< [1]) needs n <= 1"),
                  std::string::npos)
            << cmd << show(r);
        EXPECT_NE(r.err.find("a size would be -5; sizes cannot be negative"), std::string::npos)
            << cmd << show(r);
      }
      // At n = 1 the part is empty (lb = ub), and the program runs where it is valid.
      if (std::string(parts).find("n - 2") == std::string::npos) {
        r = run_risec({"run", file, "--size", "n=1", "--check"});
        EXPECT_EQ(r.exit_code, 0) << show(r);
      }
    }
  }
}

}  // namespace
}  // namespace risec::e2e
