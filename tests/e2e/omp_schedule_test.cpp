// The OpenMP schedule of parallel loops (the rule ompSchedule, rise::ParSchedule):
// random schedules at random parallel maps of the examples compute what the
// interpreter computes, and where every parallel loop is scheduled every printed
// parallel pragma carries the clause (through collapsed nests, reductions, outlined
// bodies, loops split at clamped borders and interchanged loops); named cases for
// each clause form; and the refusals: bad arguments, a loop that is not parallel, a
// target without OpenMP loops.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "e2e_util.h"
#include "elevate/parser.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

// The `#pragma omp parallel for` lines of generated code.
std::vector<std::string> schedule_parallel_pragmas(const std::string& src) {
  std::vector<std::string> out;
  std::istringstream in(src);
  for (std::string line; std::getline(in, line);)
    // a parallel loop, or a worksharing loop in a region of a split loop's parts
    if (line.find("#pragma omp parallel for") != std::string::npos ||
        line.find("#pragma omp for") != std::string::npos)
      out.push_back(line);
  return out;
}

CheckReport run(const std::string& name, const std::string& program, const std::string& sizes,
                const std::string& strategy) {
  CheckOptions o;
  o.target = "openmp";
  std::string file = write_scratch(name + ".rise", program);
  CheckReport r = run_and_compare(file, strategy, sizes, o);
  EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch << "\n" << r.compiled.unit.source;
  return r;
}

const char* const kRows =
    "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
    "  x |> map(fun(row => row |> map(fun(a => a * a)) |> reduce(add)(0.0f)))))";

TEST(OmpSchedule, RandomSchedulesAtRandomParallelMapsMatchTheInterpreter) {
  const char* seed = std::getenv("RISEC_FUZZ_SEED");
  std::mt19937_64 rng(seed ? std::strtoull(seed, nullptr, 10) : 20261128);
  const char* const placements[] = {
      "try(parallelOutput)",
      "try(parallel @ outermost(isApplied(isMap)))",
      "try(mapPar @ innermost(isApplied(isMap)))",
      "try(reducePar @ outermost(isFullyApplied(isReduce)))",
  };
  const char* const kinds[] = {"static", "dynamic", "guided"};
  const char* const chunks[] = {"", ", 1", ", 3", ", 16"};
  int compiled = 0, refused = 0, scheduled = 0;
  for (const ExampleSizes& ex : fuzz_examples()) {
    const std::string file = std::string("examples/") + ex.name + "/" + ex.name + ".rise";
    for (int trial = 0; trial < 3; ++trial) {
      const std::string sched =
          std::string("ompSchedule(") + kinds[rng() % 3] + chunks[rng() % 4] + ")";
      const std::string clause = "schedule(" + sched.substr(12, sched.size() - 13) + ")";
      // Where the schedule goes: every parallel loop, the outermost or the innermost
      // one; before lowerToC (which keeps it) or after it.
      const int where = static_cast<int>(rng() % 3);
      const std::string at = where == 0   ? "everywhere(" + sched + ")"
                             : where == 1 ? sched + " @ outermost(isApplied(isPrimitive(mapPar)))"
                                          : sched + " @ innermost(isApplied(isPrimitive(mapPar)))";
      const bool before = rng() % 2;
      const bool stages = rng() % 4 == 0;  // parallelStages after lowering instead
      std::string strategy = "DFNF ; ";
      if (!stages) strategy += std::string(placements[rng() % 4]) + " ; ";
      if (before && !stages) strategy += at + " ; ";
      strategy += "lowerToC";
      if (stages) strategy += " ; try(parallelStages)";  // it leaves small stages sequential
      if (!before || stages) strategy += " ; " + at;
      SCOPED_TRACE(std::string(ex.name) + " with " + strategy);
      CheckOptions o;
      o.target = "openmp";
      try {
        CheckReport r = run_and_compare(file, strategy, ex.sizes, o);
        ++compiled;
        EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch;
        const std::vector<std::string> pragmas = schedule_parallel_pragmas(r.compiled.unit.source);
        int with = 0;
        for (const std::string& p : pragmas) with += p.find(clause) != std::string::npos;
        scheduled += with > 0;
        // Every parallel loop scheduled: every parallel pragma says so.
        if (where == 0) {
          EXPECT_EQ(with, static_cast<int>(pragmas.size())) << r.compiled.unit.source;
        }
        // No other schedule appears.
        EXPECT_EQ(occurrences(r.compiled.unit.source, "schedule("), with) << r.compiled.unit.source;
      } catch (const Error& e) {
        // The placement left no parallel loop where the schedule goes (or made one
        // DPIA refuses): a user error, never an internal one.
        EXPECT_EQ(e.kind(), ErrorKind::User) << e.message();
        ++refused;
      }
    }
  }
  EXPECT_GT(compiled, 20) << refused << " refused";
  EXPECT_GT(scheduled, 15);
  std::printf("omp schedule fuzz: %d compiled and checked (%d with the clause), %d refused\n",
              compiled, scheduled, refused);
}

