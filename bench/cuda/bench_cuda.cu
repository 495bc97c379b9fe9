// Matrix multiplication on the CUDA GPU (issue 13): cuBLAS SGEMM (FP32, no tensor
// cores), a straightforward hand-written CUDA kernel, and risec's CUDA kernels for
// each GPU strategy of examples/mm (or those given), C = A * B with A n x k, B k x m,
// row-major, at n = m = k = --size (4096 by default).
//
// cuBLAS and the hand-written kernel are timed here with CUDA events (the median of
// --repeat launches after a warm-up), on the same random inputs; the hand-written
// kernel's result is compared with cuBLAS's before it is timed. risec's kernels are
// timed by `risec run FILE --strategy S --target cuda --size .. --repeat N` in a
// child process (the median kernel time it prints, CUDA events around its launches);
// --check asks risec to compare with its interpreter too (slow: use a small --size).
// A failure of any row (no GPU, a strategy the target refuses) is printed as n/a
// with its reason; it never stops the benchmark. Transfers are not counted.
//
//   build/bench/bench_cuda [--size N] [--repeat R] [--check] [--strategy S.elv,..]
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Failure {
  std::string what;
};

void ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw Failure{std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) +
                  ")"};
}

void ok(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw Failure{std::string(what) + ": cuBLAS status " + std::to_string(static_cast<int>(s))};
}

// One thread per element of C, the dot product in a loop, global memory only.
__global__ void naive_mm(const float* A, const float* B, float* C, int n, int m, int k) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= m) return;
  float acc = 0.0f;
  for (int i = 0; i < k; ++i) acc += A[(size_t)row * k + i] * B[(size_t)i * m + col];
  C[(size_t)row * m + col] = acc;
}

