// The Lift CGO'17 benchmark suite on the available OpenCL device (issues 12 and 36):
// for each benchmark, the kernel time of a straightforward hand-written OpenCL kernel
// and, for the BLAS programs (gemv, atax, gesummv, mm), of CLBlast's routines, next to
// the one risec generates from examples/NAME/NAME.rise with each of its OpenCL
// strategies.
//
// Hand-written kernels: one work item per output element, the obvious loop inside,
// global memory only (what one writes first). CLBlast (clblast_peer.h): gemv is one
// Sgemv, atax two (A x, then Aᵀ of that), gesummv two (alpha A x, then beta B x added),
// mm one Sgemm; on the same device, queue and input buffers. Each peer is checked
// against a plain C++ reference on the same inputs before it is timed; one that
// disagrees is reported, not timed. The peers of a program are timed interleaved: one
// warm-up run each (the checked one), then --repeat rounds that run each once.
//
// risec: `risec run FILE --strategy S --target opencl --size .. --repeat N` in a child
// process (risec makes its own seeded inputs); the minimum and median kernel times it
// prints (profiling events) are parsed. A failure (no OpenCL target, a strategy the
// target refuses, a crash) is shown as n/a with the first line of its message; it
// never stops the benchmark. --check also asks risec to compare with the interpreter
// (slow at the default sizes: use it with --small).
//
// Kernel times are the profiling events' START..END summed over a run's kernels (both
// of atax's, each of CLBlast's); transfers are not counted, on either side. Each time
// is shown as "min / median" of the --repeat runs. The second table takes, per program,
// the best (by minimum) of the hand-written kernel and the library, and risec's best
// strategy, and their ratio: the target of issue 36 is a ratio of at most 1 everywhere.
//
//   build/bench/bench_opencl [--small] [--repeat N] [--check] [--only NAME,..]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench/common/bench_util.h"
#include "bench/opencl/cl_util.h"
#include "bench/opencl/clblast_peer.h"
#include "runtime/process.h"

