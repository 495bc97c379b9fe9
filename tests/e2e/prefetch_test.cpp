// Software prefetching (the rule prefetch, codegen/c/prefetch.cpp): random
// register-blocked products of mm (the autoscheduler's steps, schedule_blocked.h) at
// odd sizes, their k loops prefetching the packed operand at random distances, compute
// what the interpreter computes on the c and openmp targets; the generated C has
// prefetches exactly where a strategy asks for them, of the packed operand only (not
// A, whose rows advance less than a line a k); the .elv the tuner writes for such a
// point runs with --check; and the refusals: a distance out of range, a loop that is
// no reduceSeq, a GPU target. Nothing assumes the host's vector width: the blocks are
// 16 columns wide, which 4, 8 and 16 lanes divide.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>

#include "build_info.h"
#include "driver/schedule_blocked.h"
#include "driver/schedule_space.h"
#include "e2e_util.h"
#include "elevate/parser.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

// The .elv text the tuner writes for point p (ScheduleCandidate::strategy_text).
std::string tuned_text(const driver::BlockPoint& p, const std::string& target) {
  driver::ScheduleCandidate c;
  for (const driver::BlockStep& b : driver::block_steps(p, target))
    c.steps.push_back({b.decision, b.strategy, b.comment});
  return c.strategy_text();
}

driver::BlockPoint point(int64_t rows, int64_t ti, int64_t kk, bool rows_outer, int64_t panel,
                         int64_t prefetch) {
  driver::BlockPoint p;
  p.ti = ti;
  p.tj = 16;
  p.kk = kk;
  p.rows_outer = rows_outer;
  p.register_block = true;
  p.pack = true;
  p.panel = panel;
  p.rest = rows % (panel ? panel : ti);
  p.prefetch = prefetch;
  return p;
}

std::string sizes_text(int64_t n, int64_t m, int64_t k) {
  return "n=" + std::to_string(n) + ",m=" + std::to_string(m) + ",k=" + std::to_string(k);
}

CheckReport check_point(const std::string& name, const driver::BlockPoint& p,
                        const std::string& sizes, const std::string& target) {
  CheckOptions o;
  o.target = target;
  const std::string file = write_scratch(name + ".elv", tuned_text(p, target));
  CheckReport r = run_and_compare("examples/mm/mm.rise", file, sizes, o);
  EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch << "\n" << r.compiled.unit.source;
  return r;
}

TEST(Prefetch, RandomPrefetchingBlocksMatchTheInterpreter) {
  const char* seed = std::getenv("RISEC_FUZZ_SEED");
  std::mt19937_64 rng(seed ? std::strtoull(seed, nullptr, 10) : 20261129);
  const int64_t distances[] = {64, 200, 1024, 4096};
  int checked = 0;
  // Under the sanitizers the first 4 blocks, both targets still (build_info.h).
  const int trials = static_cast<int>(risec::test::per_build(10, 4));
  for (int trial = 0; trial < trials; ++trial) {
    const int64_t ti = 2 + static_cast<int64_t>(rng() % 5);  // 2 .. 6: most leave a rest
    const int64_t kk = rng() % 2 ? 2 : 4;
    const bool panels = rng() % 3 == 0;
    // Rows odd (not a multiple of the block), columns a multiple of 16, depth of kk.
    const int64_t rows = (panels ? 8 * ti + 1 : ti + 1) + 2 * static_cast<int64_t>(rng() % 12);
    const int64_t cols = 16 * (1 + static_cast<int64_t>(rng() % 3));
    const int64_t depth = kk * (3 + static_cast<int64_t>(rng() % 9));
    const int64_t panel = panels ? 4 * ti : 0;
    const bool rows_outer = !panels && rng() % 2;
    const int64_t d = distances[rng() % 4];
    const std::string target = trial % 2 ? "openmp" : "c";
    const driver::BlockPoint p = point(rows, ti, kk, rows_outer, panel, d);
    SCOPED_TRACE(target + " " + sizes_text(rows, cols, depth) + ", " + tuned_text(p, target));
    CheckReport r = check_point("prefetch_random", p, sizes_text(rows, cols, depth), target);
    const std::string& src = r.compiled.unit.source;
    // Asked for: there are prefetches, each the given distance (and whole lines) ahead,
    // none of A.
    EXPECT_GT(occurrences(src, "__builtin_prefetch("), 0) << src;
    EXPECT_NE(src.find(" + " + std::to_string(d) + "))"), std::string::npos) << src;
    EXPECT_EQ(src.find("(uintptr_t)A "), std::string::npos) << src;
    // Not asked for: none.
    driver::BlockPoint plain = p;
    plain.prefetch = 0;
    CheckReport q =
        check_point("prefetch_random_plain", plain, sizes_text(rows, cols, depth), target);
    EXPECT_EQ(occurrences(q.compiled.unit.source, "__builtin_prefetch"), 0)
        << q.compiled.unit.source;
    ++checked;
  }
  EXPECT_EQ(checked, trials);
}

