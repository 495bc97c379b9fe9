// Mutated example programs taken through the whole pipeline with the default
// lowering: a mutation that no longer type-checks, or that the C target cannot
// compile, is refused with a user error; one that compiles runs (as a standalone
// process, so a crash in generated code is reported, not fatal) and computes what
// the interpreter computes. The compiler never fails internally.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "driver/commands.h"
#include "e2e_util.h"
#include "rise/parser.h"
#include "runtime/process.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

// Token-level edits that keep most programs well formed: swapped operators and
// primitives, changed constants.
const std::vector<std::pair<std::string, std::string>> kSwaps = {
    {"add", "mul"},
    {"+", "-"},
    {"*", "+"},
    {"0.0f", "1.0f"},
    {"map(", "mapSeq("},
    {"reduce(", "reduceSeq("},
    {"(1)", "(2)"},
    {"(3)", "(2)"},
    {"transpose(", "id("},
    {"._1", "._2"},
    {"zip(", "makePair("},
    {"join(", "transpose("},
    {"fst(", "snd("},
    {"16.0f", "0.0f"},
    {"padClamp", "padCst"},
    {"slide(", "split("},
    {"map(", "toMem(map("},
    {"|> map(", "|> mapSeqUnroll("},
    {"abs(", "neg("},
    {"exp(", "sqrt("},
};

TEST(ProgramFuzz, MutatedProgramsCompileCorrectlyOrAreRefused) {
  const char* seed = std::getenv("RISEC_FUZZ_SEED");  // other mutations, locally
  std::mt19937_64 rng(seed ? std::strtoull(seed, nullptr, 10) : 20261121);
  int compiled = 0, refused = 0;
  for (const ExampleSizes& ex : fuzz_examples()) {
    std::string original = runtime::read_file(
        source_path(std::string("examples/") + ex.name + "/" + ex.name + ".rise"));
    for (int trial = 0; trial < 10; ++trial) {
      std::string text = original;
      int edits = 1 + static_cast<int>(rng() % 2);
      for (int k = 0; k < edits; ++k) {
        const auto& [from, to] = kSwaps[rng() % kSwaps.size()];
        std::vector<size_t> at;
        for (size_t p = text.find(from); p != std::string::npos; p = text.find(from, p + 1))
          at.push_back(p);
        if (at.empty()) continue;
        text.replace(at[rng() % at.size()], from.size(), to);
      }
      if (text == original) continue;
      std::string file = write_scratch(std::string(ex.name) + "_mut.rise", text);
      SCOPED_TRACE(std::string(ex.name) + " mutated:\n" + text);
      try {
        rise::Program program = driver::load_program(file);
        rise::SizeMap sizes = driver::parse_sizes({ex.sizes});
        driver::CompileRequest req;
        req.program = &program;
        req.sizes = &sizes;
        driver::Compiled c = driver::compile(req);
        std::vector<rise::Value> inputs = driver::make_inputs(c.high, {}, 0);
        driver::ExecOptions eo;
        eo.mode = driver::ExecMode::Standalone;
        eo.timeout_s = 60;
        driver::Execution run = driver::execute(c, sizes, inputs, eo);
        rise::Value expected = driver::interpret(c.high, inputs);
        driver::Comparison cmp =
            driver::compare_values(run.output, expected, driver::entry_result_type(c.high),
                                   driver::kDefaultRtol, driver::kDefaultAtol);
        ++compiled;
        EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
      } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::User) << format_error(e);
        ++refused;
        if (std::getenv("RISEC_FUZZ_VERBOSE"))
          std::fprintf(stderr, "  refused: %s\n", e.message().c_str());
      }
    }
  }
  std::printf("program fuzz: %d compiled and checked, %d refused\n", compiled, refused);
  EXPECT_GT(compiled, 25);
}

}  // namespace
}  // namespace risec::e2e
