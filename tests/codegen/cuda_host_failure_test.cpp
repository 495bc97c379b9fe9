// The CUDA host code loaded into this process on a machine without a GPU (the C++
// API's Kernel refuses to load it there, api_faults_test.cpp; this loads it as
// runtime::jit_compile does): its call is an Error (External) with "no CUDA GPU: ...",
// the process goes on, a second call says the same, and unloading is safe. Built with
// $RISEC_CUDA_ARCH (nvcc's -arch=native needs a GPU); skipped without nvcc, and where a
// GPU is present.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "compile_util.h"
#include "driver/gpu_device.h"
#include "runtime/jit.h"

namespace risec::test {
namespace {

TEST(CudaHostFailure, NoGpuInProcessIsAnErrorNotTheEndOfTheProcess) {
  std::string why;
  if (driver::probe_gpu_device("cuda", &why))
    GTEST_SKIP() << "a CUDA GPU is here: the host code's failure is not reached";
  try {
    runtime::nvcc_compiler();
  } catch (const Error& e) {
    GTEST_SKIP() << e.message();
  }
  const driver::Compiled c =
      compile_rise("def twice = depFun(n: Nat => fun(xs: n.f32 => xs |> map(fun(x => x * 2.0f))))",
                   "mapGlobal(0) @ outermost(isApplied(isMap)) ; lowerToC", {}, "cuda");
  const bool arch_given = std::getenv("RISEC_CUDA_ARCH") != nullptr;
  if (!arch_given) ::setenv("RISEC_CUDA_ARCH", "sm_80", 1);
  std::optional<runtime::Module> m;
  try {
    m.emplace(runtime::jit_compile(c.unit.source, c.unit.name, driver::c_compile_options(c)));
  } catch (const Error& e) {
    ADD_FAILURE() << e.message();
  }
  if (!arch_given) ::unsetenv("RISEC_CUDA_ARCH");
  if (!m) return;
  std::vector<float> xs(16, 1.5f), out(16, -1.0f);
  for (const char* call : {"the first call", "the second call"}) {
    try {
      m->call({out.data(), xs.data()}, {16});
      ADD_FAILURE() << call << ": no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::External) << call << ": " << e.message();
      EXPECT_EQ(e.message().rfind("no CUDA GPU: ", 0), 0u) << call << ": " << e.message();
      EXPECT_NE(e.message().find("; the CUDA target needs an NVIDIA GPU and its driver"),
                std::string::npos)
          << call << ": " << e.message();
    }
    EXPECT_EQ(out[0], -1.0f) << call << ": the output is not written";
  }
  m.reset();  // the release: nothing was made
}

}  // namespace
}  // namespace risec::test
