// Metamorphic test of the names in generated code (issue 32, dpia/name_supply.h): the
// user's names must never change a program's meaning. Every example, with the default
// lowering and each of its strategies (C, OpenMP, and OpenCL on PoCL), is renamed
// consistently (every occurrence of every binder: entry parameters, sizes,
// definitions, lambdas) to adversarial names: first the names the original's own
// generated code declares (its loop counters and temporaries: i1, acc3, tmp2, ...),
// then a fixed list of names risec generates or uses, C keywords, C library symbols
// and names of risec's helpers; the two first entry parameters are swapped. The
// renamed program must compute exactly what the original computes on the same seeded
// inputs, and what the interpreter computes; C and OpenMP code is generic in the
// sizes where the strategy allows, so that the sizes' names count too. The renaming
// is done on the lexer's tokens: binders are found in the parsed program, and every
// token that spells one is replaced. (Before the name supply, 51 of the 113 cases
// failed: wrong results, crashes, C that did not compile.)
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <ostream>
#include <set>

#include "build_info.h"
#include "driver/commands.h"
#include "e2e_util.h"
#include "rise/check.h"
#include "rise/lexer.h"
#include "rise/parser.h"
#include "rise/primitives.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

namespace fs = std::filesystem;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Names a binder may be given that look like what risec generates or uses, or that C,
// OpenCL or the C library reserve.
const std::vector<std::string> kAdversarial = {
    "i1", "tmp2", "acc3", "output", "state1", "win2", "go1", "next1", "int", "sin", "malloc",
    "main", "i2", "tmp1", "acc2", "j1", "for", "exp", "restrict", "free", "db1", "u1", "g1", "sel1",
    "ix1", "w1", "float", "return", "while", "abs", "risec_output", "risec_x", "i1_b", "i2_0",
    "x_1", "n_2", "err", "need", "global", "local", "kernel", "double", "static", "y0", "index",
    "risec_u_i1", "j2", "i3",
    // OpenCL C's vector loads and stores, and names the host code's headers declare
    "vload4", "vstore4", "vload8", "vstore8", "vload_half", "vstore_half_rte", "vloada_half4",
    "ptrdiff_t", "offsetof", "max_align_t", "wchar_t", "pthread_t", "clFinish", "dim3"};

// The identifiers (C's, roughly: words of letters, digits and '_') in `text`.
std::set<std::string> words(const std::string& text) {
  std::set<std::string> out;
  std::string word;
  for (char c : text + " ") {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      word += c;
    } else if (!word.empty()) {
      out.insert(word);
      word.clear();
    }
  }
  return out;
}

// Whether RISE accepts `name` as a binder (not a keyword, a type or a primitive).
bool rise_name(const std::string& name) {
  static std::map<std::string, bool> memo;
  auto it = memo.find(name);
  if (it != memo.end()) return it->second;
  bool ok = !rise::find_primitive(name);
  if (ok) try {
      auto src = std::make_shared<SourceFile>(
          SourceFile{"t.rise", "def f = depFun(" + name + ": Nat => fun(x: " + name +
                                   ".f32 => x |> map(fun(" + name + " => " + name + "))))"});
      rise::Program p = rise::parse_program(src);
      rise::check_program(p, "f");
    } catch (const Error&) {
      ok = false;
    }
  return memo[name] = ok;
}

// Names the generated code of a program declares itself: loop counters, temporaries
// and the like (words with a digit: i1, acc3, tmp2, i1_b, x_1, ...), and `output`.
std::vector<std::string> generated_names(const std::string& c_source) {
  std::vector<std::string> out;
  for (const std::string& w : words(c_source)) {
    bool digit = w.find_first_of("0123456789") != std::string::npos;
    bool ours = w.rfind("risec", 0) == 0 || w.rfind("RISEC", 0) == 0 || w[0] == '_';
    if ((digit || w == "output") && !ours && !std::isdigit(static_cast<unsigned char>(w[0])))
      out.push_back(w);
  }
  return out;
}

struct Renaming {
  std::map<std::string, std::string> names;  // old -> new
  std::string text;                          // the renamed source
};

