// Regression tests for two classes of issue 11: generated names that collide with
// the C library (an entry `j1` silently replaced by libm's Bessel function, `exp2`
// failing to compile, a parameter named `exp`), and faults of the program (integer
// division by zero, the least signed value divided by -1) that killed risec with a
// signal instead of being reported as the program's error with exit 4.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>

#include "codegen/c/c_names.h"
#include "driver/commands.h"
#include "driver/gpu_device.h"
#include "e2e_util.h"
#include "elevate/parser.h"
#include "rise/interp.h"
#include "rise/parser.h"
#include "runtime/process.h"
#include "support/diagnostics.h"

using namespace risec;

namespace {

// Every name the libraries the JIT links export (nm -D --defined-only), not starting
// with '_'. Empty when nm is not installed.
std::vector<std::string> library_symbols() {
  std::set<std::string> names;
  for (const char* lib : {"libc.so.6", "libm.so.6", "libmvec.so.1", "libgomp.so.1"}) {
    runtime::ProcessResult where =
        runtime::run_process({"cc", "-print-file-name=" + std::string(lib)});
    std::string path = where.out.substr(0, where.out.find('\n'));
    runtime::ProcessResult nm;
    try {
      nm = runtime::run_process({"nm", "-D", "--defined-only", path});
    } catch (const Error&) {
      return {};
    }
    std::istringstream in(nm.out);
    std::string line;
    while (std::getline(in, line)) {
      std::string name = line.substr(line.rfind(' ') + 1);
      name = name.substr(0, name.find('@'));
      bool identifier = !name.empty() && name[0] != '_' &&
                        name.find_first_not_of(
                            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                            "0123456789_") == std::string::npos;
      if (identifier) names.insert(name);
    }
  }
  return {names.begin(), names.end()};
}

std::string write_temp(const std::string& dir, const std::string& name, const std::string& text) {
  std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// Compile `text` (entry `entry`) for `target` with `sizes`, run it at -O1 (quick to
// compile) and compare with the interpreter. Returns "" when it passes, else why.
std::string run_check(const std::string& text, const std::string& entry, const std::string& sizes,
                      const std::string& target = "c") {
  try {
    auto src = std::make_shared<SourceFile>(SourceFile{"t.rise", text});
    rise::Program p = rise::parse_program(src);
    rise::SizeMap sm = driver::parse_sizes({sizes});
    driver::CompileRequest req;
    req.program = &p;
    req.entry = entry;
    req.sizes = &sm;
    req.target = target;
    driver::Compiled c = driver::compile(req);
    std::vector<rise::Value> inputs = driver::make_inputs(c.high, {}, 0);
    driver::ExecOptions eo;
    eo.extra_cflags = {"-O1"};
    driver::Execution ex = driver::execute(c, sm, inputs, eo);
    rise::Value expected = driver::interpret(c.high, inputs);
    driver::Comparison cmp =
        driver::compare_values(ex.output, expected, driver::entry_result_type(c.high));
    return cmp.ok ? "" : "mismatch: " + cmp.first_mismatch;
  } catch (const Error& e) {
    return format_error(e);
  }
}

// Whether `name` can be a definition's name in RISE (not a keyword or primitive).
bool rise_accepts(const std::string& name) {
  try {
    auto src = std::make_shared<SourceFile>(
        SourceFile{"t.rise", "def " + name + " = fun(x: f32 => x)\ndef g = " + name});
    rise::Program p = rise::parse_program(src);
    rise::check_program(p, "g");
    return true;
  } catch (const Error&) {
    return false;
  }
}

// Whether `text` parses and type-checks with `sizes`.
bool checks(const std::string& text, const std::string& sizes) {
  try {
    auto src = std::make_shared<SourceFile>(SourceFile{"t.rise", text});
    rise::Program prog = rise::parse_program(src);
    rise::SizeMap sm = driver::parse_sizes({sizes});
    rise::check_program(prog, "f", &sm);
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

TEST(GeneratedNames, EveryLibrarySymbolIsReserved) {
  std::vector<std::string> names = library_symbols();
  if (names.empty()) GTEST_SKIP() << "nm is not installed";
  EXPECT_GT(names.size(), 1000u);
  for (const std::string& n : names)
    EXPECT_TRUE(codegen::c_name_reserved(n))
        << n << " (regenerate with scripts/gen_c_reserved_names.sh)";
  for (const char* k : {"int", "float", "return", "main", "bool", "true", "restrict", "risec_min",
                        "INFINITY", "NAN", "errno", "stdin", "size_t", "int32_t", "EOF", "NULL"})
    EXPECT_TRUE(codegen::c_name_reserved(k)) << k;
  for (const char* ok : {"mv", "mm", "x", "acc2", "i1", "row", "f"})
    EXPECT_FALSE(codegen::c_name_reserved(ok)) << ok;
}

// Every builtin function of OpenCL C (each overloaded declaration in the installed
// Clang's opencl-c.h: vload4, vstore_half8_rtz, get_global_id, ...) and the names of
// the headers the OpenCL and CUDA host code include are reserved (issue 32: a
// parameter vload4 broke a vectorised kernel, an entry ptrdiff_t the host code).
TEST(GeneratedNames, EveryOpenCLBuiltinAndHostHeaderNameIsReserved) {
  for (const char* k : {"ptrdiff_t",       "offsetof",
                        "max_align_t",     "wchar_t",
                        "size_t",          "NULL",
                        "pthread_create",  "pthread_t",
                        "cl_mem",          "clFinish",
                        "vload4",          "vstore4",
                        "vload8",          "vstore8",
                        "vload16",         "vstore3",
                        "vload_half",      "vload_half4",
                        "vstore_half_rte", "vstore_half8_rtz",
                        "vloada_half16",   "vstorea_half2_rtn",
                        "get_global_id",   "mad",
                        "native_exp",      "half_exp"})
    EXPECT_TRUE(codegen::c_name_reserved(k)) << k;
  // The entry is a host function: OpenCL C's names are free for it, the host
  // headers' are not.
  EXPECT_EQ(codegen::c_entry_name("dot"), "dot");
  EXPECT_EQ(codegen::c_entry_name("vload4"), "vload4");
  EXPECT_EQ(codegen::c_entry_name("ptrdiff_t"), "risec_entry_ptrdiff_t");
  EXPECT_EQ(codegen::c_entry_name("offsetof"), "risec_entry_offsetof");
  std::string dir;
  try {
    runtime::ProcessResult r = runtime::run_process({"clang", "-print-resource-dir"});
    dir = r.out.substr(0, r.out.find('\n'));
  } catch (const Error&) {
  }
  std::ifstream in(dir + "/include/opencl-c.h");
  if (dir.empty() || !in) GTEST_SKIP() << "clang's opencl-c.h is not installed";
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::set<std::string> builtins;
  for (size_t at = text.find("__ovld"); at != std::string::npos; at = text.find("__ovld", at + 1)) {
    size_t paren = text.find('(', at), semi = text.find(';', at);
    if (paren == std::string::npos || paren > semi) continue;
    size_t start = paren;
    while (start > at &&
           (std::isalnum(static_cast<unsigned char>(text[start - 1])) || text[start - 1] == '_'))
      --start;
    std::string name = text.substr(start, paren - start);
    if (!name.empty() && name[0] != '_') builtins.insert(name);
  }
  EXPECT_GT(builtins.size(), 500u);
  for (const std::string& n : builtins)
    EXPECT_TRUE(codegen::c_name_reserved(n))
        << n << " (regenerate with scripts/gen_c_reserved_names.sh)";
}

// The reproducer (`j1`), then entries named after every 40th library symbol (all of
// them are checked to be reserved above) and C
// keywords: each compiles, runs and matches the interpreter.
TEST(GeneratedNames, EntriesNamedLikeLibrarySymbolsRunCorrectly) {
  std::vector<std::string> names = {"j1",          "exp2",     "y0",     "sin",    "expf",
                                    "index",       "select",   "free",   "main",   "int",
                                    "float",       "double",   "return", "static", "risec_min",
                                    "risec_alloc", "INFINITY", "errno",  "stdin",  "abort"};
  std::vector<std::string> lib = library_symbols();
  for (size_t i = 0; i < lib.size(); i += 40) names.push_back(lib[i]);
  int tested = 0;
  for (const std::string& n : names) {
    if (!rise_accepts(n)) continue;
    ++tested;
    std::string text =
        "def " + n + " = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => v + 1.0f))))";
    EXPECT_EQ(run_check(text, n, "n=8"), "") << "entry " << n;
  }
  EXPECT_GE(tested, 50) << "too few names were accepted by RISE";
}

// Every library symbol RISE accepts as a definition name, as the entry's name: the
// generated unit (not compiled by a C compiler: the test above runs a sample) exports
// only the entry function and its runtime wrapper, and neither is a library symbol.
TEST(GeneratedNames, EveryLibrarySymbolAsAnEntryNameExportsNoLibrarySymbol) {
  std::vector<std::string> lib = library_symbols();
  if (lib.empty()) GTEST_SKIP() << "nm is not installed";
  const std::set<std::string> taken(lib.begin(), lib.end());
  rise::SizeMap sm = driver::parse_sizes({"n=8"});
  int tested = 0;
  for (const std::string& n : lib) {
    if (!rise_accepts(n)) continue;
    ++tested;
    auto src = std::make_shared<SourceFile>(SourceFile{
        "t.rise",
        "def " + n + " = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => v + 1.0f))))"});
    rise::Program p = rise::parse_program(src);
    driver::CompileRequest req;
    req.program = &p;
    req.sizes = &sm;
    driver::Compiled c = driver::compile(req);
    EXPECT_EQ(c.unit.name, "risec_entry_" + n);
    // Top-level definitions that are not static: the unit's exported symbols.
    std::set<std::string> exported;
    std::istringstream lines(c.unit.source);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.rfind("void ", 0) != 0) continue;
      exported.insert(line.substr(5, line.find('(') - 5));
    }
    EXPECT_EQ(exported, (std::set<std::string>{c.unit.name, c.unit.name + "__risec_call"})) << n;
    for (const std::string& e : exported) EXPECT_FALSE(taken.count(e)) << e;
  }
  EXPECT_GE(tested, 1000) << "too few names were accepted by RISE";
}

// Sizes, inputs and binders named like C library functions and macros, used beside
// the math functions they shadow, for both targets.
TEST(GeneratedNames, ParametersAndBindersNamedLikeLibraryNames) {
  const std::vector<std::string> names = {
      "exp", "expf", "sin", "sinf", "INFINITY", "NAN",     "errno", "int",       "float", "output",
      "abs", "free", "j1",  "y0",   "size_t",   "int32_t", "main",  "risec_min", "stdin", "EOF"};
  int tested = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& s = names[i % names.size()];
    const std::string& a = names[(i + 1) % names.size()];
    const std::string& b = names[(i + 2) % names.size()];
    const std::string& p = names[(i + 3) % names.size()];
    std::string text = "def f = depFun(" + s + ": Nat => fun(" + a + ": " + s + ".f32, " + b +
                       ": " + s + ".f32 => zip(" + a + ")(" + b + ") |> map(fun(" + p + " => exp(" +
                       p + "._1) + sin(" + p + "._2)))))";
    if (!checks(text, s + "=8")) continue;
    ++tested;
    for (const char* target : {"c", "openmp"})
      EXPECT_EQ(run_check(text, "f", s + "=8", target), "") << target << ": " << text;
  }
  EXPECT_GE(tested, 8);
}

// The spec's foreign function, used inside a map: its body is emitted (it was an
// undefined symbol), on both targets.
TEST(GeneratedNames, ForeignFunctionsAreEmitted) {
  const std::string text =
      "foreign def clamp(x: f32, lo: f32, hi: f32): f32 = \"{ return x < lo ? lo : (x > hi ? hi "
      ": x); }\"\n"
      "def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => clamp(v)(0.25f)(0.75f)))))\n";
  auto src = std::make_shared<SourceFile>(SourceFile{"t.rise", text});
  rise::Program p = rise::parse_program(src);
  rise::SizeMap sm = driver::parse_sizes({"n=64"});
  for (const char* target : {"c", "openmp"}) {
    driver::CompileRequest req;
    req.program = &p;
    req.sizes = &sm;
    req.target = target;
    driver::Compiled c = driver::compile(req);
    EXPECT_NE(c.unit.source.find("static float risec_foreign_clamp(float x, float lo, float hi)"),
              std::string::npos)
        << c.unit.source;
    std::vector<rise::Value> inputs = driver::make_inputs(c.high, {}, 3);
    driver::Execution ex = driver::execute(c, sm, inputs);
    std::vector<runtime::NdArray> in =
        rise::to_ndarrays(inputs[0], driver::entry_parameters(c.high)[0].type);
    std::vector<runtime::NdArray> out =
        rise::to_ndarrays(ex.output, driver::entry_result_type(c.high));
    for (int i = 0; i < 64; ++i) {
      float x = in[0].as<float>()[i];
      EXPECT_EQ(out[0].as<float>()[i], x < 0.25f ? 0.25f : (x > 0.75f ? 0.75f : x)) << target;
    }
  }
}

// Held-out I: a foreign function's parameter named like a C keyword failed in the C
// compiler (exit 4); it is refused, located at the definition, on every target (the
// program's own binders named `float` and `int` are not what is refused).
TEST(GeneratedNames, AForeignParameterNamedLikeACKeywordIsRefused) {
  for (const char* word : {"int", "restrict", "_Bool", "while", "global", "half", "NAN", "class"}) {
    const std::string text = std::string("foreign def g(a: f32, ") + word +
                             ": f32): f32 = \"{ return a; }\"\n"
                             "def f = depFun(n: Nat => fun(float: n.f32 => float |> map(fun(int "
                             "=> g(int)(2.0f)))))\n";
    auto src = std::make_shared<SourceFile>(SourceFile{"k.rise", text});
    rise::Program p = rise::parse_program(src);
    rise::SizeMap sm = driver::parse_sizes({"n=8"});
    for (const char* target : {"c", "openmp", "opencl"}) {
      driver::CompileRequest req;
      req.program = &p;
      req.sizes = &sm;
      req.target = target;
      try {
        driver::compile(req);
        ADD_FAILURE() << word << " on " << target << ": compiled";
      } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::User) << e.what();
        EXPECT_NE(std::string(e.what()).find(std::string("the parameter '") + word +
                                             "' of the foreign function 'g' is a keyword"),
                  std::string::npos)
            << e.what();
        EXPECT_EQ(e.span().start().line, 1) << e.what();
      }
    }
  }
}

