// Held-out finding F6: a kernel the default lowering runs as one work item (a
// sequential computation at the top, such as a column sum accumulated into a global
// buffer: no strided loop, launched with global size 1) keeps its one work item
// whatever --global/--local ($RISEC_OPENCL_GLOBAL/LOCAL, $RISEC_CUDA_GLOBAL/LOCAL) say.
// Resized, each of the work items ran the whole sequential code on the same buffer
// concurrently (PoCL: 492 of 500 column sums wrong). Only the strided parallel kernels
// take the overrides (docs/targets.md, "Launch model").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../driver/sanitized_sample.h"
#include "codegen/gpu/gpu_printer.h"
#include "driver/commands.h"
#include "e2e_util.h"
#include "runtime/jit.h"
#include "runtime/process.h"
#include "support/diagnostics.h"

using namespace risec;

namespace {

// The findings' programs: a sequential reduction of rows into a row (one work item,
// then nothing else), and the same column sum feeding a parallel stencil.
const char* kOneItemColsum = R"(def colsum = depFun((n: Nat, m: Nat) =>
  fun(x: n.m.f32 =>
    x |> reduce(fun(acc => fun(row => zip(acc)(row) |> map(fun(p => p._1 + p._2)))))(generate(fun(i => 0.0f)))))
)";
const char* kOneItemArracc = R"(def aa = depFun((n: Nat, m: Nat) =>
  fun(x: n.m.f32 =>
    let cs = x |> reduce(fun(acc => fun(row => zip(acc)(row) |> map(fun(p => p._1 + p._2)))))(generate(fun(i => 0.0f)))
    in let sm = cs |> padClamp(1)(1) |> slide(3)(1) |> map(fun(w => w[0] + w[1] + w[2]))
    in x |> padCst2D(1)(1)(0.0f) |> slide2D(3)(1) |> map2D(fun(nb => nb |> join |> reduce(add)(0.0f))) |> map(fun(r => zip(r)(sm) |> map(fun(p => p._1 * p._2))))))
)";

driver::Compiled one_item_compile(const std::string& file, const std::string& sizes,
                                  const std::string& target) {
  rise::Program p = driver::load_program(file);
  rise::SizeMap known = driver::parse_sizes({sizes});
  driver::CompileRequest req;
  req.program = &p;
  req.sizes = &known;
  req.target = target;
  return driver::compile(req);
}

// The race showed in every run at these sizes with 256 groups of one work item (and
// in most with --global 64 alone); --check must pass with any launch size now.
TEST(OneItemLaunch, OpenclOverridesDoNotResizeASequentialKernel) {
  const std::string colsum = e2e::write_scratch("oneitem_colsum.rise", kOneItemColsum);
  const std::string arracc = e2e::write_scratch("oneitem_arracc.rise", kOneItemArracc);
  const std::vector<std::vector<std::string>> launches = {{"--global", "256", "--local", "1"},
                                                          {"--global", "64"}};
  for (const std::string& file : {colsum, arracc})
    for (const std::vector<std::string>& launch : launches) {
      // 10^7 elements (the race showed in 492 of 500 columns); under the sanitizers,
      // whose interpreter runs --check about 8 times slower, 10^6 (sanitized_sample.h).
      std::vector<std::string> args = {
          "run",      file,
          "--size",   risec::test::sanitized_sample() ? "n=2000,m=500" : "n=20000,m=500",
          "--target", "opencl",
          "--check"};
      args.insert(args.end(), launch.begin(), launch.end());
      SCOPED_TRACE(file + " " + launch[1]);
      e2e::CliResult r = e2e::run_risec(args);
      EXPECT_EQ(r.exit_code, 0) << e2e::show(r);
      EXPECT_NE(r.out.find("check: passed"), std::string::npos) << r.out;
    }
  // The host says so: the sequential kernel is launched as one work item (the flag
  // before its event), the parallel one of the stencil takes the overrides.
  driver::Compiled c = one_item_compile(arracc, "n=13,m=7", "opencl");
  const std::string& host = c.unit.source;
  EXPECT_NE(host.find("risec_launch(risec_kernels[0], 1, risec_global, risec_local, risec_need, "
                      "0, 1, &risec_ev[0])"),
            std::string::npos)
      << host;
  EXPECT_NE(host.find(", 0, &risec_ev[1])"), std::string::npos) << host;
  EXPECT_NE(host.find("risec_launch_size(one ? NULL : \"RISEC_OPENCL_GLOBAL\""), std::string::npos)
      << host;
}

