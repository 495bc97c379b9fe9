// A held-out tester's command-line findings (no source read): each refusal names what is
// wrong (an empty --size item, a value beyond 64 bits, a non-finite --flops count, a
// directory as --db, a size as a schedule's chunk, a strategy file's second `let` of one
// name), located where docs/guarantees.md says; innermost(p)(s) reports the rule's
// refusal at the innermost location; print writes schedules as rewrite does; and
// tune --explain describes the parallel loops the program writes itself.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "build_info.h"
#include "e2e_util.h"
#include "runtime/process.h"

namespace risec::e2e {
namespace {

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

// Random --size texts with an empty item at a random place (first, last or between):
// each is a usage error naming the text, never skipped.
// Held-out K: an entry that is a bare primitive keeps implicit parameters only a use
// determines; compile exited 70 ("primitive type too short").
TEST(CliFindings, ABarePrimitiveEntryIsRefusedLocated) {
  const std::string file = write_scratch("bare.rise", "def f = split\n");
  CliResult r = run_risec({"compile", file, "-o", scratch_path("bare_out")});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_TRUE(has(r.err,
                  "bare.rise:1:9: error: the entry's type has parameters that nothing "
                  "determines"))
      << show(r);
}

// Held-out M: an entry giving an array of functions (`xs |> map(add)`) exited 70, one
// giving or taking masks computed wrong booleans; both are refused where compiled, and
// a rewrite splitting a symbolic size without end overflowed (exit 70).
TEST(CliFindings, EntriesExchangeDataAndSizeOverflowsInRewritesAreLocated) {
  const std::string fns =
      write_scratch("fns.rise", "def f = depFun((n: Nat) => fun(xs: n.f32 => xs |> map(add)))\n");
  CliResult r = run_risec({"run", fns, "--size", "n=4"});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_TRUE(has(r.err, "the entry's result (of type 4.(f32 -> f32)) holds a function"))
      << show(r);
  const std::string masks = write_scratch(
      "masks.rise",
      "def f = depFun(n: Nat => fun(xs: n.vec[bool, 4] => xs |> map(fun(v => any(v)))))\n");
  r = run_risec({"run", masks, "--size", "n=4"});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_TRUE(has(r.err, "the entry's parameter 1 (of type 4.vec[bool, 4]) holds masks"))
      << show(r);
  const std::string gen = write_scratch(
      "gen.rise", "def f = depFun((n: Nat) => fun(xs: n.f32 => xs |> map(fun(x => x * 2.0f))))\n");
  r = run_risec({"rewrite", gen, "--strategy", "everywhere(splitJoin(2))"});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_TRUE(has(r.err, "a rewrite made the program's sizes overflow 64 bits")) << show(r);
}

// Held-out K: a rewrite that duplicates what it rewrites (reorder's interchange), nested
// in its own results, grew the term without end inside one pass (2.6 GB in 25 s).
TEST(CliFindings, APassWhoseRewritesGrowTheTermStops) {
  CliResult r = run_risec({"rewrite", "docs/tutorial/03-strategies/layer.rise", "--strategy",
                           "RNF ; everywhere(reorder([2,1]))"});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_TRUE(has(r.err, "everywhere(reorder([2, 1])) does not terminate")) << show(r);
  EXPECT_TRUE(has(r.err, "keeps making the term larger")) << show(r);
  // repeat (normalize) too: splitJoin(2) splits the maps of length 2 it made into 1 x 2
  // at every step (held-out L: it ran for hours at n = 8)
  CliResult n = run_risec({"rewrite", "examples/scal/scal.rise", "--size", "n=8", "--strategy",
                           "normalize(splitJoin(2))"});
  EXPECT_EQ(n.exit_code, 1) << show(n);
  EXPECT_TRUE(has(n.err, "does not terminate: its steps keep making the term larger")) << show(n);
  // and a combinator that tries another way on a failure passes a runaway on (held-out
  // M: repeat(tryAll(idAfter)) exited 0 with chains of id; try(...) and <+ id too)
  for (const char* s : {"repeat(tryAll(idAfter))", "try(normalize(idAfter))",
                        "normalize(idAfter) <+ id", "try(everywhere(splitJoin(2)))"}) {
    CliResult t =
        run_risec({"rewrite", "examples/scal/scal.rise", "--size", "n=8", "--strategy", s});
    EXPECT_EQ(t.exit_code, 1) << s << "\n" << show(t);
    EXPECT_TRUE(has(t.err, "does not terminate")) << s << "\n" << show(t);
  }
}

TEST(CliFindings, AnEmptySizeItemIsRefused) {
  std::mt19937 rng(20261129);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<std::string> items = {"n=16"};  // scal's one size
    const int empties = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < empties; ++k)
      items.insert(items.begin() + static_cast<long>(rng() % (items.size() + 1)), "");
    std::string text;
    for (size_t i = 0; i < items.size(); ++i) text += (i ? "," : "") + items[i];
    CliResult r = run_risec({"check", "examples/scal/scal.rise", "--size", text});
    EXPECT_EQ(r.exit_code, 2) << text << "\n" << show(r);
    EXPECT_TRUE(has(r.err, "--size '" + text + "': an empty item")) << text << "\n" << show(r);
  }
  for (const std::string& text : std::vector<std::string>{"n=10,", ",n=10", "n=10,,", ","}) {
    CliResult r = run_risec({"check", "examples/scal/scal.rise", "--size", text});
    EXPECT_EQ(r.exit_code, 2) << text << "\n" << show(r);
    EXPECT_TRUE(has(r.err, "an empty item")) << text << "\n" << show(r);
  }
}

