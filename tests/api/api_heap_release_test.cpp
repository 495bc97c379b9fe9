// A kernel's kept heap buffers (docs/codegen.md, "Memory placement") are freed when
// the kernel is dropped: the generated unit's NAME__risec_release, which the runtime
// calls before unloading it. A process that compiles, calls and drops kernels (a
// notebook, a server) did grow by the intermediates of every kernel it had dropped.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "build_info.h"
#include "risec/risec.h"

namespace {

// Three intermediates of n floats each (n symbolic).
const char* kStages = R"(def multi = depFun((n: Nat) => fun(x: n.f32 => fun(y: n.f32 =>
  let a = x |> mapSeq(fun(v => v * 2.0f)) |> toMem in
  let b = zip(a)(y) |> mapSeq(fun(p => p._1 + p._2)) |> toMem in
  let c = b |> reverse |> mapSeq(fun(v => v - 1.0f)) |> toMem in
  zip(c)(a) |> mapSeq(fun(p => p._1 * p._2 + 0.5f)))))
)";

long resident_mib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6)) / 1024;
  return -1;
}

TEST(ApiHeapRelease, TheHeaderDeclaresTheRelease) {
  risec::Source s = risec::compile(risec::Program::parse(kStages), {});
  EXPECT_NE(s.header().find("void multi__risec_release(void);"), std::string::npos) << s.header();
  EXPECT_NE(s.code().find("void multi__risec_release(void) {"), std::string::npos);
}

TEST(ApiHeapRelease, DroppingAKernelFreesItsKeptBuffers) {
  if (risec::test::sanitized_build())
    GTEST_SKIP() << "AddressSanitizer's allocator keeps freed memory in quarantine: the "
                    "resident size says nothing there (the Release suite checks it)";
  const int64_t n = int64_t{24} << 20;  // 24 Mi floats: 96 MiB an intermediate
  std::vector<float> x(n, 1.0f), y(n, 2.0f), out(n);
  risec::ArrayRef xr, yr, o;
  xr.data = x.data();
  xr.shape = {n};
  yr.data = y.data();
  yr.shape = {n};
  o.data = out.data();
  o.shape = {n};
  const long before = resident_mib();
  for (int round = 0; round < 3; ++round) {
    risec::Kernel k = risec::jit(risec::Program::parse(kStages));
    k.call(o, {xr, yr}, {{"n", n}});
    // (2 * 1 + 2) - 1 = 3, times 2, plus 0.5
    ASSERT_FLOAT_EQ(out[0], 6.5f);
    ASSERT_FLOAT_EQ(out[n - 1], 6.5f);
    // While the kernel lives, its three blocks are kept (resident: written).
    EXPECT_GT(resident_mib() - before, 200) << "round " << round;
  }
  // Every kernel dropped: their 3 x 96 MiB are given back (before the release the
  // process held 288 MiB more after each round).
  EXPECT_LT(resident_mib() - before, 100);
}

}  // namespace
