// iterate(k) with k a size parameter of generic code (compiled once, without sizes):
// the step count is known only at the call, which decides where the first step
// writes (the output when k = 1). Generic code called with k = 1 left its output
// unwritten.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "risec/risec.h"

namespace {

const char* kTreesum = R"(def treesum = depFun((m: Nat, k: Nat) => fun(x: (m*(2^k)).f32 =>
  x |> iterate(k)(depFun((l: Nat) => fun(a: (l*2).f32 =>
    a |> split(2) |> map(fun(p => p[0] + p[1])))))))
)";

TEST(ApiIterate, GenericCodeTakesEveryStepCountAtTheCall) {
  risec::Program p = risec::Program::parse(kTreesum);
  for (const char* target : {"c", "openmp"}) {
    SCOPED_TRACE(target);
    risec::CompileOptions o;
    o.target = target;
    risec::Kernel kernel = risec::jit(p, o);
    std::mt19937 g(5);
    for (int k : {1, 2, 1, 3, 1, 4}) {
      SCOPED_TRACE(k);
      const int64_t m = 3, n = m << k;
      std::vector<float> x(n), out(m, -1.0f);
      for (float& v : x) v = static_cast<float>(g() % 100) / 10.0f;
      risec::ArrayRef xr, o_ref;
      xr.data = x.data();
      xr.shape = {n};
      o_ref.data = out.data();
      o_ref.shape = {m};
      kernel.call(o_ref, {xr}, {{"m", m}, {"k", k}});
      for (int64_t i = 0; i < m; ++i) {
        float sum = 0;
        for (int64_t j = i << k; j < (i + 1) << k; ++j) sum += x[j];
        EXPECT_NEAR(out[i], sum, 1e-4f * (1 + std::fabs(sum))) << i;
      }
    }
  }
}

}  // namespace
