// Calling saxpy compiled ahead of time: risec_add_kernel (CMakeLists.txt) ran
// `risec compile` at build time, producing the static library saxpy_kernel and its
// header, which declares `void saxpy(float* output, int64_t n, const float* a,
// const float* x, const float* y)`. No risec at run time.
#include <cmath>
#include <cstdio>
#include <vector>

#include "saxpy_kernel.h"

int main() {
  const int64_t n = 1024;  // vector16.elv needs 16 | n (the header says so)
  float a = -0.5f;
  std::vector<float> x(n), y(n), out(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = float(i % 13);
    y[i] = float(i) * 0.25f;
  }
  saxpy(out.data(), n, &a, x.data(), y.data());
  for (int64_t i = 0; i < n; ++i)
    if (std::fabs(out[i] - (a * x[i] + y[i])) > 1e-4f * (1 + std::fabs(a * x[i] + y[i]))) {
      std::fprintf(stderr, "aot: element %lld is %g, expected %g\n", (long long)i, out[i],
                   a * x[i] + y[i]);
      return 1;
    }
  std::printf("aot: %lld elements right\n", (long long)n);
  return 0;
}
