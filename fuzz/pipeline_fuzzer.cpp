// Fuzz target: the whole pipeline (check, strategy, DPIA, C printing; the C is not
// compiled) on well-typed programs made by program_gen from the fuzzer's bytes, with
// a strategy chosen from a fixed list and the examples' strategy files. Invariants:
// the program parses, prints back to the same program and type-checks; compiling
// fails only with user-facing errors; and where the size is fixed, the rewritten
// program computes what the original computes (reference interpreter, random inputs).
// Where the size is fixed, the input y is also bound now and then (`--bind`,
// driver/bind.h) to values with many zeros and ones: the program compiled with y as
// constants (the strategy, then `specialise`) computes what the original computes on
// the same y.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "driver/compile.h"
#include "driver/run.h"
#include "elevate/parser.h"
#include "fuzz_util.h"
#include "program_gen.h"
#include "rise/interp.h"
#include "rise/parser.h"
#include "rise/printer.h"
#include "runtime/npy.h"
#include "runtime/process.h"
#include "support/random.h"

using namespace risec;

namespace {

struct NamedStrategy {
  std::string text;
  elevate::Strategy strategy;
};

// The strategies to try: small compositions of library entries and every example's
// strategy file. A strategy that does not parse is a bug of this list (or of the
// parser), found on the first run.
std::vector<NamedStrategy> strategies() {
  std::vector<std::string> texts = {
      "lowerToC",
      "(parallel @ outermost(isApplied(isMap))) ; lowerToC",
      "(vectorize(4) @ outermost(isApplied(isMap))) ; lowerToC",
      "(vectorize(4) @ innermost(isFullyApplied(isMap))) ; lowerToC",
      "DFNF ; (fuseReduceMap @ topDown) ; lowerToC",
      "RNF ; lowerToC",
      "(splitStrategy(2) @ innermost(isFullyApplied(isReduce))) ; lowerToC",
      "(tile(2, 2) @ outermost(mapNest(2))) ; lowerToC",
      "lowerToC ; (unroll @ innermost(isFullyApplied(isReduceSeq)))",
      "DFNF ; normalize(mapFusion) ; lowerToC",
      "simplify ; lowerToC",
  };
  const std::filesystem::path examples = std::filesystem::path(RISEC_SOURCE_DIR) / "examples";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(examples))
    if (entry.path().extension() == ".elv") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  // Each file's text is named by its path, from which its imports are resolved.
  std::vector<std::string> names(texts.size(), "list.elv");
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    texts.push_back(ss.str());
    names.push_back(f.string());
  }
  std::vector<NamedStrategy> out;
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::string& t = texts[i];
    try {
      out.push_back({t, elevate::parse_strategy(t, names[i])});
    } catch (const Error& e) {
      fuzz::bug("a listed strategy does not parse: " + format_error(e), t);
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<NamedStrategy> list = strategies();
  FuzzedDataProvider in(data, size);
  const NamedStrategy& strategy = list[in.ConsumeIntegralInRange<size_t>(0, list.size() - 1)];
  const std::string target = in.ConsumeBool() ? "openmp" : "c";
  const int n = in.ConsumeIntegralInRange(0, 4);  // 0: the size stays symbolic
  const bool bind = n > 0 && in.ConsumeIntegralInRange(0, 3) == 0;
  // The bound y's values: 0, 1, -1, 0.5 or 2 by turns, from this seed.
  const uint32_t bind_pattern = in.ConsumeIntegral<uint32_t>();
  // one program in four is pair-heavy (reductions with pair states, selects, zips of
  // pairs; sizes n and k)
  const bool pairs = in.ConsumeIntegralInRange(0, 3) == 0;
  const std::string text = pairs ? fuzz::generate_pair_program(in) : fuzz::generate_program(in);
  const std::string report = text + "--- strategy ---\n" + strategy.text + "\n--- target " +
                             target + ", n = " + std::to_string(n) +
                             (bind ? ", y bound, pattern " + std::to_string(bind_pattern) : "");

  rise::Program p;
  try {
    p = rise::parse_program(fuzz::source("generated.rise", text));
  } catch (const Error& e) {
    fuzz::bug("a generated program does not parse: " + format_error(e), report);
  }
  const std::string printed = rise::print_program(p);
  try {
    rise::Program again = rise::parse_program(fuzz::source("printed.rise", printed));
    if (!rise::alpha_equal(again.defs.back().body, p.defs.back().body))
      fuzz::bug("printing changed the program:\n" + printed, report);
  } catch (const Error& e) {
    fuzz::bug("the printed program does not parse: " + format_error(e) + "\n" + printed, report);
  }
  rise::SizeMap sizes = {{"n", n}};
  if (pairs) sizes["k"] = 2;
  try {
    rise::check_program(p, "", n > 0 ? &sizes : nullptr);
  } catch (const Error& e) {
    fuzz::bug("a generated program does not type-check: " + format_error(e), report);
  }

  // RISEC_FUZZ_VERBOSE=1: print each program and what became of it.
  static const bool verbose = std::getenv("RISEC_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "=== %s\n", report.c_str());
  fuzz::guarded(report, [&] {
    driver::CompileRequest req;
    req.program = &p;
    req.sizes = n > 0 ? &sizes : nullptr;
    req.strategy = &strategy.strategy;
    req.target = target;
    driver::Compiled c = [&] {
      try {
        return driver::compile(req);
      } catch (const Error& e) {
        if (verbose) std::fprintf(stderr, "--> %s\n", e.message().c_str());
        throw;
      }
    }();
    if (verbose) std::fprintf(stderr, "--> compiled\n");
    if (n == 0) return;
    std::string where;
    if (!rise::values_close(rise::run_on_random_inputs(c.high.expr, 7),
                            rise::run_on_random_inputs(c.low.expr, 7), 1e-3, 1e-3, &where))
      fuzz::bug("the strategy changed the results: " + where + "\nafter:\n" +
                    rise::print_expr(c.low.expr),
                report);
    if (!bind) return;
    // y (input 1 of x, y, ... in both generators) as constants.
    const std::vector<driver::EntryParam> params = driver::entry_parameters(c.high);
    std::vector<rise::Value> inputs;
    for (size_t i = 0; i < params.size(); ++i)
      inputs.push_back(rise::random_input(params[i].type, runtime::derive_seed(7, i)));
    runtime::NdArray y = rise::to_ndarray(inputs[1], params[1].type);
    static const float kValues[] = {0.0f, 1.0f, -1.0f, 0.5f, 2.0f, 0.0f, 1.0f, 0.25f};
    float* ys = y.as<float>();
    for (int64_t i = 0; i < y.count(); ++i) ys[i] = kValues[(bind_pattern >> (i % 30)) & 7];
    inputs[1] = rise::from_ndarray(y, params[1].type);
    static const runtime::TempDir dir("risec-fuzz-bind-");
    const std::string file = dir.path() + "/y.npy";
    runtime::write_npy(file, y);
    const std::map<std::string, std::string> files = {{"y", file}};
    req.bind = &files;
    driver::Compiled b = driver::compile(req);
    if (verbose) std::fprintf(stderr, "--> compiled with y bound\n");
    rise::Interpreter interp;
    const rise::Value expected = interp.run(c.high.expr, inputs);
    std::vector<rise::Value> rest = inputs;  // every input but y
    rest.erase(rest.begin() + 1);
    const rise::Value got = interp.run(b.low.expr, rest);
    if (!rise::values_close(expected, got, 1e-3, 1e-3, &where))
      fuzz::bug(
          "binding y changed the results: " + where + "\nafter:\n" + rise::print_expr(b.low.expr),
          report);
  });
  return 0;
}
