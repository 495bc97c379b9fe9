// End-to-end tests of `risec run` through the binary itself (fork/execvp of
// risec::test::risec_binary()): --check passes on mv; a wrong --input shape, an unknown
// input name, bad options, a mismatch and a failing C compiler give the exit codes of
// spec/cli.md with clear messages; --output agrees with `risec eval`; --repeat and
// --flops print their lines.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "build_info.h"
#include "e2e_util.h"
#include "runtime/npy.h"
#include "runtime/process.h"

namespace risec::e2e {
namespace {

const char* kMvStrategy = "DFNF ; topDown(fuseReduceMap) ; normalize(mapSeq <+ reduceSeq)\n";

std::string mv_strategy_file() {
  return write_scratch("mv_cli.elv", kMvStrategy);
}

TEST(RunCli, CheckPasses) {
  CliResult r = run_risec({"run", "examples/mv/mv.rise", "--strategy", mv_strategy_file(), "--size",
                           "n=64,m=32", "--check"});
  EXPECT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.out.find("check: passed (64 elements, max abs error"), std::string::npos) << show(r);
  EXPECT_NE(r.out.find("time: "), std::string::npos) << show(r);
  EXPECT_NE(r.out.find("f32(64,) = ["), std::string::npos) << show(r);
}

TEST(RunCli, WrongInputShapeIsAnErrorNamingTheInput) {
  runtime::NdArray bad = runtime::make_array(runtime::DType::F32, {32, 64});
  std::string path = scratch_path("M_wrong_shape.npy");
  runtime::write_npy(path, bad);
  CliResult r = run_risec({"run", "examples/mv/mv.rise", "--strategy", mv_strategy_file(), "--size",
                           "n=64,m=32", "--input", "M=" + path, "--check"});
  EXPECT_NE(r.exit_code, 0) << show(r);
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_NE(r.err.find("--input M=" + path), std::string::npos) << show(r);
  EXPECT_NE(r.err.find("needs shape (64, 32), got (32, 64)"), std::string::npos) << show(r);
  EXPECT_EQ(r.out.find("check:"), std::string::npos) << show(r);
}

TEST(RunCli, WrongInputElementTypeAndUnknownName) {
  runtime::NdArray ints = runtime::make_array(runtime::DType::I32, {32});
  std::string path = scratch_path("x_i32.npy");
  runtime::write_npy(path, ints);
  CliResult r =
      run_risec({"run", "examples/mv/mv.rise", "--size", "n=64,m=32", "--input", "x=" + path});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_NE(r.err.find("needs elements of type f32, got i32"), std::string::npos) << show(r);
  CliResult u =
      run_risec({"run", "examples/mv/mv.rise", "--size", "n=64,m=32", "--input", "y=" + path});
  EXPECT_EQ(u.exit_code, 2) << show(u);
  EXPECT_NE(u.err.find("no parameter named 'y'"), std::string::npos) << show(u);
}

TEST(RunCli, GivenInputsAreUsed) {
  // M all zeros: the result is all zeros whatever x is.
  runtime::NdArray zeros = runtime::make_array(runtime::DType::F32, {4, 3});
  std::string path = scratch_path("M_zeros.npy");
  runtime::write_npy(path, zeros);
  CliResult r = run_risec({"run", "examples/mv/mv.rise", "--size", "n=4,m=3", "--input",
                           "M=" + path, "--check", "--seed", "7"});
  EXPECT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.out.find("f32(4,) = [0, 0, 0, 0]"), std::string::npos) << show(r);
}