TEST(OmpSchedule, OutlinedBodyGetsTheClause) {
  CheckReport r = run("outlined", kRows, "n=13,m=7",
                      "parallel @ outermost(isApplied(isMap)) ; lowerToC ; "
                      "ompSchedule(dynamic) @ outermost(isApplied(isPrimitive(mapPar)))");
  const std::string& src = r.compiled.unit.source;
  EXPECT_NE(src.find("#pragma omp parallel for schedule(dynamic)\n"), std::string::npos) << src;
}

// A schedule's chunk counts the loop's own iterations (docs/language.md, "Parallel
// loops' schedules"): an outer loop with a schedule is not collapsed (its chunk counts
// rows, a collapsed one would count elements) and runs its inner loop sequentially; a
// nest without an outer schedule is collapsed and takes the inner loop's, whose
// iterations the collapsed space's are.
TEST(OmpSchedule, ScheduledOuterLoopIsNotCollapsedAnInnerScheduleIsTheNests) {
  const std::string program =
      "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
      "  x |> mapPar(mapPar(fun(a => a * 2.0f + 1.0f)))))";
  CheckReport both =
      run("collapse_outer", program, "n=7,m=5", "everywhere(ompSchedule(dynamic, 3)) ; lowerToC");
  const std::string& b = both.compiled.unit.source;
  EXPECT_NE(b.find("#pragma omp parallel for schedule(dynamic, 3)\n"), std::string::npos) << b;
  EXPECT_EQ(b.find("collapse"), std::string::npos) << b;
  EXPECT_EQ(schedule_parallel_pragmas(b).size(), 1u) << b;
  CheckReport inner = run("collapse_inner", program, "n=7,m=5",
                          "ompSchedule(guided) @ innermost(isApplied(isPrimitive(mapPar))) ; "
                          "lowerToC");
  EXPECT_NE(
      inner.compiled.unit.source.find("#pragma omp parallel for collapse(2) schedule(guided)"),
      std::string::npos)
      << inner.compiled.unit.source;
  // Written in the program (the held-out tester's case): the inner chunk of 3 is the
  // collapsed nest's, 3 inner iterations at a time.
  CheckReport written = run("collapse_written",
                            "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
                            "  x |> mapPar(mapPar(dynamic, 3)(fun(a => a * 2.0f)))))",
                            "n=7,m=5", "");
  EXPECT_NE(written.compiled.unit.source.find(
                "#pragma omp parallel for collapse(2) schedule(dynamic, 3)"),
            std::string::npos)
      << written.compiled.unit.source;
  CheckReport outer = run("collapse_written_outer",
                          "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
                          "  x |> mapPar(dynamic, 2)(mapPar(fun(a => a * 2.0f)))))",
                          "n=7,m=5", "");
  const std::string& o = outer.compiled.unit.source;
  EXPECT_NE(o.find("#pragma omp parallel for schedule(dynamic, 2)\n"), std::string::npos) << o;
  EXPECT_EQ(o.find("collapse"), std::string::npos) << o;
}

