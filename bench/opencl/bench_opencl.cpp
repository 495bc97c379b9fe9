// The Lift CGO'17 benchmark suite on the available OpenCL device (issue 12): for each
// benchmark, the kernel time of a straightforward hand-written OpenCL kernel next to
// the one risec generates from examples/NAME/NAME.rise with its OpenCL strategy.
//
// Hand-written kernels: one work item per output element, the obvious loop inside,
// global memory only (what one writes first). Each is checked against a plain C++
// reference on the same inputs before it is timed; a kernel that disagrees is
// reported, not timed.
//
// risec: `risec run FILE --strategy S --target opencl --size .. --repeat N` in a child
// process (risec makes its own seeded inputs); the kernel time it prints (profiling
// events, the median of N) is parsed. A failure (no OpenCL target, a strategy the
// target refuses, a crash) is shown as n/a with the first line of its message; it
// never stops the benchmark. --check also asks risec to compare with the interpreter
// (slow at the default sizes: use it with --small).
//
// Kernel times are the median over --repeat runs of the profiling events' START..END
// (both kernels for atax); transfers are not counted, on either side.
//
//   build/bench/bench_opencl [--small] [--repeat N] [--check] [--only NAME,..]
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench/common/bench_util.h"
#include "runtime/process.h"

namespace {

using risec::bench::Buffer;
using risec::bench::fill_random;
using risec::bench::Table;

// ------------------------------------------------------------------- OpenCL

std::string cl_error(cl_int e) {
  return "OpenCL error " + std::to_string(e);
}

struct Failure {
  std::string what;
};

void ok(cl_int e, const char* what) {
  if (e != CL_SUCCESS) throw Failure{std::string(what) + ": " + cl_error(e)};
}

// A string property of a device or platform (clGetDeviceInfo, clGetPlatformInfo).
template <typename Get, typename Obj, typename Info>
std::string info_string(Get get, Obj obj, Info what) {
  size_t n = 0;
  get(obj, what, 0, nullptr, &n);
  std::string s(n, '\0');
  get(obj, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

// The first device of the first platform that has one (GPUs preferred).
struct Cl {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;

  Cl() {
    cl_uint np = 0;
    ok(clGetPlatformIDs(0, nullptr, &np), "clGetPlatformIDs");
    if (np == 0) throw Failure{"no OpenCL platform"};
    std::vector<cl_platform_id> ps(np);
    ok(clGetPlatformIDs(np, ps.data(), nullptr), "clGetPlatformIDs");
    for (cl_device_type type :
         {cl_device_type{CL_DEVICE_TYPE_GPU}, cl_device_type{CL_DEVICE_TYPE_ALL}}) {
      for (cl_platform_id p : ps) {
        cl_device_id d = nullptr;
        cl_uint nd = 0;
        if (clGetDeviceIDs(p, type, 1, &d, &nd) == CL_SUCCESS && nd > 0) {
          platform = p;
          device = d;
          break;
        }
      }
      if (device) break;
    }
    if (!device) throw Failure{"no OpenCL device"};
    cl_int e = CL_SUCCESS;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &e);
    ok(e, "clCreateContext");
    queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &e);
    ok(e, "clCreateCommandQueue");
  }
  ~Cl() {
    if (queue) clReleaseCommandQueue(queue);
    if (context) clReleaseContext(context);
  }
  Cl(const Cl&) = delete;
  Cl& operator=(const Cl&) = delete;

  std::string describe() const {
    return info_string(clGetDeviceInfo, device, CL_DEVICE_NAME) + " (" +
           info_string(clGetPlatformInfo, platform, CL_PLATFORM_NAME) + ", " +
           info_string(clGetDeviceInfo, device, CL_DEVICE_VERSION) + ")";
  }
};

// A device buffer holding a copy of host data (or room for n floats).
class DeviceBuffer {
 public:
  DeviceBuffer(const Cl& cl, size_t bytes, const void* host) {
    cl_int e = CL_SUCCESS;
    mem_ = clCreateBuffer(cl.context, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                          const_cast<void*>(host), &e);
    ok(e, "clCreateBuffer");
  }
  ~DeviceBuffer() { clReleaseMemObject(mem_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  cl_mem mem() const { return mem_; }

 private:
  cl_mem mem_ = nullptr;
};

// One kernel argument: a buffer, or a scalar passed by value.
struct Arg {
  const DeviceBuffer* buffer = nullptr;
  std::vector<unsigned char> bytes;
  static Arg buf(const DeviceBuffer& b) { return {&b, {}}; }
  template <typename T>
  static Arg val(T v) {
    Arg a;
    a.bytes.resize(sizeof v);
    std::memcpy(a.bytes.data(), &v, sizeof v);
    return a;
  }
};

struct Launch {
  std::string kernel;
  std::vector<Arg> args;
  std::vector<size_t> global;
};

// Builds `source`, runs the launches in order `repeat` times and returns the median
// of the summed kernel times (seconds). The launches' outputs stay on the device.
double run_kernels(const Cl& cl, const std::string& source, const std::vector<Launch>& launches,
                   int repeat) {
  cl_int e = CL_SUCCESS;
  const char* text = source.c_str();
  cl_program prog = clCreateProgramWithSource(cl.context, 1, &text, nullptr, &e);
  ok(e, "clCreateProgramWithSource");
  if (clBuildProgram(prog, 1, &cl.device, "", nullptr, nullptr) != CL_SUCCESS) {
    size_t n = 0;
    clGetProgramBuildInfo(prog, cl.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    clGetProgramBuildInfo(prog, cl.device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    clReleaseProgram(prog);
    throw Failure{"build failed: " + log};
  }
  std::vector<cl_kernel> kernels;
  for (const Launch& l : launches) {
    cl_kernel k = clCreateKernel(prog, l.kernel.c_str(), &e);
    ok(e, "clCreateKernel");
    for (size_t i = 0; i < l.args.size(); ++i) {
      const Arg& a = l.args[i];
      if (a.buffer) {
        cl_mem m = a.buffer->mem();
        ok(clSetKernelArg(k, static_cast<cl_uint>(i), sizeof m, &m), "clSetKernelArg");
      } else {
        ok(clSetKernelArg(k, static_cast<cl_uint>(i), a.bytes.size(), a.bytes.data()),
           "clSetKernelArg");
      }
    }
    kernels.push_back(k);
  }
  std::vector<double> times;
  for (int r = 0; r < repeat + 1; ++r) {  // the first run warms up
    double t = 0;
    for (size_t i = 0; i < launches.size(); ++i) {
      cl_event ev = nullptr;
      const std::vector<size_t>& g = launches[i].global;
      ok(clEnqueueNDRangeKernel(cl.queue, kernels[i], static_cast<cl_uint>(g.size()), nullptr,
                                g.data(), nullptr, 0, nullptr, &ev),
         "clEnqueueNDRangeKernel");
      ok(clWaitForEvents(1, &ev), "clWaitForEvents");
      cl_ulong start = 0, end = 0;
      clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
      clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
      clReleaseEvent(ev);
      t += static_cast<double>(end - start) * 1e-9;
    }
    if (r > 0) times.push_back(t);
  }
  for (cl_kernel k : kernels) clReleaseKernel(k);
  clReleaseProgram(prog);
  if (times.empty()) return 0;  // repeat 0: the warm-up run only (to check the result)
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void read_back(const Cl& cl, const DeviceBuffer& b, void* host, size_t bytes) {
  ok(clEnqueueReadBuffer(cl.queue, b.mem(), CL_TRUE, 0, bytes, host, 0, nullptr, nullptr),
     "clEnqueueReadBuffer");
}

// ------------------------------------------------------------------- benchmarks

// The result of the hand-written kernel: its median time, or why there is none.
struct Hand {
  double seconds = -1;
  double max_rel_error = 0;
  std::string failure;
};

struct Bench {
  std::string name;
  std::string strategy;  // examples/NAME/<strategy>.elv
  std::string sizes;     // risec --size
  std::function<Hand(const Cl&, int)> hand;
};

Buffer random_buffer(size_t n, uint32_t seed) {
  Buffer b(n);
  fill_random(b, seed);
  return b;
}

// Checks `got` against `want` and times the launches; the check's tolerance is the
// one risec --check uses by default (relative 1e-4 where the values are above 1).
Hand checked(const Cl& cl, const std::string& source, const std::vector<Launch>& launches,
             int repeat, const std::vector<std::pair<const DeviceBuffer*, const Buffer*>>& outs) {
  Hand h;
  try {
    run_kernels(cl, source, launches, 0);
    for (const auto& [dev, want] : outs) {
      Buffer got(want->size());
      read_back(cl, *dev, got.data(), got.size() * sizeof(float));
      h.max_rel_error = std::max(h.max_rel_error, risec::bench::max_rel_error(got, *want));
    }
    if (!(h.max_rel_error < 1e-3)) {
      h.failure = "wrong result (max rel error " + std::to_string(h.max_rel_error) + ")";
      return h;
    }
    h.seconds = run_kernels(cl, source, launches, repeat);
  } catch (const Failure& f) {
    h.failure = f.what;
  }
  return h;
}

size_t bytes(const Buffer& b) {
  return b.size() * sizeof(float);
}

// ---- matrix-vector kernels

Hand hand_gemv(const Cl& cl, int repeat, int n, int m) {
  Buffer A = random_buffer(size_t(n) * m, 1), x = random_buffer(m, 2), y = random_buffer(n, 3);
  float alpha = 1.5f, beta = 0.5f;
  Buffer want(n);
  for (int i = 0; i < n; ++i) {
    float acc = 0;
    for (int j = 0; j < m; ++j) acc += A[size_t(i) * m + j] * x[j];
    want[i] = alpha * acc + beta * y[i];
  }
  const char* src = R"(
kernel void gemv(global float* out, const global float* A, const global float* x,
                 const global float* y, float alpha, float beta, int m) {
  int i = get_global_id(0);
  float acc = 0.0f;
  for (int j = 0; j < m; ++j) acc += A[i * m + j] * x[j];
  out[i] = alpha * acc + beta * y[i];
})";
  DeviceBuffer dA(cl, bytes(A), A.data()), dx(cl, bytes(x), x.data()), dy(cl, bytes(y), y.data()),
      dout(cl, bytes(want), nullptr);
  return checked(cl, src,
                 {{"gemv",
                   {Arg::buf(dout), Arg::buf(dA), Arg::buf(dx), Arg::buf(dy), Arg::val(alpha),
                    Arg::val(beta), Arg::val(m)},
                   {size_t(n)}}},
                 repeat, {{&dout, &want}});
}

Hand hand_gesummv(const Cl& cl, int repeat, int n) {
  Buffer A = random_buffer(size_t(n) * n, 1), B = random_buffer(size_t(n) * n, 2),
         x = random_buffer(n, 3);
  float alpha = 1.5f, beta = 0.5f;
  Buffer want(n);
  for (int i = 0; i < n; ++i) {
    float a = 0, b = 0;
    for (int j = 0; j < n; ++j) {
      a += A[size_t(i) * n + j] * x[j];
      b += B[size_t(i) * n + j] * x[j];
    }
    want[i] = alpha * a + beta * b;
  }
  const char* src = R"(
kernel void gesummv(global float* out, const global float* A, const global float* B,
                    const global float* x, float alpha, float beta, int n) {
  int i = get_global_id(0);
  float a = 0.0f, b = 0.0f;
  for (int j = 0; j < n; ++j) {
    a += A[i * n + j] * x[j];
    b += B[i * n + j] * x[j];
  }
  out[i] = alpha * a + beta * b;
})";
  DeviceBuffer dA(cl, bytes(A), A.data()), dB(cl, bytes(B), B.data()), dx(cl, bytes(x), x.data()),
      dout(cl, bytes(want), nullptr);
  return checked(cl, src,
                 {{"gesummv",
                   {Arg::buf(dout), Arg::buf(dA), Arg::buf(dB), Arg::buf(dx), Arg::val(alpha),
                    Arg::val(beta), Arg::val(n)},
                   {size_t(n)}}},
                 repeat, {{&dout, &want}});
}

Hand hand_atax(const Cl& cl, int repeat, int m, int n) {
  Buffer A = random_buffer(size_t(m) * n, 1), x = random_buffer(n, 2);
  std::vector<float> tmp(m, 0.0f);
  Buffer want(n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) tmp[i] += A[size_t(i) * n + j] * x[j];
  for (int j = 0; j < n; ++j) {
    float acc = 0;
    for (int i = 0; i < m; ++i) acc += A[size_t(i) * n + j] * tmp[i];
    want[j] = acc;
  }
  const char* src = R"(
kernel void ax(global float* tmp, const global float* A, const global float* x, int n) {
  int i = get_global_id(0);
  float acc = 0.0f;
  for (int j = 0; j < n; ++j) acc += A[i * n + j] * x[j];
  tmp[i] = acc;
}
kernel void atmp(global float* out, const global float* A, const global float* tmp, int m,
                 int n) {
  int j = get_global_id(0);
  float acc = 0.0f;
  for (int i = 0; i < m; ++i) acc += A[i * n + j] * tmp[i];
  out[j] = acc;
})";
  DeviceBuffer dA(cl, bytes(A), A.data()), dx(cl, bytes(x), x.data()),
      dtmp(cl, m * sizeof(float), nullptr), dout(cl, bytes(want), nullptr);
  return checked(cl, src,
                 {{"ax", {Arg::buf(dtmp), Arg::buf(dA), Arg::buf(dx), Arg::val(n)}, {size_t(m)}},
                  {"atmp",
                   {Arg::buf(dout), Arg::buf(dA), Arg::buf(dtmp), Arg::val(m), Arg::val(n)},
                   {size_t(n)}}},
                 repeat, {{&dout, &want}});
}

Hand hand_mm(const Cl& cl, int repeat, int n, int m, int k) {
  Buffer A = random_buffer(size_t(n) * k, 1), B = random_buffer(size_t(k) * m, 2);
  Buffer want(size_t(n) * m);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      float acc = 0;
      for (int l = 0; l < k; ++l) acc += A[size_t(i) * k + l] * B[size_t(l) * m + j];
      want[size_t(i) * m + j] = acc;
    }
  const char* src = R"(
kernel void mm(global float* C, const global float* A, const global float* B, int m, int k) {
  int j = get_global_id(0), i = get_global_id(1);
  float acc = 0.0f;
  for (int l = 0; l < k; ++l) acc += A[i * k + l] * B[l * m + j];
  C[i * m + j] = acc;
})";
  DeviceBuffer dA(cl, bytes(A), A.data()), dB(cl, bytes(B), B.data()), dC(cl, bytes(want), nullptr);
  return checked(cl, src,
                 {{"mm",
                   {Arg::buf(dC), Arg::buf(dA), Arg::buf(dB), Arg::val(m), Arg::val(k)},
                   {size_t(m), size_t(n)}}},
                 repeat, {{&dC, &want}});
}

// ---- stencil

Hand hand_conv2d(const Cl& cl, int repeat, int n, int m) {
  Buffer img = random_buffer(size_t(n) * m, 1), w = random_buffer(25, 2);
  Buffer want(size_t(n) * m);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      float acc = 0;
      for (int di = 0; di < 5; ++di)
        for (int dj = 0; dj < 5; ++dj) {
          int y = i + di - 2, x = j + dj - 2;
          float v = y >= 0 && y < n && x >= 0 && x < m ? img[size_t(y) * m + x] : 0.0f;
          acc += v * w[di * 5 + dj];
        }
      want[size_t(i) * m + j] = acc;
    }
  const char* src = R"(
kernel void conv2d(global float* out, const global float* img, const global float* w, int n,
                   int m) {
  int j = get_global_id(0), i = get_global_id(1);
  float acc = 0.0f;
  for (int di = 0; di < 5; ++di)
    for (int dj = 0; dj < 5; ++dj) {
      int y = i + di - 2, x = j + dj - 2;
      float v = (y >= 0 && y < n && x >= 0 && x < m) ? img[y * m + x] : 0.0f;
      acc += v * w[di * 5 + dj];
    }
  out[i * m + j] = acc;
})";
  DeviceBuffer dimg(cl, bytes(img), img.data()), dw(cl, bytes(w), w.data()),
      dout(cl, bytes(want), nullptr);
  return checked(cl, src,
                 {{"conv2d",
                   {Arg::buf(dout), Arg::buf(dimg), Arg::buf(dw), Arg::val(n), Arg::val(m)},
                   {size_t(m), size_t(n)}}},
                 repeat, {{&dout, &want}});
}

