// Helpers for end-to-end tests (see e2e_util.h).
#include "e2e_util.h"
#include "build_info.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>

#include "driver/commands.h"
#include "elevate/parser.h"
#include "runtime/jit.h"
#include "runtime/process.h"
#include "support/diagnostics.h"

namespace risec::e2e {

namespace {

// A private cache of compiled code and a scratch directory for the whole test run.
class E2eEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    if (!std::getenv("RISEC_CACHE_DIR")) {
      cache_.emplace("risec-e2e-cache-");
      ::setenv("RISEC_CACHE_DIR", cache_->path().c_str(), 1);
    }
  }
  void TearDown() override {
    if (cache_) {
      ::unsetenv("RISEC_CACHE_DIR");
      cache_.reset();
    }
    scratch_.reset();
  }
  const std::string& scratch() {
    if (!scratch_) scratch_.emplace("risec-e2e-scratch-");
    return scratch_->path();
  }

 private:
  std::optional<runtime::TempDir> cache_;
  std::optional<runtime::TempDir> scratch_;
};

E2eEnvironment* environment() {
  static E2eEnvironment* env = [] {
    auto* e = new E2eEnvironment;
    ::testing::AddGlobalTestEnvironment(e);  // gtest owns it
    return e;
  }();
  return env;
}
// Register before main() runs the tests.
[[maybe_unused]] const E2eEnvironment* const kRegistered = environment();

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::string source_path(const std::string& relative) {
  if (!relative.empty() && relative[0] == '/') return relative;
  return std::string(RISEC_SOURCE_DIR) + "/" + relative;
}

int occurrences(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t i = s.find(what); i != std::string::npos; i = s.find(what, i + 1)) ++n;
  return n;
}

// Small sizes satisfying each example's constraints (multiples of 16 where a
// strategy vectorises or tiles by 16 or 32).
const std::map<std::string, std::string>& example_sizes() {
  static const std::map<std::string, std::string> sizes = {
      {"asum", "n=64"},
      {"atax", "m=64,n=16"},
      {"binomial", "n=37,k=33"},
      {"blackscholes", "n=64"},
      {"blur3", "n=9,m=7"},
      {"blur5", "n=12,m=7"},
      {"bsnaive", "n=64"},
      {"concatpad", "n=5,m=3"},
      {"conv1d", "n=37"},
      {"conv2d", "n=16,m=16"},
      {"dense", "n=16,m=8"},
      {"dot", "n=64"},
      {"gaussconv", "n=37"},
      {"gaussian", "n=9,m=7"},
      {"gemv", "n=64,m=24"},
      {"gesummv", "n=64"},
      {"harris", "n=60,m=8"},
      {"jacobi3", "n=9,m=7"},
      {"jacobi5", "n=9,m=7"},
      {"kmeans", "n=32,k=3,f=4"},
      {"life", "n=9,m=7"},
      {"mandelbrot", "n=40,b=4"},
      // 4 divides n (global_vector4), 8 and 16 do not (a remainder for vector.elv)
      {"mandelwhile", "n=44,k=64"},
      {"md", "n=32,k=8"},
      {"mm", "n=128,m=128,k=32"},
      {"mriq", "n=32,k=16"},
      {"multigrid", "n=4,m=3"},
      {"mv", "n=64,m=32"},
      {"nbody", "n=32"},
      {"nn", "n=32"},
      {"pde1", "n=6,m=5,k=4"},
      {"saxpy", "n=64"},
      {"scal", "n=64"},
      {"seidelpad", "n=9,m=7"},
      {"treesum", "m=3,k=4"},
  };
  return sizes;
}

