// Strategies applied without --size: the code is generic in the sizes. Tiling,
// blocking and vectorising rules then leave side conditions (32 | n, 16 | m, ...)
// that the function checks on entry. The generic code of every mm step and of gemv's
// row blocking runs (as a standalone process) on sizes that satisfy them and matches
// the interpreter on the specialised program; sizes that violate one are refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "driver/commands.h"
#include "e2e_util.h"
#include "runtime/jit.h"
#include "runtime/layout.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

struct Generic {
  driver::Compiled compiled;
  runtime::Executable exe{""};
};

Generic compile_generic(const std::string& file, const std::string& strategy,
                        const std::string& target) {
  static std::vector<std::unique_ptr<rise::Program>> keep;
  keep.push_back(std::make_unique<rise::Program>(driver::load_program(source_path(file))));
  static std::vector<std::unique_ptr<elevate::Strategy>> strategies;
  strategies.push_back(
      std::make_unique<elevate::Strategy>(driver::load_strategy(source_path(strategy))));
  driver::CompileRequest req;
  req.program = keep.back().get();
  req.strategy = strategies.back().get();
  req.target = target;
  Generic g;
  g.compiled = driver::compile(req);
  runtime::CompileOptions co;
  co.openmp = g.compiled.unit.uses_openmp;
  g.exe = runtime::Executable(
      runtime::build_executable(g.compiled.unit.source, g.compiled.unit.name, co).path);
  return g;
}

// Runs the generic code at `sizes` and compares with the interpreter; returns the
// error message when the run is refused ("" when it ran).
std::string run_at(const Generic& g, const std::string& file, const std::string& sizes_text) {
  rise::Program p = driver::load_program(source_path(file));
  rise::SizeMap sizes = driver::parse_sizes({sizes_text});
  rise::Checked spec = rise::check_program(p, "", &sizes);
  std::vector<rise::Value> inputs = driver::make_inputs(spec, {}, 3);
  std::vector<driver::EntryParam> params = driver::entry_parameters(spec);
  std::vector<runtime::AlignedBuffer> bufs;
  std::vector<runtime::Bytes> bytes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    bufs.push_back(runtime::to_c_buffer(inputs[i], params[i].type));
    bytes.push_back({bufs.back().data(), bufs.back().size()});
  }
  rise::Type out_t = driver::entry_result_type(spec);
  runtime::AlignedBuffer out(runtime::c_layout(out_t).size);
  std::vector<int> size_args;
  for (const std::string& n : g.compiled.size_names) size_args.push_back(int(sizes.at(n)));
  try {
    g.exe.call(out.data(), out.size(), bytes, size_args);
  } catch (const Error& e) {
    return e.message();
  }
  rise::Value got = runtime::from_c_bytes(out.data(), out_t);
  rise::Value expected = driver::interpret(spec, inputs);
  driver::Comparison cmp =
      driver::compare_values(got, expected, out_t, driver::kDefaultRtol, driver::kDefaultAtol);
  EXPECT_TRUE(cmp.ok) << sizes_text << ": " << cmp.first_mismatch;
  return "";
}

class GenericMM : public ::testing::TestWithParam<const char*> {};

TEST_P(GenericMM, RunsAtSizesThatMeetItsConditions) {
  std::string step = GetParam();
  std::string target = step == "parallel" ? "openmp" : "c";
  Generic g = compile_generic("examples/mm/mm.rise", "examples/mm/" + step + ".elv", target);
  EXPECT_EQ(g.compiled.size_names, (std::vector<std::string>{"n", "m", "k"}));
  EXPECT_EQ(run_at(g, "examples/mm/mm.rise", "n=64,m=64,k=64"), "");
  EXPECT_EQ(run_at(g, "examples/mm/mm.rise", "n=32,m=96,k=64"), "");
  if (step != "baseline") {
    // 33 rows cannot be tiled by 32
    std::string m = run_at(g, "examples/mm/mm.rise", "n=33,m=64,k=64");
    EXPECT_NE(m.find("size precondition violated"), std::string::npos) << m;
  }
}

INSTANTIATE_TEST_SUITE_P(Steps, GenericMM,
                         ::testing::Values("baseline", "blocking", "vectorization",
                                           "loop_permutation", "array_packing", "cache_blocks",
                                           "parallel"));

TEST(GenericGemv, RowBlocksWithPreconditions) {
  Generic g =
      compile_generic("examples/gemv/gemv.rise", "examples/gemv/parallel_rows4.elv", "openmp");
  const std::string& src = g.compiled.unit.source;
  EXPECT_NE(src.find("4 divides n"), std::string::npos) << src;
  EXPECT_NE(src.find("16 divides m"), std::string::npos) << src;
  EXPECT_EQ(run_at(g, "examples/gemv/gemv.rise", "n=8,m=48"), "");
  std::string m = run_at(g, "examples/gemv/gemv.rise", "n=6,m=48");
  EXPECT_NE(m.find("4 divides n"), std::string::npos) << m;
}

}  // namespace
}  // namespace risec::e2e
