// `risec tune --target opencl|cuda` without --strategy (docs/tuning.md, "GPU targets")
// through the binary: on the OpenCL device present (PoCL here), a short search on a
// map, a matrix product, a stencil and a reduction writes a strategy that `risec run
// --check` accepts and that `compile --tuned` uses, the default lowering measured
// first; with no CUDA device, `tune --target cuda` stops before searching with exit 4
// and says why. No assertion depends on the times measured.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "driver/gpu_device.h"
#include "e2e_util.h"
#include "runtime/process.h"

namespace risec::e2e {
namespace {

void tune_gpu_and_check(const std::string& file, const std::string& sizes, const std::string& out) {
  const std::string best = scratch_path(out), db = scratch_path(out + ".db");
  std::remove(db.c_str());
  CliResult r = run_risec({"tune", file, "--size", sizes, "--target", "opencl", "--budget", "2",
                           "--repeat", "1", "--explain", "--db", db, "-o", best});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.err.find("autoschedule: measuring on OpenCL: "), std::string::npos) << show(r);
  EXPECT_NE(r.err.find("autoschedule: [1/2] the default lowering: "), std::string::npos) << show(r);
  EXPECT_NE(r.err.find("autoschedule: [2/2] structure "), std::string::npos) << show(r);
  EXPECT_NE(r.err.find("  mapped:     "), std::string::npos) << show(r);
  const std::string written = runtime::read_file(best);
  EXPECT_EQ(written.rfind("// risec tune (autoschedule, opencl): ", 0), 0u) << written;
  EXPECT_NE(written.find(", on OpenCL: platform "), std::string::npos) << written;
  CliResult run = run_risec(
      {"run", file, "--strategy", best, "--size", sizes, "--target", "opencl", "--check"});
  EXPECT_EQ(run.exit_code, 0) << show(run) << written;
  // The record is keyed by the device: --tuned on this machine finds it.
  CliResult tuned =
      run_risec({"compile", file, "--size", sizes, "--target", "opencl", "--tuned", "--db", db});
  CliResult direct =
      run_risec({"compile", file, "--size", sizes, "--target", "opencl", "--strategy", best});
  ASSERT_EQ(tuned.exit_code, 0) << show(tuned);
  EXPECT_EQ(tuned.err.find("no tuning record"), std::string::npos) << show(tuned);
  EXPECT_EQ(tuned.out, direct.out);
}

TEST(AutoscheduleGpuCli, OpenCLWritesAStrategyThatRunChecks) {
  std::string why;
  if (!driver::probe_gpu_device("opencl", &why)) GTEST_SKIP() << "no OpenCL device: " << why;
  tune_gpu_and_check("examples/scal/scal.rise", "n=4096", "gpu_scal_best.elv");
  tune_gpu_and_check("examples/mm/mm.rise", "n=64,m=64,k=32", "gpu_mm_best.elv");
  tune_gpu_and_check("examples/gaussian/gaussian.rise", "n=64,m=64", "gpu_gauss_best.elv");
  tune_gpu_and_check("examples/dot/dot.rise", "n=4096", "gpu_dot_best.elv");
}

// A candidate's first call builds its kernels (PoCL: a second or more, uncached in a
// fresh PoCL cache) where its kernel takes microseconds: the time limit of a candidate
// starts after that build (runtime/isolated.h), so the local-tile candidates of a mm
// are measured, not "killed at this time limit" (before, every one was).
TEST(AutoscheduleGpuCli, TheKernelsBuildIsNotCountedInACandidatesTimeLimit) {
  std::string why;
  if (!driver::probe_gpu_device("opencl", &why)) GTEST_SKIP() << "no OpenCL device: " << why;
  const std::string cache = scratch_path("gpu_fresh_pocl_cache"), db = scratch_path("gpu_kill.db");
  std::filesystem::remove_all(cache);
  std::filesystem::create_directories(cache);
  std::remove(db.c_str());
  CliResult r = run_risec({"tune", "--workers", "1", "examples/mm/mm.rise", "--size",
                           "n=128,m=128,k=128", "--target", "opencl", "--budget", "3", "--db", db},
                          {"POCL_CACHE_DIR=" + cache});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.err.find("autoschedule: [3/3] structure "), std::string::npos) << show(r);
  EXPECT_EQ(r.err.find("killed"), std::string::npos) << show(r);
  std::filesystem::remove_all(cache);
}

TEST(AutoscheduleGpuCli, CudaWithoutADeviceStopsBeforeSearching) {
  std::string why;
  if (driver::probe_gpu_device("cuda", &why))
    GTEST_SKIP() << "a CUDA device is present: the message for a machine without one is not tested";
  const std::string db = scratch_path("gpu_cuda_none.db");
  std::remove(db.c_str());
  CliResult r = run_risec(
      {"tune", "examples/mm/mm.rise", "--size", "n=64,m=64,k=64", "--target", "cuda", "--db", db});
  EXPECT_EQ(r.exit_code, 4) << show(r);
  EXPECT_NE(r.err.find("tune --target cuda: no CUDA device to measure the candidates on ("),
            std::string::npos)
      << show(r);
  EXPECT_EQ(r.err.find("autoschedule: ["), std::string::npos) << show(r);  // nothing measured
  EXPECT_TRUE(r.out.empty()) << show(r);                                   // nothing written
}

}  // namespace
}  // namespace risec::e2e
