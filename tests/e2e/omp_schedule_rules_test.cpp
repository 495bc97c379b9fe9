// A parallel loop's OpenMP schedule survives the rewrites applied after it: every
// rule of the library (with small numbers for its arguments), through four
// traversals, before and after lowerToC, on programs whose mapPar and reducePar are
// written with schedules (`mapPar(dynamic, 3)`, docs/language.md). Where a rule
// rewrites the program, no parallel loop of the result lacks a schedule (unless the
// rule makes parallel loops itself), the result computes what the interpreter
// computes of the original, and compiled for OpenMP every parallel pragma carries a
// schedule clause of the program's.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "e2e_util.h"
#include "elevate/library.h"
#include "elevate/parser.h"
#include "elevate/rule_util.h"
#include "elevate/strategy.h"
#include "rise/check.h"
#include "rise/interp.h"
#include "rise/parser.h"
#include "rise/printer.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

struct RulesProgram {
  const char* name;
  const char* text;
  const char* sizes;
  rise::SizeMap size_map;
  std::vector<std::string> clauses;  // the schedules it writes, as pragma clauses
};

const std::vector<RulesProgram>& rules_programs() {
  static const std::vector<RulesProgram> p = {
      {"rows",
       "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
       "  x |> mapPar(dynamic, 3)(fun(row => row |> map(fun(a => a * a)) |> "
       "reduce(add)(0.0f)))))",
       "n=12,m=8",
       {{"n", 12}, {"m", 8}},
       {"schedule(dynamic, 3)"}},
      {"sum",
       "def g = depFun(n: Nat => fun(x: n.f32 =>\n"
       "  x |> map(fun(a => a + 1.0f)) |> reducePar(static, 8)(add)(0.0f)))",
       "n=64",
       {{"n", 64}},
       {"schedule(static, 8)"}},
      {"stages",
       "def h = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
       "  x |> mapPar(guided, 2)(fun(row => row |> map(fun(a => a * 2.0f)))) |>\n"
       "  map(fun(row => row |> reduce(add)(0.0f)))))",
       "n=10,m=8",
       {{"n", 10}, {"m", 8}},
       {"schedule(guided, 2)"}},
      {"nest",
       "def k = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
       "  x |> mapPar(dynamic)(fun(row => row |> mapPar(static, 4)(fun(a => a * a + 1.0f))))))",
       "n=9,m=16",
       {{"n", 9}, {"m", 16}},
       {"schedule(dynamic)", "schedule(static, 4)"}},
  };
  return p;
}

// The parallel loops (mapPar, reducePar) of e, and how many have no schedule.
struct ParLoops {
  int all = 0, unscheduled = 0;
};
ParLoops par_loops(const rise::Expr& e) {
  ParLoops n;
  rise::for_each_subexpr(e, [&](const rise::Expr& s) {
    if (s->kind == rise::ExprKind::Primitive && s->prim && s->prim->loop == rise::LoopKind::Par) {
      ++n.all;
      n.unscheduled += s->schedule.is_default();
    }
    return true;
  });
  return n;
}

// The rules that make parallel loops of their own (without a schedule).
bool makes_parallel_loops(const std::string& rule) {
  static const std::set<std::string> names = {"parallel", "parallelOutput", "parallelStages",
                                              "mapPar", "reducePar"};
  return names.count(rule) > 0;
}

struct Rule {
  std::string name;
  std::string text;  // as written in a strategy
};

