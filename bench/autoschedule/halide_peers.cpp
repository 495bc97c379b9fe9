// halide_peers: the image programs of bench/autoschedule/programs (bilateral,
// pyrdown, lapband) written in Halide 14 (JIT), scheduled by an expert schedule or
// by one of the three autoschedulers libhalide14-0-dev ships (Mullapudi2016,
// Adams2019, Li2018), timed on an input read from a file; the output is written to a
// file for bench_peers.py to compare with risec's. One program and one schedule per
// process, so that a plugin that fails to load or to schedule fails alone.
//
//   halide_peers PROGRAM SCHEDULE ROWS COLS REPEAT IN.f32 OUT.f32
//     PROGRAM   bilateral | pyrdown | lapband
//     SCHEDULE  expert | Mullapudi2016 | Adams2019 | Li2018
//     ROWS COLS the input image's size (row-major f32, as the RISE programs read it)
//   prints "min_ms MIN median_ms MEDIAN" (REPEAT timed calls after one warm-up call).
//   Threads: HL_NUM_THREADS (the autoschedulers are told the same parallelism).
//   HALIDE_PEERS_CPUTIME=1 times the process's CPU time instead of the wall clock.
//   HALIDE_PEERS_SCHEDULE=1 prints an autoscheduler's chosen schedule to stderr.
//
// The expert schedule: strips of 32 output rows, parallel, every stage vectorised by
// the host's natural float width, producers computed per strip (Halide's compute_at).
// Exits 1 when a plugin cannot be loaded or the schedule fails (the message says why).
#include <Halide.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

