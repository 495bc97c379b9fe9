// Fuzz target: generated programs compiled, run and compared with the reference
// interpreter (differential). The fuzzer's bytes choose one of four kinds of input:
//   names     a program of program_gen or pair_program_gen whose binders (entry
//             parameters, sizes, lambdas, lets) are renamed to adversarial names:
//             names risec generates (i1, tmp2, output, ...), C, OpenCL and CUDA
//             keywords, C library symbols, or another parameter's name (x and y
//             swapped); the default lowering or a listed strategy, C or OpenMP,
//             specialised or generic in the sizes (the sizes' names count then);
//   mappings  a program of program_gen under a random parallel mapping
//             (fuzz/mapping_gen.h): mapPar on OpenMP, compiled and run;
//             mapGlobal/mapWorkGroup/mapLocal on OpenCL, compiled only (running
//             the kernels on PoCL costs a process per input);
//   with      a random with-loop (fuzz/with_loop_gen.h): negative, symbolic or
//             inverted bounds, steps that do not divide the range, widths,
//             overlapping parts; specialised or generic;
//   pairs     a pair-heavy program (fuzz/pair_program_gen.cpp) with the default
//             lowering or vectorize(w), w dividing the length or not.
// Invariant: the compiled result equals the interpreter's (tolerance 1e-3), or the
// program is refused with a located user error (a risec::Error of kind User with a
// known span), or both the interpreter and the compiled code fail. A with-loop that
// leaves its shape or overlaps must be refused; a valid one that runs must also equal
// its meaning computed from the bounds; the default lowering must compile every
// pair-heavy program. Anything else (a mismatch, an internal error, C that does not
// compile, a crash of the generated code) aborts.
//
// Generated C is compiled by the C compiler of runtime/jit.h and cached by its text
// (RISEC_CACHE_DIR); programs are small (sizes of at most 9) so that one input costs
// one C compilation and a fork.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "driver/compile.h"
#include "driver/run.h"
#include "elevate/parser.h"
#include "fuzz_util.h"
#include "mapping_gen.h"
#include "program_gen.h"
#include "rise/check.h"
#include "rise/lexer.h"
#include "rise/parser.h"
#include "rise/primitives.h"
#include "with_loop_gen.h"

using namespace risec;