// ---- particles

Hand hand_nbody(const Cl& cl, int repeat, int n) {
  Buffer pos = random_buffer(size_t(n) * 4, 1), vel = random_buffer(size_t(n) * 4, 2);
  float eps2 = 0.01f, dt = 0.005f;
  Buffer want_p(size_t(n) * 4), want_v(size_t(n) * 4);
  for (int i = 0; i < n; ++i) {
    float acc[4] = {0, 0, 0, 0};
    for (int j = 0; j < n; ++j) {
      float r[3];
      for (int c = 0; c < 3; ++c) r[c] = pos[size_t(j) * 4 + c] - pos[size_t(i) * 4 + c];
      float inv = 1.0f / std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + eps2);
      float s = pos[size_t(j) * 4 + 3] * inv * inv * inv;
      for (int c = 0; c < 3; ++c) acc[c] += r[c] * s;
    }
    for (int c = 0; c < 4; ++c) {
      size_t at = size_t(i) * 4 + c;
      want_p[at] = pos[at] + vel[at] * dt + acc[c] * 0.5f * dt * dt;
      want_v[at] = vel[at] + acc[c] * dt;
    }
  }
  const char* src = R"(
kernel void nbody(global float4* newPos, global float4* newVel, const global float4* pos,
                  const global float4* vel, float eps2, float dt, int n) {
  int i = get_global_id(0);
  float4 p = pos[i];
  float4 acc = (float4)(0.0f);
  for (int j = 0; j < n; ++j) {
    float4 q = pos[j];
    float4 r = (float4)(q.xyz - p.xyz, 0.0f);
    float inv = rsqrt(r.x * r.x + r.y * r.y + r.z * r.z + eps2);
    acc += r * (q.w * inv * inv * inv);
  }
  newPos[i] = p + vel[i] * dt + acc * 0.5f * dt * dt;
  newVel[i] = vel[i] + acc * dt;
})";
  DeviceBuffer dpos(cl, bytes(pos), pos.data()), dvel(cl, bytes(vel), vel.data()),
      dp(cl, bytes(want_p), nullptr), dv(cl, bytes(want_v), nullptr);
  return checked(cl, src,
                 {{"nbody",
                   {Arg::buf(dp), Arg::buf(dv), Arg::buf(dpos), Arg::buf(dvel), Arg::val(eps2),
                    Arg::val(dt), Arg::val(n)},
                   {size_t(n)}}},
                 repeat, {{&dp, &want_p}, {&dv, &want_v}});
}

