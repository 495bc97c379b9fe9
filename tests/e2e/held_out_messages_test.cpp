// Messages a held-out tester found unhelpful: a schedule that does not exist
// (`mapPar(auto)`), and a parallel strategy (one tuned for openmp, say) compiled for
// the c target. Each must say what is wrong where, and what to do (exit 1).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

TEST(HeldOutMessages, UnknownScheduleNamesTheSchedules) {
  for (const std::string loop : {"mapPar(auto)(fun(x => x * 2.0f))",
                                 "mapPar(runtime, 4)(fun(x => x))", "reducePar(auto)(add)(0.0f)"}) {
    const std::string file =
        write_scratch("auto_schedule.rise",
                      "def f = depFun((n: Nat) => fun(xs: n.f32 =>\n  xs |> " + loop + "))\n");
    CliResult r = run_risec({"check", file});
    EXPECT_EQ(r.exit_code, 1) << show(r);
    EXPECT_NE(r.err.find("auto_schedule.rise:2:"), std::string::npos) << show(r);
    EXPECT_NE(
        r.err.find(loop.substr(0, loop.find('(')) + "'s schedules are static, dynamic and guided"),
        std::string::npos)
        << show(r);
  }
  // A misspelt function is still named as such.
  const std::string typo =
      write_scratch("typo_schedule.rise",
                    "def square = fun(x => x * x)\n"
                    "def f = depFun((n: Nat) => fun(xs: n.f32 =>\n  xs |> mapPar(sqaure)))\n");
  CliResult t = run_risec({"check", typo});
  EXPECT_EQ(t.exit_code, 1) << show(t);
  EXPECT_NE(t.err.find("did you mean 'square'?"), std::string::npos) << show(t);
  // A name the program binds is that name, as before (here a function, so no schedule).
  const std::string bound =
      write_scratch("bound_schedule.rise",
                    "def f = depFun((n: Nat) => fun(xs: n.f32 => fun(auto: f32 =>\n"
                    "  xs |> mapPar(fun(x => x * auto)))))\n");
  CliResult ok = run_risec({"check", bound});
  EXPECT_EQ(ok.exit_code, 0) << show(ok);
}

TEST(HeldOutMessages, ParallelStrategyOnTheCTargetSaysWhatToDo) {
  const std::string strategy = "parallel @ outermost(isApplied(isMap)) ; lowerToC";
  CliResult c =
      run_risec({"compile", "examples/scal/scal.rise", "--strategy", strategy, "--target", "c"});
  EXPECT_EQ(c.exit_code, 1) << show(c);
  EXPECT_NE(c.err.find("the c target has no parallel loops, and the strategy made this map "
                       "one: compile with --target openmp, or use a strategy for the c target"),
            std::string::npos)
      << show(c);
  EXPECT_NE(c.err.find("scal.rise:4:"), std::string::npos) << show(c);  // at the map
  CliResult omp = run_risec(
      {"compile", "examples/scal/scal.rise", "--strategy", strategy, "--target", "openmp"});
  EXPECT_EQ(omp.exit_code, 0) << show(omp);
  // A mapPar the program wrote keeps the message about the program.
  const std::string written =
      write_scratch("written_par.rise",
                    "def f = depFun((n: Nat) => fun(xs: n.f32 => xs |> mapPar(fun(x => x))))\n");
  CliResult w = run_risec({"compile", written, "--target", "c"});
  EXPECT_EQ(w.exit_code, 1) << show(w);
  EXPECT_NE(w.err.find("mapPar needs the OpenMP target (--target openmp)"), std::string::npos)
      << show(w);
  EXPECT_EQ(w.err.find("The strategy made"), std::string::npos) << show(w);
}