// A static chunk larger than the loop is printed as the loop's count (the same
// schedule): GCC computes a static chunk's start as (round * threads + thread) * chunk
// in int, and a chunk of 2^27 on 16 threads crashed a 5-iteration loop (held-out
// tester). Run on 16 threads, constant and run-time counts, a collapsed nest and a
// reduction; dynamic and guided chunks are printed as written.
TEST(OmpSchedule, HugeStaticChunksRunOnManyThreads) {
  const std::string nest =
      write_scratch("huge_chunk_nest.rise",
                    "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
                    "  x |> mapPar(mapPar(static, 1073741824)(fun(a => a * 2.0f + 1.0f)))))\n");
  const std::string rows =
      write_scratch("huge_chunk_rows.rise",
                    "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
                    "  x |> mapPar(static, 134217728)(fun(r => r |> reduce(add)(0.0f)))))\n");
  for (const std::string& file : {nest, rows}) {
    for (const char* size : {"n=5,m=5", "n=3,m=1"}) {
      CliResult r = run_risec({"run", file, "--target", "openmp", "--size", size, "--check"},
                              {"OMP_NUM_THREADS=16"});
      EXPECT_EQ(r.exit_code, 0) << file << " " << size << "\n" << show(r);
      EXPECT_NE(r.out.find("check: passed"), std::string::npos) << show(r);
    }
    CliResult generic = run_risec({"compile", file, "--target", "openmp"});
    ASSERT_EQ(generic.exit_code, 0) << show(generic);
    EXPECT_NE(generic.out.find(" > 0 ? "), std::string::npos) << generic.out;
  }
  CliResult fixed = run_risec({"compile", nest, "--target", "openmp", "--size", "n=5,m=5"});
  ASSERT_EQ(fixed.exit_code, 0) << show(fixed);
  EXPECT_NE(fixed.out.find("collapse(2) schedule(static, 25)"), std::string::npos) << fixed.out;
  CliResult dynamic =
      run_risec({"compile", nest, "--target", "openmp", "--size", "n=5,m=5", "--strategy",
                 "everywhere(ompSchedule(dynamic, 1073741824)) ; lowerToC"});
  EXPECT_NE(dynamic.out.find("schedule(dynamic, 1073741824)"), std::string::npos) << show(dynamic);
}

TEST(OmpSchedule, ParallelReductionGetsTheClause) {
  CheckReport r =
      run("reduce", "def f = depFun(n: Nat => fun(x: n.f32 =>\n  x |> reduce(add)(0.0f)))", "n=41",
          "reducePar @ outermost(isFullyApplied(isReduce)) ; "
          "ompSchedule(static, 4) @ outermost(isApplied(isPrimitive(reducePar))) ; "
          "lowerToC");
  const std::string& src = r.compiled.unit.source;
  EXPECT_NE(src.find("reduction(+:"), std::string::npos) << src;
  EXPECT_NE(src.find(") schedule(static, 4)\n"), std::string::npos) << src;
}

TEST(OmpSchedule, LoopSplitAtClampedBordersKeepsItsSchedule) {
  // the parallel loop over the windows of a clamped row is split at the borders: each
  // part longer than one iteration is a parallel loop with the schedule
  CheckReport r = run("clamp",
                      "def f = depFun(n: Nat => fun(x: n.f32 =>\n"
                      "  x |> padClamp(2)(2) |> slide(5)(1) |> map(fun(w => w |> "
                      "reduce(add)(0.0f)))))",
                      "n=40",
                      "parallel @ outermost(isApplied(isMap)) ; lowerToC ; "
                      "everywhere(ompSchedule(guided, 2))");
  const std::vector<std::string> pragmas = schedule_parallel_pragmas(r.compiled.unit.source);
  ASSERT_FALSE(pragmas.empty()) << r.compiled.unit.source;
  for (const std::string& p : pragmas)
    EXPECT_NE(p.find("schedule(guided, 2)"), std::string::npos) << r.compiled.unit.source;
}