// Every name bound in the program (definitions, lambda and depFun binders), in the
// order of their first appearance in the source.
std::vector<std::string> binders(const rise::Program& p, const std::vector<rise::Token>& tokens) {
  std::set<std::string> bound;
  for (const rise::Definition& d : p.defs) {
    if (d.foreign) continue;
    bound.insert(d.name);
    rise::for_each_subexpr(d.body, [&](const rise::Expr& e) {
      if (e->kind == rise::ExprKind::Lambda || e->kind == rise::ExprKind::DepLambda)
        bound.insert(e->name);
      return true;
    });
  }
  std::vector<std::string> out;
  for (const rise::Token& t : tokens)
    if (t.kind == rise::Tok::Ident && bound.count(t.text) &&
        std::find(out.begin(), out.end(), t.text) == out.end() && !rise::find_primitive(t.text))
      out.push_back(t.text);
  return out;
}

// Renames the binders of `text`: the first two entry parameters are swapped, every
// other binder gets an adversarial name (from `offset` on in the list) that the
// program does not mention otherwise; names in `keep` (mentioned by the strategy)
// stay.
Renaming rename(const std::string& text, size_t offset, const std::set<std::string>& keep,
                const std::vector<std::string>& preferred = {}) {
  auto src = std::make_shared<SourceFile>(SourceFile{"renamed.rise", text});
  rise::Program p = rise::parse_program(src);
  std::vector<rise::Token> tokens = rise::tokenize(src);
  std::set<std::string> mentioned;
  for (const rise::Token& t : tokens)
    if (t.kind == rise::Tok::Ident) mentioned.insert(t.text);
  Renaming r;
  std::vector<std::string> values;  // fun parameters of the entry, not sizes
  for (rise::Expr e = p.defs.back().body; e; e = e->fn)
    if (e->kind == rise::ExprKind::Lambda)
      values.push_back(e->name);
    else if (e->kind != rise::ExprKind::DepLambda)
      break;
  if (values.size() >= 2 && values[0] != values[1] && !keep.count(values[0]) &&
      !keep.count(values[1])) {
    r.names[values[0]] = values[1];
    r.names[values[1]] = values[0];
  }
  std::vector<std::string> candidates = preferred;
  for (size_t k = 0; k < kAdversarial.size(); ++k)
    candidates.push_back(kAdversarial[(offset + k) % kAdversarial.size()]);
  std::set<std::string> used;
  size_t next = 0;
  for (const std::string& b : binders(p, tokens)) {
    if (r.names.count(b) || keep.count(b)) continue;
    for (; next < candidates.size(); ++next) {
      const std::string& cand = candidates[next];
      if (mentioned.count(cand) || used.count(cand) || !rise_name(cand)) continue;
      r.names[b] = cand;
      used.insert(cand);
      ++next;
      break;
    }
  }
  size_t at = 0;
  for (const rise::Token& t : tokens) {
    if (t.kind != rise::Tok::Ident) continue;
    auto it = r.names.find(t.text);
    if (it == r.names.end()) continue;
    r.text += text.substr(at, t.begin - at) + it->second;
    at = t.end;
  }
  r.text += text.substr(at);
  return r;
}

// "n=64,m=32" with the sizes renamed.
std::string rename_sizes(const std::string& sizes, const std::map<std::string, std::string>& m) {
  std::string out;
  size_t start = 0;
  while (start < sizes.size()) {
    size_t comma = sizes.find(',', start);
    if (comma == std::string::npos) comma = sizes.size();
    std::string item = sizes.substr(start, comma - start);
    size_t eq = item.find('=');
    std::string name = item.substr(0, eq);
    auto it = m.find(name);
    if (!out.empty()) out += ",";
    out += (it == m.end() ? name : it->second) + item.substr(eq);
    start = comma + 1;
  }
  return out;
}

struct RenameCase {
  std::string example;
  std::string strategy;  // "" or examples/NAME/S.elv
  std::string target;
  size_t offset = 0;  // where in kAdversarial this case starts
};