// The autoscheduler's AVX2 choice at a small size: 6 x 16 blocks, k split 2, 50 rows
// (the last 2 peeled off and blocked on their own): each of the two k loops reads
// 2 x 16 floats of packed B a trip, two lines, and prefetches both, 1 KiB ahead.
TEST(Prefetch, TwoLinesOfPackedBAKTripAndNoneOfA) {
  for (const std::string target : {"c", "openmp"}) {
    const driver::BlockPoint p = point(50, 6, 2, false, 0, 1024);
    CheckReport r = check_point("prefetch_6x16", p, sizes_text(50, 32, 64), target);
    const std::string& src = r.compiled.unit.source;
    EXPECT_EQ(occurrences(src, "__builtin_prefetch("), 4) << src;
    EXPECT_EQ(occurrences(src, " * 4 + 1024))"), 2) << src;
    EXPECT_EQ(occurrences(src, " * 4 + 1088))"), 2) << src;
    EXPECT_EQ(src.find("(uintptr_t)A "), std::string::npos) << src;
  }
}

// The .elv file the tuner writes for a prefetching point says so in its comments and
// runs as it is with `risec run --check`.
TEST(Prefetch, TunedFileWithPrefetchRunsWithCheck) {
  const driver::BlockPoint p = point(27, 6, 2, false, 0, 512);
  for (const std::string target : {"c", "openmp"}) {
    const std::string text = tuned_text(p, target);
    EXPECT_NE(text.find("(prefetch(512) @ outermost(isFullyApplied(isReduceSeq)))"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("prefetches the packed operand 512 bytes ahead"), std::string::npos)
        << text;
    const std::string file = write_scratch("prefetch_tuned_" + target + ".elv", text);
    CliResult r = run_risec({"run", "examples/mm/mm.rise", "--strategy", file, "--size",
                             sizes_text(27, 48, 40), "--target", target, "--check"});
    EXPECT_EQ(r.exit_code, 0) << show(r);
    EXPECT_NE(r.out.find("check: passed"), std::string::npos) << show(r);
  }
}

TEST(Prefetch, Refusals) {
  // A distance out of range: a user error when the strategy is built.
  for (const char* bad : {"prefetch(0)", "prefetch(2097152)"}) {
    try {
      elevate::parse_strategy(std::string(bad) + " @ outermost(isFullyApplied(isReduceSeq))");
      ADD_FAILURE() << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::User) << e.message();
      EXPECT_NE(e.message().find("bytes from 1 to"), std::string::npos) << e.message();
    }
  }
  // Not a reduceSeq: the rule fails (a map, or a reduce not lowered yet).
  for (const char* at : {"prefetch(256) @ outermost(isApplied(isMap))",
                         "prefetch(256) @ outermost(isFullyApplied(isReduce))"}) {
    CliResult r = run_risec({"compile", "examples/mm/mm.rise", "--size", "n=4,m=8,k=8",
                             "--strategy", std::string(at) + " ; lowerToC"});
    EXPECT_EQ(r.exit_code, 1) << at << "\n" << show(r);
    EXPECT_NE(r.err.find("expected a sequential reduction, reduceSeq"), std::string::npos)
        << show(r);
  }
  // A GPU target has no prefetch instruction: refused where the loop is.
  for (const char* target : {"opencl", "cuda"}) {
    CliResult r = run_risec({"compile", "examples/mm/mm.rise", "--size", "n=4,m=8,k=64", "--target",
                             target, "--strategy",
                             "(reduceSeq @ outermost(isFullyApplied(isReduce))) ; "
                             "(prefetch(256) @ outermost(isFullyApplied(isReduceSeq))) ; "
                             "(mapGlobal(0) @ outermost(isApplied(isMap))) ; lowerToC"});
    EXPECT_EQ(r.exit_code, 1) << target << "\n" << show(r);
    EXPECT_NE(r.err.find("software prefetching (the strategy rule prefetch(256)) is for the CPU"),
              std::string::npos)
        << show(r);
    EXPECT_NE(r.err.find("mm.rise:8:"), std::string::npos) << show(r);
  }
}

}  // namespace
}  // namespace risec::e2e
