// A strategy tuned at some sizes (its first step `tunedAt`) under --bind: the program
// is specialised to the sizes --size gives and the bound inputs' shapes fix, and the
// strategy applies at exactly those (held-out finding F2: binding dropped them, so
// tunedAt saw "n symbolic (no --size: generic code)" although --size was given). With
// --tuned the record of those sizes is used; at other sizes, a refusal naming the
// program's sizes, or the default lowering after the note.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "driver/commands.h"
#include "driver/trial_db.h"
#include "driver/tuned.h"
#include "e2e_util.h"
#include "runtime/npy.h"

namespace risec::e2e {
namespace {

const char* const kTunedBindBlur =
    "def blurpad = depFun((n: Nat, m: Nat) =>\n"
    "  fun(img: n.m.f32 =>\n"
    "    img |> padCst2D(1)(1)(0.0f) |> slide2D(3)(1)\n"
    "      |> map2D(fun(nbh => (nbh |> join |> reduce(add)(0.0f)) / 9.0f))))\n";

// splitJoin: the code differs from the default lowering's, so that the record's use shows.
const char* const kTunedBindStrategy =
    "tunedAt(n, 26, m, 14) ; splitJoin(2) @ outermost(isFullyApplied(isMap)) ; lowerToC";

// An n x m image of values in [-5, -4), as a .npy file in the scratch directory.
std::string tuned_bind_image(int64_t n, int64_t m) {
  runtime::NdArray a = runtime::make_array(runtime::DType::F32, {n, m});
  for (int64_t i = 0; i < a.count(); ++i)
    a.as<float>()[i] = -5.0f + static_cast<float>((i * 37) % 100) / 100.0f;
  std::string path =
      scratch_path("tuned_bind_" + std::to_string(n) + "x" + std::to_string(m) + ".npy");
  runtime::write_npy(path, a);
  return path;
}

TEST(TunedBindCli, TunedAtHoldsAtTheSizesOfTheBoundProgram) {
  const std::string file = write_scratch("tuned_bind_blur.rise", kTunedBindBlur);
  const std::string img = "img=" + tuned_bind_image(26, 14);
  // --size and the bound shape agree; the shape alone fixes the sizes too.
  for (const std::vector<std::string>& sizes :
       std::vector<std::vector<std::string>>{{"--size", "n=26,m=14"}, {}}) {
    std::vector<std::string> args = {"run",    file, "--strategy", kTunedBindStrategy,
                                     "--bind", img,  "--check"};
    args.insert(args.end(), sizes.begin(), sizes.end());
    CliResult r = run_risec(args);
    EXPECT_EQ(r.exit_code, 0) << show(r);
    EXPECT_NE(r.out.find("check: passed"), std::string::npos) << show(r);
    args = {"compile", file, "--strategy", kTunedBindStrategy, "--bind", img};
    args.insert(args.end(), sizes.begin(), sizes.end());
    CliResult c = run_risec(args);
    EXPECT_EQ(c.exit_code, 0) << show(c);
    args = {"rewrite", file, "--strategy", kTunedBindStrategy, "--bind", img};
    args.insert(args.end(), sizes.begin(), sizes.end());
    CliResult w = run_risec(args);
    EXPECT_EQ(w.exit_code, 0) << show(w);
  }
}

TEST(TunedBindCli, OtherSizesAreRefusedNamingTheProgramsSizes) {
  const std::string file = write_scratch("tuned_bind_blur2.rise", kTunedBindBlur);
  // The bound image is 20 x 14: the program's sizes are known, and not the tuned ones.
  const std::string img = "img=" + tuned_bind_image(20, 14);
  for (const char* cmd : {"run", "compile"}) {
    CliResult r = run_risec({cmd, file, "--strategy", kTunedBindStrategy, "--bind", img});
    EXPECT_EQ(r.exit_code, 1) << show(r);
    EXPECT_NE(r.err.find("tunedAt: this strategy was tuned at sizes n=26,m=14"), std::string::npos)
        << show(r);
    EXPECT_NE(r.err.find("but here n=20,m=14; compile at sizes n=26,m=14, or tune again"),
              std::string::npos)
        << show(r);
    EXPECT_EQ(r.err.find("symbolic"), std::string::npos) << show(r);
    EXPECT_EQ(r.err.find("no --size"), std::string::npos) << show(r);
  }
  // Generic code (no --size, nothing bound): the sizes are symbolic, and it says so.
  CliResult g = run_risec({"compile", file, "--strategy", kTunedBindStrategy});
  EXPECT_EQ(g.exit_code, 1) << show(g);
  EXPECT_NE(g.err.find("but here n symbolic,m symbolic (no --size: generic code); compile with "
                       "--size n=26,m=14"),
            std::string::npos)
      << show(g);
}

// --tuned under --bind: the record of the sizes the program is specialised to (from
// --size or from the bound shape) is used; at other sizes the default lowering, after
// the note naming the sizes that have a record.
TEST(TunedBindCli, TunedRecordIsUsedUnderBind) {
  const std::string file = write_scratch("tuned_bind_blur3.rise", kTunedBindBlur);
  const std::string db = scratch_path("tuned_bind.db");
  {
    const rise::Program p = driver::load_program(file);
    driver::TrialDb d(db);
    ASSERT_TRUE(driver::record_best(d, driver::tuned_key(p, "", {{"n", 26}, {"m", 14}}, "c"),
                                    {kTunedBindStrategy, 1.0, "test"}));
  }
  const std::string img = "img=" + tuned_bind_image(26, 14);
  const std::string note = "note: no tuning record for this program on ";
  CliResult with_strategy =
      run_risec({"compile", file, "--strategy", kTunedBindStrategy, "--bind", img});
  ASSERT_EQ(with_strategy.exit_code, 0) << show(with_strategy);
  CliResult plain = run_risec({"compile", file, "--bind", img});
  ASSERT_EQ(plain.exit_code, 0) << show(plain);
  ASSERT_NE(plain.out, with_strategy.out);  // the record's code is told apart
  for (const std::vector<std::string>& sizes :
       std::vector<std::vector<std::string>>{{"--size", "n=26,m=14"}, {}}) {
    std::vector<std::string> args = {"run", file, "--tuned", "--db", db, "--bind", img, "--check"};
    args.insert(args.end(), sizes.begin(), sizes.end());
    CliResult r = run_risec(args);
    EXPECT_EQ(r.exit_code, 0) << show(r);
    EXPECT_NE(r.out.find("check: passed"), std::string::npos) << show(r);
    EXPECT_EQ(r.err.find(note), std::string::npos) << show(r);
    args = {"compile", file, "--tuned", "--db", db, "--bind", img};
    args.insert(args.end(), sizes.begin(), sizes.end());
    CliResult c = run_risec(args);
    EXPECT_EQ(c.exit_code, 0) << show(c);
    EXPECT_EQ(c.err.find(note), std::string::npos) << show(c);
    EXPECT_EQ(c.out, with_strategy.out);
  }
  // At other sizes: the default lowering, after the note.
  const std::string other = "img=" + tuned_bind_image(20, 14);
  CliResult r = run_risec({"run", file, "--tuned", "--db", db, "--bind", other, "--check"});
  EXPECT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.out.find("check: passed"), std::string::npos) << show(r);
  EXPECT_NE(r.err.find(note), std::string::npos) << show(r);
  EXPECT_NE(r.err.find("at sizes m=14,n=20"), std::string::npos) << show(r);
  EXPECT_NE(r.err.find("(records at other sizes: m=14,n=26)"), std::string::npos) << show(r);
  EXPECT_EQ(r.err.find("tunedAt"), std::string::npos) << show(r);
}

}  // namespace
}  // namespace risec::e2e