namespace {

// Names a binder may get: what risec's generated code declares or calls, keywords of
// C, OpenCL and CUDA, C library symbols, and the generators' own names (another
// parameter's name). Those RISE refuses as binders are skipped (rise_name).
const std::vector<std::string> kAdversarial = {"i1",
                                               "i2",
                                               "j1",
                                               "tmp1",
                                               "tmp2",
                                               "acc1",
                                               "acc2",
                                               "acc3",
                                               "output",
                                               "state1",
                                               "win2",
                                               "go1",
                                               "next1",
                                               "db1",
                                               "u1",
                                               "g1",
                                               "sel1",
                                               "ix1",
                                               "w1",
                                               "i1_b",
                                               "i2_0",
                                               "x_1",
                                               "n_2",
                                               "err",
                                               "need",
                                               "y0",
                                               "index",
                                               "risec_output",
                                               "risec_x",
                                               "risec_u_i1",
                                               "int",
                                               "float",
                                               "double",
                                               "char",
                                               "long",
                                               "unsigned",
                                               "signed",
                                               "void",
                                               "return",
                                               "while",
                                               "for",
                                               "do",
                                               "if",
                                               "else",
                                               "switch",
                                               "case",
                                               "break",
                                               "static",
                                               "const",
                                               "restrict",
                                               "inline",
                                               "register",
                                               "volatile",
                                               "extern",
                                               "sizeof",
                                               "typedef",
                                               "struct",
                                               "union",
                                               "enum",
                                               "goto",
                                               "auto",
                                               "default",
                                               "bool",
                                               "global",
                                               "local",
                                               "kernel",
                                               "private",
                                               "constant",
                                               "half",
                                               "float4",
                                               "size_t",
                                               "uint",
                                               "barrier",
                                               "get_global_id",
                                               "get_local_id",
                                               "threadIdx",
                                               "blockIdx",
                                               "blockDim",
                                               "__syncthreads",
                                               "printf",
                                               "malloc",
                                               "free",
                                               "memcpy",
                                               "memset",
                                               "abs",
                                               "fabs",
                                               "sin",
                                               "exp",
                                               "sqrt",
                                               "fmaxf",
                                               "main",
                                               "exit",
                                               "NULL",
                                               "errno",
                                               "omp_get_thread_num",
                                               "x",
                                               "y",
                                               "n",
                                               "k",
                                               "alpha",
                                               "ps",
                                               "v0",
                                               "l1",
                                               "s2"};

// Whether RISE accepts `name` as the name of a size and of a value.
bool rise_name(const std::string& name) {
  static std::map<std::string, bool> memo;
  auto it = memo.find(name);
  if (it != memo.end()) return it->second;
  bool ok = !rise::find_primitive(name);
  if (ok) try {
      rise::Program p = rise::parse_program(
          fuzz::source("t.rise", "def f = depFun(" + name + ": Nat => fun(x: " + name +
                                     ".f32 => x |> map(fun(" + name + " => " + name + "))))"));
      rise::check_program(p, "f");
    } catch (const Error&) {
      ok = false;
    }
  return memo[name] = ok;
}

// Renames every binder of `text` (a bijection on the program's names): x and y
// swapped now and then, the others to adversarial names that the program does not
// mention. `names` receives old -> new.
std::string rename(const std::string& text, FuzzedDataProvider& in,
                   std::map<std::string, std::string>& names) {
  SourceRef src = fuzz::source("generated.rise", text);
  rise::Program p = rise::parse_program(src);
  std::vector<rise::Token> tokens = rise::tokenize(src);
  std::set<std::string> bound, mentioned;
  for (const rise::Definition& d : p.defs)
    rise::for_each_subexpr(d.body, [&](const rise::Expr& e) {
      if (e->kind == rise::ExprKind::Lambda || e->kind == rise::ExprKind::DepLambda)
        bound.insert(e->name);
      return true;
    });
  for (const rise::Token& t : tokens)
    if (t.kind == rise::Tok::Ident) mentioned.insert(t.text);
  if (bound.count("x") && bound.count("y") && in.ConsumeBool()) {
    names["x"] = "y";
    names["y"] = "x";
  }
  std::set<std::string> used;
  for (const std::string& b : bound) {
    if (names.count(b) || in.ConsumeIntegralInRange(0, 3) == 0) continue;  // some stay
    for (int tries = 0; tries < 8; ++tries) {
      const std::string& cand =
          kAdversarial[in.ConsumeIntegralInRange<size_t>(0, kAdversarial.size() - 1)];
      if (mentioned.count(cand) || used.count(cand) || !rise_name(cand)) continue;
      names[b] = cand;
      used.insert(cand);
      break;
    }
  }
  std::string out;
  size_t at = 0;
  for (const rise::Token& t : tokens) {
    if (t.kind != rise::Tok::Ident) continue;
    auto it = names.find(t.text);
    if (it == names.end()) continue;
    out += text.substr(at, t.begin - at) + it->second;
    at = t.end;
  }
  return out + text.substr(at);
}

// One input to compile and compare.
struct Job {
  std::string text;      // the program
  std::string strategy;  // "" for the default lowering
  std::string target = "c";
  rise::SizeMap sizes;
  bool generic = false;       // compiled without the sizes, run with them
  bool run = true;            // false: compile only (OpenCL)
  bool must_compile = false;  // a refusal is a bug (the default lowering of pairs)
  bool may_fail = false;      // the compiled code may fail where the interpreter does not
  std::string report;         // what the bug report shows
};

enum class Outcome { Refused, Failed, Ran };

struct Result {
  Outcome outcome = Outcome::Refused;
  driver::Compiled compiled;
  std::vector<rise::Value> inputs;
  rise::Value got, expected;
};

// A located user error: a refusal the user can act on.
void expect_located(const Error& e, const Job& job, const char* what) {
  if (e.kind() != ErrorKind::User || !e.span().known())
    fuzz::bug(
        std::string(what) + " with an error that is not a located user error: " + format_error(e),
        job.report);
}

bool verbose() {
  static const bool v = std::getenv("RISEC_FUZZ_VERBOSE") != nullptr;
  return v;
}

// The scalars of a value in row-major order (nested arrays flattened).
std::vector<double> flat(const rise::Value& v) {
  if (v.kind() != rise::ValueKind::Array) return {v.to_double()};
  std::vector<double> out;
  for (int64_t i = 0; i < v.size(); ++i) {
    std::vector<double> x = flat(v.at(i));
    out.insert(out.end(), x.begin(), x.end());
  }
  return out;
}

// Whether the program, compiled for the job's sizes, is refused (located): then its
// generic code may fail on entry (a precondition: a width that does not divide n).
bool specialised_refused(driver::CompileRequest req, const Job& job) {
  req.sizes = &job.sizes;
  try {
    driver::compile(req);
  } catch (const Error& e) {
    expect_located(e, job, "the specialised program was refused");
    return true;
  }
  return false;
}

Result check_unguarded(const Job& job) {
  Result r;
  // The interpreter's side: the program specialised to the sizes. A with-loop's
  // constant bounds may be refused when parsed; sizes that break the program's
  // conditions, when checked: located, and so by the compiler too.
  rise::Program p;
  rise::Checked high;
  try {
    p = rise::parse_program(fuzz::source("generated.rise", job.text));
    high = rise::check_program(p, "", &job.sizes);
  } catch (const Error& e) {
    expect_located(e, job, "type checking failed");
    return r;
  }
  elevate::Strategy s;
  if (!job.strategy.empty()) s = elevate::parse_strategy(job.strategy, "generated.elv");
  driver::CompileRequest req;
  req.program = &p;
  req.sizes = job.generic ? nullptr : &job.sizes;
  req.strategy = job.strategy.empty() ? nullptr : &s;
  req.target = job.target;
  try {
    r.compiled = driver::compile(req);
  } catch (const Error& e) {
    if (verbose()) std::fprintf(stderr, "--> refused: %s\n", e.message().c_str());
    if (job.must_compile) fuzz::bug("refused: " + format_error(e), job.report);
    expect_located(e, job, "refused");
    return r;
  }
  if (!job.run) return r;
  r.compiled.high = high;
  r.inputs = driver::make_inputs(high, {}, 7);
  bool interp_failed = false;
  std::string interp_error;
  try {
    r.expected = driver::interpret(high, r.inputs);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Internal) throw;
    interp_failed = true;
    interp_error = format_error(e);
  }
  driver::ExecOptions eo;
  if (job.generic) {
    eo.mode = driver::ExecMode::Standalone;
    eo.timeout_s = 20;
  }
  try {
    r.got = driver::execute(r.compiled, job.sizes, r.inputs, eo).output;
  } catch (const Error& e) {
    if (verbose()) std::fprintf(stderr, "--> failed: %s\n", e.message().c_str());
    if (interp_failed || job.may_fail || (job.generic && specialised_refused(req, job))) {
      r.outcome = Outcome::Failed;
      return r;
    }
    fuzz::bug("the compiled program failed where the interpreter computed a result: " +
                  format_error(e) + "\n" + r.compiled.unit.source,
              job.report);
  }
  if (interp_failed)
    fuzz::bug("the compiled program ran where the interpreter failed: " + interp_error + "\n" +
                  r.compiled.unit.source,
              job.report);
  driver::Comparison c =
      driver::compare_values(r.got, r.expected, driver::entry_result_type(high), 1e-3, 1e-3);
  if (!c.ok)
    fuzz::bug("compiled vs interpreter: " + c.first_mismatch + "\n" + r.compiled.unit.source,
              job.report);
  if (verbose()) std::fprintf(stderr, "--> ran, %lld elements match\n", (long long)c.elements);
  r.outcome = Outcome::Ran;
  return r;
}