// The schedule shows in the printed program, as the loop's first arguments
// (`mapPar(dynamic, 4)`, docs/language.md), which read back: the rewritten program
// compiled as it is has the same pragma and computes the interpreter's values; and it
// shows in the imperative DPIA.
TEST(OmpSchedule, ShownInTheRewrittenProgramAndTheDpia) {
  const std::string file = write_scratch("shown.rise", kRows);
  const std::string s =
      "parallel @ outermost(isApplied(isMap)) ; lowerToC ; everywhere(ompSchedule(dynamic, 4))";
  CliResult rw = run_risec({"rewrite", file, "--strategy", s});
  ASSERT_EQ(rw.exit_code, 0) << show(rw);
  EXPECT_NE(rw.out.find("mapPar(dynamic, 4)"), std::string::npos) << show(rw);
  CheckReport back = run("shown_back", rw.out, "n=9,m=5", "id");
  std::vector<std::string> pragmas = schedule_parallel_pragmas(back.compiled.unit.source);
  ASSERT_FALSE(pragmas.empty()) << back.compiled.unit.source;
  for (const std::string& p : pragmas)
    EXPECT_NE(p.find("schedule(dynamic, 4)"), std::string::npos) << back.compiled.unit.source;
  CliResult c = run_risec(
      {"compile", file, "--target", "openmp", "--strategy", s, "--dump-dpia", "--size", "n=8,m=4"});
  ASSERT_EQ(c.exit_code, 0) << show(c);
  EXPECT_NE(c.err.find("schedule(dynamic, 4)"), std::string::npos) << show(c);
}

// Bad arguments are located errors of the strategy, before anything is rewritten.
TEST(OmpSchedule, BadArgumentsAreLocatedErrors) {
  struct Bad {
    const char* text;
    const char* says;
  };
  const Bad bad[] = {
      {"ompSchedule(dynamic, 0)", "the chunk must be a number of iterations from 1 to"},
      {"ompSchedule(dynamic, 0 - 3)", "not -3"},
      {"ompSchedule(dynamic, -4)",
       "argument 2 of 'ompSchedule' must be a count or a size, never "
       "negative, not -4"},
      {"ompSchedule(guided, -lanes)", "never negative"},
      {"ompSchedule(static, 4294967296)", "not 4294967296"},
      {"ompSchedule(fastest, 4)", "must be static, dynamic or guided, not 'fastest'"},
      {"ompSchedule(4)", "must be a name"},
      {"ompSchedule", "takes 1 or 2 argument(s), got 0"},
      {"ompSchedule(dynamic, 4, 2)", "takes 1 or 2 argument(s), got 3"},
      {"ompSchedule(dynamic, [4])", "must be a number"},
  };
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.text);
    try {
      elevate::parse_strategy(std::string("lowerToC ; ") + b.text);
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::User);
      // at the call or one of its arguments
      ASSERT_TRUE(e.span().known()) << e.message();
      EXPECT_GE(e.span().begin, e.span().file->text.find("ompSchedule")) << e.message();
      EXPECT_NE(e.message().find(b.says), std::string::npos) << e.message();
    }
  }
  // through the command line: exit 1, the place in the strategy text
  const std::string file = write_scratch("bad_chunk.rise", kRows);
  CliResult r = run_risec({"compile", file, "--target", "openmp", "--size", "n=8,m=4", "--strategy",
                           "parallelOutput ; ompSchedule(dynamic, 0) ; lowerToC"});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_NE(r.err.find(":1:18: error:"), std::string::npos) << show(r);
  EXPECT_NE(r.err.find("chunk"), std::string::npos) << show(r);
}

