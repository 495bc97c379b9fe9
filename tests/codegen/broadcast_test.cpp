// Vector broadcasts in generated C (bench/results/journal/2026-11-25-vectorize16-cliff.md):
// `x - (v){0}` for the sizes of a register, `(v){0} + x` for wider vectors, except for
// the vector size x86 has a machine mode for but the target may not enable (32 bytes
// without AVX, 64 without AVX-512F), where GCC 12 built the vector lane by lane through
// the stack; there the scalar is listed once per lane. Vector loads of a register's size
// pass through an empty asm on x86, so that GCC does not fold them into each use
// (bench/results/journal/2026-11-26-tune-mm-zen4.md).
// The compiled code is checked against the interpreter with AVX2 only (-march=haswell,
// which this machine runs when it has AVX2), where the cliff was.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "compile_util.h"
#include "driver/run.h"

namespace risec::test {
namespace {

const char* kScal =
    "def scal = depFun(n: Nat => fun(alpha: f32 => fun(x: n.f32 =>\n"
    "  x |> map(fun(xi => alpha * xi)))))\n";

std::string broadcast_of(int lanes) {
  driver::Compiled c = compile_rise(kScal,
                                    "(vectorize(" + std::to_string(lanes) +
                                        ") @ outermost(isApplied(isMap))) ; "
                                        "lowerToC",
                                    {{"n", 256}});
  return c.unit.source;
}

TEST(Broadcast, ListsTheScalarOnlyForTheSizesWithADisabledMode) {
  std::string x16 = broadcast_of(16);
  EXPECT_NE(x16.find("#if defined(__x86_64__) && !defined(__AVX512F__)\n"), std::string::npos)
      << x16;
  EXPECT_NE(x16.find("{x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x}"), std::string::npos);
  EXPECT_NE(x16.find("#else\n"), std::string::npos);
  EXPECT_NE(x16.find("return x - (risec_f32x16){0};"), std::string::npos);
  EXPECT_NE(broadcast_of(8).find("!defined(__AVX__)"), std::string::npos);
  EXPECT_NE(broadcast_of(4).find("return x - (risec_f32x4){0};"), std::string::npos);
  // No disabled-mode branch before the broadcast of 4, 32 or 64 lanes (the 32- and
  // 64-lane units also define the narrower types their stores are split into).
  for (int lanes : {4, 32, 64}) {
    std::string b = broadcast_of(lanes);
    const std::string t = "risec_f32x" + std::to_string(lanes);
    const size_t at = b.find("static inline " + t + " " + t + "_broadcast(");
    ASSERT_NE(at, std::string::npos) << b;
    const size_t line = b.rfind('\n', at - 1);
    const size_t prev = b.rfind('\n', line - 1);
    EXPECT_EQ(b.substr(prev + 1, line - prev).find("!defined(__AVX"), std::string::npos) << b;
  }
  for (int lanes : {32, 64}) EXPECT_NE(broadcast_of(lanes).find("){0} + x;"), std::string::npos);
}

TEST(Broadcast, RegisterSizedLoadsPassThroughAnEmptyAsmOnX86Only) {
  std::string x16 = broadcast_of(16);
  EXPECT_NE(
      x16.find("#if defined(__x86_64__) && defined(__AVX512F__) && !defined(RISEC_FOLD_LOADS)\n"),
      std::string::npos)
      << x16;
  EXPECT_NE(x16.find("__asm__(\"\" : \"+v\"(v)); return v; }"), std::string::npos) << x16;
  EXPECT_NE(broadcast_of(8).find(
                "#if defined(__x86_64__) && defined(__AVX__) && !defined(RISEC_FOLD_LOADS)\n"),
            std::string::npos);
  // 128 bytes are no register: no asm in the 32-lane loads (its constraint could not
  // be met; the narrower types its stores are split into have theirs).
  std::istringstream x32(broadcast_of(32));
  int loads = 0;
  for (std::string line; std::getline(x32, line);)
    if (line.find("risec_f32x32_load") != std::string::npos &&
        line.find("{") != std::string::npos) {
      ++loads;
      EXPECT_EQ(line.find("__asm__"), std::string::npos) << line;
    }
  EXPECT_GT(loads, 0);
}

TEST(Broadcast, SixteenLanesWithAvx2OnlyComputeTheRightValues) {
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "needs a CPU with AVX2";
  driver::Compiled c =
      compile_rise(kScal, "(vectorize(16) @ outermost(isApplied(isMap))) ; lowerToC", {{"n", 64}});
  std::vector<rise::Value> in = driver::make_inputs(c.high, {}, 3);
  driver::ExecOptions eo;
  eo.extra_cflags = {"-march=haswell"};
  driver::Execution ex = driver::execute(c, {{"n", 64}}, in, eo);
  driver::Comparison cmp = driver::compare_values(ex.output, driver::interpret(c.high, in),
                                                  driver::entry_result_type(c.high));
  EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
  EXPECT_EQ(cmp.elements, 64);
}

// The register-blocked point of examples/mm/tune.elv (4 rows x 2 vectors of 16 updated
// across all of k, so each vector of B loaded once serves four FMAs: where the loads'
// asm matters), compiled natively and checked against the interpreter.
TEST(Broadcast, RegisterBlockedMmComputesTheRightValues) {
  std::ifstream f(std::string(RISEC_SOURCE_DIR) + "/examples/mm/tune.elv");
  std::stringstream text;
  text << f.rdbuf();
  auto src = std::make_shared<SourceFile>(SourceFile{"tune.elv", text.str()});
  std::string strategy = elevate::substitute_params(
      src, {{"ti", 4}, {"tj", 32}, {"kk", 4}, {"v", 16}, {"o4", 6}, {"o5", 3}});
  std::ifstream pf(std::string(RISEC_SOURCE_DIR) + "/examples/mm/mm.rise");
  std::stringstream prog;
  prog << pf.rdbuf();
  rise::SizeMap sizes = {{"n", 16}, {"m", 64}, {"k", 24}};
  driver::Compiled c = compile_rise(prog.str(), strategy, sizes, "openmp");
  EXPECT_NE(c.unit.source.find("__asm__"), std::string::npos);
  std::vector<rise::Value> in = driver::make_inputs(c.high, {}, 5);
  driver::Execution ex = driver::execute(c, sizes, in, driver::ExecOptions{});
  driver::Comparison cmp = driver::compare_values(ex.output, driver::interpret(c.high, in),
                                                  driver::entry_result_type(c.high));
  EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
  EXPECT_EQ(cmp.elements, 16 * 64);
}

}  // namespace
}  // namespace risec::test