Hand hand_md(const Cl& cl, int repeat, int n, int k) {
  Buffer pos(size_t(n) * 4);
  fill_random(pos, 1);
  for (size_t i = 0; i < pos.size(); ++i) pos[i] *= 10.0f;  // spread the atoms out
  std::vector<int> neigh(size_t(n) * k);
  uint32_t state = 7;
  for (int& v : neigh) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<int>((state >> 8) % static_cast<uint32_t>(n));
  }
  // An atom's own index would divide by zero (d = 0): SHOC's lists never hold it.
  for (int i = 0; i < n; ++i)
    for (int l = 0; l < k; ++l)
      if (neigh[size_t(i) * k + l] == i) neigh[size_t(i) * k + l] = (i + 1) % n;
  float cutsq = 16.0f, lj1 = 1.5f, lj2 = 2.0f;
  Buffer want(size_t(n) * 4);
  for (int i = 0; i < n; ++i) {
    for (int l = 0; l < k; ++l) {
      int j = neigh[size_t(i) * k + l];
      float d[3];
      for (int c = 0; c < 3; ++c) d[c] = pos[size_t(i) * 4 + c] - pos[size_t(j) * 4 + c];
      float r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      if (!(r2 < cutsq)) continue;
      float r2inv = 1.0f / r2, r6inv = r2inv * r2inv * r2inv;
      float f = r2inv * r6inv * (lj1 * r6inv - lj2);
      for (int c = 0; c < 3; ++c) want[size_t(i) * 4 + c] += d[c] * f;
    }
  }
  const char* src = R"(