// Compiles, runs and compares with the interpreter; aborts on a bug, including any
// error not expected above (an internal error, a parse error of the generated text).
Result check(const Job& job) {
  if (verbose()) std::fprintf(stderr, "=== %s\n", job.report.c_str());
  try {
    return check_unguarded(job);
  } catch (const Error& e) {
    fuzz::bug("unexpected error: " + format_error(e), job.report);
  } catch (const std::exception& e) {
    fuzz::bug(std::string("uncaught exception: ") + e.what(), job.report);
  }
}

std::string describe(const Job& job) {
  std::string s = job.text + "--- strategy: " +
                  (job.strategy.empty() ? std::string("default lowering") : job.strategy) +
                  "\n--- target " + job.target + (job.generic ? ", generic" : "") +
                  (job.run ? "" : ", compile only") + ", sizes";
  for (const auto& [name, value] : job.sizes) s += " " + name + "=" + std::to_string(value);
  return s;
}

const char* const kNameStrategies[] = {
    "",
    "(parallel @ outermost(isApplied(isMap))) ; lowerToC",
    "(vectorize(4) @ outermost(isApplied(isMap))) ; lowerToC",
    "DFNF ; (fuseReduceMap @ topDown) ; lowerToC",
};

void names(FuzzedDataProvider& in) {
  Job job;
  const bool pairs = in.ConsumeBool();
  job.strategy = kNameStrategies[in.ConsumeIntegralInRange(0, 3)];
  job.target = in.ConsumeBool() ? "openmp" : "c";
  job.generic = in.ConsumeBool();
  const int64_t n = in.ConsumeIntegralInRange(1, 8);
  const int64_t k = in.ConsumeIntegralInRange(1, 3);
  const std::string text = pairs ? fuzz::generate_pair_program(in) : fuzz::generate_program(in);
  std::map<std::string, std::string> renamed;
  job.text = rename(text, in, renamed);
  auto size_name = [&](const std::string& s) {
    auto it = renamed.find(s);
    return it == renamed.end() ? s : it->second;
  };
  job.sizes[size_name("n")] = n;
  if (pairs) job.sizes[size_name("k")] = k;
  job.report = describe(job) + "\n--- original:\n" + text;
  check(job);
}

