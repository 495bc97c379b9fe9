// End-to-end over the test programs of the autoscheduler's targets (issue 34,
// bench/autoschedule/programs: a range-weighted bilateral stage, a Gaussian pyramid
// level, a Laplacian band, a two-layer MLP, layer norm and row softmax): each is
// compiled with the default lowering, run on seeded random inputs and compared with
// the interpreter, at many small sizes (odd ones, and 1 where the program allows it,
// drawn from a fixed seed per program) on the C target and at one of them on OpenMP.
// bench/autoschedule/bench_peers.py times the same files against Halide, PyTorch and
// oneDNN; this test makes sure what it times computes the program.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

struct Program {
  std::string name;                // bench/autoschedule/programs/NAME.rise
  std::vector<std::string> sizes;  // its size names, in order
};

const std::vector<Program>& programs() {
  static const std::vector<Program> ps = {{"bilateral", {"n", "m"}}, {"pyrdown", {"n", "m"}},
                                          {"lapband", {"n", "m"}},   {"mlp", {"b", "k", "h", "o"}},
                                          {"layernorm", {"n", "d"}}, {"softmax", {"n", "d"}}};
  return ps;
}

// `count` size lists for `p`: the first all 1 (the smallest image or matrix: clamped
// windows that read only the border), the others odd sizes in [3, 13] drawn from a
// seed of its own, so that every run checks the same cases.
std::vector<std::string> size_lists(const Program& p, int count) {
  std::mt19937 rng(static_cast<unsigned>(std::hash<std::string>{}(p.name) & 0xffff));
  std::uniform_int_distribution<int> half(1, 6);
  std::vector<std::string> out;
  for (int c = 0; c < count; ++c) {
    std::string s;
    for (const std::string& n : p.sizes) {
      int v = c == 0 ? 1 : 2 * half(rng) + 1;
      s += (s.empty() ? "" : ",") + n + "=" + std::to_string(v);
    }
    out.push_back(s);
  }
  return out;
}

std::string file_of(const Program& p) {
  return "bench/autoschedule/programs/" + p.name + ".rise";
}

class AutoschedulePrograms : public ::testing::TestWithParam<Program> {};

TEST_P(AutoschedulePrograms, DefaultLoweringMatchesTheInterpreterAtManySizes) {
  const Program& p = GetParam();
  int seed = 0;
  for (const std::string& sizes : size_lists(p, 5)) {
    CheckOptions o;
    o.seed = static_cast<uint64_t>(++seed);
    EXPECT_TRUE(compile_and_check(file_of(p), "", sizes, o)) << sizes;
  }
}

TEST_P(AutoschedulePrograms, OpenMPDefaultLoweringMatchesTheInterpreter) {
  const Program& p = GetParam();
  CheckOptions o;
  o.target = "openmp";
  o.seed = 7;
  EXPECT_TRUE(compile_and_check(file_of(p), "", size_lists(p, 2)[1], o));
}

// `risec check` accepts every program (exit 0) with its sizes symbolic, as
// bench_peers.py's `risec run` calls need.
TEST(AutoscheduleProgramsCli, CheckAcceptsEveryProgram) {
  for (const Program& p : programs()) {
    CliResult r = run_risec({"check", file_of(p)});
    EXPECT_EQ(r.exit_code, 0) << p.name << ": " << r.err;
  }
}

INSTANTIATE_TEST_SUITE_P(Bench, AutoschedulePrograms, ::testing::ValuesIn(programs()),
                         [](const ::testing::TestParamInfo<Program>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace risec::e2e