kernel void md(global float4* force, const global float4* pos, const global int* neigh,
               float cutsq, float lj1, float lj2, int k) {
  int i = get_global_id(0);
  float4 p = pos[i];
  float4 f = (float4)(0.0f);
  for (int l = 0; l < k; ++l) {
    float4 q = pos[neigh[i * k + l]];
    float4 d = (float4)(p.xyz - q.xyz, 0.0f);
    float r2 = d.x * d.x + d.y * d.y + d.z * d.z;
    if (r2 < cutsq) {
      float r2inv = 1.0f / r2;
      float r6inv = r2inv * r2inv * r2inv;
      f += d * (r2inv * r6inv * (lj1 * r6inv - lj2));
    }
  }
  force[i] = f;
})";
  DeviceBuffer dpos(cl, bytes(pos), pos.data()),
      dneigh(cl, neigh.size() * sizeof(int), neigh.data()), dout(cl, bytes(want), nullptr);
  return checked(cl, src,
                 {{"md",
                   {Arg::buf(dout), Arg::buf(dpos), Arg::buf(dneigh), Arg::val(cutsq),
                    Arg::val(lj1), Arg::val(lj2), Arg::val(k)},
                   {size_t(n)}}},
                 repeat, {{&dout, &want}});
}

// ---- data mining, search, imaging