// Without --size, eval and run read the sizes from the inputs' shapes; shapes that
// disagree are an error naming the inputs (exit 1), a wrong input name a usage error.
TEST(RunCli, SizesFromInputShapes) {
  std::string a = scratch_path("A_6x4.npy"), b = scratch_path("B_4x5.npy"),
              b3 = scratch_path("B_3x5.npy");
  runtime::write_npy(a, runtime::make_array(runtime::DType::F32, {6, 4}));
  runtime::write_npy(b, runtime::make_array(runtime::DType::F32, {4, 5}));
  runtime::write_npy(b3, runtime::make_array(runtime::DType::F32, {3, 5}));
  for (const char* cmd : {"eval", "run"}) {
    CliResult r = run_risec({cmd, "examples/mm/mm.rise", "--input", "A=" + a, "--input", "B=" + b});
    EXPECT_EQ(r.exit_code, 0) << show(r);
    EXPECT_NE(r.out.find("f32(6, 5) = [0, 0,"), std::string::npos) << show(r);
    r = run_risec({cmd, "examples/mm/mm.rise", "--input", "A=" + a, "--input", "B=" + b3});
    EXPECT_EQ(r.exit_code, 1) << show(r);
    EXPECT_NE(r.err.find("--input B=" + b3 +
                         " (dimension 0): the extent is 3, but the "
                         "parameter's type needs k = 4 (k = 4 from --input A=" +
                         a + " (dimension 1))"),
              std::string::npos)
        << show(r);
    r = run_risec({cmd, "examples/mm/mm.rise", "--input", "A=" + a});
    EXPECT_EQ(r.exit_code, 1) << show(r);
    EXPECT_NE(r.err.find("size m has no value"), std::string::npos) << show(r);
    // located at the entry's size parameters
    EXPECT_NE(r.err.find("examples/mm/mm.rise:4:"), std::string::npos) << show(r);
    r = run_risec({cmd, "examples/mm/mm.rise", "--input", "A=" + a, "--input", "b=" + b});
    EXPECT_EQ(r.exit_code, 2) << show(r);
    EXPECT_NE(r.err.find("no parameter named 'b'"), std::string::npos) << show(r);
  }
  CliResult r =
      run_risec({"run", "examples/mm/mm.rise", "--input", "A=" + a, "--size", "m=3", "--check"});
  EXPECT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.out.find("check: passed (18 elements"), std::string::npos) << show(r);
}

TEST(RunCli, OutputAgreesWithEval) {
  std::string run_out = scratch_path("run_out.npy");
  std::string eval_out = scratch_path("eval_out.npy");
  CliResult r = run_risec({"run", "examples/mv/mv.rise", "--strategy", mv_strategy_file(), "--size",
                           "n=40,m=24", "--seed", "3", "--output", run_out});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_EQ(r.out.find("f32("), std::string::npos) << "printed although --output was given\n"
                                                   << show(r);
  CliResult e = run_risec(
      {"eval", "examples/mv/mv.rise", "--size", "n=40,m=24", "--seed", "3", "--output", eval_out});
  ASSERT_EQ(e.exit_code, 0) << show(e);
  runtime::NdArray a = runtime::read_npy(run_out);
  runtime::NdArray b = runtime::read_npy(eval_out);
  ASSERT_EQ(a.shape, (std::vector<int64_t>{40}));
  ASSERT_EQ(a.shape, b.shape);
  for (int64_t i = 0; i < a.count(); ++i)
    EXPECT_NEAR(a.as<float>()[i], b.as<float>()[i], 1e-4 * std::fabs(b.as<float>()[i]) + 1e-5) << i;
}

TEST(RunCli, PairResultsAreSeveralFiles) {
  std::string out = scratch_path("bs.npy");
  CliResult r = run_risec({"run", "examples/blackscholes/blackscholes.rise", "--size", "n=16",
                           "--output", out, "--check"});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.out.find("wrote " + scratch_path("bs_0.npy")), std::string::npos) << show(r);
  EXPECT_NE(r.out.find("check: passed (32 elements"), std::string::npos) << show(r);
  EXPECT_EQ(runtime::read_npy(scratch_path("bs_1.npy")).shape, (std::vector<int64_t>{16}));
}

TEST(RunCli, RepeatAndFlops) {
  CliResult r = run_risec({"run", "examples/mv/mv.rise", "--strategy", mv_strategy_file(), "--size",
                           "n=64,m=32", "--repeat", "5", "--flops", "2*n*m", "--output",
                           scratch_path("rf.npy")});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.out.find("time: min "), std::string::npos) << show(r);
  EXPECT_NE(r.out.find(" ms, median "), std::string::npos) << show(r);
  EXPECT_NE(r.out.find("(5 runs)"), std::string::npos) << show(r);
  EXPECT_NE(r.out.find("GFLOP/s (4096 flop"), std::string::npos) << show(r);
}

// --warmup W: W more calls in the same child before the K timed ones, untimed: the
// time line counts K runs, the profile (which averages every call of the child) K + W,
// and the result (of the last call) still passes the check. A negative or non-numeric
// count is a usage error naming the flag.
TEST(RunCli, WarmupCallsAreNotTimed) {
  for (int warmup : {0, 1, 3}) {
    SCOPED_TRACE(warmup);
    CliResult r = run_risec({"run", "examples/mv/mv.rise", "--strategy", mv_strategy_file(),
                             "--size", "n=64,m=32", "--repeat", "2", "--warmup",
                             std::to_string(warmup), "--profile", "--check"});
    ASSERT_EQ(r.exit_code, 0) << show(r);
    EXPECT_NE(r.out.find("(2 runs)"), std::string::npos) << show(r);
    EXPECT_NE(r.out.find("mean of " + std::to_string(2 + warmup) + " calls"), std::string::npos)
        << show(r);
    EXPECT_NE(r.out.find("check: passed"), std::string::npos) << show(r);
  }
  for (const char* bad : {"-1", "abc", "2x"}) {
    CliResult r = run_risec(
        {"run", "examples/mv/mv.rise", "--size", "n=4,m=3", "--repeat", "2", "--warmup", bad});
    EXPECT_EQ(r.exit_code, 2) << show(r);
    EXPECT_NE(r.err.find("--warmup"), std::string::npos) << show(r);
  }
}