// CUDA: the sequential kernel's risec_shape call asks for one thread (1 x 1 x 1, flag
// set), so $RISEC_CUDA_GLOBAL/LOCAL are not read for it; the code compiles with nvcc.
TEST(OneItemLaunch, CudaOverridesDoNotResizeASequentialKernel) {
  const std::string colsum = e2e::write_scratch("oneitem_cu_colsum.rise", kOneItemColsum);
  driver::Compiled c = one_item_compile(colsum, "n=13,m=7", "cuda");
  const std::string& host = c.unit.source;
  EXPECT_NE(host.find("size_t risec_global[3] = {1, 1, 1}, risec_local[3] = {1, 1, 1}"),
            std::string::npos)
      << host;
  EXPECT_NE(host.find("risec_shape((const void*)(colsum_k0), 1, risec_global, risec_local, "
                      "risec_need, 1, &risec_grid[0], &risec_block[0])"),
            std::string::npos)
      << host;
  EXPECT_NE(host.find("risec_launch_size(one ? NULL : \"RISEC_CUDA_GLOBAL\", one ? NULL : "
                      "\"RISEC_CUDA_LOCAL\""),
            std::string::npos)
      << host;
  std::vector<std::string> cc;
  try {
    cc = runtime::nvcc_compiler();
  } catch (const Error&) {
    GTEST_SKIP() << "nvcc not found: the host code is not compiled";
  }
  const std::string cu = e2e::write_scratch("oneitem_colsum.cu", host);
  cc.insert(cc.end(), {"-arch=sm_90", "-c", "-Werror", "all-warnings", "-o",
                       e2e::scratch_path("oneitem_colsum.o"), cu});
  runtime::ProcessResult r = runtime::run_process(cc);
  EXPECT_TRUE(r.ok()) << r.describe() << "\n" << r.err << r.out;
}

// The helper itself: without variable names the environment's sizes are not applied
// (a sequential kernel's launch stays 1 work item), with them they are.
TEST(OneItemLaunch, LaunchSizeHelperIgnoresTheEnvironmentWithoutVariables) {
  const std::string c_text = std::string("#include <stdio.h>\n#include <stdlib.h>\n") +
                             codegen::gpu::kLaunchSizeHelpers + R"(
int main(void) {
  size_t max_items[3] = {1024, 1024, 1024}, need[3] = {0, 0, 0};
  size_t g1[3] = {1, 1, 1}, l1[3] = {1, 1, 1}, g2[3] = {1, 1, 1}, l2[3] = {1, 1, 1};
  int one = risec_launch_size(NULL, NULL, 1, g1, l1, need, 0, 1024, max_items);
  int par = risec_launch_size("ONEITEM_GLOBAL", "ONEITEM_LOCAL", 1, g2, l2, need, 0, 1024, max_items);
  printf("%d %lu %lu | %d %lu %lu\n", one, (unsigned long)g1[0], (unsigned long)l1[0], par,
         (unsigned long)g2[0], (unsigned long)l2[0]);
  return 0;
}
)";
  const std::string src = e2e::write_scratch("oneitem_helper.c", c_text);
  const std::string exe = e2e::scratch_path("oneitem_helper");
  std::vector<std::string> cc = runtime::c_compiler();
  cc.insert(cc.end(), {"-std=gnu99", "-Wall", "-Werror", "-o", exe, src});
  runtime::ProcessResult built = runtime::run_process(cc);
  ASSERT_TRUE(built.ok()) << built.describe() << "\n" << built.err;
  runtime::ProcessResult r =
      runtime::run_process({"env", "ONEITEM_GLOBAL=256", "ONEITEM_LOCAL=4", exe});
  ASSERT_TRUE(r.ok()) << r.describe() << "\n" << r.err;
  EXPECT_EQ(r.out, "0 1 1 | 1 256 4\n");
}

}  // namespace