Hand hand_kmeans(const Cl& cl, int repeat, int n, int k, int f) {
  Buffer features = random_buffer(size_t(f) * n, 1), clusters = random_buffer(size_t(k) * f, 2);
  Buffer want(n);  // the index, as a float (exact for the small counts used)
  for (int p = 0; p < n; ++p) {
    float best = INFINITY;
    int at = 0;
    for (int c = 0; c < k; ++c) {
      float d = 0;
      for (int l = 0; l < f; ++l) {
        float diff = features[size_t(l) * n + p] - clusters[size_t(c) * f + l];
        d += diff * diff;
      }
      if (d < best) {
        best = d;
        at = c;
      }
    }
    want[p] = static_cast<float>(at);
  }
  const char* src = R"(
kernel void kmeans(global float* membership, const global float* features,
                   const global float* clusters, int n, int k, int f) {
  int p = get_global_id(0);
  float best = INFINITY;
  int at = 0;
  for (int c = 0; c < k; ++c) {
    float d = 0.0f;
    for (int l = 0; l < f; ++l) {
      float diff = features[l * n + p] - clusters[c * f + l];
      d += diff * diff;
    }
    if (d < best) { best = d; at = c; }
  }
  membership[p] = (float)at;
})";
  DeviceBuffer dfe(cl, bytes(features), features.data()), dcl(cl, bytes(clusters), clusters.data()),
      dout(cl, bytes(want), nullptr);
  return checked(
      cl, src,
      {{"kmeans",
        {Arg::buf(dout), Arg::buf(dfe), Arg::buf(dcl), Arg::val(n), Arg::val(k), Arg::val(f)},
        {size_t(n)}}},
      repeat, {{&dout, &want}});
}

