// An array accumulator of reduceSeq, reduce or scanSeq whose step reads elements of
// the old accumulator other than the one it writes (acc[0], a stencil over acc,
// reverse(acc), a shifted acc) gets a temporary for the new value, copied back after
// each step: updated in place, the step read elements it had already overwritten
// (held-out finding F1: 4 of 5 elements wrong on every target). A step reading the
// accumulator only in step (zip(acc)(row) |> map(f)) still writes it in place, with
// no temporary. A register block's shape (a 4 x 4 accumulator) read through transpose
// or written through transpose gets one too (it read acc[j][i] where it wrote
// acc[i][j]). Each program against the interpreter on c, openmp and opencl.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

struct AccAliasCase {
  const char* name;
  const char* step;  // the reduction or scan over M, with its initial value
};

const std::vector<AccAliasCase>& acc_alias_cases() {
  static const std::vector<AccAliasCase> cases = {
      {"first",
       "reduceSeq(fun(acc, row => zip(acc)(row) |> map(fun(p => p._1 * 0.5f + p._2 + "
       "acc[lidx(0, m)]))))(generate(fun(i => 1.0f)))"},
      {"stencil",
       "reduceSeq(fun(acc, row => zip(acc |> padClamp(1)(1) |> slide(3)(1))(row) |> "
       "map(fun(p => (p._1[0] + p._1[2]) * 0.5f + p._2))))(generate(fun(i => 0.0f)))"},
      {"reversed",
       "reduceSeq(fun(acc, row => zip(acc |> reverse)(row) |> map(fun(p => p._1 + "
       "p._2))))(generate(fun(i => 0.0f)))"},
      {"shifted",
       "reduceSeq(fun(acc, row => zip(acc |> padClamp(1)(0) |> take(m))(row) |> "
       "map(fun(p => p._1 + p._2))))(generate(fun(i => 0.0f)))"},
      {"reduce",
       "reduce(fun(acc, row => zip(acc |> reverse)(row) |> map(fun(p => p._1 + "
       "p._2))))(generate(fun(i => 0.0f))) |> map(fun(v => v * 2.0f))"},
      {"scan",
       "scanSeq(fun(row, acc => zip(acc |> reverse)(row) |> map(fun(p => p._1 + "
       "p._2))))(generate(fun(i => 0.0f)))"},
      {"rows",
       "reduceSeq(fun(acc, row => zip(acc)(row) |> map(fun(p => zip(p._1)(p._2 |> "
       "reverse) |> map(fun(q => q._1 + q._2 * p._1[0]))))))(generate(fun(i => "
       "generate(fun(j => 1.0f)))))"},
      // a 4 x 4 accumulator, a register block's shape, read transposed
      {"transposed",
       "reduceSeq(fun(acc, blk => zip(acc |> transpose)(blk) |> map(fun(p => zip(p._1)(p._2) "
       "|> map(fun(q => q._1 * 0.5f + q._2))))))(generate(fun(i => generate(fun(j => "
       "1.0f)))))"},
      // read in order, written transposed
      {"written_transposed",
       "reduceSeq(fun(acc, blk => zip(acc)(blk) |> map(fun(p => zip(p._1)(p._2) |> map(fun(q "
       "=> q._1 * 0.5f + q._2)))) |> transpose))(generate(fun(i => generate(fun(j => "
       "1.0f)))))"},
      // the same inside a map: in a kernel on opencl, a private accumulator
      {"transposed_map",
       "map(fun(blks => blks |> reduceSeq(fun(acc, blk => zip(acc |> transpose)(blk) |> "
       "map(fun(p => zip(p._1)(p._2) |> map(fun(q => q._1 * 0.5f + q._2))))))(generate(fun(i "
       "=> generate(fun(j => 1.0f)))))))"},
  };
  return cases;
}

std::string acc_alias_program(const AccAliasCase& c) {
  const std::string name = c.name;
  return std::string("def f = depFun((n: Nat, m: Nat) => fun(M: n.") +
         (name == "rows"                                         ? "m.4.f32"
          : name == "transposed" || name == "written_transposed" ? "4.4.f32"
          : name == "transposed_map"                             ? "m.4.4.f32"
                                                                 : "m.f32") +
         " =>\n  M |> " + c.step + "))\n";
}

TEST(AccumulatorAlias, StepsReadingOtherElementsMatchTheInterpreterOnEveryTarget) {
  for (const AccAliasCase& c : acc_alias_cases()) {
    const std::string file =
        write_scratch(std::string("acc_alias_") + c.name + ".rise", acc_alias_program(c));
    for (const char* target : {"c", "openmp", "opencl"}) {
      SCOPED_TRACE(std::string(c.name) + " on " + target);
      CliResult r = run_risec({"run", file, "--target", target, "--size", "n=7,m=13", "--check"});
      EXPECT_EQ(r.exit_code, 0) << show(r);
      EXPECT_NE(r.out.find("check: passed"), std::string::npos) << show(r);
    }
  }
}

TEST(AccumulatorAlias, AStepReadingInStepWritesInPlace) {
  const std::string file = write_scratch(
      "acc_alias_inplace.rise",
      "def f = depFun((n: Nat, m: Nat) => fun(M: n.m.f32 =>\n  M |> reduceSeq(fun(acc, row => "
      "zip(acc)(row) |> map(fun(p => p._1 * 0.5f + p._2))))(generate(fun(i => 1.0f)))))\n");
  CliResult c = run_risec({"compile", file, "--size", "n=3,m=5"});
  ASSERT_EQ(c.exit_code, 0) << show(c);
  EXPECT_EQ(c.out.find("next"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("output[i2] = output[i2] * 0.5f + M[i2]"), std::string::npos) << c.out;
  CliResult r = run_risec({"run", file, "--size", "n=9,m=11", "--check"});
  EXPECT_EQ(r.exit_code, 0) << show(r);
}

// An accumulator a strategy placed in private memory (oclReduceSeq(Private)), read
// transposed by its step: it was updated in place (wrong); it now gets a temporary in
// private memory.
TEST(AccumulatorAlias, APlacedAccumulatorReadOutOfOrderGetsATemporaryInItsMemory) {
  const std::string file = write_scratch(
      "acc_alias_private.rise",
      "def f = depFun(n: Nat => fun(x: n.f32 => fun(a0: 4.4.f32 =>\n  x |> reduceSeq(fun(acc, y "
      "=> acc |> transpose |> map(map(fun(v => v * 0.5f + y)))))(a0))))\n");
  CliResult r = run_risec({"run", file, "--target", "opencl", "--size", "n=5", "--check",
                           "--strategy", "lowerToC ; oclReduceSeq(Private) @ topDown"});
  EXPECT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.out.find("check: passed"), std::string::npos) << show(r);
}

}  // namespace
}  // namespace risec::e2e