std::vector<ExampleStrategy> example_strategies() {
  namespace fs = std::filesystem;
  std::vector<ExampleStrategy> out;
  std::vector<fs::path> dirs;
  for (const auto& d : fs::directory_iterator(fs::path(source_path("examples"))))
    if (d.is_directory() && !fs::exists(d.path() / "CMakeLists.txt")) dirs.push_back(d.path());
  std::sort(dirs.begin(), dirs.end());
  for (const fs::path& dir : dirs) {
    std::string name = dir.filename().string();
    std::string file = "examples/" + name + "/" + name + ".rise";
    out.push_back({name, file, "", "c"});
    std::vector<fs::path> elvs;
    for (const auto& f : fs::directory_iterator(dir))
      if (f.path().extension() == ".elv") elvs.push_back(f.path());
    std::sort(elvs.begin(), elvs.end());
    for (const fs::path& elv : elvs) {
      std::ifstream in(elv);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      bool par = elv.stem().string().find("parallel") != std::string::npos ||
                 text.find("(parallel @") != std::string::npos ||
                 text.find("mapPar") != std::string::npos;
      std::string target = uses_gpu_primitives(text) ? "opencl" : par ? "openmp" : "c";
      out.push_back({name, file, "examples/" + name + "/" + elv.filename().string(), target});
    }
  }
  return out;
}