Hand hand_nn(const Cl& cl, int repeat, int n) {
  Buffer lat = random_buffer(n, 1), lng = random_buffer(n, 2);
  float tlat = 0.3f, tlng = 0.6f;
  Buffer want(n);
  for (int i = 0; i < n; ++i)
    want[i] = std::sqrt((lat[i] - tlat) * (lat[i] - tlat) + (lng[i] - tlng) * (lng[i] - tlng));
  const char* src = R"(
kernel void nn(global float* out, const global float* lat, const global float* lng, float tlat,
               float tlng) {
  int i = get_global_id(0);
  out[i] = sqrt((lat[i] - tlat) * (lat[i] - tlat) + (lng[i] - tlng) * (lng[i] - tlng));
})";
  DeviceBuffer dlat(cl, bytes(lat), lat.data()), dlng(cl, bytes(lng), lng.data()),
      dout(cl, bytes(want), nullptr);
  return checked(cl, src,
                 {{"nn",
                   {Arg::buf(dout), Arg::buf(dlat), Arg::buf(dlng), Arg::val(tlat), Arg::val(tlng)},
                   {size_t(n)}}},
                 repeat, {{&dout, &want}});
}

Hand hand_mriq(const Cl& cl, int repeat, int n, int k) {
  Buffer x = random_buffer(n, 1), y = random_buffer(n, 2), z = random_buffer(n, 3),
         kx = random_buffer(k, 4), ky = random_buffer(k, 5), kz = random_buffer(k, 6),
         phi = random_buffer(k, 7);
  Buffer want_r(n), want_i(n);
  for (int i = 0; i < n; ++i) {
    double qr = 0, qi = 0;
    for (int s = 0; s < k; ++s) {
      double arg = 6.2831853 * (kx[s] * double(x[i]) + ky[s] * double(y[i]) + kz[s] * double(z[i]));
      qr += phi[s] * std::cos(arg);
      qi += phi[s] * std::sin(arg);
    }
    want_r[i] = static_cast<float>(qr);
    want_i[i] = static_cast<float>(qi);
  }
  const char* src = R"(
kernel void mriq(global float* Qr, global float* Qi, const global float* x,
                 const global float* y, const global float* z, const global float* kx,
                 const global float* ky, const global float* kz, const global float* phi,
                 int k) {
  int i = get_global_id(0);
  float qr = 0.0f, qi = 0.0f;
  for (int s = 0; s < k; ++s) {
    float arg = 6.2831853f * (kx[s] * x[i] + ky[s] * y[i] + kz[s] * z[i]);
    qr += phi[s] * cos(arg);
    qi += phi[s] * sin(arg);
  }
  Qr[i] = qr;
  Qi[i] = qi;
})";
  DeviceBuffer dx(cl, bytes(x), x.data()), dy(cl, bytes(y), y.data()), dz(cl, bytes(z), z.data()),
      dkx(cl, bytes(kx), kx.data()), dky(cl, bytes(ky), ky.data()), dkz(cl, bytes(kz), kz.data()),
      dphi(cl, bytes(phi), phi.data()), dr(cl, bytes(want_r), nullptr),
      di(cl, bytes(want_i), nullptr);
  return checked(cl, src,
                 {{"mriq",
                   {Arg::buf(dr), Arg::buf(di), Arg::buf(dx), Arg::buf(dy), Arg::buf(dz),
                    Arg::buf(dkx), Arg::buf(dky), Arg::buf(dkz), Arg::buf(dphi), Arg::val(k)},
                   {size_t(n)}}},
                 repeat, {{&dr, &want_r}, {&di, &want_i}});
}