// ---------------------------------------------------------------------------------
// Faults of the program
// ---------------------------------------------------------------------------------

namespace {

const char* const kIntTypes[] = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"};

// Runs `text` through the interpreter and through compiled code (both targets, with
// `strategy` when given); each must fail with exit code 4 and a message containing
// `what` (compiled code: from its checks, not a signal).
void expect_program_fault(const std::string& text, const std::string& sizes,
                          const std::string& what, const std::string& strategy = "",
                          const std::string& opencl_strategy = "") {
  auto src = std::make_shared<SourceFile>(SourceFile{"div.rise", text});
  rise::Program p = rise::parse_program(src);
  rise::SizeMap sm = driver::parse_sizes({sizes});
  rise::Checked checked = rise::check_program(p, "", &sm);
  std::vector<rise::Value> inputs = driver::make_inputs(checked, {}, 0);
  try {
    driver::interpret(checked, inputs);
    ADD_FAILURE() << "the interpreter raised no error: " << text;
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 4) << format_error(e);
    EXPECT_NE(e.message().find(what), std::string::npos) << e.message();
    EXPECT_TRUE(e.span().known()) << e.message();
  }
  std::optional<elevate::Strategy> s;
  if (!strategy.empty()) s = elevate::parse_strategy(strategy);
  // OpenCL's kernels record the fault for the host to report (its default lowering:
  // the strategies here are the CPU targets').
  std::vector<std::string> targets = {"c", "openmp"};
  std::string no_device;
  if ((strategy.empty() || !opencl_strategy.empty()) &&
      driver::probe_gpu_device("opencl", &no_device))
    targets.push_back("opencl");
  std::optional<elevate::Strategy> cl;
  if (!opencl_strategy.empty()) cl = elevate::parse_strategy(opencl_strategy);
  std::string c_message;
  for (const std::string& target : targets) {
    driver::CompileRequest req;
    req.program = &p;
    req.sizes = &sm;
    req.strategy = target == "opencl" ? (cl ? &*cl : nullptr) : s ? &*s : nullptr;
    req.target = target;
    driver::Compiled c = driver::compile(req);
    driver::ExecOptions eo;
    eo.extra_cflags = {"-O1"};
    try {
      driver::execute(c, sm, inputs, eo);
      ADD_FAILURE() << "compiled code raised no error: " << text << " with " << strategy;
    } catch (const Error& e) {
      EXPECT_EQ(exit_code(e.kind()), 4) << format_error(e);
      EXPECT_NE(e.message().find(what), std::string::npos) << e.message();
      // Reported by the generated checks, not by the signal they prevent.
      EXPECT_EQ(e.message().find("SIGFPE"), std::string::npos) << e.message();
      // Every target says the same (the first fault: one kind per program here; two
      // OpenMP threads may both say it before the abort).
      const std::string first = e.message().substr(0, e.message().find('\n'));
      if (target == "c") c_message = first;
      EXPECT_EQ(first, c_message) << target;
    }
  }
}

}  // namespace

