// CLBlast, the OpenCL BLAS library, as a peer of bench_opencl's BLAS programs (gemv,
// atax, gesummv, mm; issue 36): its routines on bench_opencl's own device, context,
// queue and buffers, timed like the hand-written kernels (the profiling START..END of
// every kernel launched, summed).
//
// CLBlast's C API hands back the event of a routine's last kernel only, and a routine
// may launch several (Sgemm pads or transposes an operand first). So that every one
// is counted, bench_opencl defines clEnqueueNDRangeKernel itself (clblast_peer.cpp):
// CLBlast's calls reach it first, and while a CLBlast run is being timed it keeps each
// launch's event before passing the call on to the OpenCL library. A run whose
// returned event was not among those seen (the definition not in effect) fails rather
// than report a partial time.
//
// Built with CLBlast only where CMake finds it (bench/opencl/CMakeLists.txt:
// RISEC_HAVE_CLBLAST); otherwise clblast_missing() says why and nothing else is used.
#pragma once

#include <variant>
#include <vector>

#include "bench/opencl/cl_util.h"

namespace risec::bench::opencl {

// nullptr when bench_opencl was built with CLBlast, else why it was not.
const char* clblast_missing();

// y = alpha op(A) x + beta y, A row-major rows x cols, op(A) = A or its transpose.
struct Gemv {
  bool transpose = false;
  size_t rows = 0, cols = 0;
  float alpha = 1;
  cl_mem a = nullptr, x = nullptr;
  float beta = 0;
  cl_mem y = nullptr;
};

// C = A B, row-major: A n x k, B k x m, C n x m.
struct Gemm {
  size_t n = 0, m = 0, k = 0;
  cl_mem a = nullptr, b = nullptr, c = nullptr;
};

using BlasCall = std::variant<Gemv, Gemm>;

struct LibraryRun {
  double seconds = 0;  // every kernel's START..END, summed
  int kernels = 0;     // how many kernels CLBlast launched
};

// Runs `calls` in order on cl's queue with CLBlast, waits, and returns their kernel
// time. Throws Failure on a CLBlast error (with its status code).
LibraryRun clblast_run(const Cl& cl, const std::vector<BlasCall>& calls);

}  // namespace risec::bench::opencl