// ------------------------------------------------------------------- risec

struct RisecResult {
  double seconds = -1;
  std::string failure;
};

std::string first_line(const std::string& s) {
  size_t start = s.find_first_not_of(" \n");
  if (start == std::string::npos) return "no output";
  return s.substr(start, s.find('\n', start) - start);
}

// `risec run` with the OpenCL target; the kernel time is the median it prints.
RisecResult run_risec(const Bench& b, int repeat, bool check) {
  const char* env = std::getenv("RISEC");
  std::string risec = env ? env : RISEC_BINARY;
  std::string dir = risec::bench::source_path("examples/" + b.name + "/");
  std::vector<std::string> argv{risec,
                                "run",
                                dir + b.name + ".rise",
                                "--strategy",
                                dir + b.strategy + ".elv",
                                "--target",
                                "opencl",
                                "--size",
                                b.sizes,
                                "--repeat",
                                std::to_string(repeat)};
  if (check) argv.push_back("--check");
  RisecResult r;
  risec::runtime::ProcessOptions opts;
  opts.timeout_s = 600;
  risec::runtime::ProcessResult p;
  try {
    p = risec::runtime::run_process(argv, opts);
  } catch (const std::exception& e) {
    r.failure = e.what();
    return r;
  }
  if (!p.ok()) {
    r.failure = p.describe() + ": " + first_line(p.err.empty() ? p.out : p.err);
    return r;
  }
  // "time: min X ms, median Y ms (N runs, kernel time)" with --repeat; "time: X ms"
  static const std::regex median(R"(median\s+([0-9.eE+-]+)\s*(ms|us|s)\b)");
  static const std::regex single(R"(time:\s*([0-9.eE+-]+)\s*(ms|us|s)\b)");
  std::string all = p.out + "\n" + p.err;
  double value = -1;
  std::string unit;
  for (const std::regex* re : {&median, &single}) {
    std::smatch mt;
    if (value < 0 && std::regex_search(all, mt, *re)) {
      value = std::stod(mt[1].str());
      unit = mt[2].str();
    }
  }
  if (value < 0) {
    r.failure = "no kernel time in risec's output";
    return r;
  }
  r.seconds = value * (unit == "ms" ? 1e-3 : unit == "us" ? 1e-6 : 1.0);
  return r;
}

std::string ms(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s * 1e3);
  return buf;
}

std::string shorten(std::string s) {
  for (char& c : s)
    if (c == '|' || c == '\n') c = ' ';
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

}  // namespace