TEST(ProgramFaults, IntegerDivisionByAConstantZero) {
  for (const char* t : kIntTypes)
    for (const char* op : {"/", "%"}) {
      std::string zero = std::string("0") + (std::string(t) == "i32" ? "" : t);
      expect_program_fault("def f = depFun(n: Nat => fun(x: n." + std::string(t) +
                               " => x |> map(fun(v => v " + op + " " + zero + "))))",
                           "n=8", "by zero");
    }
}

// Seeded inputs are integers in [0, 100): 2000 of them hold zeros.
TEST(ProgramFaults, IntegerDivisionByZeroInData) {
  for (const char* t : kIntTypes)
    for (const char* op : {"/", "%"})
      expect_program_fault("def f = depFun(n: Nat => fun(x: n." + std::string(t) + ", y: n." + t +
                               " => zip(x)(y) |> map(fun(p => p._1 " + op + " p._2))))",
                           "n=2000", "by zero");
}

// The same divisions on whole C vectors (vectorize): a zero lane must be reported like
// a scalar zero, by the check, not by SIGFPE.
TEST(ProgramFaults, IntegerVectorDivisionByZeroInData) {
  for (const char* t : kIntTypes)
    for (const char* op : {"/", "%"})
      for (int w : {2, 4, 8, 16})
        expect_program_fault(
            "def f = depFun(n: Nat => fun(x: n." + std::string(t) + ", y: n." + t +
                " => zip(x)(y) |> map(fun(p => p._1 " + op + " p._2))))",
            "n=2000", "by zero",
            "vectorize(" + std::to_string(w) + ") @ innermost(isFullyApplied(isMap)) ; lowerToC",
            w != 4 ? ""  // OpenCL: vectors in a kernel, one width (each run builds kernels)
                   : "vectorize(" + std::to_string(w) +
                         ") @ innermost(isFullyApplied(isMap)) ; (mapGlobal(0) @ "
                         "outermost(isApplied(isMap))) ; lowerToC");
}