namespace {

using Halide::Expr;
using Halide::Func;
using Halide::Var;

// Milliseconds on the wall clock, or of the process's CPU time.
double now_ms(bool cpu_time) {
  if (cpu_time) {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
  }
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

const float kW5[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};

struct Pipeline {
  Halide::ImageParam in{Halide::Float(32), 2};
  Func out;
  std::vector<Func> producers;  // computed per strip by the expert schedule
  int out_cols = 0, out_rows = 0;
};

// out(x, y) = sum_q w(q) q / sum_q w(q) over the 5 x 5 window, w(q) = exp(-(c - q)^2 / 0.1),
// the window read row by row as join(nbh) does.
void bilateral(Pipeline& p, int rows, int cols) {
  Var x("x"), y("y");
  Func c = Halide::BoundaryConditions::repeat_edge(p.in);
  Expr centre = c(x, y), num = 0.0f, den = 0.0f;
  for (int dy = 0; dy < 5; ++dy)
    for (int dx = 0; dx < 5; ++dx) {
      Expr q = c(x + dx - 2, y + dy - 2);
      Expr w = Halide::exp(-((q - centre) * (q - centre)) / 0.1f);
      num = num + w * q;
      den = den + w;
    }
  p.out(x, y) = num / den;
  p.out_cols = cols;
  p.out_rows = rows;
}

// The blur along x kept at every second column, then along y at every second row.
Func pyramid_down(Pipeline& p, int rows, std::vector<Func>& stages) {
  Var x("x"), y("y");
  Func c = Halide::BoundaryConditions::repeat_edge(p.in);
  Func bx("bx"), dn("down");
  Expr sx = 0.0f, sy = 0.0f;
  for (int k = 0; k < 5; ++k) sx = sx + c(2 * x + k - 2, y) * kW5[k];
  bx(x, y) = sx;
  for (int k = 0; k < 5; ++k) sy = sy + bx(x, Halide::clamp(2 * y + k - 2, 0, rows - 1)) * kW5[k];
  dn(x, y) = sy;
  stages.push_back(bx);
  return dn;
}

void pyrdown(Pipeline& p, int rows, int cols) {
  Func dn = pyramid_down(p, rows, p.producers);
  Var x = dn.args()[0], y = dn.args()[1];
  p.out(x, y) = dn(x, y);
  p.out_cols = cols / 2;
  p.out_rows = rows / 2;
}

// img - up(down(img)), up the linear interpolation along x, then along y.
void lapband(Pipeline& p, int rows, int cols) {
  Func dn = pyramid_down(p, rows, p.producers);
  Var x("x"), y("y");
  const int dc = cols / 2, dr = rows / 2;
  Func ux("ux"), uy("uy");
  Expr a = dn(x / 2, y), b = dn(Halide::min(x / 2 + 1, dc - 1), y);
  ux(x, y) = Halide::select(x % 2 == 0, a, (a + b) * 0.5f);
  Expr u = ux(x, y / 2), v = ux(x, Halide::min(y / 2 + 1, dr - 1));
  uy(x, y) = Halide::select(y % 2 == 0, u, (u + v) * 0.5f);
  p.out(x, y) = p.in(x, y) - uy(x, y);
  p.producers.push_back(dn);
  p.producers.push_back(ux);
  p.out_cols = cols;
  p.out_rows = rows;
}

void schedule(Pipeline& p, const std::string& how, int rows, int cols, int threads) {
  if (how == "expert") {
    const int lanes = Halide::get_host_target().natural_vector_size<float>();
    Var x = p.out.args()[0], y = p.out.args()[1], yo("yo"), yi("yi");
    // (a strip no taller than the output: Halide shifts the last strip inwards)
    p.out.split(y, yo, yi, std::min(32, p.out_rows)).parallel(yo).vectorize(x, lanes);
    for (Func f : p.producers) f.compute_at(p.out, yo).vectorize(f.args()[0], lanes);
    return;
  }
  std::string plugin = "/usr/lib/x86_64-linux-gnu/halide14/libautoschedule_";
  for (char ch : how) plugin += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  plugin += ".so";
  Halide::load_plugin(plugin);
  p.in.set_estimates({{0, cols}, {0, rows}});
  p.out.set_estimates({{0, p.out_cols}, {0, p.out_rows}});
  Halide::AutoSchedulerResults r = Halide::Pipeline(p.out).auto_schedule(
      how, Halide::get_host_target(), Halide::MachineParams(threads, 32 * 1024 * 1024, 40));
  // HALIDE_PEERS_SCHEDULE=1: the schedule the autoscheduler chose, as Halide prints it.
  if (const char* show = std::getenv("HALIDE_PEERS_SCHEDULE"); show && *show == '1')
    std::fprintf(stderr, "%s\n", r.schedule_source.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 8) {
    std::fprintf(stderr,
                 "usage: halide_peers bilateral|pyrdown|lapband "
                 "expert|Mullapudi2016|Adams2019|Li2018 ROWS COLS REPEAT IN.f32 OUT.f32\n");
    return 2;
  }
  std::string prog = argv[1], how = argv[2];
  int rows = std::atoi(argv[3]), cols = std::atoi(argv[4]), repeat = std::atoi(argv[5]);
  const char* env = std::getenv("HL_NUM_THREADS");
  int threads = env ? std::atoi(env) : 1;
  std::vector<float> img(size_t(rows) * cols);
  std::ifstream(argv[6], std::ios::binary)
      .read(reinterpret_cast<char*>(img.data()), std::streamsize(img.size() * sizeof(float)));
  try {
    Pipeline p;
    if (prog == "bilateral")
      bilateral(p, rows, cols);
    else if (prog == "pyrdown")
      pyrdown(p, rows, cols);
    else if (prog == "lapband")
      lapband(p, rows, cols);
    else {
      std::fprintf(stderr, "halide_peers: unknown program '%s'\n", prog.c_str());
      return 2;
    }
    schedule(p, how, rows, cols, threads);
    p.out.compile_jit(Halide::get_host_target());
    Halide::Buffer<float> ib(img.data(), cols, rows);
    std::vector<float> o(size_t(p.out_rows) * p.out_cols);
    Halide::Buffer<float> ob(o.data(), p.out_cols, p.out_rows);
    p.in.set(ib);
    p.out.realize(ob);  // warm-up
    // HALIDE_PEERS_CPUTIME=1: the process's CPU time (all threads), which other load on
    // a shared machine disturbs less than the wall clock (bilateral_ab.sh, 1 thread).
    const char* cpu_env = std::getenv("HALIDE_PEERS_CPUTIME");
    const bool cpu_time = cpu_env && *cpu_env == '1';
    std::vector<double> ms;
    for (int r = 0; r < repeat; ++r) {
      const double t0 = now_ms(cpu_time);
      p.out.realize(ob);
      ms.push_back(now_ms(cpu_time) - t0);
    }
    std::sort(ms.begin(), ms.end());
    std::printf("min_ms %.4f median_ms %.4f\n", ms.front(), ms[ms.size() / 2]);
    std::ofstream(argv[7], std::ios::binary)
        .write(reinterpret_cast<const char*>(o.data()), std::streamsize(o.size() * sizeof(float)));
  } catch (const Halide::Error& e) {
    std::fprintf(stderr, "halide_peers: %s %s: %s\n", prog.c_str(), how.c_str(), e.what());
    return 1;
  }
  return 0;
}