// Programs `check` accepted and a later step refused or ran: refused by check, located
// (held-out M F2, K F9). select between functions (compile said "select applied to more
// arguments than it takes"); a divisibility no size meets (2 divides n*n + n + 1); a flat
// array literal past the depth limit ("too deeply nested"); isPrimitive of a misspelt
// name (matched nothing, silently under try); -i of a natType (compiled code computed
// it, the interpreter refused it); a vector times a scalar (no hint: held-out N); a
// slide wider than its array ("2 is not a multiple of 5"). And at compile, a
// reorder written through whose finv does not undo f (held-out L F2: results other than the
// interpreter's).
TEST(HeldOutMessages, ProgramsNoCallCanRunAreRefused) {
  struct Case {
    const char* name;
    std::string text;
    const char* message;
  };
  std::string literal = "def f = [";
  for (int i = 0; i < 10000; ++i) literal += (i ? ", " : "") + std::to_string(i % 7) + ".0f";
  literal += "]\n";
  const std::vector<Case> cases = {
      {"selfn.rise",
       "def f = depFun(n: Nat => fun(xs: n.f32 => fun(b: bool =>\n  xs |> map(select(b)(fun(x "
       "=> x + 1.0f))(fun(x => x * 2.0f))))))\n",
       "select chooses between data (scalars, vectors, arrays, pairs), not functions"},
      {"odd.rise",
       "def f = depFun(n: Nat => fun(xs: (n*n + n + 1).f32 =>\n  xs |> split(2) |> map(reduce(add)"
       "(0.0f))))\n",
       "n + n*n + 1 is not a multiple of 2 for any size"},
      {"odd2.rise", "def f = depFun(n: Nat => fun(xs: (4*n).f32 =>\n  xs |> take((4*n - 1)/2)))\n",
       "the size (4*n - 1)/2 is not a whole number at any size (2 does not divide 4*n - 1)"},
      {"neg.rise",
       "def f = depFun(n: Nat => fun(xs: n.f32 => generate(fun(i: idx[n] =>\n  "
       "cast(-indexAsNat(i)) "
       ": f32))))\n",
       "neg is not defined on indices and natType values"},
      {"vecscalar.rise", "def f = fun(v: vec[f32, 4] =>\n  v * 2.0f)\n",
       "an operation of a vector and a scalar needs the scalar broadcast, vectorFromScalar(x)"},
      {"short.rise", "def f = fun(x: 3.f32 =>\n  x |> slide(5)(5))\n",
       "a size would be negative: the array is too short"},
      {"literal.rise", literal, "an array literal of 10000 elements is too long"},
  };
  for (const Case& c : cases) {
    CliResult r = run_risec({"check", write_scratch(c.name, c.text)});
    EXPECT_EQ(r.exit_code, 1) << c.name << show(r);
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.name << show(r);
    EXPECT_NE(r.err.find(std::string(c.name) + (c.text.size() > 20000 ? ":1:" : ":2:")),
              std::string::npos)
        << c.name << show(r);
  }
  // satisfiable ones keep their condition
  CliResult ok = run_risec(
      {"check", write_scratch("even.rise",
                              "def f = depFun(n: Nat => depFun(m: Nat => fun(xs: (n*m + n + m + "
                              "2).f32 =>\n  xs |> split(2) |> map(reduce(add)(0.0f)))))\n")});
  EXPECT_EQ(ok.exit_code, 0) << show(ok);
  EXPECT_NE(ok.out.find("requires: 2 divides m + n + m*n"), std::string::npos) << show(ok);
  // a reorder written through (its result is the map's output) whose finv does not undo
  // f: refused where compile writes through it; read, f alone counts
  for (const char* target : {"c", "opencl"}) {
    CliResult w =
        run_risec({"run",
                   write_scratch("reorder.rise",
                                 "def f = fun(xs: 8.f32 => xs |> map(fun(x => x * 2.0f))\n  |> "
                                 "reorder(8)(fun(i => 7 - i))(fun(i => i)))\n"),
                   "--target", target});
    EXPECT_EQ(w.exit_code, 1) << show(w);
    EXPECT_NE(w.err.find("reorder: finv is not the inverse of f: finv(0) = 0 but f(0) = 7, not 0"),
              std::string::npos)
        << show(w);
  }
  // generic code (symbolic sizes): tried at sizes 1..12 (held-out O: (i + 1) % n with
  // finv = i compiled, and computed wrong at every size); a rotation and its inverse and
  // a reversal still compile
  const std::string sym = write_scratch(
      "reorder_sym.rise",
      "def wrong = depFun(n: Nat => fun(xs: n.f32 => xs |> map(fun(x => x * 2.0f))\n  |> "
      "reorder(n)(fun(i => (i + 1) % n))(fun(i => i))))\n"
      "def rot = depFun(n: Nat => fun(xs: n.f32 => xs |> map(fun(x => x * 2.0f)) |> "
      "reorder(n)(fun(i => (i + 1) % n))(fun(i => (i + n - 1) % n))))\n"
      "def rev = depFun(n: Nat => fun(xs: n.f32 => xs |> map(fun(x => x * 2.0f)) |> "
      "reorder(n)(fun(i => n - 1 - i))(fun(i => n - 1 - i))))\n");
  CliResult ws = run_risec({"compile", sym, "--entry", "wrong", "-o", scratch_path("wrong.c")});
  EXPECT_EQ(ws.exit_code, 1) << show(ws);
  EXPECT_NE(ws.err.find("reorder: at n = 2, finv is not the inverse of f"), std::string::npos)
      << show(ws);
  EXPECT_NE(ws.err.find("reorder_sym.rise:1:"), std::string::npos) << show(ws);
  for (const char* entry : {"rot", "rev"}) {
    CliResult ok = run_risec(
        {"compile", sym, "--entry", entry, "-o", scratch_path(std::string(entry) + ".c")});
    EXPECT_EQ(ok.exit_code, 0) << entry << show(ok);
    CheckOptions o;
    o.entry = entry;
    o.target = "openmp";
    EXPECT_TRUE(compile_and_check(sym, "", "n=7", o)) << entry;
  }
  // read through an f that leaves the array (held-out O: compiled code read past the
  // input, SIGSEGV at 100000 elements): refused at a size and generic
  const std::string far =
      write_scratch("reorder_far.rise",
                    "def f = depFun(n: Nat => fun(xs: n.f32 =>\n  xs |> reorder(n)(fun(i => "
                    "i * 1000))(fun(i => i / 1000)) |> map(fun(x => x * 2.0f))))\n");
  CliResult fr = run_risec({"run", far, "--size", "n=100000"});
  EXPECT_EQ(fr.exit_code, 1) << show(fr);
  EXPECT_NE(fr.err.find("is outside 0..99999 (element i is read from f(i))"), std::string::npos)
      << show(fr);
  CliResult fg = run_risec({"compile", far, "-o", scratch_path("far.c")});
  EXPECT_EQ(fg.exit_code, 1) << show(fg);
  EXPECT_NE(fg.err.find("reorder: at n = 2, f(1) = 1000 is outside 0..1"), std::string::npos)
      << show(fg);
  // an index function that divides inexactly (/ on sizes is exact): the interpreter
  // refuses it, and C would have divided with floor; (i - i % a) / a is the floor
  const std::string tr = write_scratch(
      "reorder_tr.rise",
      "def t = depFun(a: Nat => depFun(b: Nat => fun(x: (a*b).f32 => x |> map(fun(v => v * "
      "2.0f))\n  |> reorder(a*b)(fun(i => (i % a) * b + i / a))(fun(i => (i % b) * a + i / "
      "b)))))\n"
      "def u = depFun(a: Nat => depFun(b: Nat => fun(x: (a*b).f32 => x |> map(fun(v => v * "
      "2.0f)) |> reorder(a*b)(fun(i => (i % a) * b + (i - i % a) / a))(fun(i => (i % b) * a + "
      "(i - i % b) / b)))))\n");
  CliResult inexact = run_risec({"run", tr, "--entry", "t", "--size", "a=3,b=5"});
  EXPECT_EQ(inexact.exit_code, 1) << show(inexact);
  EXPECT_NE(inexact.err.find("reorder: an index function has no value"), std::string::npos)
      << show(inexact);
  CheckOptions floor_form;
  floor_form.entry = "u";
  EXPECT_TRUE(compile_and_check(tr, "", "a=3,b=5", floor_form));
  CliResult generic = run_risec({"compile", tr, "--entry", "u", "-o", scratch_path("u.c")});
  EXPECT_EQ(generic.exit_code, 0) << show(generic);
  CliResult rd = run_risec({"run",
                            write_scratch("reorder_read.rise",
                                          "def f = fun(xs: 8.f32 => xs |> reorder(8)(fun(i => 7 - "
                                          "i))(fun(i => i)) |> map(fun(x => x * 2.0f)))\n"),
                            "--check"});
  EXPECT_EQ(rd.exit_code, 0) << show(rd);
  const std::string prog = write_scratch(
      "isprim.rise", "def f = depFun(n: Nat => fun(xs: n.f32 => xs |> map(fun(x => x * 2.0f))))\n");
  CliResult s = run_risec({"run", prog, "--size", "n=8", "--target", "openmp", "--strategy",
                           "try(mapPar @ outermost(isPrimitive(mapp))) ; lowerToC"});
  EXPECT_EQ(s.exit_code, 1) << show(s);
  EXPECT_NE(s.err.find("no primitive is named 'mapp'; did you mean 'map'?"), std::string::npos)
      << show(s);
}