TEST(RunCli, UsageErrors) {
  auto run = [](std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", "examples/mv/mv.rise", "--size", "n=4,m=3"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_risec(args);
  };
  CliResult a = run({"--repeat", "0"});
  EXPECT_EQ(a.exit_code, 2) << show(a);
  EXPECT_NE(a.err.find("--repeat"), std::string::npos) << show(a);
  CliResult b = run({"--rtol", "1e-3"});
  EXPECT_EQ(b.exit_code, 2) << show(b);
  EXPECT_NE(b.err.find("add --check"), std::string::npos) << show(b);
  CliResult c = run({"--check", "--atol", "abc"});
  EXPECT_EQ(c.exit_code, 2) << show(c);
  CliResult d = run({"--flops", "2*n*q"});
  EXPECT_EQ(d.exit_code, 2) << show(d);
  EXPECT_NE(d.err.find("'q' is not a size"), std::string::npos) << show(d);
  CliResult e = run({"--target", "vulkan"});
  EXPECT_EQ(e.exit_code, 2) << show(e);
  EXPECT_NE(e.err.find("unknown target 'vulkan' (available: c, openmp, opencl, cuda)"),
            std::string::npos)
      << show(e);
  CliResult f = run_risec({"run", "examples/mv/mv.rise", "--size", "n=4"});
  EXPECT_EQ(f.exit_code, 1) << show(f);
  EXPECT_NE(f.err.find("size m has no value; pass --size"), std::string::npos) << show(f);
  CliResult h = run_risec({"run", "--help"});
  EXPECT_EQ(h.exit_code, 0) << show(h);
  EXPECT_NE(h.out.find("--check"), std::string::npos) << show(h);
}

// An option that a command's synopsis and help do not name is refused, not ignored;
// the ones they name are taken (-o and --output alike).
TEST(Cli, OptionsACommandDoesNotTakeAreRefused) {
  struct Case {
    std::vector<std::string> args;
    std::string flag;
  };
  const std::vector<Case> refused = {
      {{"check", "examples/mv/mv.rise", "--target", "openmp"}, "--target"},
      {{"print", "examples/mv/mv.rise", "--check"}, "--check"},
      {{"eval", "examples/mv/mv.rise", "--size", "n=4,m=3", "--strategy", "lowerToC"},
       "--strategy"},
      {{"rewrite", "examples/mv/mv.rise", "--strategy", "lowerToC", "--no-shift-tails"},
       "--no-shift-tails"},
      {{"compile", "examples/mv/mv.rise", "--repeat=3"}, "--repeat"},
      {{"graph", "examples/mv/mv.rise", "--db", "x.db"}, "--db"},
  };
  for (const Case& c : refused) {
    CliResult r = run_risec(c.args);
    EXPECT_EQ(r.exit_code, 2) << show(r);
    EXPECT_NE(r.err.find("risec " + c.args[0] + " does not take " + c.flag), std::string::npos)
        << show(r);
  }
  std::string out = scratch_path("mv_options.c");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"compile", "examples/mv/mv.rise", "--trace", "--dump-dpia", "-o", out},
           {"compile", "examples/mv/mv.rise", "--output=" + out},
           {"graph", "examples/mv/mv.rise", "--strategy", "lowerToC", "--trace"},
           {"print", "examples/mv/mv.rise", "--types"}}) {
    CliResult r = run_risec(args);
    EXPECT_EQ(r.exit_code, 0) << show(r);
  }
}