// The median of `repeat` timings (ms, CUDA events) of `launch`, after one warm-up.
template <typename Launch>
double median_ms(int repeat, Launch launch) {
  cudaEvent_t start, stop;
  ok(cudaEventCreate(&start), "cudaEventCreate");
  ok(cudaEventCreate(&stop), "cudaEventCreate");
  launch();
  ok(cudaDeviceSynchronize(), "warm-up");
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    ok(cudaEventRecord(start), "cudaEventRecord");
    launch();
    ok(cudaGetLastError(), "launch");
    ok(cudaEventRecord(stop), "cudaEventRecord");
    ok(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    ok(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    times.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

struct Row {
  std::string name;
  double ms = -1;    // < 0: n/a
  std::string note;  // why n/a, or a remark
};

// `risec run` of examples/mm with strategy `elv`; the median kernel time it prints.
Row risec_row(const std::string& elv, int size, int repeat, bool check) {
  Row row;
  row.name = "risec " + std::filesystem::path(elv).stem().string();
  std::string sizes =
      "n=" + std::to_string(size) + ",m=" + std::to_string(size) + ",k=" + std::to_string(size);
  std::string cmd = std::string("'") + RISEC_BINARY +
                    "' run '" RISEC_SOURCE_DIR "/examples/mm/mm.rise' --strategy '" + elv +
                    "' --target cuda --size " + sizes + " --repeat " + std::to_string(repeat) +
                    (check ? " --check" : "") + " --output /dev/null 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    row.note = "cannot run risec";
    return row;
  }
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  int status = pclose(p);
  std::smatch m;
  static const std::regex median(R"(median\s+([0-9.eE+-]+)\s*(ms|us|s)\b)");
  if (status != 0 || !std::regex_search(out, m, median)) {
    std::string first = out.substr(0, out.find('\n'));
    row.note = first.empty() ? "risec failed" : first;
    return row;
  }
  double v = std::stod(m[1].str());
  row.ms = m[2] == "us" ? v / 1000 : m[2] == "s" ? v * 1000 : v;
  if (check) row.note = out.find("check: passed") != std::string::npos ? "check passed" : "check?";
  return row;
}

// The GPU strategies of examples/mm: the .elv files that use a GPU primitive.
std::vector<std::string> gpu_strategies() {
  std::vector<std::string> out;
  for (const auto& f : std::filesystem::directory_iterator(RISEC_SOURCE_DIR "/examples/mm")) {
    if (f.path().extension() != ".elv") continue;
    std::ifstream in(f.path());
    std::stringstream text;
    text << in.rdbuf();
    for (const char* w : {"mapGlobal", "mapWorkGroup", "mapLocal"})
      if (text.str().find(w) != std::string::npos) {
        out.push_back(f.path().string());
        break;
      }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int size = 4096, repeat = 10;
  bool check = false;
  std::vector<std::string> strategies;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--size" && i + 1 < argc) {
      size = std::atoi(argv[++i]);
    } else if (a == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--check") {
      check = true;
    } else if (a == "--strategy" && i + 1 < argc) {
      std::stringstream list(argv[++i]);
      for (std::string s; std::getline(list, s, ',');) strategies.push_back(s);
    } else {
      std::fprintf(stderr,
                   "usage: bench_cuda [--size N] [--repeat R] [--check] [--strategy S.elv,..]\n");
      return 2;
    }
  }
  if (size < 1) {
    std::fprintf(stderr, "bench_cuda: --size must be positive\n");
    return 2;
  }
  if (strategies.empty()) strategies = gpu_strategies();
  int devices = 0;
  cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    std::printf("bench_cuda: no CUDA GPU (%s); nothing measured\n",
                e != cudaSuccess ? cudaGetErrorString(e) : "no device");
    return 1;
  }
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  const double flops = 2.0 * size * size * size;
  std::printf("mm %d x %d x %d (FP32) on %s (sm_%d%d), median of %d\n", size, size, size, prop.name,
              prop.major, prop.minor, repeat);
  std::vector<Row> rows;
  const size_t count = (size_t)size * size;
  float *A = nullptr, *B = nullptr, *C = nullptr, *D = nullptr;
  try {
    std::vector<float> h(count);
    unsigned s = 1;
    for (float& x : h) x = (s = s * 1664525u + 1013904223u) / 4294967296.0f;
    ok(cudaMalloc(&A, count * sizeof(float)), "cudaMalloc");
    ok(cudaMalloc(&B, count * sizeof(float)), "cudaMalloc");
    ok(cudaMalloc(&C, count * sizeof(float)), "cudaMalloc");
    ok(cudaMalloc(&D, count * sizeof(float)), "cudaMalloc");
    ok(cudaMemcpy(A, h.data(), count * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    std::reverse(h.begin(), h.end());
    ok(cudaMemcpy(B, h.data(), count * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    cublasHandle_t handle;
    ok(cublasCreate(&handle), "cublasCreate");
    // FP32 arithmetic only: no TF32 tensor cores.
    ok(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
    const float one = 1.0f, zero = 0.0f;
    // Row-major C = A B is column-major C^T = B^T A^T.
    auto sgemm = [&] {
      ok(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, size, size, size, &one, B, size, A, size,
                     &zero, C, size),
         "cublasSgemm");
    };
    rows.push_back({"cuBLAS SGEMM", median_ms(repeat, sgemm), "CUBLAS_PEDANTIC_MATH"});
    dim3 block(16, 16), grid((size + 15) / 16, (size + 15) / 16);
    auto naive = [&] { naive_mm<<<grid, block>>>(A, B, D, size, size, size); };
    naive();
    ok(cudaDeviceSynchronize(), "naive_mm");
    std::vector<float> c(count), d(count);
    ok(cudaMemcpy(c.data(), C, count * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    ok(cudaMemcpy(d.data(), D, count * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    size_t bad = 0;
    for (size_t i = 0; i < count; ++i)
      bad += std::fabs(c[i] - d[i]) > 1e-3f * std::max(1.0f, std::fabs(c[i]));
    if (bad)
      rows.push_back({"hand-written (naive)", -1, std::to_string(bad) + " elements differ"});
    else
      rows.push_back({"hand-written (naive)", median_ms(repeat, naive), "matches cuBLAS"});
    cublasDestroy(handle);
  } catch (const Failure& f) {
    rows.push_back({"cuBLAS / hand-written", -1, f.what});
  }
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  cudaFree(D);
  for (const std::string& s : strategies) rows.push_back(risec_row(s, size, repeat, check));
  const double cublas = rows.empty() ? -1 : rows[0].ms;
  std::printf("| kernel | time (ms) | GFLOP/s | vs cuBLAS | note |\n|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    if (r.ms < 0) {
      std::printf("| %s | n/a | n/a | n/a | %s |\n", r.name.c_str(), r.note.c_str());
      continue;
    }
    std::printf(
        "| %s | %.3f | %.0f | %s | %s |\n", r.name.c_str(), r.ms, flops / (r.ms * 1e6),
        cublas > 0 ? (std::to_string((int)std::lround(100 * cublas / r.ms)) + "%").c_str() : "n/a",
        r.note.c_str());
  }
  return 0;
}