namespace {

using risec::bench::Buffer;
using risec::bench::fill_random;
using risec::bench::Table;
using namespace risec::bench::opencl;

// ------------------------------------------------------------------- peers

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

// A hand-written program: `source` built once, its launches run in order by run().
class Kernels {
 public:
  Kernels(const Cl& cl, const std::string& source, std::vector<Launch> launches)
      : cl_(cl), launches_(std::move(launches)) {
    cl_int e = CL_SUCCESS;
    const char* text = source.c_str();
    prog_ = clCreateProgramWithSource(cl.context, 1, &text, nullptr, &e);
    ok(e, "clCreateProgramWithSource");
    if (clBuildProgram(prog_, 1, &cl.device, "", nullptr, nullptr) != CL_SUCCESS) {
      size_t n = 0;
      clGetProgramBuildInfo(prog_, cl.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
      std::string log(n, '\0');
      clGetProgramBuildInfo(prog_, cl.device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
      throw Failure{"build failed: " + log};
    }
    for (const Launch& l : launches_) {
      cl_kernel k = clCreateKernel(prog_, l.kernel.c_str(), &e);
      ok(e, "clCreateKernel");
      kernels_.push_back(k);
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
    }
  }
  ~Kernels() {
    for (cl_kernel k : kernels_) clReleaseKernel(k);
    if (prog_) clReleaseProgram(prog_);
  }
  Kernels(const Kernels&) = delete;
  Kernels& operator=(const Kernels&) = delete;

  // One run of every launch; the summed kernel time (s).
  double run() {
    double t = 0;
    for (size_t i = 0; i < launches_.size(); ++i) {
      cl_event ev = nullptr;
      const std::vector<size_t>& g = launches_[i].global;
      ok(clEnqueueNDRangeKernel(cl_.queue, kernels_[i], static_cast<cl_uint>(g.size()), nullptr,
                                g.data(), nullptr, 0, nullptr, &ev),
         "clEnqueueNDRangeKernel");
      cl_int e = clWaitForEvents(1, &ev);
      double s = e == CL_SUCCESS ? event_seconds(ev) : 0;
      clReleaseEvent(ev);
      ok(e, "clWaitForEvents");
      t += s;
    }
    return t;
  }

 private:
  const Cl& cl_;
  std::vector<Launch> launches_;
  cl_program prog_ = nullptr;
  std::vector<cl_kernel> kernels_;
};

// An output a peer writes on the device, and the reference it must match.
using Output = std::pair<const DeviceBuffer*, const Buffer*>;

// One implementation to time next to risec's: the hand-written kernels or a library.
struct Peer {
  std::string name;
  std::function<double()> run;   // one run: its kernel time (s)
  std::function<void()> before;  // untimed, before each run (e.g. resets an in-place output)
  std::vector<Output> outs;      // checked after the first run
  std::string failure;           // why it could not be set up (run is then empty)
  std::shared_ptr<const std::string> note;  // what run() found out (CLBlast's kernel count)
};

// A peer's times over the runs (seconds; -1 when there are none), or why it has none.
struct PeerTime {
  std::string name;
  double min_s = -1, median_s = -1;
  std::string failure, note;
};
using Times = std::vector<PeerTime>;

// The largest relative error of a peer's outputs against the references (time_peers
// accepts below 1e-3: float sums in another order, e.g. a library's tiles).
double max_error(const Cl& cl, const std::vector<Output>& outs) {
  double worst = 0;
  for (const auto& [dev, want] : outs) {
    Buffer got(want->size());
    read_back(cl, *dev, got.data(), got.size() * sizeof(float));
    worst = std::max(worst, risec::bench::max_rel_error(got, *want));
  }
  return worst;
}

// Checks each peer once (the warm-up run), then times those that passed: `repeat`
// rounds, each running every peer once in turn, so that a change of load on a shared
// machine affects them alike.
Times time_peers(const Cl& cl, int repeat, std::vector<Peer> peers) {
  Times out(peers.size());
  std::vector<std::vector<double>> times(peers.size());
  std::vector<size_t> live;
  for (size_t i = 0; i < peers.size(); ++i) {
    Peer& p = peers[i];
    out[i].name = p.name;
    out[i].failure = p.failure;
    if (!p.failure.empty()) continue;
    try {
      if (p.before) p.before();
      p.run();
      double e = max_error(cl, p.outs);
      if (!(e < 1e-3))
        out[i].failure = "wrong result (max rel error " + risec::bench::fmt("%.3g", e) + ")";
      else
        live.push_back(i);
    } catch (const Failure& f) {
      out[i].failure = f.what;
    }
  }
  for (int r = 0; r < repeat; ++r) {
    for (size_t i : live) {
      if (!out[i].failure.empty()) continue;
      try {
        if (peers[i].before) peers[i].before();
        times[i].push_back(peers[i].run());
      } catch (const Failure& f) {
        out[i].failure = f.what;
      }
    }
  }
  for (size_t i = 0; i < peers.size(); ++i)
    if (peers[i].note) out[i].note = *peers[i].note;
  for (size_t i : live) {
    if (!out[i].failure.empty()) continue;
    risec::bench::Timing t = risec::bench::summarize(times[i]);
    out[i].min_s = t.min_s;
    out[i].median_s = t.median_s;
  }
  return out;
}

Peer hand(const Cl& cl, const std::string& source, std::vector<Launch> launches,
          std::vector<Output> outs) {
  Peer p;
  p.name = "hand-written";
  p.outs = std::move(outs);
  try {
    auto k = std::make_shared<Kernels>(cl, source, std::move(launches));
    p.run = [k] { return k->run(); };
  } catch (const Failure& f) {
    p.failure = f.what;
  }
  return p;
}

// The hand-written kernels alone (the programs CLBlast has no routine for).
Times time_hand(const Cl& cl, const std::string& source, std::vector<Launch> launches, int repeat,
                std::vector<Output> outs) {
  return time_peers(cl, repeat, {hand(cl, source, std::move(launches), std::move(outs))});
}

// CLBlast's routines `calls` (the note: how many kernels a run launches).
Peer library(const Cl& cl, std::vector<BlasCall> calls, std::vector<Output> outs,
             std::function<void()> before = {}) {
  Peer p;
  p.name = "CLBlast";
  p.outs = std::move(outs);
  p.before = std::move(before);
  auto note = std::make_shared<std::string>();
  p.note = note;
  p.run = [&cl, calls = std::move(calls), note] {
    LibraryRun r = clblast_run(cl, calls);
    *note = std::to_string(r.kernels) + (r.kernels == 1 ? " kernel" : " kernels");
    return r.seconds;
  };
  return p;
}

// The hand-written kernels and, where bench_opencl was built with it, CLBlast.
Times time_blas(const Cl& cl, int repeat, Peer hand_written, const std::function<Peer()>& lib) {
  std::vector<Peer> peers{std::move(hand_written)};
  if (!clblast_missing()) peers.push_back(lib());
  return time_peers(cl, repeat, std::move(peers));
}

// A copy on the device (untimed: resets an output CLBlast updates in place).
void copy_buffer(const Cl& cl, const DeviceBuffer& from, const DeviceBuffer& to, size_t bytes) {
  ok(clEnqueueCopyBuffer(cl.queue, from.mem(), to.mem(), 0, 0, bytes, 0, nullptr, nullptr),
     "clEnqueueCopyBuffer");
  ok(clFinish(cl.queue), "clFinish");
}

// ------------------------------------------------------------------- benchmarks

Buffer random_buffer(size_t n, uint32_t seed) {
  Buffer b(n);
  fill_random(b, seed);
  return b;
}

size_t bytes(const Buffer& b) {
  return b.size() * sizeof(float);
}

// ---- matrix-vector kernels

Times peers_gemv(const Cl& cl, int repeat, int n, int m) {
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
      dout(cl, bytes(want), nullptr), dlib(cl, bytes(want), nullptr);
  return time_blas(
      cl, repeat,
      hand(cl, src,
           {{"gemv",
             {Arg::buf(dout), Arg::buf(dA), Arg::buf(dx), Arg::buf(dy), Arg::val(alpha),
              Arg::val(beta), Arg::val(m)},
             {size_t(n)}}},
           {{&dout, &want}}),
      [&] {
        // Sgemv updates y in place: each run starts from a copy of y.
        return library(
            cl, {Gemv{false, size_t(n), size_t(m), alpha, dA.mem(), dx.mem(), beta, dlib.mem()}},
            {{&dlib, &want}}, [&] { copy_buffer(cl, dy, dlib, bytes(y)); });
      });
}

Times peers_gesummv(const Cl& cl, int repeat, int n) {
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
  // CLBlast's output starts at zero: its first Sgemv (beta 0) may still read it.
  Buffer zero(n);
  DeviceBuffer dA(cl, bytes(A), A.data()), dB(cl, bytes(B), B.data()), dx(cl, bytes(x), x.data()),
      dout(cl, bytes(want), nullptr), dlib(cl, bytes(zero), zero.data());
  const size_t N = size_t(n);
  return time_blas(cl, repeat,
                   hand(cl, src,
                        {{"gesummv",
                          {Arg::buf(dout), Arg::buf(dA), Arg::buf(dB), Arg::buf(dx),
                           Arg::val(alpha), Arg::val(beta), Arg::val(n)},
                          {N}}},
                        {{&dout, &want}}),
                   [&] {
                     // alpha A x, then beta B x added to it.
                     return library(cl,
                                    {Gemv{false, N, N, alpha, dA.mem(), dx.mem(), 0.0f, dlib.mem()},
                                     Gemv{false, N, N, beta, dB.mem(), dx.mem(), 1.0f, dlib.mem()}},
                                    {{&dlib, &want}});
                   });
}

Times peers_atax(const Cl& cl, int repeat, int m, int n) {
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
  // CLBlast's intermediate and output start at zero: an Sgemv with beta 0 may still
  // read them.
  Buffer zero_m(m), zero_n(n);
  DeviceBuffer dA(cl, bytes(A), A.data()), dx(cl, bytes(x), x.data()),
      dtmp(cl, m * sizeof(float), nullptr), dout(cl, bytes(want), nullptr),
      ltmp(cl, bytes(zero_m), zero_m.data()), lout(cl, bytes(zero_n), zero_n.data());
  const size_t M = size_t(m), N = size_t(n);
  return time_blas(
      cl, repeat,
      hand(
          cl, src,
          {{"ax", {Arg::buf(dtmp), Arg::buf(dA), Arg::buf(dx), Arg::val(n)}, {M}},
           {"atmp", {Arg::buf(dout), Arg::buf(dA), Arg::buf(dtmp), Arg::val(m), Arg::val(n)}, {N}}},
          {{&dout, &want}}),
      [&] {
        // A x, then Aᵀ times that.
        return library(cl,
                       {Gemv{false, M, N, 1.0f, dA.mem(), dx.mem(), 0.0f, ltmp.mem()},
                        Gemv{true, M, N, 1.0f, dA.mem(), ltmp.mem(), 0.0f, lout.mem()}},
                       {{&lout, &want}});
      });
}

Times peers_mm(const Cl& cl, int repeat, int n, int m, int k) {
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
  Buffer zero(want.size());
  DeviceBuffer dA(cl, bytes(A), A.data()), dB(cl, bytes(B), B.data()), dC(cl, bytes(want), nullptr),
      lC(cl, bytes(zero), zero.data());
  return time_blas(cl, repeat,
                   hand(cl, src,
                        {{"mm",
                          {Arg::buf(dC), Arg::buf(dA), Arg::buf(dB), Arg::val(m), Arg::val(k)},
                          {size_t(m), size_t(n)}}},
                        {{&dC, &want}}),
                   [&] {
                     return library(
                         cl, {Gemm{size_t(n), size_t(m), size_t(k), dA.mem(), dB.mem(), lC.mem()}},
                         {{&lC, &want}});
                   });
}

// ---- stencil

Times hand_conv2d(const Cl& cl, int repeat, int n, int m) {
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
  return time_hand(cl, src,
                   {{"conv2d",
                     {Arg::buf(dout), Arg::buf(dimg), Arg::buf(dw), Arg::val(n), Arg::val(m)},
                     {size_t(m), size_t(n)}}},
                   repeat, {{&dout, &want}});
}

// ---- particles

Times hand_nbody(const Cl& cl, int repeat, int n) {
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
  return time_hand(cl, src,
                   {{"nbody",
                     {Arg::buf(dp), Arg::buf(dv), Arg::buf(dpos), Arg::buf(dvel), Arg::val(eps2),
                      Arg::val(dt), Arg::val(n)},
                     {size_t(n)}}},
                   repeat, {{&dp, &want_p}, {&dv, &want_v}});
}

Times hand_md(const Cl& cl, int repeat, int n, int k) {
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
  return time_hand(cl, src,
                   {{"md",
                     {Arg::buf(dout), Arg::buf(dpos), Arg::buf(dneigh), Arg::val(cutsq),
                      Arg::val(lj1), Arg::val(lj2), Arg::val(k)},
                     {size_t(n)}}},
                   repeat, {{&dout, &want}});
}

// ---- data mining, search, imaging

Times hand_kmeans(const Cl& cl, int repeat, int n, int k, int f) {
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
  return time_hand(
      cl, src,
      {{"kmeans",
        {Arg::buf(dout), Arg::buf(dfe), Arg::buf(dcl), Arg::val(n), Arg::val(k), Arg::val(f)},
        {size_t(n)}}},
      repeat, {{&dout, &want}});
}

Times hand_nn(const Cl& cl, int repeat, int n) {
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
  return time_hand(
      cl, src,
      {{"nn",
        {Arg::buf(dout), Arg::buf(dlat), Arg::buf(dlng), Arg::val(tlat), Arg::val(tlng)},
        {size_t(n)}}},
      repeat, {{&dout, &want}});
}

Times hand_mriq(const Cl& cl, int repeat, int n, int k) {
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
  return time_hand(cl, src,
                   {{"mriq",
                     {Arg::buf(dr), Arg::buf(di), Arg::buf(dx), Arg::buf(dy), Arg::buf(dz),
                      Arg::buf(dkx), Arg::buf(dky), Arg::buf(dkz), Arg::buf(dphi), Arg::val(k)},
                     {size_t(n)}}},
                   repeat, {{&dr, &want_r}, {&di, &want_i}});
}

// ------------------------------------------------------------------- risec

struct RisecResult {
  double min_s = -1, median_s = -1;
  std::string failure;
};

std::string first_line(const std::string& s) {
  size_t start = s.find_first_not_of(" \n");
  if (start == std::string::npos) return "no output";
  return s.substr(start, s.find('\n', start) - start);
}

double seconds_in(const std::string& value, const std::string& unit) {
  return std::stod(value) * (unit == "ms" ? 1e-3 : unit == "us" ? 1e-6 : 1.0);
}

// `risec run` with the OpenCL target; the kernel times are the minimum and median it
// prints.
RisecResult run_risec(const std::string& name, const std::string& strategy,
                      const std::string& sizes, int repeat, bool check) {
  const char* env = std::getenv("RISEC");
  std::string risec = env ? env : RISEC_BINARY;
  std::string dir = risec::bench::source_path("examples/" + name + "/");
  std::vector<std::string> argv{risec,
                                "run",
                                dir + name + ".rise",
                                "--strategy",
                                dir + strategy + ".elv",
                                "--target",
                                "opencl",
                                "--size",
                                sizes,
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
  static const std::regex both(
      R"(time:\s*min\s+([0-9.eE+-]+)\s*(ms|us|s)\b,\s*median\s+([0-9.eE+-]+)\s*(ms|us|s)\b)");
  static const std::regex single(R"(time:\s*([0-9.eE+-]+)\s*(ms|us|s)\b)");
  std::string all = p.out + "\n" + p.err;
  std::smatch mt;
  if (std::regex_search(all, mt, both)) {
    r.min_s = seconds_in(mt[1].str(), mt[2].str());
    r.median_s = seconds_in(mt[3].str(), mt[4].str());
  } else if (std::regex_search(all, mt, single)) {
    r.min_s = r.median_s = seconds_in(mt[1].str(), mt[2].str());
  } else {
    r.failure = "no kernel time in risec's output";
  }
  return r;
}

// ------------------------------------------------------------------- tables

std::string ms(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s * 1e3);
  return buf;
}

// A time cell: "min / median" in ms, or n/a.
std::string cell(double min_s, double median_s) {
  return min_s > 0 ? ms(min_s) + " / " + ms(median_s) : "n/a";
}

std::string ratio(double a, double b) {
  return a > 0 && b > 0 ? risec::bench::fmt("%.2f", a / b) : "n/a";
}

std::string shorten(std::string s) {
  for (char& c : s)
    if (c == '|' || c == '\n') c = ' ';
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

void add_note(std::string& note, const std::string& text) {
  if (!text.empty()) note += (note.empty() ? "" : "; ") + text;
}

// A benchmark program: its OpenCL strategies, sizes and peers (hand-written first).
struct Program {
  std::string name;
  std::vector<std::string> strategies;  // examples/NAME/<strategy>.elv
  std::string sizes;                    // risec --size
  std::function<Times(const Cl&, int)> peers;
  bool blas = false;  // CLBlast has routines for it
};

// The fastest (by minimum) of the timed entries, or nullptr.
template <typename T, typename Min>
const T* fastest(const std::vector<T>& xs, Min min_of) {
  const T* best = nullptr;
  for (const T& x : xs)
    if (min_of(x) > 0 && (!best || min_of(x) < min_of(*best))) best = &x;
  return best;
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
  const std::vector<std::string> opencl{"opencl"};
  std::vector<Program> programs = {
      {"atax", opencl, "m=" + S(mv) + ",n=" + S(mv),
       [&](const Cl& cl, int r) { return peers_atax(cl, r, mv, mv); }, true},
      {"gemv", opencl, "n=" + S(mv) + ",m=" + S(mv),
       [&](const Cl& cl, int r) { return peers_gemv(cl, r, mv, mv); }, true},
      {"gesummv", opencl, "n=" + S(mv),
       [&](const Cl& cl, int r) { return peers_gesummv(cl, r, mv); }, true},
      {"mm",
       {"global2d", "opencl_tiled", "gpu_tiled"},
       "n=" + S(mmn) + ",m=" + S(mmn) + ",k=" + S(mmn),
       [&](const Cl& cl, int r) { return peers_mm(cl, r, mmn, mmn, mmn); },
       true},
      {"conv2d", opencl, "n=" + S(img) + ",m=" + S(img),
       [&](const Cl& cl, int r) { return hand_conv2d(cl, r, img, img); }},
      {"nbody", opencl, "n=" + S(bodies),
       [&](const Cl& cl, int r) { return hand_nbody(cl, r, bodies); }},
      {"md", opencl, "n=" + S(atoms) + ",k=" + S(nbr),
       [&](const Cl& cl, int r) { return hand_md(cl, r, atoms, nbr); }},
      {"kmeans", opencl, "n=" + S(points) + ",k=5,f=34",
       [&](const Cl& cl, int r) { return hand_kmeans(cl, r, points, 5, 34); }},
      {"nn", opencl, "n=" + S(records),
       [&](const Cl& cl, int r) { return hand_nn(cl, r, records); }},
      {"mriq", opencl, "n=" + S(voxels) + ",k=" + S(samples),
       [&](const Cl& cl, int r) { return hand_mriq(cl, r, voxels, samples); }},
  };

  risec::bench::LoadMonitor load;
  load.start();
  std::printf("# OpenCL suite (issues 12, 36)\n");
  std::printf("CPU: %s\n", risec::bench::machine_description().c_str());
  std::printf("source: %s; load average at start: %s\n", risec::bench::source_revision().c_str(),
              risec::bench::load_average().c_str());
  std::unique_ptr<Cl> cl;
  try {
    cl = std::make_unique<Cl>();
    std::printf("device: %s\n", cl->describe().c_str());
  } catch (const Failure& f) {
    std::printf("device: none (%s): hand-written kernels not run\n", f.what.c_str());
  }
  const char* no_clblast = clblast_missing();
  std::printf("library: %s\n", no_clblast
                                   ? (std::string(no_clblast) + ": its column is left out").c_str()
                                   : "CLBlast (gemv, atax, gesummv, mm)");
  std::printf(
      "kernel times, ms: min / median of %d runs (profiling events; the peers of a program "
      "interleaved, risec in a child process)%s\n\n",
      repeat, small ? "; --small sizes (a smoke test)" : "");
  std::fflush(stdout);

  std::vector<std::string> header{"benchmark", "sizes", "hand-written"};
  if (!no_clblast) header.push_back("CLBlast");
  for (const char* h : {"risec", "risec / best", "note"}) header.push_back(h);
  Table t(header);
  Table summary({"program", "best peer", "best peer ms", "risec's best", "risec ms",
                 "risec / best, min", "risec / best, median"});
  int met = 0, compared = 0;
  for (const Program& p : programs) {
    if (!only.empty() && !only.count(p.name)) continue;
    Times peers;
    if (cl) {
      peers = p.peers(*cl, repeat);
    } else {
      peers.push_back({"hand-written", -1, -1, "no device", ""});
    }
    const PeerTime* best = fastest(peers, [](const PeerTime& x) { return x.min_s; });
    std::vector<std::pair<std::string, RisecResult>> runs;
    for (const std::string& s : p.strategies) {
      runs.emplace_back(s, run_risec(p.name, s, p.sizes, repeat, check));
      const RisecResult& r = runs.back().second;
      std::string note;
      for (const PeerTime& x : peers) {
        add_note(note, x.failure.empty() ? "" : x.name + ": " + shorten(x.failure));
        add_note(note, x.note.empty() ? "" : x.name + ": " + x.note);
      }
      add_note(note, r.failure.empty() ? "" : "risec: " + shorten(r.failure));
      std::vector<std::string> row{
          p.strategies.size() == 1 && s == "opencl" ? p.name : p.name + " (" + s + ")", p.sizes,
          cell(peers[0].min_s, peers[0].median_s)};
      if (!no_clblast) {
        const PeerTime* lib = peers.size() > 1 ? &peers[1] : nullptr;
        row.push_back(lib ? cell(lib->min_s, lib->median_s) : "-");
      }
      row.push_back(cell(r.min_s, r.median_s));
      row.push_back(best ? ratio(r.min_s, best->min_s) : "n/a");
      row.push_back(note);
      t.add(row);
    }
    const auto* top =
        fastest(runs, [](const std::pair<std::string, RisecResult>& x) { return x.second.min_s; });
    if (best && top) {
      ++compared;
      if (top->second.min_s <= best->min_s) ++met;
    }
    summary.add({p.name, best ? best->name : "n/a",
                 best ? cell(best->min_s, best->median_s) : "n/a", top ? top->first : "n/a",
                 top ? cell(top->second.min_s, top->second.median_s) : "n/a",
                 best && top ? ratio(top->second.min_s, best->min_s) : "n/a",
                 best && top ? ratio(top->second.median_s, best->median_s) : "n/a"});
  }
  t.print();
  std::printf(
      "\nPer program: the best (by minimum) of the hand-written kernel%s, against risec's best "
      "strategy; risec / best below 1: risec faster.\n\n",
      no_clblast ? "" : " and CLBlast");
  summary.print();
  std::printf("\nrisec at least as fast as the best peer (minimum): %d of %d programs\n", met,
              compared);
  std::printf("load average at end: %s; CPU used by other processes during the run: %s\n",
              risec::bench::load_average().c_str(), load.describe().c_str());
  return 0;
}