TEST(RunCli, MismatchIsExitCode3NamingTheFirstElement) {
  // A header forced in through $RISEC_CFLAGS replaces erff, which blackscholes uses,
  // by a constant: the compiled results are wrong, deterministically.
  std::string header =
      write_scratch("wrong_erff.h", "#include <math.h>\n#define erff(x) (0.25f)\n");
  CliResult r = run_risec({"run", "examples/blackscholes/blackscholes.rise", "--size", "n=16",
                           "--check", "--output", scratch_path("wrong.npy")},
                          {"RISEC_CFLAGS=-include " + header});
  EXPECT_EQ(r.exit_code, 3) << show(r);
  EXPECT_NE(r.err.find("check failed: "), std::string::npos) << show(r);
  EXPECT_NE(r.err.find("%) differ from the interpreter (rtol 0.0001, atol 1e-05); first: "
                       "element [0]._1: "),
            std::string::npos)
      << show(r);
  // the share of the elements that differ, after their count
  EXPECT_NE(r.err.find(" of 32 elements ("), std::string::npos) << show(r);
  EXPECT_NE(r.out.find("time: "), std::string::npos) << show(r);
  EXPECT_EQ(r.out.find("check: passed"), std::string::npos) << show(r);
}

TEST(RunCli, FailingCompilerIsExitCode4WithItsOutput) {
  // $CC is part of the cache key, so this never finds a cached object.
  CliResult r =
      run_risec({"run", "examples/mv/mv.rise", "--size", "n=4,m=3"}, {"CC=/nonexistent/risec-cc"});
  EXPECT_EQ(r.exit_code, 4) << show(r);
  EXPECT_NE(r.err.find("cannot run '/nonexistent/risec-cc'"), std::string::npos) << show(r);
  CliResult f = run_risec({"run", "examples/mv/mv.rise", "--size", "n=4,m=3"},
                          {"RISEC_CFLAGS=-DRISEC_BROKEN=( -include risec_no_such_header.h"});
  EXPECT_EQ(f.exit_code, 4) << show(f);
  EXPECT_NE(f.err.find("the C compiler failed"), std::string::npos) << show(f);
  EXPECT_NE(f.err.find("risec_no_such_header.h"), std::string::npos) << show(f);
}

// A shared object whose entry the flags hid is an error naming the likely cause, and it
// is not kept in the cache (held-out R2: `risec run` kept it, with a bare "has no
// function").
TEST(RunCli, AHiddenEntryIsNamedAndNotCached) {
  const std::string cache = scratch_path("hidden_cache");
  for (int attempt = 0; attempt < 2; ++attempt) {
    CliResult r = run_risec({"run", "examples/mv/mv.rise", "--size", "n=4,m=3"},
                            {"RISEC_CFLAGS=-fvisibility=hidden", "RISEC_CACHE_DIR=" + cache});
    EXPECT_EQ(r.exit_code, 4) << show(r);
    EXPECT_NE(r.err.find("has no function"), std::string::npos) << show(r);
    EXPECT_NE(r.err.find("-fvisibility=hidden in RISEC_CFLAGS"), std::string::npos) << show(r);
    for (const auto& f : std::filesystem::directory_iterator(cache))
      EXPECT_NE(f.path().extension(), ".so") << f.path();
  }
}

// A compiler started under RISEC_COMPILE_TIMEOUT leads a process group of its own (so
// that the timeout kills what it started), which a signal to risec's group does not
// reach: risec kills it when it dies of SIGTERM or SIGINT (held-out R: Ctrl-C and
// `timeout 2 risec ...` left a hanging compiler running, adopted by init).
TEST(RunCli, ACompilerUnderATimeoutDiesWithRisec) {
  const std::string pid_file = scratch_path("hang_cc.pid");
  const std::string hang =
      write_scratch("hang_cc.sh", "#!/bin/sh\necho $$ > '" + pid_file + "'\nexec sleep 57\n");
  ASSERT_EQ(::chmod(hang.c_str(), 0755), 0);
  const std::string script = "CC='" + hang + "' RISEC_COMPILE_TIMEOUT=100 RISEC_CACHE_DIR='" +
                             scratch_path("hang_cache") + "' '" + risec::test::risec_binary() +
                             "' run examples/mv/mv.rise --size n=4,m=3 & p=$!\n"
                             "for i in 1 2 3 4 5 6 7 8 9 10; do [ -s '" +
                             pid_file +
                             "' ] && break; sleep 0.5; done\n"
                             "kill -TERM $p; wait $p; echo rc=$?\nsleep 0.5\n"
                             // gone, or a zombie that its new parent has not reaped yet
                             "case \"$(sed 's/.*) //' /proc/$(cat '" +
                             pid_file +
                             "')/stat 2>/dev/null)\" in ''|Z*) echo gone;; *) echo alive;; esac\n";
  runtime::ProcessResult r = runtime::run_process({"sh", "-c", script});
  EXPECT_NE(r.out.find("rc=143"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("gone"), std::string::npos) << r.out << r.err;
}

}  // namespace
}  // namespace risec::e2e