// Values past the 64-bit range, of random lengths and digits, say so (with the range);
// those just inside are read as numbers (and refused for another reason or accepted).
TEST(CliFindings, ASizeBeyond64BitsSaysSo) {
  std::mt19937 rng(7);
  std::vector<std::string> big = {"9223372036854775808", "18446744073709551616",
                                  "-9223372036854775809"};
  for (int i = 0; i < 20; ++i) {
    std::string d = std::to_string(1 + rng() % 9);
    const int len = 20 + static_cast<int>(rng() % 15);
    while (static_cast<int>(d.size()) < len) d += std::to_string(rng() % 10);
    big.push_back(d);
  }
  for (const std::string& v : big) {
    CliResult r = run_risec({"check", "examples/scal/scal.rise", "--size", "n=" + v});
    EXPECT_EQ(r.exit_code, 2) << v << "\n" << show(r);
    EXPECT_TRUE(has(r.err, "does not fit in 64 bits")) << v << "\n" << show(r);
    EXPECT_TRUE(has(r.err, "9223372036854775807")) << v << "\n" << show(r);
  }
  CliResult edge =
      run_risec({"check", "examples/scal/scal.rise", "--size", "n=9223372036854775807"});
  EXPECT_FALSE(has(edge.err, "does not fit")) << show(edge);
  CliResult word = run_risec({"check", "examples/scal/scal.rise", "--size", "n=12x"});
  EXPECT_EQ(word.exit_code, 2) << show(word);
  EXPECT_TRUE(has(word.err, "is not an integer")) << show(word);
}

TEST(CliFindings, ANonFiniteFlopCountIsRefused) {
  for (const std::string& flops : std::vector<std::string>{"2**n**n**n", "n^n^n^n", "10^400",
                                                           "-(10^400)", "10^400 - 10^400"}) {
    CliResult r = run_risec({"run", "examples/scal/scal.rise", "--size", "n=64", "--flops", flops});
    EXPECT_EQ(r.exit_code, 2) << flops << "\n" << show(r);
    EXPECT_TRUE(has(r.err, "not a finite number")) << flops << "\n" << show(r);
    EXPECT_FALSE(has(r.out + r.err, "GFLOP/s")) << flops << "\n" << show(r);
  }
}