std::string example_case_name(const std::string& example, const std::string& strategy) {
  std::string s = example + "_" +
                  (strategy.empty() ? "default" : std::filesystem::path(strategy).stem().string());
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

std::vector<double> flat_values(const rise::Value& v) {
  if (v.kind() != rise::ValueKind::Array) return {v.to_double()};
  std::vector<double> out;
  for (int64_t i = 0; i < v.size(); ++i) {
    std::vector<double> x = flat_values(v.at(i));
    out.insert(out.end(), x.begin(), x.end());
  }
  return out;
}

bool uses_gpu_primitives(const std::string& strategy_text) {
  for (const char* gpu : {"mapGlobal", "mapWorkGroup", "mapLocal", "toGlobal", "toLocal",
                          "toPrivate", "oclReduceSeq"})
    if (strategy_text.find(gpu) != std::string::npos) return true;
  return false;
}

std::vector<GpuStrategy> gpu_strategies() {
  namespace fs = std::filesystem;
  std::vector<GpuStrategy> out;
  for (const auto& [example, sizes] : example_sizes()) {
    std::vector<fs::path> elvs;
    for (const auto& f : fs::directory_iterator(source_path("examples/" + example)))
      if (f.path().extension() == ".elv") elvs.push_back(f.path());
    std::sort(elvs.begin(), elvs.end());
    for (const fs::path& elv : elvs) {
      std::ifstream in(elv);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (uses_gpu_primitives(text))
        out.push_back({example, "examples/" + example + "/" + elv.filename().string(), sizes});
    }
  }
  return out;
}

const std::vector<ExampleSizes>& fuzz_examples() {
  static const std::vector<ExampleSizes> examples = {
      {"asum", "n=64"},         {"blackscholes", "n=32"}, {"concatpad", "n=5,m=3"},
      {"conv1d", "n=37"},       {"dot", "n=64"},          {"gaussian", "n=9,m=7"},
      {"gemv", "n=16,m=32"},    {"jacobi3", "n=9,m=7"},   {"jacobi5", "n=9,m=7"},
      {"mm", "n=16,m=16,k=16"}, {"mv", "n=16,m=32"},      {"scal", "n=64"},
      {"treesum", "m=3,k=4"},
  };
  return examples;
}

std::string scratch_path(const std::string& name) {
  return environment()->scratch() + "/" + name;
}

bool guard_holds(const std::string& guard) {
  std::string path = scratch_path("float_math_guard.c");
  std::ofstream(path) << "#if " << guard << "\nRISEC_GUARD_HOLDS\n#endif\n";
  std::vector<std::string> argv = runtime::c_compiler();
  for (const std::string& f : runtime::compile_flags({}, false)) argv.push_back(f);
  for (const char* f : {"-E", "-P"}) argv.push_back(f);
  argv.push_back(path);
  runtime::ProcessResult r = runtime::run_process(argv);
  EXPECT_TRUE(r.ok()) << r.err;
  return r.out.find("RISEC_GUARD_HOLDS") != std::string::npos;
}

bool FallbackLines::skipped(const std::string& line) {
  if (line.rfind("#if ", 0) == 0 && line.find("__AVX512F__") != std::string::npos) {
    guards_ = {line.substr(4)};
  } else if (line.rfind("#elif ", 0) == 0 && !guards_.empty()) {
    guards_.push_back(line.substr(6));
  } else if (line.rfind("#else", 0) == 0 && !guards_.empty()) {
    skip_ = std::any_of(guards_.begin(), guards_.end(), guard_holds);
  } else if (line.rfind("#endif", 0) == 0) {
    guards_.clear();
    skip_ = false;
  }
  return skip_;
}

std::string write_scratch(const std::string& name, const std::string& text) {
  std::string p = scratch_path(name);
  runtime::write_file(p, text);
  return p;
}

CheckReport run_and_compare(const std::string& file, const std::string& strategy,
                            const std::string& sizes, const CheckOptions& options) {
  rise::Program program = driver::load_program(source_path(file));
  rise::SizeMap size_map = driver::parse_sizes({sizes});
  std::optional<elevate::Strategy> s;
  if (ends_with(strategy, ".elv"))
    s = driver::load_strategy(source_path(strategy));
  else if (!strategy.empty())
    s = elevate::parse_strategy(strategy, options.strategy_name.empty()
                                              ? "<strategy>"
                                              : source_path(options.strategy_name));
  driver::CompileRequest req;
  req.program = &program;
  req.entry = options.entry;
  req.sizes = &size_map;
  req.strategy = s ? &*s : nullptr;
  req.target = options.target;
  req.bind = &options.bind;
  req.shift_tails = options.shift_tails;

  CheckReport r;
  driver::ExecOptions eo;
  if (options.sanitize) eo.extra_cflags = runtime::sanitizer_flags();
  if (options.sanitize || options.generic) {
    eo.mode = driver::ExecMode::Standalone;
    eo.timeout_s = 600;
  }
  if (options.generic) {
    // Generic code, called with the sizes; the entry it is checked against is the
    // program specialised to them.
    req.sizes = nullptr;
    r.compiled = driver::compile(req);
    r.compiled.high = rise::check_program(program, options.entry, &size_map);
  } else {
    r.compiled = driver::compile(req);
  }
  r.inputs = driver::make_inputs(r.compiled.high, options.inputs, options.seed);
  r.execution = driver::execute(r.compiled, size_map, r.inputs, eo);
  r.expected = driver::interpret(r.compiled.high, r.inputs);
  r.comparison = driver::compare_values(r.execution.output, r.expected,
                                        driver::entry_result_type(r.compiled.high), options.rtol,
                                        options.atol);
  return r;
}

::testing::AssertionResult compile_and_check(const std::string& file, const std::string& strategy,
                                             const std::string& sizes,
                                             const CheckOptions& options) {
  std::string what = file + " [" + (strategy.empty() ? std::string("default lowering") : strategy) +
                     "] " + sizes + " target " + options.target +
                     (options.sanitize ? " (sanitized)" : "");
  try {
    CheckReport r = run_and_compare(file, strategy, sizes, options);
    if (!r.comparison.ok)
      return ::testing::AssertionFailure()
             << what << ": " << r.comparison.mismatches << " of " << r.comparison.elements
             << " elements differ; first: " << r.comparison.first_mismatch
             << " (compiled vs interpreter)\n"
             << "generated code:\n"
             << r.compiled.unit.source;
    return ::testing::AssertionSuccess()
           << what << ": " << r.comparison.elements << " elements match";
  } catch (const Error& e) {
    return ::testing::AssertionFailure() << what << ":\n" << format_error(e);
  }
}

::testing::AssertionResult compile_and_check(const std::string& file, const std::string& strategy,
                                             const std::string& sizes, const std::string& target,
                                             bool sanitize) {
  CheckOptions o;
  o.target = target;
  o.sanitize = sanitize;
  return compile_and_check(file, strategy, sizes, o);
}

CliResult run_risec(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  std::vector<std::string> argv = {risec::test::risec_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  runtime::ProcessOptions po;
  po.env = env;
  po.cwd = RISEC_SOURCE_DIR;
  po.timeout_s = 600;
  runtime::ProcessResult p = runtime::run_process(argv, po);
  CliResult r;
  r.exit_code = p.signal == 0 && !p.timed_out ? p.exit_code : -1;
  r.out = std::move(p.out);
  r.err = std::move(p.err);
  return r;
}

std::string show(const CliResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

}  // namespace risec::e2e