int main(int argc, char** argv) {
  bool small = false, check = false;
  int repeat = 10;
  std::set<std::string> only;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--small") {
      small = true;
    } else if (a == "--check") {
      check = true;
    } else if (a == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--only" && i + 1 < argc) {
      std::stringstream ss(argv[++i]);
      for (std::string w; std::getline(ss, w, ',');) only.insert(w);
    } else {
      std::fprintf(stderr,
                   "usage: bench_opencl [--small] [--repeat N] [--check] [--only NAME,..]\n");
      return 2;
    }
  }
  // Sizes: the default ones are medium-sized inputs of each benchmark's reference
  // suite; --small is a smoke test that finishes in seconds on PoCL.
  auto pick = [&](int s, int d) { return small ? s : d; };
  const int mv = pick(256, 4096), mmn = pick(128, 1024), img = pick(128, 2048);
  const int bodies = pick(1024, 16384), atoms = pick(1024, 65536), nbr = pick(16, 32);
  const int points = pick(4096, 1 << 20), records = pick(4096, 1 << 22);
  const int voxels = pick(1024, 32768), samples = pick(256, 3072);
  auto S = [](int v) { return std::to_string(v); };
  std::vector<Bench> benches = {
      {"atax", "opencl", "m=" + S(mv) + ",n=" + S(mv),
       [&](const Cl& cl, int r) { return hand_atax(cl, r, mv, mv); }},
      {"gemv", "opencl", "n=" + S(mv) + ",m=" + S(mv),
       [&](const Cl& cl, int r) { return hand_gemv(cl, r, mv, mv); }},
      {"gesummv", "opencl", "n=" + S(mv),
       [&](const Cl& cl, int r) { return hand_gesummv(cl, r, mv); }},
      {"mm", "global2d", "n=" + S(mmn) + ",m=" + S(mmn) + ",k=" + S(mmn),
       [&](const Cl& cl, int r) { return hand_mm(cl, r, mmn, mmn, mmn); }},
      {"mm", "opencl_tiled", "n=" + S(mmn) + ",m=" + S(mmn) + ",k=" + S(mmn),
       [&](const Cl& cl, int r) { return hand_mm(cl, r, mmn, mmn, mmn); }},
      {"mm", "gpu_tiled", "n=" + S(mmn) + ",m=" + S(mmn) + ",k=" + S(mmn),
       [&](const Cl& cl, int r) { return hand_mm(cl, r, mmn, mmn, mmn); }},
      {"conv2d", "opencl", "n=" + S(img) + ",m=" + S(img),
       [&](const Cl& cl, int r) { return hand_conv2d(cl, r, img, img); }},
      {"nbody", "opencl", "n=" + S(bodies),
       [&](const Cl& cl, int r) { return hand_nbody(cl, r, bodies); }},
      {"md", "opencl", "n=" + S(atoms) + ",k=" + S(nbr),
       [&](const Cl& cl, int r) { return hand_md(cl, r, atoms, nbr); }},
      {"kmeans", "opencl", "n=" + S(points) + ",k=5,f=34",
       [&](const Cl& cl, int r) { return hand_kmeans(cl, r, points, 5, 34); }},
      {"nn", "opencl", "n=" + S(records),
       [&](const Cl& cl, int r) { return hand_nn(cl, r, records); }},
      {"mriq", "opencl", "n=" + S(voxels) + ",k=" + S(samples),
       [&](const Cl& cl, int r) { return hand_mriq(cl, r, voxels, samples); }},
  };

  std::printf("# OpenCL suite (issue 12)\n");
  std::printf("CPU: %s\n", risec::bench::machine_description().c_str());
  std::printf("source: %s\n", risec::bench::source_revision().c_str());
  std::unique_ptr<Cl> cl;
  try {
    cl = std::make_unique<Cl>();
    std::printf("device: %s\n", cl->describe().c_str());
  } catch (const Failure& f) {
    std::printf("device: none (%s): hand-written kernels not run\n", f.what.c_str());
  }
  std::printf("kernel times: median of %d runs (profiling events), ms%s\n\n", repeat,
              small ? "; --small sizes (a smoke test)" : "");
  std::fflush(stdout);

  Table t({"benchmark", "sizes", "hand-written", "risec", "risec / hand", "note"});
  for (const Bench& b : benches) {
    if (!only.empty() && !only.count(b.name)) continue;
    Hand h;
    if (cl)
      h = b.hand(*cl, repeat);
    else
      h.failure = "no device";
    RisecResult r = run_risec(b, repeat, check);
    std::string note;
    if (!h.failure.empty()) note = "hand: " + shorten(h.failure);
    if (!r.failure.empty()) note += (note.empty() ? "" : "; ") + ("risec: " + shorten(r.failure));
    std::string ratio =
        h.seconds > 0 && r.seconds > 0 ? risec::bench::fmt("%.2f", r.seconds / h.seconds) : "n/a";
    std::string label = b.strategy == "opencl" ? b.name : b.name + " (" + b.strategy + ")";
    t.add({label, b.sizes, h.seconds > 0 ? ms(h.seconds) : "n/a",
           r.seconds > 0 ? ms(r.seconds) : "n/a", ratio, note});
  }
  t.print();
  return 0;
}