TEST(ProgramFaults, LeastSignedValueDividedByMinusOne) {
  const std::pair<const char*, const char*> least[] = {{"i8", "-128i8"},
                                                       {"i16", "-32768i16"},
                                                       {"i32", "-2147483648"},
                                                       {"i64", "-9223372036854775808i64"}};
  for (const auto& [t, lit] : least)
    for (const char* op : {"/", "%"}) {
      std::string one = std::string("1") + (std::string(t) == "i32" ? "" : t);
      // The divisor is -1 computed from the data, so no compiler can see it.
      expect_program_fault("def f = depFun(n: Nat => fun(x: n." + std::string(t) +
                               " => x |> map(fun(v => " + lit + " " + op + " (v - v - " + one +
                               ")))))",
                           "n=8", "overflow");
    }
}

// A kernel name holds its entry's name: PoCL's cache names files after it, and its
// "final linking" failed on names of 251 characters or more. Entries of every length
// run on OpenCL; the kernels' names stay short, distinct for entries sharing a prefix.
TEST(GeneratedNames, LongEntryNamesRunOnOpenCL) {
  std::string why;
  const bool opencl = driver::probe_gpu_device("opencl", &why).has_value();
  std::set<std::string> kernels;
  for (size_t len : {1, 56, 57, 63, 64, 65, 120, 250, 251, 260, 301, 400}) {
    const std::string name = "f" + std::string(len - 1, 'y');
    SCOPED_TRACE(len);
    const std::string text = "def " + name +
                             " = depFun(n: Nat => fun(a: n.f32 => a |> map(fun(b => b * 2.0f))))\n"
                             "def " +
                             name +
                             "z = depFun(n: Nat => fun(a: n.f32 => a |> map(fun(b "
                             "=> b + 1.0f))))\n";
    for (const std::string& entry : {name, name + "z"}) {
      const std::string k = codegen::bounded_identifier(entry, codegen::kMaxKernelNameLength - 8);
      EXPECT_LE(k.size(), codegen::kMaxKernelNameLength - 8);
      EXPECT_TRUE(kernels.insert(k).second) << k;  // distinct
      if (opencl) {
        EXPECT_EQ(run_check(text, entry, "n=3", "opencl"), "");
      }
    }
  }
  if (!opencl) GTEST_SKIP() << "no OpenCL device: " << why;
}