// Every rule and normal form whose arguments are numbers or address spaces, with the
// numbers `v`.
std::vector<Rule> rules(int64_t v) {
  std::vector<Rule> out;
  for (const elevate::LibraryEntry& e : elevate::library()) {
    if (e.cls != elevate::EntryClass::Rule && e.cls != elevate::EntryClass::NormalForm) continue;
    Rule r{e.name, e.name};
    bool ok = true;
    std::string args;
    for (elevate::ParamKind k : e.params) {
      if (k == elevate::ParamKind::Nat) {
        args += (args.empty() ? "" : ", ") + std::to_string(v);
      } else if (k == elevate::ParamKind::Addr) {
        args += (args.empty() ? "" : ", ") + std::string("Private");
      } else {
        ok = false;
      }
    }
    if (!ok || (v != 1 && e.params.empty())) continue;
    if (!args.empty()) r.text += "(" + args + ")";
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::string> parallel_pragmas(const std::string& src) {
  std::vector<std::string> out;
  std::istringstream in(src);
  for (std::string line; std::getline(in, line);)
    if (line.find("#pragma omp parallel for") != std::string::npos) out.push_back(line);
  return out;
}

TEST(OmpScheduleRules, EveryRuleKeepsTheSchedulesOfTheLoopsItRewrites) {
  using Traversal = elevate::Strategy (*)(elevate::Strategy);
  const std::vector<std::pair<const char*, Traversal>> traversals = {
      {"topDown", elevate::top_down},
      {"bottomUp", elevate::bottom_up},
      {"everywhere", elevate::everywhere},
      {"tryAll", elevate::try_all}};
  const elevate::Strategy lower = elevate::make_strategy("lowerToC", {});
  int rewrites = 0, compiled = 0, refused = 0;
  std::set<std::string> applied_rules;
  for (const RulesProgram& p : rules_programs()) {
    SCOPED_TRACE(p.name);
    const std::string file = write_scratch(std::string("rules_") + p.name + ".rise", p.text);
    rise::Checked c = rise::check_program(
        rise::parse_program(std::make_shared<SourceFile>(SourceFile{file, p.text})), "",
        &p.size_map);
    ASSERT_EQ(par_loops(c.expr).unscheduled, 0) << rise::print_expr(c.expr);
    elevate::Result low = lower(c.expr);
    ASSERT_TRUE(low.ok()) << low.failure().reason;
    ASSERT_EQ(par_loops(low.expr()).unscheduled, 0) << rise::print_expr(low.expr());
    // the strategy texts to compile: one per rule that rewrote this program
    std::map<std::string, std::string> to_compile;
    for (int64_t v : {1, 2, 4}) {
      for (const Rule& r : rules(v)) {
        elevate::Strategy rule;
        try {
          rule = elevate::parse_strategy(r.text);
        } catch (const Error&) {
          continue;  // an argument the rule refuses (a 1 where 2 is the least)
        }
        for (const auto& [tname, traverse] : traversals) {
          for (bool after : {false, true}) {
            const rise::Expr& input = after ? low.expr() : c.expr;
            elevate::Result out(input);
            try {
              out = traverse(rule)(input);
            } catch (const Error& e) {
              EXPECT_EQ(e.kind(), ErrorKind::User) << r.text << ": " << e.message();
              continue;
            }
            if (!out.ok() || out.expr() == input) continue;
            ++rewrites;
            applied_rules.insert(r.name);
            const std::string strategy =
                after ? "lowerToC ; " + std::string(tname) + "(" + r.text + ")"
                      : std::string(tname) + "(" + r.text + ") ; lowerToC";
            SCOPED_TRACE(strategy);
            const ParLoops before = par_loops(input), now = par_loops(out.expr());
            if (makes_parallel_loops(r.name)) {
              EXPECT_GE(now.all - now.unscheduled, before.all) << rise::print_expr(out.expr());
            } else {
              EXPECT_EQ(now.unscheduled, 0) << rise::print_expr(out.expr());
            }
            if (!to_compile.count(r.name)) to_compile[r.name] = strategy;
          }
        }
      }
    }
    // Compiled for OpenMP: the interpreter's values, and every parallel pragma carries
    // one of the program's schedules (a rule that makes parallel loops: some pragma).
    for (const auto& [name, strategy] : to_compile) {
      SCOPED_TRACE(strategy);
      CheckOptions o;
      o.target = "openmp";
      try {
        CheckReport r = run_and_compare(file, strategy, p.sizes, o);
        ++compiled;
        EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch;
        const std::vector<std::string> pragmas = parallel_pragmas(r.compiled.unit.source);
        int with = 0;
        for (const std::string& line : pragmas) {
          bool has = false;
          for (const std::string& clause : p.clauses) has = has || line.find(clause) != line.npos;
          with += has;
        }
        if (makes_parallel_loops(name)) {
          EXPECT_GT(with, 0) << r.compiled.unit.source;
        } else {
          EXPECT_EQ(with, static_cast<int>(pragmas.size())) << r.compiled.unit.source;
        }
      } catch (const Error& e) {
        // a rewrite DPIA refuses (a user error, never an internal one)
        EXPECT_EQ(e.kind(), ErrorKind::User) << e.message();
        ++refused;
      }
    }
  }
  EXPECT_GT(rewrites, 20);
  EXPECT_GT(compiled, 10) << refused << " refused";
  std::string names;
  for (const std::string& n : applied_rules) names += " " + n;
  std::printf("schedules through rules: %d rewrites by %zu rules (%s), %d compiled, %d refused\n",
              rewrites, applied_rules.size(), names.c_str(), compiled, refused);
}

// The one place a rule puts a new primitive where another was, util::rebuild_call,
// gives a parallel loop replacing a scheduled one that schedule (and no other loop one).
TEST(OmpScheduleRules, APrimitiveReplacingAScheduledLoopKeepsItsSchedule) {
  const RulesProgram& p = rules_programs()[0];
  rise::Checked c = rise::check_program(
      rise::parse_program(std::make_shared<SourceFile>(SourceFile{"rows.rise", p.text})), "",
      &p.size_map);
  rise::Expr loop;
  rise::for_each_subexpr(c.expr, [&](const rise::Expr& s) {
    auto call = elevate::util::as_prim_call(s);
    if (!loop && call && call->is(rise::PrimId::MapPar) && call->args.size() == 2) loop = s;
    return !loop;
  });
  ASSERT_TRUE(loop);
  const elevate::util::PrimCall call = *elevate::util::as_prim_call(loop);
  const rise::ParSchedule s = call.head->schedule;
  ASSERT_FALSE(s.is_default());
  auto head = [](const rise::Expr& e) { return elevate::util::as_prim_call(e)->head; };
  EXPECT_EQ(
      head(elevate::util::rebuild_call(call, elevate::util::prim(rise::PrimId::MapPar)))->schedule,
      s);
  EXPECT_TRUE(head(elevate::util::rebuild_call(call, elevate::util::prim(rise::PrimId::MapSeq)))
                  ->schedule.is_default());
  const rise::ParSchedule other{rise::ParSchedule::Kind::Guided, 7};
  EXPECT_EQ(head(elevate::util::rebuild_call(
                     call, rise::with_schedule(elevate::util::prim(rise::PrimId::MapPar), other)))
                ->schedule,
            other);
}

}  // namespace
}  // namespace risec::e2e