// The kind through the names of a strategy file: a let passes it on (and refuses it as
// a strategy), a strategy parameter or a let's number named like a kind is an error at
// the argument; the command line says where (exit 1).
TEST(OmpSchedule, KindsThroughLetsAndParameters) {
  const std::string file = write_scratch("let_kind.rise", kRows);
  CheckReport r =
      run("let_kind", kRows, "n=11,m=4",
          "let sched(k, c) = ompSchedule(k, c) @ outermost(isApplied(isPrimitive(mapPar)));\n"
          "let main = parallelOutput ; sched(guided, 3) ; lowerToC;");
  std::vector<std::string> pragmas = schedule_parallel_pragmas(r.compiled.unit.source);
  ASSERT_EQ(pragmas.size(), 1u) << r.compiled.unit.source;
  EXPECT_NE(pragmas[0].find("schedule(guided, 3)"), std::string::npos) << pragmas[0];
  struct Bad {
    const char* text;
    const char* at;  // the text the error points at (its first occurrence)
    const char* says;
  };
  const Bad bad[] = {
      {"param dynamic in [2, 4];\nlet main = parallelOutput ; ompSchedule(dynamic, 4) ; lowerToC;",
       "dynamic, 4)",
       "argument 1 of 'ompSchedule' must be a name, but 'dynamic' is a parameter of the "
       "strategy, a number here: name the parameter differently"},
      {"let s(k) = ompSchedule(k);\nlet main = parallelOutput ; s(4) ; lowerToC;", "k);",
       "argument 1 of 'ompSchedule' must be a name; the let's parameter 'k' is a number here"},
      {"let s(k) = ompSchedule(dynamic, k);\nlet main = parallelOutput ; s(guided) ; lowerToC;",
       "k);",
       "argument 2 of 'ompSchedule' must be a number; the let's parameter 'k' is the name "
       "'guided' here"},
      {"let s(k) = ompSchedule(dynamic, k);\nlet main = parallelOutput ; s(0 - 2) ; lowerToC;",
       "k);", "never negative, not -2"},
      {"let s(k) = k ; ompSchedule(dynamic);\nlet main = parallelOutput ; s(dynamc) ; lowerToC;",
       "k ;", "'k' is the name 'dynamc' here, which is no strategy"},
  };
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.text);
    try {
      elevate::parse_strategy(b.text);
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::User);
      EXPECT_NE(e.message().find(b.says), std::string::npos) << e.message();
      ASSERT_TRUE(e.span().known()) << e.message();
      const std::string text = b.text;
      EXPECT_EQ(e.span().begin, text.find(b.at)) << e.message();
    }
  }
  CliResult c = run_risec({"compile", file, "--target", "openmp", "--size", "n=8,m=4", "--strategy",
                           "parallelOutput ; ompSchedule(dynamic, -4) ; lowerToC"});
  EXPECT_EQ(c.exit_code, 1) << show(c);
  EXPECT_NE(c.err.find("<--strategy>:1:39: error: argument 2 of 'ompSchedule'"), std::string::npos)
      << show(c);
}

// A loop that is not parallel has no schedule: the rule fails where it is applied.
TEST(OmpSchedule, RefusedOnALoopThatIsNotParallel) {
  const std::string file = write_scratch("not_par.rise", kRows);
  CheckOptions o;
  o.target = "openmp";
  try {
    run_and_compare(file, "ompSchedule(dynamic, 2) @ outermost(isApplied(isMap)) ; lowerToC",
                    "n=8,m=4", o);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User);
    EXPECT_NE(e.message().find("expected a parallel loop, mapPar or reducePar"), std::string::npos)
        << e.message();
  }
}

// Only the OpenMP target has parallel loops: elsewhere the scheduled mapPar is refused
// at its place, as every mapPar is.
TEST(OmpSchedule, OtherTargetsRefuseTheParallelLoop) {
  const std::string file = write_scratch("other_targets.rise", kRows);
  const std::string s =
      "parallel @ outermost(isApplied(isMap)) ; everywhere(ompSchedule(dynamic, 2)) ; lowerToC";
  for (const char* target : {"c", "opencl", "cuda"}) {
    SCOPED_TRACE(target);
    CliResult r = run_risec({"compile", file, "--target", target, "--size", "n=8,m=4", "--strategy",
                             s, "-o", scratch_path(std::string("other_") + target)});
    EXPECT_EQ(r.exit_code, 1) << show(r);
    EXPECT_NE(r.err.find("mapPar(dynamic, 2) needs the OpenMP target (--target openmp)"),
              std::string::npos)
        << show(r);
  }
}

}  // namespace
}  // namespace risec::e2e
