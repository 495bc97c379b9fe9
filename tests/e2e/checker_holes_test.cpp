// Issue 32, "checker holes", through the command line: each gives a located error
// with the documented exit code or a correct result, never an internal error (70),
// a C compiler error or a hang.
#include <gtest/gtest.h>

#include <string>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

// An input of a type with no values is a usage error located at the parameter.
TEST(CheckerHoles, InputsOfTypesWithNoValues) {
  struct Case {
    const char* program;
    const char* sizes;
  };
  for (const Case& c :
       {Case{"def f = fun(x: idx[0] => indexAsNat(x))", ""},
        Case{"def f = depFun(n: Nat => fun(x: idx[n - 3] => indexAsNat(x)))", "n=3"},
        Case{"def f = depFun(n: Nat => fun(x: n.idx[n - 3] => x))", "n=3"},
        Case{"def f = fun(y: 2.f32, x: 4.(f32, idx[0]) => y)", ""}}) {
    std::string file = write_scratch("novalues.rise", c.program);
    for (const char* cmd : {"eval", "run"}) {
      std::vector<std::string> args{cmd, file};
      if (*c.sizes) args.insert(args.end(), {"--size", c.sizes});
      CliResult r = run_risec(args);
      EXPECT_EQ(r.exit_code, 2) << c.program << "\n" << show(r);
      EXPECT_NE(r.err.find("novalues.rise:1:"), std::string::npos) << show(r);
      EXPECT_NE(r.err.find("which has no values"), std::string::npos) << show(r);
    }
  }
}

// lidx(k, n) with k and n given: the value is specialised like every other size
// (the C code named `k`, which it did not declare).
TEST(CheckerHoles, IndexLiteralOfASizeCompilesAndRuns) {
  std::string file = write_scratch(
      "lidx.rise", "def f = depFun((n: Nat, k: Nat) => fun(x: n.f32 => x[lidx(k, n)] * 2.0f))");
  for (const char* sizes : {"n=5,k=2", "n=3,k=0"}) {
    CliResult r = run_risec({"run", file, "--size", sizes, "--check"});
    if (std::string(sizes) == "n=3,k=0") {
      EXPECT_EQ(r.exit_code, 2) << show(r);  // sizes are positive
      continue;
    }
    EXPECT_EQ(r.exit_code, 0) << show(r);
    EXPECT_NE(r.out.find("check: passed"), std::string::npos) << show(r);
  }
  CliResult r = run_risec({"run", file, "--size", "n=5,k=5"});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_NE(r.err.find("lidx.rise:1:54: error: index literal 5 is out of range"), std::string::npos)
      << show(r);
}

// normalize(s) where s rewrites x into a term containing x stops at once, located.
TEST(CheckerHoles, NormalizeOfAWrappingRuleTerminates) {
  std::string elv = write_scratch("wrap.elv", "normalize(idAfter)");
  CliResult r = run_risec({"rewrite", "examples/saxpy/saxpy.rise", "--strategy", elv});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_NE(r.err.find("wrap.elv:1:1: error: strategy failed"), std::string::npos) << show(r);
  EXPECT_NE(r.err.find("does not terminate"), std::string::npos) << show(r);
  // liftId's result, map(fun(y => id(y)))(x), holds the primitive id but not id(x):
  // it is not stopped.
  std::string lift = write_scratch("lift.elv", "topDown(idAfter) ; normalize(liftId)");
  r = run_risec({"rewrite", "examples/saxpy/saxpy.rise", "--strategy", lift});
  EXPECT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.out.find("map(fun("), std::string::npos) << show(r);
}

}  // namespace
}  // namespace risec::e2e
