// Faults of the data in a kernel called in this process (runtime::with_fault_recording,
// docs/api.md "Errors"): an index input out of range, natAsIndex and casts of bad
// values, index arithmetic out of range, integer division and modulo by zero and the
// least value divided by -1, in scalar and vector (lane) code, in OpenMP parallel
// loops and OpenCL kernels (on PoCL, where it runs). Each is an Error (Fault) with the
// words `risec run` prints, the process goes on, and the next call with good data gives
// the interpreter's result. Without the recording each of these calls ends the test
// process (abort()). Only the public headers.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "in_child.h"
#include "risec/risec.h"

namespace {

// A program of entry f over sizes n (and m) whose inputs are i32 arrays (and, with
// m, an f32 array x of m elements last), with good data and data holding one bad
// value, and the message of that value's fault.
struct FaultCase {
  const char* name;
  const char* program;
  const char* strategy;  // CPU targets; "" for the default lowering
  bool has_x;            // an input x: m.f32 after the i32 arrays
  int arrays;            // i32 input arrays of n elements
  // The i32 arrays: good values (`bad` false) or one bad value.
  std::function<std::vector<std::vector<int32_t>>(bool bad)> data;
  const char* what;  // "natAsIndex(4): 7 is out of range"
};

constexpr int64_t kFaultN = 64, kFaultM = 4;

// Indices in [0, below), one bad.
std::vector<std::vector<int32_t>> fault_indices(bool bad, int32_t bad_value, int64_t below) {
  std::vector<int32_t> xs(kFaultN);
  for (int64_t i = 0; i < kFaultN; ++i) xs[i] = static_cast<int32_t>((i * 7) % below);
  if (bad) xs[37] = bad_value;
  return {xs};
}

// Two arrays whose pairs divide; the bad one holds a zero divisor, or the least i32 over
// -1, at element 37.
std::vector<std::vector<int32_t>> fault_quotients(bool bad, bool overflow) {
  std::vector<int32_t> a(kFaultN), b(kFaultN);
  for (int64_t i = 0; i < kFaultN; ++i) {
    a[i] = static_cast<int32_t>(i * 13 - 300);
    b[i] = static_cast<int32_t>(i % 5 + 1) * (i % 2 ? -1 : 1);
  }
  if (bad && overflow) {
    a[37] = std::numeric_limits<int32_t>::min();
    b[37] = -1;
  } else if (bad) {
    b[37] = 0;
  }
  return {a, b};
}

const char* const kFaultIdx = R"(def f = depFun((n: Nat, m: Nat) => fun(xs: n.i32 => fun(x: m.f32 =>
  xs |> map(fun(v => idx(natAsIndex(m)(cast(v)))(x) * 2.0f)))))
)";
const char* const kFaultCast =
    R"(def f = depFun((n: Nat, m: Nat) => fun(xs: n.i32 => fun(x: m.f32 =>
  xs |> map(fun(v => idx(cast(v):idx[m])(x))))))
)";
const char* const kFaultSum = R"(def f = depFun((n: Nat, m: Nat) => fun(xs: n.i32 => fun(x: m.f32 =>
  xs |> map(fun(v => idx(add(natAsIndex(m)(cast(v)))(natAsIndex(m)(cast(v))))(x))))))
)";
const char* const kFaultInput =
    R"(def f = depFun((n: Nat, m: Nat) => fun(is: n.idx[m] => fun(x: m.f32 =>
  is |> map(fun(i => idx(i)(x) + 1.0f)))))
)";
const char* const kFaultDiv = R"(def f = depFun(n: Nat => fun(a: n.i32, b: n.i32 =>
  zip(a)(b) |> map(fun(p => p._1 / p._2))))
)";
const char* const kFaultMod = R"(def f = depFun(n: Nat => fun(a: n.i32, b: n.i32 =>
  zip(a)(b) |> map(fun(p => p._1 % p._2))))
)";

const char* const kFaultParallel = "try(parallel @ outermost(isApplied(isMap))) ; lowerToC";
const char* const kFaultLanes = "vectorize(4) @ innermost(isFullyApplied(isMap)) ; lowerToC";

std::vector<FaultCase> fault_cases() {
  auto idx = [](int32_t v, int64_t below = kFaultM) {
    return [v, below](bool bad) { return fault_indices(bad, v, below); };
  };
  auto quot = [](bool overflow) {
    return [overflow](bool bad) { return fault_quotients(bad, overflow); };
  };
  return {
      {"natAsIndex", kFaultIdx, "", true, 1, idx(7), "natAsIndex(4): 7 is out of range"},
      {"natCast", kFaultIdx, "", true, 1, idx(-3), "cast: the negative value -3 to natType"},
      {"cast", kFaultCast, "", true, 1, idx(9), "cast: 9 is out of range for idx[4]"},
      {"arithmetic", kFaultSum, "", true, 1, idx(3, 2),
       "index arithmetic: add gives 6, out of range for idx[4]"},
      {"input", kFaultInput, "", true, 1, idx(4), "input value 4 is out of range for idx[4]"},
      {"division", kFaultDiv, "", false, 2, quot(false), "integer division by zero (i32)"},
      {"modulo", kFaultMod, "", false, 2, quot(false), "integer modulo by zero (i32)"},
      {"overflow", kFaultDiv, "", false, 2, quot(true),
       "integer overflow: the least i32 divided by -1"},
      {"moduloOverflow", kFaultMod, "", false, 2, quot(true),
       "integer overflow: the least i32 modulo -1"},
      {"laneDivision", kFaultDiv, kFaultLanes, false, 2, quot(false),
       "integer division by zero (i32)"},
      {"laneOverflow", kFaultMod, kFaultLanes, false, 2, quot(true),
       "integer overflow: the least i32 modulo -1"},
  };
}