TEST(CliFindings, ADirectoryAsTheTuningDatabaseSaysSo) {
  const std::string dir = scratch_path("a_db_directory");
  ASSERT_EQ(std::system(("mkdir -p '" + dir + "'").c_str()), 0);
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"run", "examples/scal/scal.rise", "--size", "n=64", "--tuned", "--db", dir + "/"},
           {"compile", "examples/scal/scal.rise", "--size", "n=64", "--tuned", "--db", dir, "-o",
            scratch_path("db_dir_out")}}) {
    CliResult r = run_risec(args);
    EXPECT_EQ(r.exit_code, 2) << show(r);
    EXPECT_TRUE(has(r.err, "it is a directory")) << show(r);
    EXPECT_FALSE(has(r.err, "disk I/O")) << show(r);
  }
}

// docs/guarantees.md: an exit-1 error is located.
TEST(CliFindings, IterateRefusedByTheGpuTargetsIsLocated) {
  for (const std::string& target : std::vector<std::string>{"opencl", "cuda"}) {
    CliResult r = run_risec({"compile", "examples/treesum/treesum.rise", "--target", target,
                             "--size", "m=4,k=2", "-o", scratch_path("it0_" + target)});
    EXPECT_EQ(r.exit_code, 1) << show(r);
    // At the iterate: FILE:LINE:COL, then the line with `iterate(` in it.
    EXPECT_TRUE(has(r.err, "examples/treesum/treesum.rise:")) << show(r);
    EXPECT_TRUE(has(r.err, ": error: iterate (double buffering")) << show(r);
    EXPECT_TRUE(has(r.err, "\n    x |> iterate(k)")) << show(r);
  }
}

TEST(CliFindings, AScheduleChunkMustBeALiteral) {
  for (const std::string& chunk : std::vector<std::string>{"n", "m", "4.0f", "true"}) {
    const std::string file = write_scratch(
        "chunk.rise",
        "def c = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n  x |> mapPar(dynamic, " + chunk +
            ")(fun(row => row |> reduceSeq(add)(0.0f)))))\n");
    CliResult r = run_risec({"check", file});
    EXPECT_EQ(r.exit_code, 1) << chunk << "\n" << show(r);
    EXPECT_TRUE(has(r.err, file + ":2:")) << chunk << "\n" << show(r);
    EXPECT_TRUE(has(r.err, "positive integer literal")) << chunk << "\n" << show(r);
  }
}

TEST(CliFindings, AStrategyFileDefinesANameOnce) {
  const std::string dup =
      write_scratch("dup.elv", "let a = id;\nlet b = a;\nlet a = lowerToC;\na\n");
  CliResult r =
      run_risec({"rewrite", "examples/scal/scal.rise", "--strategy", dup, "--size", "n=64"});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_TRUE(has(r.err, dup + ":3:5: error: duplicate definition of 'a' (first defined at line 1"))
      << show(r);
  // A built-in may be redefined (the file's lets come first in the lookup).
  const std::string builtin =
      write_scratch("builtin.elv", "let lowerToC = id;\nlet main = lowerToC;\n");
  CliResult b =
      run_risec({"rewrite", "examples/scal/scal.rise", "--strategy", builtin, "--size", "n=64"});
  EXPECT_EQ(b.exit_code, 0) << show(b);
}

// innermost(p)(s) that applies nowhere reports s's refusal at the innermost location
// where p matched: for map(map(f)) over n.m.f32 and vectorize(v), the inner map's
// length m and v when v does not divide m (the outer map's elements are arrays, which
// is no reason at the innermost location). Sizes and lane counts are drawn at random;
// where v divides m the rewrite applies.
TEST(CliFindings, InnermostReportsTheInnermostRefusal) {
  const std::string file = write_scratch(
      "mm2d.rise",
      "def mm2d = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 => x |> map(fun(row => row |> "
      "map(fun(v => v * 2.0f))))))\n");
  std::mt19937 rng(11);
  for (int trial = 0; trial < 12; ++trial) {
    const int64_t v = int64_t{1} << (1 + rng() % 5);  // 2 .. 32
    const int64_t m = 1 + static_cast<int64_t>(rng() % 64);
    const std::string sizes = "n=" + std::to_string(1 + rng() % 8) + ",m=" + std::to_string(m);
    CliResult r =
        run_risec({"rewrite", file, "--size", sizes, "--strategy",
                   "vectorize(" + std::to_string(v) + ") @ innermost(isFullyApplied(isMap))"});
    if (m % v == 0) {
      EXPECT_EQ(r.exit_code, 0) << sizes << " v=" << v << "\n" << show(r);
      continue;
    }
    EXPECT_EQ(r.exit_code, 1) << sizes << " v=" << v << "\n" << show(r);
    EXPECT_FALSE(has(r.err, "not scalars")) << sizes << " v=" << v << "\n" << show(r);
    EXPECT_TRUE(has(r.err, std::to_string(m))) << sizes << " v=" << v << "\n" << show(r);
  }
}