// For gtest's listing (not "128-byte object").
void PrintTo(const RenameCase& c, std::ostream* os) {
  *os << c.example << " [" << (c.strategy.empty() ? "default lowering" : c.strategy) << "] "
      << c.target;
}

std::vector<RenameCase> cases() {
  std::vector<RenameCase> out;
  for (const ExampleStrategy& e : example_strategies()) {
    // The sanitizer build runs the default lowering only (docs/testing.md): the
    // strategies' code is printed by the same instrumented printers.
    if (risec::test::sanitized_build() && !e.strategy.empty()) continue;
    out.push_back({e.example, e.strategy, e.target, out.size() * 7});
  }
  return out;
}

std::string rename_case_name(const ::testing::TestParamInfo<RenameCase>& info) {
  return example_case_name(info.param.example, info.param.strategy);
}

// Every identifier the strategy and the files it imports spell.
std::set<std::string> strategy_words(const std::string& strategy) {
  std::set<std::string> out;
  if (strategy.empty()) return out;
  std::vector<fs::path> todo{fs::path(source_path(strategy))};
  std::set<fs::path> seen;
  while (!todo.empty()) {
    fs::path file = todo.back();
    todo.pop_back();
    if (!seen.insert(file.lexically_normal()).second) continue;
    std::string text = read_text(file.string());
    for (size_t at = text.find("import \""); at != std::string::npos;
         at = text.find("import \"", at + 1)) {
      size_t start = at + 8, end = text.find('"', start);
      todo.push_back(file.parent_path() / text.substr(start, end - start));
    }
    std::set<std::string> w = words(text);
    out.insert(w.begin(), w.end());
  }
  return out;
}

class RenamedExamples : public ::testing::TestWithParam<RenameCase> {};

TEST_P(RenamedExamples, ComputeWhatTheOriginalComputes) {
  const RenameCase& c = GetParam();
  auto sizes = example_sizes().find(c.example);
  ASSERT_NE(sizes, example_sizes().end()) << c.example;
  std::string file = "examples/" + c.example + "/" + c.example + ".rise";
  CheckOptions o;
  o.target = c.target;
  o.seed = 7;
  // Generic code (sizes as parameters: their names matter too), run as a standalone
  // program, where the strategy allows it (some need the sizes: a split by 2^20
  // gives a precondition the example's sizes do not meet); the OpenCL host
  // specialised, as the examples test runs it.
  o.generic = c.target != "opencl";
  CheckReport original;
  try {
    original = run_and_compare(file, c.strategy, sizes->second, o);
  } catch (const Error&) {
    if (!o.generic) throw;
    o.generic = false;
    original = run_and_compare(file, c.strategy, sizes->second, o);
  }
  ASSERT_TRUE(original.comparison.ok) << original.comparison.first_mismatch;
  // The names the original's code declares come first: each would shadow the binder
  // given it if risec's names were not chosen apart from the program's.
  std::vector<std::string> generated = generated_names(original.compiled.unit.source);
  std::rotate(generated.begin(),
              generated.begin() + c.offset % std::max<size_t>(generated.size(), 1),
              generated.end());
  Renaming r =
      rename(read_text(source_path(file)), c.offset, strategy_words(c.strategy), generated);
  ASSERT_FALSE(r.names.empty()) << file;
  std::string what;
  bool reuses = false;
  for (const auto& [from, to] : r.names) {
    what += " " + from + "->" + to;
    reuses = reuses || std::find(generated.begin(), generated.end(), to) != generated.end();
  }
  EXPECT_TRUE(reuses) << "no binder was given a name the generated code uses:" << what;
  std::string renamed_file =
      write_scratch(c.example + "_" + std::to_string(c.offset) + ".rise", r.text);
  SCOPED_TRACE("renamed:" + what + "\n" + r.text);
  CheckReport renamed;
  try {
    renamed = run_and_compare(renamed_file, c.strategy, rename_sizes(sizes->second, r.names), o);
  } catch (const Error& e) {
    FAIL() << format_error(e);
  }
  EXPECT_TRUE(renamed.comparison.ok)
      << "compiled vs interpreter: " << renamed.comparison.first_mismatch << "\n"
      << renamed.compiled.unit.source;
  rise::Type t = driver::entry_result_type(original.compiled.high);
  driver::Comparison same =
      driver::compare_values(renamed.execution.output, original.execution.output, t, 0.0, 0.0);
  EXPECT_TRUE(same.ok) << "renamed vs original: " << same.first_mismatch << "\n"
                       << renamed.compiled.unit.source;
}