// Whether the OpenCL target runs here (PoCL or a GPU): a kernel of it loads and runs.
bool fault_opencl_runs(std::string* why) {
  try {
    risec::CompileOptions o;
    o.target = "opencl";
    risec::Kernel k = risec::jit(risec::Program::parse(kFaultMod), o);
    std::vector<int32_t> a(4, 6), b(4, 4), out(4);
    k(out, {a, b}, {{"n", 4}});
    return out[0] == 2;
  } catch (const risec::Error& e) {
    *why = e.message();
    return false;
  }
}

struct FaultCall {
  std::vector<std::vector<int32_t>> ints;
  std::vector<float> x;
  std::vector<risec::Buffer> inputs() {
    std::vector<risec::Buffer> in;
    for (auto& v : ints) in.emplace_back(v);
    if (!x.empty()) in.emplace_back(x);
    return in;
  }
  risec::Sizes sizes() const {
    risec::Sizes s = {{"n", kFaultN}};
    if (!x.empty()) s["m"] = kFaultM;
    return s;
  }
};

FaultCall fault_call(const FaultCase& c, bool bad) {
  FaultCall call;
  call.ints = c.data(bad);
  if (c.has_x) call.x = {0.5f, -1.25f, 3.0f, 8.0f};
  return call;
}

// The interpreter's result on good data, as bytes.
std::vector<unsigned char> fault_expected(const FaultCase& c) {
  FaultCall call = fault_call(c, false);
  std::vector<risec::ArrayRef> in;
  for (auto& v : call.ints) {
    risec::ArrayRef a;
    a.data = v.data();
    a.element = risec::ScalarType::I32;
    a.shape = {kFaultN};
    in.push_back(a);
  }
  if (c.has_x) {
    risec::ArrayRef a;
    a.data = call.x.data();
    a.shape = {kFaultM};
    in.push_back(a);
  }
  std::vector<risec::Array> r =
      risec::interpret(risec::Program::parse(c.program), in, "", call.sizes());
  return r.at(0).bytes;
}

// Calls `k` with the bad data (an Error (Fault) with the message), then the good data
// (the interpreter's result).
void expect_fault_then_result(const risec::Kernel& k, const FaultCase& c,
                              const std::string& where) {
  std::vector<unsigned char> want = fault_expected(c);
  std::vector<unsigned char> out(want.size());
  risec::Buffer output(static_cast<void*>(out.data()), out.size());
  FaultCall bad = fault_call(c, true);
  try {
    k(output, bad.inputs(), bad.sizes());
    ADD_FAILURE() << where << ": no error";
  } catch (const risec::Error& e) {
    EXPECT_EQ(e.kind(), risec::ErrorKind::Fault) << where << ": " << e.message();
    EXPECT_EQ(risec::exit_code(e.kind()), 4) << where;
    EXPECT_EQ(e.message(), std::string("the program stopped: f: ") + c.what) << where;
  }
  FaultCall good = fault_call(c, false);
  std::fill(out.begin(), out.end(), 0xAB);
  k(output, good.inputs(), good.sizes());
  EXPECT_EQ(out, want) << where << ": the call after the fault";
}

TEST(ApiFaults, EachFaultKindIsAnErrorOnEveryCpuTarget) {
  for (const FaultCase& c : fault_cases())
    for (const char* target : {"c", "openmp"}) {
      risec::CompileOptions o;
      o.target = target;
      std::string strategy = c.strategy;
      // OpenMP: the map is a parallel loop (after the lanes' vectorize, if any).
      if (std::string(target) == "openmp")
        strategy = strategy.empty() ? kFaultParallel
                                    : "vectorize(4) @ innermost(isFullyApplied(isMap)) ; " +
                                          std::string(kFaultParallel);
      if (!strategy.empty()) o.strategy = risec::Strategy::parse(strategy);
      risec::Kernel k = risec::jit(risec::Program::parse(c.program), o);
      const std::string& code = k.source().code();
      if (std::string(target) == "openmp") {
        EXPECT_NE(code.find("omp parallel"), std::string::npos) << c.name;
      }
      if (*c.strategy) {  // the lanes divide in a vector helper
        EXPECT_NE(code.find("_i32x4("), std::string::npos) << c.name << "\n" << code;
      }
      expect_fault_then_result(k, c, std::string(c.name) + " on " + target);
    }
}