// print writes a scheduled loop as rewrite does, `mapPar(kind, chunk)(f)`, for every
// kind and chunk, written either way; what it prints reads back to the same text and
// computes the same values.
TEST(CliFindings, PrintWritesSchedulesAsRewriteDoes) {
  std::mt19937 rng(3);
  for (const std::string& kind : std::vector<std::string>{"static", "dynamic", "guided"}) {
    for (int trial = 0; trial < 3; ++trial) {
      const std::string c = std::to_string(1 + rng() % 64);
      const bool split = rng() % 2;
      const std::string map_sched = split ? kind + ")(" + c : kind + ", " + c;
      const std::string file = write_scratch(
          "sched.rise", "def s = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 => x |> mapPar(" +
                            map_sched + ")(fun(row => row |> reducePar(" + kind + ", " + c +
                            ")(add)(0.0f)))))\n");
      CliResult p = run_risec({"print", file});
      ASSERT_EQ(p.exit_code, 0) << show(p);
      EXPECT_TRUE(has(p.out, "mapPar(" + kind + ", " + c + ")(")) << show(p);
      EXPECT_TRUE(has(p.out, "reducePar(" + kind + ", " + c + ")(add)(0.0f)")) << show(p);
      EXPECT_FALSE(has(p.out, "|> (")) << show(p);
      const std::string again = write_scratch("sched_again.rise", p.out);
      CliResult q = run_risec({"print", again});
      EXPECT_EQ(q.out, p.out) << show(q);
      CliResult a = run_risec({"eval", file, "--size", "n=3,m=5", "--seed", "4"});
      CliResult b = run_risec({"eval", again, "--size", "n=3,m=5", "--seed", "4"});
      EXPECT_EQ(a.exit_code, 0) << show(a);
      EXPECT_EQ(a.out, b.out);
    }
  }
}

TEST(CliFindings, ExplainDescribesTheProgramsOwnParallelLoops) {
  const std::string file = write_scratch(
      "sched1.rise",
      "def sched1 = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 => x |> mapPar(dynamic, 4)(fun(row "
      "=> row |> reducePar(static, 8)(add)(0.0f)))))\n");
  CliResult r = run_risec({"tune", file, "--size", "n=257,m=63", "--target", "openmp", "--budget",
                           "2", "--repeat", "1", "--explain", "--db", scratch_path("explain.db"),
                           "-o", scratch_path("explain.elv")});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_TRUE(has(r.err, "mapPar schedule(dynamic, 4)")) << show(r);
  EXPECT_FALSE(has(r.err, "schedule:   OpenMP's default")) << show(r);
  EXPECT_FALSE(has(r.err, " 0% of the arithmetic in parallel loops")) << show(r);
}