void mappings(FuzzedDataProvider& in) {
  Job job;
  const bool gpu = in.ConsumeBool();
  job.target = gpu ? "opencl" : "openmp";
  job.run = !gpu;
  job.sizes["n"] = in.ConsumeIntegralInRange(1, 8);
  job.strategy = fuzz::random_mapping(
      [&](uint64_t bound) { return in.ConsumeIntegralInRange<uint64_t>(0, bound - 1); }, gpu);
  job.text = fuzz::generate_program(in);
  job.report = describe(job);
  check(job);
}

void with_loops(FuzzedDataProvider& in) {
  Job job;
  job.generic = in.ConsumeIntegralInRange(0, 2) == 0;
  fuzz::WithLoopCase c = fuzz::random_with_loop(
      [&](int64_t bound) { return in.ConsumeIntegralInRange<int64_t>(0, bound - 1); });
  job.text = c.program();
  job.sizes = {{"n", c.n}, {"m", c.m}};
  std::vector<std::vector<std::vector<int64_t>>> sets;
  const bool valid = c.index_sets(sets);
  job.report = describe(job) + (valid ? " (valid)" : " (invalid)");
  if (job.generic) {
    // Generic code checks the sizes' conditions on entry: it may fail where the
    // specialised program is refused (tests/e2e/with_loop_fuzz_test.cpp).
    Job specialised = job;
    specialised.generic = false;
    specialised.run = false;
    specialised.report += " (specialised, compiled only)";
    job.may_fail = !valid || check(specialised).compiled.unit.source.empty();
  }
  Result r = check(job);
  if (r.outcome == Outcome::Failed && !job.generic)
    fuzz::bug("a with-loop compiled but failed (interpreter too)", job.report);
  if (r.outcome != Outcome::Ran) return;
  if (!valid) fuzz::bug("accepted a with-loop that leaves its shape or overlaps", job.report);
  std::vector<double> want = c.reference(sets, flat(r.inputs.at(0)));
  std::vector<double> got = flat(r.got);
  if (got.size() != want.size())
    fuzz::bug("the result has the wrong number of elements", job.report);
  for (size_t i = 0; i < got.size(); ++i)
    if (std::abs(got[i] - want[i]) > 1e-3)
      fuzz::bug("element " + std::to_string(i) + " is " + std::to_string(got[i]) +
                    ", the with-loop's meaning " + std::to_string(want[i]),
                job.report);
}

void pairs(FuzzedDataProvider& in) {
  Job job;
  const bool vectorized = in.ConsumeBool();
  const int64_t w = in.ConsumeIntegralInRange(2, 16);
  const bool divides = in.ConsumeIntegralInRange(0, 2) != 0;
  const int64_t n = !vectorized ? in.ConsumeIntegralInRange(1, 9)
                    : divides   ? w * in.ConsumeIntegralInRange(1, 2)
                                : w + in.ConsumeIntegralInRange<int64_t>(1, w - 1);
  job.sizes = {{"n", n}, {"k", in.ConsumeIntegralInRange(1, 3)}};
  if (vectorized)
    job.strategy =
        "(vectorize(" + std::to_string(w) + ") @ outermost(isFullyApplied(isMap))) ; lowerToC";
  job.must_compile = !vectorized;
  job.text = fuzz::generate_pair_program(in);
  job.report = describe(job);
  check(job);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Selects compare floats: the compiled code must not contract a*b+c into a fused
  // multiply-add the interpreter does not do (as tests/e2e/pair_lowering_test.cpp).
  const char* old = std::getenv("RISEC_CFLAGS");
  setenv("RISEC_CFLAGS", ((old ? std::string(old) + " " : "") + "-ffp-contract=off").c_str(), 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const int kind = in.ConsumeIntegralInRange(0, 3);
  switch (kind) {
    case 0:
      names(in);
      break;
    case 1:
      mappings(in);
      break;
    case 2:
      with_loops(in);
      break;
    default:
      pairs(in);
      break;
  }
  return 0;
}
