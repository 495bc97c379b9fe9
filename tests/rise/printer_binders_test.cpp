// Binders named like primitives (docs/language.md, "Programs"): a lambda parameter may
// be called `map`, `reduce` or `add`, and in its scope the name is the parameter. A
// program whose checked form has a real primitive inside such a binder's scope (a
// definition inlined there, or a rule's rewrite) must print so that it reads back as
// the same program: the printer shows the binder renamed (`map1`). The property test
// renames the binders of every example to primitive names (capture-free) and checks
// print, parse, check and alpha-equality; the named cases are the held-out tester's.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "rise/check.h"
#include "rise/parser.h"
#include "rise/primitives.h"
#include "rise/printer.h"

namespace risec::rise {
namespace {

namespace fs = std::filesystem;

SourceRef binders_src(const std::string& text, const std::string& name = "test.rise") {
  return std::make_shared<const SourceFile>(SourceFile{name, text});
}

std::string binders_read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Renames lambda binders to names drawn from `names` (primitive names), with the uses
// they bind; never to a name an enclosing renamed binder has, so no use is captured
// (the programs' own names are not primitive names).
class RenameBinders : public ExprMutator {
 public:
  RenameBinders(std::mt19937& rng, std::vector<std::string> names)
      : rng_(rng), names_(std::move(names)) {}
  int renamed = 0;

 protected:
  Expr visit_ident(const Expr& e) override {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
      if (it->first == e->name) {
        if (it->second == e->name) return e;
        auto n = std::make_shared<ExprNode>(*e);
        n->name = it->second;
        return n;
      }
    return e;
  }
  Expr visit_lambda(const Expr& e) override {
    std::string to = e->name;
    if (rng_() % 2 == 0) {
      for (int tries = 0; tries < 8; ++tries) {
        const std::string& c = names_[rng_() % names_.size()];
        bool taken = false;
        for (const auto& [from, shown] : scope_) taken = taken || shown == c;
        if (!taken) {
          to = c;
          break;
        }
      }
    }
    renamed += to != e->name;
    scope_.emplace_back(e->name, to);
    Expr body = mutate(e->fn);
    scope_.pop_back();
    auto n = std::make_shared<ExprNode>(*e);
    n->name = to;
    n->fn = body;
    return n;
  }

 private:
  std::mt19937& rng_;
  std::vector<std::string> names_;
  std::vector<std::pair<std::string, std::string>> scope_;  // original -> new name
};

// Prints `e`, reads it back as the entry of a program and checks it: the same
// program (alpha-equivalent), or a failure naming the printed text.
void expect_reads_back(const Expr& e, const std::string& what) {
  const std::string printed = print_expr(e);
  Checked back;
  try {
    back = check_program(parse_program(binders_src("def f = " + printed, what)), "", nullptr);
  } catch (const Error& err) {
    ADD_FAILURE() << what << ": the printed program does not check:\n"
                  << printed << "\n"
                  << format_error(err);
    return;
  }
  EXPECT_TRUE(alpha_equal(back.expr, e)) << what << " printed as\n"
                                         << printed << "\nread back as\n"
                                         << print_expr(back.expr);
}

TEST(PrinterBinders, ExamplesWithBindersNamedLikePrimitivesReadBack) {
  std::vector<std::string> names = primitive_names();
  std::mt19937 rng(20261129);
  int programs = 0, renamed = 0;
  fs::path root(RISEC_SOURCE_DIR);
  std::vector<fs::path> files;
  for (const auto& dir : fs::directory_iterator(root / "examples"))
    if (dir.is_directory())
      for (const auto& f : fs::directory_iterator(dir.path()))
        if (f.path().extension() == ".rise") files.push_back(f.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    Checked c;
    try {
      c = check_program(parse_program(binders_src(binders_read_file(f), f.string())), "", nullptr);
    } catch (const Error&) {
      continue;  // an entry that needs its sizes
    }
    ++programs;
    for (int k = 0; k < 4; ++k) {
      RenameBinders r(rng, names);
      Expr e = r.mutate(c.expr);
      renamed += r.renamed;
      expect_reads_back(e, f.filename().string() + " #" + std::to_string(k));
    }
  }
  EXPECT_GT(programs, 10);
  EXPECT_GT(renamed, 100);
}

// A definition inlined inside a parameter named like the primitives it uses: the
// checked entry has `map`, `reduce` and `add` inside binders with those names.
TEST(PrinterBinders, InlinedDefinitionUnderSameNamedParameters) {
  const char* text =
      "def g = fun(ys => ys |> map(fun(y => y + 1.0f)) |> reduce(add)(0.0f))\n"
      "def f = depFun((n: Nat) => fun(xs: n.f32 => fun(map: f32 => fun(add: f32 =>\n"
      "  fun(reduce: f32 => g(xs) + map * add + reduce)))))\n";
  Checked c = check_program(parse_program(binders_src(text)), "", nullptr);
  const std::string printed = print_expr(c.expr);
  EXPECT_EQ(printed.find("fun(map"), std::string::npos) << printed;
  expect_reads_back(c.expr, "inlined g");
}

// `fun(mapPar => ...)` around a real mapPar (as a rewrite makes it).
TEST(PrinterBinders, ParameterNamedLikeTheParallelLoopAroundIt) {
  const char* text =
      "def f = depFun((n: Nat) => fun(xs: n.f32 => fun(mapPar: f32 =>\n"
      "  xs |> map(fun(x => x * mapPar)))))\n";
  Checked c = check_program(parse_program(binders_src(text)), "", nullptr);
  struct ToMapPar : ExprMutator {
    Expr visit_primitive(const Expr& e) override {
      return e->prim->is(PrimId::Map) ? prim_expr(PrimId::MapPar, e->span) : e;
    }
  } to_par;
  Expr e = to_par.mutate(c.expr);
  expect_reads_back(e, "mapPar");
}

}  // namespace
}  // namespace risec::rise