// risec's own out-of-memory (here making a 1.2 GB input under a 3 GB address space)
// is a resource error, exit 4, saying what risec was doing; never "internal error" 70.
TEST(CliFindings, RisecsOwnOutOfMemoryIsExit4AndSaysWhatItWasDoing) {
  if (risec::test::sanitized_build())
    GTEST_SKIP() << "the sanitizers' shadow memory does not fit an address-space limit";
  const std::string prog = write_scratch(
      "findings_inner_oom.rise",
      "def inner = depFun((n: Nat, m: Nat) =>\n"
      "  fun(x: n.f32 => fun(y: m.f32 =>\n"
      "    x |> map(fun(xi => y |> map(fun(yj => yj * xi + 1.0f)) |> reduce(add)(0.0f))))))\n");
  for (const char* command : {"eval", "run"}) {
    const std::string line = "ulimit -v 3000000 && exec " + risec::test::risec_binary() + " " +
                             command + " " + prog + " --size n=2,m=300000000";
    runtime::ProcessResult p = runtime::run_process({"/bin/sh", "-c", line});
    EXPECT_EQ(p.exit_code, 4) << line << "\n" << p.err;
    EXPECT_TRUE(has(p.err, "risec ran out of memory while making the inputs")) << p.err;
    EXPECT_FALSE(has(p.err, "internal")) << p.err;
  }
}

// Held-out G's findings about messages: sizes whose arithmetic overflows are a usage
// error (exit 2) said once; a param after a let says where parameters go;
// globalOutput after lowerToC says the program is lowered; repeatN names its failing
// step.
TEST(CliFindings, SizesWhoseArithmeticOverflowsAreAUsageError) {
  std::string prog = write_scratch("padded_overflow.rise", R"(
def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>
  x |> padClamp2D(1)(1) |> map(map(fun(v => v * 2.0f)))))
)");
  CliResult r = run_risec({"compile", prog, "--size", "n=9223372036854775807,m=1"});
  EXPECT_EQ(r.exit_code, 2) << show(r);
  EXPECT_TRUE(has(r.err, "at these sizes the program's size arithmetic overflows 64 bits"))
      << show(r);
  EXPECT_FALSE(has(r.err, "size arithmetic: integer overflow in size arithmetic")) << show(r);
  // the program's own overflow, without sizes, stays the program's error (exit 1)
  std::string own = write_scratch("own_overflow.rise", R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  x |> padCst(4611686018427387904)(4611686018427387904)(0.0f)))
)");
  CliResult o = run_risec({"check", own});
  EXPECT_EQ(o.exit_code, 1) << show(o);
  EXPECT_TRUE(has(o.err, "integer overflow in size arithmetic")) << show(o);
}

TEST(CliFindings, StrategyMessagesOfHeldOutG) {
  const std::string prog = "examples/scal/scal.rise";
  std::string late =
      write_scratch("late_param.elv", "let main = DFNF ; lowerToC;\nparam k in [1];\n");
  CliResult p = run_risec({"compile", prog, "--strategy", late});
  EXPECT_EQ(p.exit_code, 1) << show(p);
  EXPECT_TRUE(has(p.err, "the parameters and constraints come before the lets")) << show(p);
  EXPECT_TRUE(has(p.err, "late_param.elv:2:1")) << show(p);

  std::string global = write_scratch("global_late.elv", "lowerToC ; globalOutput(1)\n");
  CliResult g = run_risec({"compile", prog, "--strategy", global, "--target", "opencl"});
  EXPECT_EQ(g.exit_code, 1) << show(g);
  EXPECT_TRUE(has(g.err, "the program is lowered already")) << show(g);

  std::string two = write_scratch("two_maps.rise", R"(
def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => v + 1.0f)) |> map(fun(v => v * 2.0f))))
)");
  // The strategy file `text` (as `file`) on two_maps.rise fails (exit 1) saying each of
  // `says`; its result, for more checks.
  auto fails = [&](const std::string& file, const std::string& text,
                   const std::vector<std::string>& says) {
    CliResult r =
        run_risec({"compile", two, "--strategy", write_scratch(file, text), "--size", "n=8"});
    EXPECT_EQ(r.exit_code, 1) << show(r);
    for (const std::string& what : says) EXPECT_TRUE(has(r.err, what)) << what << "\n" << show(r);
    return r;
  };
  fails("repeat_fails.elv", "repeatN(3, mapFusion @ topDown) ; lowerToC\n",
        {"step 2 of repeatN(3, ...) failed"});
  // a let called twice, failing the second time: located in its body, and the call
  // that failed is noted (main, the entry, is not)
  CliResult f =
      fails("fuse_twice.elv",
            "let fuse = mapFusion @ topDown;\n"
            "let main = fuse ; fuse ; lowerToC;\n",
            {"fuse_twice.elv:1:24: error", "note: in 'fuse', called at ", "fuse_twice.elv:2:19"});
  EXPECT_FALSE(has(f.err, "in 'main'")) << show(f);
  // an argument of the wrong kind, used in the let's body: the call is noted
  fails("wrong_kind.elv",
        "let f(k) = splitJoin(k) @ topDown;\n"
        "let main = f(mapFusion) ; lowerToC;\n",
        {"must be a number, not a strategy", "note: in 'f', called at ", "wrong_kind.elv:2:12"});
}

