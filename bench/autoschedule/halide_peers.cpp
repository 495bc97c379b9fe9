// halide_peers: the image programs of bench/autoschedule's peers written in Halide 14
// (JIT), scheduled by an expert schedule or by one of the three autoschedulers
// libhalide14-0-dev ships (Mullapudi2016, Adams2019, Li2018), timed on an input read from
// a file; the output is written to a file for bench_peers.py to compare with risec's. One
// program and one schedule per process, so that a plugin that fails to load or to
// schedule fails alone. The programs: bilateral, pyrdown, lapband
// (bench/autoschedule/programs/), sharpen and morph5 (bench/autoschedule/), box3, box5 and
// the 3-D stencil7 (bench/default_lowering/), each with the algorithm and the order of
// operations of its .rise file.
//
//   halide_peers PROGRAM SCHEDULE DIMS... REPEAT IN.f32 OUT.f32
//     PROGRAM   bilateral | pyrdown | lapband | sharpen | morph5 | box3 | box5 | stencil7
//     SCHEDULE  expert | Mullapudi2016 | Adams2019 | Li2018
//     DIMS      the input's size, outermost first (row-major f32, as the RISE programs
//               read it): ROWS COLS for the images, PLANES ROWS COLS for stencil7
//   prints "min_ms MIN median_ms MEDIAN" (REPEAT timed calls after one warm-up call).
//   Threads: HL_NUM_THREADS (the autoschedulers are told the same parallelism).
//   HALIDE_PEERS_CPUTIME=1 times the process's CPU time instead of the wall clock.
//   HALIDE_PEERS_SCHEDULE=1 prints an autoscheduler's chosen schedule to stderr.
//
// The expert schedule: strips of 32 output rows (of 8 planes for stencil7, as
// bench_default_lowering's), parallel, every stage vectorised by the host's natural float
// width, producers computed per strip (Halide's compute_at).
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
  explicit Pipeline(int rank) : in(Halide::Float(32), rank) {}
  Halide::ImageParam in;
  Func out;
  std::vector<Func> producers;                     // computed per strip by the expert schedule
  int out_cols = 0, out_rows = 0, out_planes = 0;  // out_planes: 0 for an image
  std::vector<int> in_shape;                       // Halide's order: innermost first
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

// bench/autoschedule/sharpen.rise: a 3 x 3 binomial blur with clamped borders (the
// window read row by row, each tap times its weight g / 16, from 0), then
// in + 0.75 * (in - blurred).
void sharpen(Pipeline& p, int rows, int cols) {
  Var x("x"), y("y");
  Func c = Halide::BoundaryConditions::repeat_edge(p.in);
  Func blurred("blurred");
  const float g[3][3] = {{1, 2, 1}, {2, 4, 2}, {1, 2, 1}};
  Expr s = 0.0f;
  for (int dy = 0; dy < 3; ++dy)
    for (int dx = 0; dx < 3; ++dx) s = s + c(x + dx - 1, y + dy - 1) * (g[dy][dx] / 16.0f);
  blurred(x, y) = s;
  p.out(x, y) = p.in(x, y) + 0.75f * (p.in(x, y) - blurred(x, y));
  p.producers.push_back(blurred);
  p.out_cols = cols;
  p.out_rows = rows;
}

// bench/autoschedule/morph5.rise: the maximum of the 5 x 5 window with clamped borders,
// read row by row from -3e38.
void morph5(Pipeline& p, int rows, int cols) {
  Var x("x"), y("y");
  Func c = Halide::BoundaryConditions::repeat_edge(p.in);
  Expr e = -3.0e38f;
  for (int dy = -2; dy <= 2; ++dy)
    for (int dx = -2; dx <= 2; ++dx) e = Halide::max(e, c(x + dx, y + dy));
  p.out(x, y) = e;
  p.out_cols = cols;
  p.out_rows = rows;
}

// bench/default_lowering/box3.rise and box5.rise: the mean of the (2r+1)^2 window, pixels
// outside the image 0, the window summed row by row from 0, then divided.
void box(Pipeline& p, int r, int rows, int cols) {
  Var x("x"), y("y");
  Func z = Halide::BoundaryConditions::constant_exterior(p.in, 0.0f);
  Expr e = 0.0f;
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx) e = e + z(x + dx, y + dy);
  p.out(x, y) = e / float((2 * r + 1) * (2 * r + 1));
  p.out_cols = cols;
  p.out_rows = rows;
}

// bench/default_lowering/stencil7.rise: 0.4 of each point plus 0.1 of its six face
// neighbours (clamped faces), summed in the .rise file's order: the outermost dimension's
// two, then the middle one's, then the innermost one's.
void stencil7(Pipeline& p, int planes, int rows, int cols) {
  Var x("x"), y("y"), z("z");
  Func c = Halide::BoundaryConditions::repeat_edge(p.in);
  p.out(x, y, z) = 0.4f * c(x, y, z) + 0.1f * (c(x, y, z - 1) + c(x, y, z + 1) + c(x, y - 1, z) +
                                               c(x, y + 1, z) + c(x - 1, y, z) + c(x + 1, y, z));
  p.out_cols = cols;
  p.out_rows = rows;
  p.out_planes = planes;
}

