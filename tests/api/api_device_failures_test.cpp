// Failures of the device in a kernel called in this process (docs/api.md "Errors"): no
// OpenCL platform that $RISEC_OPENCL_PLATFORM names, kernels the OpenCL compiler refuses
// (PoCL's $POCL_EXTRA_BUILD_FLAGS breaks their source), a buffer larger than the device
// allows. Each is an Error (External) with the words the standalone program prints, the
// process goes on, and the kernel stays usable: the next call sets up again (after a
// failed set-up: right once the platform is there, the same error while the kernels
// still do not build) or runs (after a failed run) and gives the right result;
// destroying the kernel after a failure is safe. Without RISEC_DEVICE_FAILED's recording each of
// these calls ends the test process (abort()). Only the public headers.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "in_child.h"
#include "risec/risec.h"

namespace {

// out[i] = xs[i] * (the sum of xs): two launches with an n*n temporary between them
// (exact in i32).
const char* const kDeviceOuter = R"(def outer = depFun(n: Nat => fun(xs: n.i32 =>
  xs |> map(fun(a => xs |> map(fun(b => a * b)))) |> toMem
     |> map(fun(row => row |> reduce(fun(p, q => p + q))(0)))))
)";
const char* const kDeviceStrategy = "mapGlobal(0) @ outermost(isApplied(isMap)) ; lowerToC";

risec::Kernel device_outer_kernel() {
  risec::CompileOptions o;
  o.target = "opencl";
  o.strategy = risec::Strategy::parse(kDeviceStrategy);
  return risec::jit(risec::Program::parse(kDeviceOuter), o);
}

// Calls `k` at size n on 1..n, expecting the result ("" when right, else what is wrong).
std::string device_outer_call(const risec::Kernel& k, int64_t n) {
  std::vector<int32_t> xs(static_cast<size_t>(n)), out(static_cast<size_t>(n), -7);
  int32_t sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    xs[static_cast<size_t>(i)] = static_cast<int32_t>(i % 13 - 6);
    sum += xs[static_cast<size_t>(i)];
  }
  k(out, {xs}, {{"n", n}});
  for (int64_t i = 0; i < n; ++i)
    if (out[static_cast<size_t>(i)] != xs[static_cast<size_t>(i)] * sum)
      return "out[" + std::to_string(i) + "] = " + std::to_string(out[static_cast<size_t>(i)]) +
             ", expected " + std::to_string(xs[static_cast<size_t>(i)] * sum);
  return "";
}

// The message of the Error of a call at size n, expected External (exit code 4), with
// no trailing newline; "" when there was none.
std::string device_error_of(const risec::Kernel& k, int64_t n, const std::string& where) {
  try {
    const std::string wrong = device_outer_call(k, n);
    ADD_FAILURE() << where << ": no error (" << (wrong.empty() ? "a right result" : wrong) << ")";
  } catch (const risec::Error& e) {
    EXPECT_EQ(e.kind(), risec::ErrorKind::External) << where << ": " << e.message();
    EXPECT_EQ(risec::exit_code(e.kind()), 4) << where;
    EXPECT_NE(e.message().back(), '\n') << where;
    return e.message();
  }
  return "";
}

// Sets an environment variable for a scope; unsets it after (these tests' variables
// are unset in the tests' environment, checked first).
struct DeviceEnvVar {
  const char* name;
  DeviceEnvVar(const char* n, const char* value) : name(n) { ::setenv(n, value, 1); }
  ~DeviceEnvVar() { ::unsetenv(name); }
};

// Whether OpenCL runs here: the kernel loads and gives the right result.
bool device_opencl_runs() {
  try {
    const std::string wrong = device_outer_call(device_outer_kernel(), 16);
    if (!wrong.empty()) ADD_FAILURE() << wrong;
    return true;
  } catch (const risec::Error& e) {
    std::fprintf(stderr, "no OpenCL device: %s\n", e.message().c_str());
    return false;
  }
}

void expect_device_child_passed(int status) {
  if (status == 3) GTEST_SKIP() << "no OpenCL device (on stderr)";
  EXPECT_EQ(status, 0) << "1: a failed expectation, 2: an error (on stderr)";
}

TEST(ApiDeviceFailures, AnUnknownOpenCLPlatformIsAnErrorAndTheNextCallSetsUp) {
  ASSERT_EQ(std::getenv("RISEC_OPENCL_PLATFORM"), nullptr);
  expect_device_child_passed(risec::test::run_in_child([] {
    if (!device_opencl_runs()) return 3;
    risec::Kernel k = device_outer_kernel();
    {
      DeviceEnvVar platform("RISEC_OPENCL_PLATFORM", "nonexistent");
      const std::string msg =
          "no OpenCL platform with a device matches RISEC_OPENCL_PLATFORM=nonexistent";
      EXPECT_EQ(device_error_of(k, 64, "the first call"), msg);
      EXPECT_EQ(device_error_of(k, 64, "the second call"), msg);
      // A kernel destroyed after its set-up failed, never set up: nothing to release.
      risec::Kernel other = device_outer_kernel();
      EXPECT_EQ(device_error_of(other, 8, "another kernel"), msg);
    }
    EXPECT_EQ(device_outer_call(k, 64), "") << "the call with the variable unset";
    EXPECT_EQ(device_outer_call(k, 5), "") << "a call at another size";
    return 0;
  }));
}

TEST(ApiDeviceFailures, KernelsTheOpenCLCompilerRefusesAreAnErrorWithItsLog) {
  ASSERT_EQ(std::getenv("POCL_EXTRA_BUILD_FLAGS"), nullptr);
  expect_device_child_passed(risec::test::run_in_child([] {
    if (!device_opencl_runs()) return 3;
    risec::Kernel k = device_outer_kernel();
    // PoCL compiles the kernels with these flags too: `__kernel` becomes a syntax error.
    // (PoCL keeps the flags it first saw: the kernels never build in this process again.)
    DeviceEnvVar flags("POCL_EXTRA_BUILD_FLAGS", "-D__kernel=(");
    for (const char* call : {"the first call", "the second call (set up again)"}) {
      const std::string msg = device_error_of(k, 32, call);
      EXPECT_EQ(msg.rfind("the OpenCL kernels do not build:\n", 0), 0u) << call << ": " << msg;
      EXPECT_NE(msg.find("error"), std::string::npos) << call << ": " << msg;  // the log
    }
    return 0;
  }));
}

TEST(ApiDeviceFailures, ABufferTooLargeForTheDeviceIsAnErrorAndTheKernelStaysUsable) {
  expect_device_child_passed(risec::test::run_in_child([] {
    if (!device_opencl_runs()) return 3;
    risec::Kernel k = device_outer_kernel();
    EXPECT_EQ(device_outer_call(k, 100), "") << "a first call";
    // The n*n temporary of n = 100000: 40 GB, beyond what a device gives one buffer
    // (PoCL: 4 GiB; CL_INVALID_BUFFER_SIZE, -61) and refused before any kernel runs.
    const std::string msg = device_error_of(k, 100000, "the call at n = 100000");
    EXPECT_EQ(msg.rfind("OpenCL error -", 0), 0u) << msg;
    EXPECT_NE(msg.find(" in clCreateBuffer of 40000000000 bytes"), std::string::npos) << msg;
    EXPECT_EQ(device_outer_call(k, 100), "") << "the call after the failure";
    EXPECT_EQ(device_outer_call(k, 7), "") << "a call at another size";
    return 0;
  }));
}

}  // namespace