TEST(ApiFaults, OpenCLKernelsFaultsAreErrors) {
  const int status = risec::test::run_in_child([] {
    std::string why;
    if (!fault_opencl_runs(&why)) {
      std::fprintf(stderr, "no OpenCL device: %s\n", why.c_str());
      return 3;
    }
    for (const FaultCase& c : fault_cases()) {
      if (*c.strategy) continue;  // the CPU targets' lanes
      risec::CompileOptions o;
      o.target = "opencl";
      o.strategy = risec::Strategy::parse("mapGlobal(0) @ outermost(isApplied(isMap)) ; lowerToC");
      risec::Kernel k = risec::jit(risec::Program::parse(c.program), o);
      expect_fault_then_result(k, c, std::string(c.name) + " on opencl");
    }
    return 0;
  });
  if (status == 3) GTEST_SKIP() << "no OpenCL device (on stderr)";
  EXPECT_EQ(status, 0) << "1: a failed expectation, 2: an error (on stderr)";
}

// One kernel called from two threads at once, one with bad data and one with good:
// a fault is its own call's (a thread-local record on c; on openmp, whose threads
// share the record, the calls take turns), never the other's.
TEST(ApiFaults, ConcurrentCallsSeeOnlyTheirOwnFaults) {
  const FaultCase c = fault_cases()[0];
  const std::vector<unsigned char> want = fault_expected(c);
  for (const char* target : {"c", "openmp"}) {
    risec::CompileOptions o;
    o.target = target;
    if (std::string(target) == "openmp") o.strategy = risec::Strategy::parse(kFaultParallel);
    risec::Kernel k = risec::jit(risec::Program::parse(c.program), o);
    std::atomic<int> missed{0}, spurious{0}, wrong_result{0};
    auto caller = [&](bool bad) {
      FaultCall call = fault_call(c, bad);
      std::vector<unsigned char> out(want.size());
      risec::Buffer output(static_cast<void*>(out.data()), out.size());
      for (int r = 0; r < 1500; ++r) {
        try {
          k(output, call.inputs(), call.sizes());
          if (bad) ++missed;
          if (!bad && out != want) ++wrong_result;
        } catch (const risec::Error&) {
          if (!bad) ++spurious;
        }
      }
    };
    std::thread t1(caller, true), t2(caller, false), t3(caller, false);
    t1.join();
    t2.join();
    t3.join();
    EXPECT_EQ(missed.load(), 0) << target;
    EXPECT_EQ(spurious.load(), 0) << target;
    EXPECT_EQ(wrong_result.load(), 0) << target;
  }
}

// A definition of the macro of the user's ($RISEC_CFLAGS) wins over the recording: here
// one that ignores the fault, so the call returns with the safe index 0 in its place.
TEST(ApiFaults, TheUsersDefinitionOfTheMacroWins) {
  const char* old = std::getenv("RISEC_CFLAGS");
  const std::string saved = old ? old : "";
  ::setenv("RISEC_CFLAGS", (saved + " -DRISEC_BOUNDS_FAILED(fn,what)=((void)0)").c_str(), 1);
  const FaultCase c = fault_cases()[0];
  try {
    risec::Kernel k = risec::jit(risec::Program::parse(c.program));
    FaultCall bad = fault_call(c, true);
    std::vector<float> out(kFaultN);
    k(out, bad.inputs(), bad.sizes());
    EXPECT_EQ(out[37], 2.0f * bad.x[0]);
    EXPECT_EQ(out[36], 2.0f * bad.x[static_cast<size_t>(bad.ints[0][36])]);
  } catch (const risec::Error& e) {
    ADD_FAILURE() << e.message();
  }
  if (old)
    ::setenv("RISEC_CFLAGS", saved.c_str(), 1);
  else
    ::unsetenv("RISEC_CFLAGS");
}

// Without a GPU, loading a CUDA kernel is an Error saying so (its first call would
// end the process); compiling it without loading still gives its code.
TEST(ApiFaults, CudaWithoutAGpuIsAnErrorAtLoad) {
  risec::CompileOptions o;
  o.target = "cuda";
  risec::Source s = risec::compile(risec::Program::parse(kFaultDiv), o);
  EXPECT_NE(s.code().find("__global__"), std::string::npos);
  try {
    risec::Kernel k(s);
    GTEST_SKIP() << "a CUDA GPU is here: the kernel loaded";
  } catch (const risec::Error& e) {
    // A GPU without a working nvcc: the compiler's error.
    if (e.message().find("no CUDA") == std::string::npos &&
        e.message().find("nvcc") != std::string::npos)
      GTEST_SKIP() << e.message();
    EXPECT_EQ(e.kind(), risec::ErrorKind::External) << e.message();
    EXPECT_NE(e.message().find("cannot load the CUDA kernel f: no CUDA"), std::string::npos)
        << e.message();
    EXPECT_NE(e.message().find("load=False"), std::string::npos) << e.message();
  }
}

}  // namespace