INSTANTIATE_TEST_SUITE_P(Examples, RenamedExamples, ::testing::ValuesIn(cases()), rename_case_name);

// The reproducers, specialised and generic (the code Python and the C++
// Kernel compile): an input named like a temporary, sizes named like a loop counter
// and like the output, a size and an input of the same name.
TEST(GeneratedNames, UserNamesNeverShadowedByGeneratedOnes) {
  struct Repro {
    const char* text;
    const char* sizes;
  };
  const Repro repros[] = {
      {"def f = depFun(i1: Nat => depFun(output: Nat => fun(tmp2: i1.output.f32 => fun(acc2: "
       "i1.f32 => zip(tmp2)(acc2) |> map(fun(p => p._1 |> reduceSeq(fun(a => fun(x => a + x * "
       "p._2)))(0.0f)))))))",
       "i1=5,output=7"},
      {"def f = depFun(n: Nat => fun(n: n.f32 => n |> map(fun(x => x + 1.0f))))", "n=9"},
      {"def f = depFun(n: Nat => fun(x: n.f32 => fun(x: n.f32 => x |> map(fun(v => v * 2.0f)))))",
       "n=9"},
      {"def f = depFun(i2: Nat => fun(acc3: i2.f32 => fun(i1: i2.f32 => zip(acc3)(i1) |> "
       "map(fun(p => p._1 * p._2)) |> reduceSeq(fun(a => fun(v => a + v)))(0.0f))))",
       "i2=6"},
      {"def f = depFun(i1_b: Nat => fun(i1: i1_b.f32 => i1 |> map(fun(v => v + 1.0f))))",
       "i1_b=37"},
  };
  for (const Repro& r : repros) {
    std::string file = write_scratch("repro.rise", std::string(r.text) + "\n");
    for (bool generic : {false, true}) {
      CheckOptions o;
      o.generic = generic;
      EXPECT_TRUE(compile_and_check(file, "", r.sizes, o)) << r.text;
    }
  }
}

// OpenCL: a parameter named like a vector load or store of a vectorised kernel, an
// entry named like a type or macro of a header the host code includes (CL/cl.h
// includes stddef.h), and the other GPU and C targets the same (issue 32).
TEST(GeneratedNames, OpenCLBuiltinsAndHostHeaderNames) {
  const std::string v4 = write_scratch(
      "v4.elv", "let main = (vectorize(4) @ innermost(isFullyApplied(isMap))) ; lowerToC;");
  for (const char* param : {"vload4", "vstore4", "vload8", "vstore8", "vload_half4"}) {
    std::string file = write_scratch(std::string(param) + ".rise",
                                     std::string("def f = depFun(n: Nat => fun(") + param +
                                         ": n.f32 => " + param + " |> map(fun(v => exp(v)))))\n");
    for (const char* target : {"opencl", "c"}) {
      CheckOptions o;
      o.target = target;
      EXPECT_TRUE(compile_and_check(file, v4, "n=8", o)) << param << " " << target;
    }
  }
  for (const char* entry : {"ptrdiff_t", "offsetof", "max_align_t", "NULL", "pthread_create"}) {
    std::string file =
        write_scratch(std::string("entry_") + entry + ".rise",
                      std::string("def ") + entry +
                          " = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => exp(v)))))\n");
    for (const char* target : {"opencl", "c", "openmp"}) {
      CliResult r = run_risec({"run", file, "--size", "n=8", "--target", target, "--check"});
      EXPECT_EQ(r.exit_code, 0) << entry << " " << target << "\n" << show(r);
    }
  }
}

}  // namespace
}  // namespace risec::e2e