// A let-bound value's type is known where the body uses it (held-out O): a clash is
// reported at the use ("in the argument of zip"), not as "in the argument of let:
// expected (n - 1).f32 -> _ but found n.f32 -> n.f32" under the whole let, and an integer
// literal bound by a let is named at the literal with the use that decides its type.
TEST(HeldOutMessages, LetBoundValuesAreReportedWhereTheyAreUsed) {
  struct Case {
    const char* file;
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"letzip.rise",
       "def f = depFun(n: Nat => fun(x: n.f32 =>\n  let p = x |> drop(1) in zip(x)(p) |> "
       "map(fun(q => q._1 + q._2))))\n",
       "letzip.rise:2:34: error: in the argument of zip: expected n.f32 but found (n - 1).f32"},
      {"letlit.rise",
       "def f = depFun(n: Nat => fun(x: n.f32 =>\n  let d = 2 in x |> map(fun(a => a * d))))\n",
       "letlit.rise:2:11: error: an integer literal cannot be a f32 (the type it gets in the "
       "argument of map at 2:"}};
  for (const Case& c : cases) {
    CliResult r = run_risec({"check", write_scratch(c.file, c.text)});
    EXPECT_EQ(r.exit_code, 1) << show(r);
    EXPECT_NE(r.err.find(c.message), std::string::npos) << show(r);
  }
}

}  // namespace
}  // namespace risec::e2e