// The reproducer through the command line: exit 4, no signal, and what happened.
TEST(ProgramFaults, CommandLineReportsTheProgramsFault) {
  runtime::TempDir dir("risec-div-");
  std::string f =
      write_temp(dir.path(), "div.rise",
                 "def main = depFun(n: Nat => fun(x: n.i32 => x |> map(fun(v => v / 0))))\n");
  for (const char* cmd : {"run", "eval"}) {
    e2e::CliResult r = e2e::run_risec({cmd, f, "--size", "n=8"});
    EXPECT_EQ(r.exit_code, 4) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("division by zero"), std::string::npos) << r.err;
  }
  e2e::CliResult r = e2e::run_risec({"eval", f, "--size", "n=8"});
  EXPECT_NE(r.err.find("div.rise:1:"), std::string::npos) << r.err;
  // Float division by zero is IEEE, not an error.
  std::string g =
      write_temp(dir.path(), "fdiv.rise",
                 "def g = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => v / 0.0f))))\n");
  r = e2e::run_risec({"run", g, "--size", "n=8", "--check"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// Whatever ends the generated code early is the program's error (exit 4, saying what
// happened), never a signal of risec and never a success: foreign functions that
// crash, trap, abort or exit (with status 0 too: the output is then incomplete, and
// used to be reported as the result), on both targets. Also in the sanitizer build,
// whose risec has AddressSanitizer's SIGSEGV handler and leak check at exit: the child
// that runs the program drops the one and never runs the other (runtime/isolated.cpp).
TEST(ProgramFaults, EveryWayTheProgramEndsEarlyIsReported) {
  struct Case {
    const char* body;
    const char* what;
  };
  const Case cases[] = {
      {"{ return x + *(volatile float*)0; }", "killed by SIGSEGV"},
      {"{ if (x >= 0.0f) __builtin_trap(); return x; }", "killed by SIGILL"},
      {"{ if (x >= 0.0f) abort(); return x; }", "killed by SIGABRT"},
      {"{ if (x >= 0.0f) exit(3); return x; }", "exited with status 3"},
      {"{ if (x >= 0.0f) exit(0); return x; }", "before its call returned"},
      {"{ if (x >= 0.0f) _Exit(0); return x; }", "before its call returned"},
  };
  runtime::TempDir dir("risec-end-");
  int i = 0;
  for (const Case& c : cases) {
    std::string f = write_temp(
        dir.path(), "end" + std::to_string(i++) + ".rise",
        std::string("foreign def boom(x: f32): f32 = \"") + c.body +
            "\"\ndef main = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => boom(v)))))\n");
    for (const char* target : {"c", "openmp"}) {
      std::vector<std::string> args = {"run", f, "--size", "n=64", "--target", target};
      if (std::string(target) == "openmp") {
        args.push_back("--strategy");
        args.push_back(write_temp(dir.path(), "par.elv",
                                  "(parallel @ outermost(isApplied(isMap))) ; lowerToC\n"));
      }
      e2e::CliResult r = e2e::run_risec(args);
      EXPECT_EQ(r.exit_code, 4) << c.body << " (" << target << "): " << r.err;
      EXPECT_NE(r.err.find(c.what), std::string::npos) << c.body << ": " << r.err;
    }
  }
}