// Held-out H: slide2D's size conditions said "in this argument" (the prelude's lambda
// has no head name), and a mapGlobal a strategy made, compiled for c or openmp, was
// reported at the entry's `fun` without saying the strategy made it.
TEST(CliFindings, MessagesOfHeldOutH) {
  std::string two = write_scratch("two_stencils.rise", R"(
def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>
  x |> padClamp2D(1)(1) |> slide2D(3)(1) |> map(map(fun(w => w[1][1])))
    |> toMem
    |> slide2D(3)(1)
    |> map(map(fun(w => w[0][0] + w[2][2])))))
)");
  CliResult c = run_risec({"check", two});
  EXPECT_EQ(c.exit_code, 0) << show(c);
  EXPECT_TRUE(has(c.out + c.err, "(in the argument of slide2D)")) << show(c);
  EXPECT_FALSE(has(c.out + c.err, "in this argument")) << show(c);
  CliResult small = run_risec({"run", two, "--size", "n=1,m=5"});
  EXPECT_NE(small.exit_code, 0) << show(small);
  EXPECT_TRUE(has(small.err, "in the argument of slide2D")) << show(small);

  std::string stencil = write_scratch("one_stencil.rise", R"(
def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>
  x |> padClamp2D(1)(1) |> slide2D(3)(1)
    |> map(map(fun(w => w[0][0] + w[2][2])))))
)");
  std::string global = write_scratch("global_cpu.elv", "globalOutput(1) ; lowerToC\n");
  for (const char* target : {"c", "openmp"}) {
    CliResult g = run_risec(
        {"compile", stencil, "--target", target, "--strategy", global, "--size", "n=16,m=16"});
    EXPECT_EQ(g.exit_code, 1) << target << "\n" << show(g);
    EXPECT_TRUE(has(g.err, "one_stencil.rise:4:8: error: mapGlobal needs an OpenCL or CUDA"))
        << target << "\n"
        << show(g);
    EXPECT_TRUE(has(g.err, "the strategy made this map one")) << target << "\n" << show(g);
  }
}

// Held-out I: tune's final error when even the default fails had no place (run gives
// the program's line and caret), and a --budget past an int said "not a positive
// number".
TEST(CliFindings, MessagesOfHeldOutI) {
  std::string par = write_scratch("par_on_c.rise", R"(def f = depFun((n: Nat, m: Nat) =>
  fun(x: n.m.f32 => x |> mapPar(fun(r => r |> map(fun(v => v * 2.0f))))))
)");
  CliResult t = run_risec({"tune", par, "--size", "n=16,m=8", "--target", "c", "--budget", "2",
                           "-o", scratch_path("par_on_c.elv")});
  EXPECT_EQ(t.exit_code, 1) << show(t);
  EXPECT_TRUE(has(t.err, "par_on_c.rise:2:26: error: no schedule of the program could be measured"))
      << show(t);
  CliResult b = run_risec(
      {"tune", "examples/scal/scal.rise", "--size", "n=64", "--budget", "100000000000000000000"});
  EXPECT_EQ(b.exit_code, 2) << show(b);
  EXPECT_TRUE(has(b.err, "is too large (at most 2147483647)")) << show(b);
}

}  // namespace
}  // namespace risec::e2e
