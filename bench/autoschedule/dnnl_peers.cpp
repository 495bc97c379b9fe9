// dnnl_peers: the ML layers of bench/autoschedule/programs (mlp, layernorm,
// softmax) as oneDNN (libdnnl-dev, 2.x) primitives on the CPU engine, timed on inputs
// read from files; the output is written to a file for bench_peers.py to compare
// with risec's.
//
//   dnnl_peers mlp       REPEAT OUT.f32 B K H O  X W1 B1 W2 B2
//   dnnl_peers layernorm REPEAT OUT.f32 N D      X GAMMA BETA
//   dnnl_peers softmax   REPEAT OUT.f32 N D      X
//   prints "min_ms MIN median_ms MEDIAN" (REPEAT timed calls after one warm-up call).
//   Threads: OMP_NUM_THREADS (Debian's oneDNN runs on OpenMP).
//
// mlp: two matmul primitives, the first with its bias and a ReLU post-op, the second
// with its bias (x . W1 as torch.addmm, W1 row-major K x H); layernorm:
// layer_normalization_forward with scale and shift, epsilon 1e-5; softmax:
// softmax_forward over the rows.
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

std::vector<float> read_file(const char* path, size_t count) {
  std::vector<float> v(count);
  std::ifstream(path, std::ios::binary)
      .read(reinterpret_cast<char*>(v.data()), std::streamsize(count * sizeof(float)));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: dnnl_peers mlp|layernorm|softmax REPEAT OUT.f32 SIZES.. FILES..\n");
    return 2;
  }
  std::string prog = argv[1];
  int repeat = std::atoi(argv[2]);
  const char* out_path = argv[3];
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  std::vector<std::vector<float>> keep;  // the host arrays the memories wrap
  auto mem = [&](const memory::dims& d, tag t, std::vector<float> data) {
    keep.push_back(std::move(data));
    return memory({d, dt::f32, t}, eng, keep.back().data());
  };
  std::vector<std::function<void()>> steps;
  memory result;
  try {
    if (prog == "mlp" && argc == 13) {
      long b = std::atol(argv[4]), k = std::atol(argv[5]), h = std::atol(argv[6]),
           o = std::atol(argv[7]);
      memory x = mem({b, k}, tag::ab, read_file(argv[8], size_t(b * k)));
      memory w1 = mem({k, h}, tag::ab, read_file(argv[9], size_t(k * h)));
      memory b1 = mem({1, h}, tag::ab, read_file(argv[10], size_t(h)));
      memory w2 = mem({h, o}, tag::ab, read_file(argv[11], size_t(h * o)));
      memory b2 = mem({1, o}, tag::ab, read_file(argv[12], size_t(o)));
      memory hid = mem({b, h}, tag::ab, std::vector<float>(size_t(b * h)));
      result = mem({b, o}, tag::ab, std::vector<float>(size_t(b * o)));
      dnnl::post_ops relu;
      relu.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
      dnnl::primitive_attr attr;
      attr.set_post_ops(relu);
      dnnl::matmul l1(dnnl::matmul::primitive_desc(
          dnnl::matmul::desc(x.get_desc(), w1.get_desc(), b1.get_desc(), hid.get_desc()), attr,
          eng));
      dnnl::matmul l2(dnnl::matmul::primitive_desc(
          dnnl::matmul::desc(hid.get_desc(), w2.get_desc(), b2.get_desc(), result.get_desc()),
          eng));
      steps.push_back([=, &s] {
        l1.execute(
            s,
            {{DNNL_ARG_SRC, x}, {DNNL_ARG_WEIGHTS, w1}, {DNNL_ARG_BIAS, b1}, {DNNL_ARG_DST, hid}});
        l2.execute(s, {{DNNL_ARG_SRC, hid},
                       {DNNL_ARG_WEIGHTS, w2},
                       {DNNL_ARG_BIAS, b2},
                       {DNNL_ARG_DST, result}});
      });
    } else if (prog == "layernorm" && argc == 9) {
      long n = std::atol(argv[4]), d = std::atol(argv[5]);
      memory x = mem({n, d}, tag::ab, read_file(argv[6], size_t(n * d)));
      memory gamma = mem({d}, tag::a, read_file(argv[7], size_t(d)));
      memory beta = mem({d}, tag::a, read_file(argv[8], size_t(d)));
      result = mem({n, d}, tag::ab, std::vector<float>(size_t(n * d)));
      dnnl::layer_normalization_forward ln(dnnl::layer_normalization_forward::primitive_desc(
          dnnl::layer_normalization_forward::desc(
              dnnl::prop_kind::forward_inference, x.get_desc(), 1e-5f,
              dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift),
          eng));
      steps.push_back([=, &s] {
        ln.execute(s, {{DNNL_ARG_SRC, x},
                       {DNNL_ARG_SCALE, gamma},
                       {DNNL_ARG_SHIFT, beta},
                       {DNNL_ARG_DST, result}});
      });
    } else if (prog == "softmax" && argc == 7) {
      long n = std::atol(argv[4]), d = std::atol(argv[5]);
      memory x = mem({n, d}, tag::ab, read_file(argv[6], size_t(n * d)));
      result = mem({n, d}, tag::ab, std::vector<float>(size_t(n * d)));
      dnnl::softmax_forward sm(dnnl::softmax_forward::primitive_desc(
          dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, x.get_desc(), 1), eng));
      steps.push_back([=, &s] { sm.execute(s, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, result}}); });
    } else {
      std::fprintf(stderr, "dnnl_peers: unknown program or wrong arguments (%s)\n", prog.c_str());
      return 2;
    }
    auto call = [&] {
      for (auto& f : steps) f();
      s.wait();
    };
    call();  // warm-up
    std::vector<double> ms;
    for (int r = 0; r < repeat; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      call();
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("min_ms %.4f median_ms %.4f\n", ms.front(), ms[ms.size() / 2]);
    const float* o = static_cast<const float*>(result.get_data_handle());
    std::ofstream(out_path, std::ios::binary)
        .write(reinterpret_cast<const char*>(o), std::streamsize(result.get_desc().get_size()));
  } catch (const dnnl::error& e) {
    std::fprintf(stderr, "dnnl_peers: %s: %s\n", prog.c_str(), e.what());
    return 1;
  }
  return 0;
}