void schedule(Pipeline& p, const std::string& how, int threads) {
  if (how == "expert") {
    const int lanes = Halide::get_host_target().natural_vector_size<float>();
    // strips along the outermost dimension: 32 rows, or 8 planes of the 3-D stencil
    Var x = p.out.args()[0], y = p.out.args().back(), yo("yo"), yi("yi");
    const int strip = p.out_planes ? std::min(8, p.out_planes) : std::min(32, p.out_rows);
    // (a strip no taller than the output: Halide shifts the last strip inwards)
    p.out.split(y, yo, yi, strip).parallel(yo).vectorize(x, lanes);
    for (Func f : p.producers) f.compute_at(p.out, yo).vectorize(f.args()[0], lanes);
    return;
  }
  std::string plugin = "/usr/lib/x86_64-linux-gnu/halide14/libautoschedule_";
  for (char ch : how) plugin += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  plugin += ".so";
  Halide::load_plugin(plugin);
  Halide::Region in_est, out_est;
  for (int d = 0; d < p.in.dimensions(); ++d) in_est.push_back({0, p.in_shape[d]});
  out_est = {{0, p.out_cols}, {0, p.out_rows}};
  if (p.out_planes) out_est.push_back({0, p.out_planes});
  p.in.set_estimates(in_est);
  p.out.set_estimates(out_est);
  Halide::AutoSchedulerResults r = Halide::Pipeline(p.out).auto_schedule(
      how, Halide::get_host_target(), Halide::MachineParams(threads, 32 * 1024 * 1024, 40));
  // HALIDE_PEERS_SCHEDULE=1: the schedule the autoscheduler chose, as Halide prints it.
  if (const char* show = std::getenv("HALIDE_PEERS_SCHEDULE"); show && *show == '1')
    std::fprintf(stderr, "%s\n", r.schedule_source.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const std::string prog = argc > 1 ? argv[1] : "";
  const int rank = prog == "stencil7" ? 3 : 2;
  if (argc != 6 + rank) {
    std::fprintf(stderr,
                 "usage: halide_peers bilateral|pyrdown|lapband|sharpen|morph5|box3|box5 "
                 "expert|Mullapudi2016|Adams2019|Li2018 ROWS COLS REPEAT IN.f32 OUT.f32\n"
                 "       halide_peers stencil7 SCHEDULE PLANES ROWS COLS REPEAT IN.f32 "
                 "OUT.f32\n");
    return 2;
  }
  const std::string how = argv[2];
  std::vector<int> dims;  // outermost first, as given
  for (int d = 0; d < rank; ++d) dims.push_back(std::atoi(argv[3 + d]));
  const int rows = dims[rank - 2], cols = dims[rank - 1];
  const int planes = rank == 3 ? dims[0] : 1;
  const int repeat = std::atoi(argv[3 + rank]);
  const char* in_file = argv[4 + rank];
  const char* out_file = argv[5 + rank];
  const char* env = std::getenv("HL_NUM_THREADS");
  int threads = env ? std::atoi(env) : 1;
  std::vector<float> img(size_t(planes) * rows * cols);
  std::ifstream(in_file, std::ios::binary)
      .read(reinterpret_cast<char*>(img.data()), std::streamsize(img.size() * sizeof(float)));
  try {
    Pipeline p(rank);
    p.in_shape.assign(dims.rbegin(), dims.rend());
    if (prog == "bilateral")
      bilateral(p, rows, cols);
    else if (prog == "pyrdown")
      pyrdown(p, rows, cols);
    else if (prog == "lapband")
      lapband(p, rows, cols);
    else if (prog == "sharpen")
      sharpen(p, rows, cols);
    else if (prog == "morph5")
      morph5(p, rows, cols);
    else if (prog == "box3" || prog == "box5")
      box(p, prog == "box3" ? 1 : 2, rows, cols);
    else if (prog == "stencil7")
      stencil7(p, planes, rows, cols);
    else {
      std::fprintf(stderr, "halide_peers: unknown program '%s'\n", prog.c_str());
      return 2;
    }
    schedule(p, how, threads);
    p.out.compile_jit(Halide::get_host_target());
    Halide::Buffer<float> ib(img.data(), p.in_shape);
    std::vector<int> out_shape = {p.out_cols, p.out_rows};
    if (p.out_planes) out_shape.push_back(p.out_planes);
    size_t out_count = 1;
    for (int d : out_shape) out_count *= size_t(d);
    std::vector<float> o(out_count);
    Halide::Buffer<float> ob(o.data(), out_shape);
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
    std::ofstream(out_file, std::ios::binary)
        .write(reinterpret_cast<const char*>(o.data()), std::streamsize(o.size() * sizeof(float)));
  } catch (const Halide::Error& e) {
    std::fprintf(stderr, "halide_peers: %s %s: %s\n", prog.c_str(), how.c_str(), e.what());
    return 1;
  }
  return 0;
}
