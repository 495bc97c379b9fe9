// Helpers shared by the benchmark programs (bench/mm, bench/stencil): aligned
// buffers, median timing with a warm-up, compiling an example with risec and loading
// it, and printing a table (also as JSON lines, for scripts/bench.sh). Header-only;
// the programs link risec_core.
//
// Timing method (docs/performance.md): the variants compared in one table are timed
// side by side (time_interleaved): a warm-up call each, then rounds calling every
// variant once; each call is timed alone with steady_clock and the median is
// reported, since the machine is shared and noisy.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include "driver/commands.h"
#include "driver/compile.h"
#include "runtime/jit.h"

namespace risec::bench {

// A path in the source tree ("examples/mm/mm.rise").
inline std::string source_path(const std::string& relative) {
  return std::string(RISEC_SOURCE_DIR) + "/" + relative;
}

// A 64-byte aligned float buffer.
struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};
class Buffer {
 public:
  explicit Buffer(size_t count) : count_(count) {
    size_t bytes = ((count * sizeof(float) + 63) / 64) * 64;
    data_.reset(static_cast<float*>(std::aligned_alloc(64, bytes ? bytes : 64)));
    if (!data_) {
      std::fprintf(stderr, "out of memory\n");
      std::exit(1);
    }
    std::fill(data_.get(), data_.get() + count, 0.0f);
  }
  float* data() const { return data_.get(); }
  size_t size() const { return count_; }
  float& operator[](size_t i) const { return data_.get()[i]; }

 private:
  std::unique_ptr<float, FreeDeleter> data_;
  size_t count_;
};

// Deterministic uniform values in [0, 1).
inline void fill_random(const Buffer& b, uint32_t seed) {
  uint32_t state = seed;
  for (size_t i = 0; i < b.size(); ++i) {
    state = state * 1664525u + 1013904223u;
    b[i] = static_cast<float>(state >> 8) / 16777216.0f;
  }
}

struct TimingPolicy {
  int min_reps = 5;
  int max_reps = 10;
  double budget_s = 3.0;  // about this long per variant (after the warm-up)
};

struct Timing {
  double median_s = 0;
  double min_s = 0;
  int reps = 0;
};

inline double seconds_of(const std::function<void()>& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
}

inline Timing summarize(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  Timing out;
  out.reps = static_cast<int>(t.size());
  if (t.empty()) return out;
  size_t r = t.size();
  out.min_s = t.front();
  out.median_s = r % 2 ? t[r / 2] : 0.5 * (t[r / 2 - 1] + t[r / 2]);
  return out;
}

// A variant to time: `before` (untimed: set a thread count, clear the output), then
// `run` (timed).
struct Variant {
  std::string name;
  int threads = 1;
  std::function<void()> run;
  std::function<void()> before;
  Timing timing;
};

// Times the variants side by side: one warm-up call each, then rounds in which every
// variant is called once, in order, so that a change of load on the shared machine
// affects all of them alike. The number of rounds is budget_s * (number of variants)
// divided by the time of one round (its warm-up), within [min_reps, max_reps].
// `after_round` (untimed) runs at the end of every round (e.g. a pause letting
// library worker threads go to sleep). Each variant gets the median of its times.
inline void time_interleaved(std::vector<Variant>& vs, const TimingPolicy& p,
                             const std::function<void()>& after_round = {}) {
  double round = 0;
  for (Variant& v : vs) {
    if (v.before) v.before();
    round += seconds_of(v.run);
  }
  if (after_round) after_round();
  int reps = p.max_reps;
  if (round > 0) reps = static_cast<int>(p.budget_s * double(vs.size()) / round);
  reps = std::clamp(reps, p.min_reps, p.max_reps);
  std::vector<std::vector<double>> t(vs.size());
  for (int r = 0; r < reps; ++r) {
    for (size_t i = 0; i < vs.size(); ++i) {
      if (vs[i].before) vs[i].before();
      t[i].push_back(seconds_of(vs[i].run));
    }
    if (after_round) after_round();
  }
  for (size_t i = 0; i < vs.size(); ++i) vs[i].timing = summarize(t[i]);
}

// Compile `program` (a path in the source tree) with risec at `sizes`, with the
// strategy file `strategy` (a path in the source tree; "" for the default lowering)
// for `target` (c | openmp), and load the generated C compiled by the runtime
// (-O3 -march=native ...). `source_out`, when given, receives the generated C.
// `bind`, when given, binds inputs to .npy files (--bind, docs/cli.md).
inline runtime::Module compile_example(const std::string& program, const std::string& strategy,
                                       const rise::SizeMap& sizes, const std::string& target,
                                       std::string* source_out = nullptr,
                                       const std::map<std::string, std::string>* bind = nullptr,
                                       const std::vector<std::string>& params = {}) {
  rise::Program p = driver::load_program(source_path(program));
  std::optional<elevate::Strategy> s;
  if (!strategy.empty()) s = driver::load_strategy(source_path(strategy), params);
  driver::CompileRequest req;
  req.program = &p;
  req.sizes = &sizes;
  req.strategy = s ? &*s : nullptr;
  req.target = target;
  req.bind = bind;
  driver::Compiled c = driver::compile(req);
  if (source_out) *source_out = c.unit.source;
  runtime::CompileOptions opts;
  opts.openmp = target == "openmp";
  return runtime::jit_compile(c.unit.source, c.unit.name, opts);
}

// Largest |got - want| / max(1, |want|).
inline double max_rel_error(const Buffer& got, const Buffer& want) {
  double m = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double w = want[i];
    double e = std::abs(double(got[i]) - w) / std::max(1.0, std::abs(w));
    if (std::isnan(e)) return INFINITY;
    m = std::max(m, e);
  }
  return m;
}

// A plain text table in Markdown syntax (pastes into docs/performance.md).
class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print() const {
    std::vector<size_t> w;
    for (const auto& r : rows_)
      for (size_t i = 0; i < r.size(); ++i) {
        if (w.size() <= i) w.push_back(0);
        w[i] = std::max(w[i], r[i].size());
      }
    auto line = [&](const std::vector<std::string>& r) {
      std::string s = "|";
      for (size_t i = 0; i < w.size(); ++i) {
        std::string cell = i < r.size() ? r[i] : "";
        s += " " + cell + std::string(w[i] - cell.size(), ' ') + " |";
      }
      std::printf("%s\n", s.c_str());
    };
    line(rows_[0]);
    std::string sep = "|";
    for (size_t x : w) sep += std::string(x + 2, '-') + "|";
    std::printf("%s\n", sep.c_str());
    for (size_t i = 1; i < rows_.size(); ++i) line(rows_[i]);
    std::fflush(stdout);
    write_json_lines();
  }

  // When RISEC_BENCH_JSONL names a file (scripts/bench.sh sets it), appends the rows
  // there as JSON lines, one object per row keyed by the header, all values strings,
  // plus "table": the number of the table within this run (bench/plot_results.py
  // draws them).
  void write_json_lines() const {
    const char* path = std::getenv("RISEC_BENCH_JSONL");
    if (!path || !*path) return;
    std::FILE* f = std::fopen(path, "a");
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", path);
      return;
    }
    static int tables = 0;
    const int table = tables++;
    for (size_t i = 1; i < rows_.size(); ++i) {
      std::string s = "{\"table\": " + std::to_string(table);
      for (size_t c = 0; c < rows_[0].size(); ++c)
        s += ", " + json_string(rows_[0][c]) + ": " +
             json_string(c < rows_[i].size() ? rows_[i][c] : "");
      std::fprintf(f, "%s}\n", s.c_str());
    }
    std::fclose(f);
  }

 private:
  static std::string json_string(const std::string& v) {
    std::string out = "\"";
    for (char ch : v) {
      if (ch == '"' || ch == '\\') {
        out += '\\';
        out += ch;
      } else if (static_cast<unsigned char>(ch) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(ch));
        out += buf;
      } else {
        out += ch;
      }
    }
    return out + "\"";
  }
  std::vector<std::vector<std::string>> rows_;
};

// The OpenBLAS kernel to force, or "" to leave OPENBLAS_CORETYPE to OpenBLAS's own
// detection (DESIGN.md): SkylakeX only where the CPU has every AVX-512 subset that
// kernel uses (F, BW, DQ, VL; OpenBLAS may pick a generic kernel on AVX-512 machines
// it does not know). Forcing SkylakeX on an AVX2-only CPU, or on one with AVX-512F
// alone (Xeon Phi), dies with SIGILL.
inline std::string default_openblas_coretype() {
  const bool skylake_x_features =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  return skylake_x_features ? "SkylakeX" : "";
}

// "AMD EPYC ..., 2 CPUs": the first model name of /proc/cpuinfo and the number of
// processors this process may run on.
inline std::string machine_description() {
  std::string model = "unknown CPU";
  int cpus = 0;
  if (std::FILE* f = std::fopen("/proc/cpuinfo", "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, f)) {
      std::string l = line;
      if (l.rfind("processor", 0) == 0) ++cpus;
      if (l.rfind("model name", 0) == 0 && model == "unknown CPU") {
        size_t colon = l.find(':');
        if (colon != std::string::npos) {
          model = l.substr(colon + 1);
          model.erase(0, model.find_first_not_of(" \t"));
          while (!model.empty() && (model.back() == '\n' || model.back() == ' ')) model.pop_back();
        }
      }
    }
    std::fclose(f);
  }
  return model + ", " + std::to_string(cpus) + " CPUs";
}

// The source revision the benchmark was built from: `git describe --always --dirty`
// in the source tree, or "unknown".
inline std::string source_revision() {
  std::string cmd =
      "git -C '" + std::string(RISEC_SOURCE_DIR) + "' describe --always --dirty 2>/dev/null";
  std::string out;
  if (std::FILE* p = popen(cmd.c_str(), "r")) {
    char buf[128];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out.empty() ? "unknown" : out;
}

// The first three fields of /proc/loadavg ("1.02 0.87 0.70"), or "?".
inline std::string load_average() {
  std::string out = "?";
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    double a = 0, b = 0, c = 0;
    if (std::fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", a, b, c);
      out = buf;
    }
    std::fclose(f);
  }
  return out;
}

// How busy the machine was with other work while a benchmark ran: the CPU time
// of the whole system (/proc/stat) minus this process's own (getrusage, all its
// threads), divided by the wall time, in cores. On the 2-core shared machine, a
// value near 1 means another process held a core: 2-thread results are then
// meaningless. start() before timing, other_cores() after.
class LoadMonitor {
 public:
  void start() {
    sys0_ = system_busy_s();
    own0_ = own_cpu_s();
    t0_ = std::chrono::steady_clock::now();
  }
  double other_cores() const {
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    if (wall <= 0 || sys0_ < 0) return -1;
    double other = (system_busy_s() - sys0_) - (own_cpu_s() - own0_);
    return std::max(0.0, other / wall);
  }
  std::string describe() const {
    double c = other_cores();
    if (c < 0) return "unknown";
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.2f cores on average", c);
    return buf;
  }

 private:
  static double system_busy_s() {
    std::FILE* f = std::fopen("/proc/stat", "r");
    if (!f) return -1;
    unsigned long long v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int got = std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                          &v[3], &v[4], &v[5], &v[6], &v[7]);
    std::fclose(f);
    if (got < 5) return -1;
    // user nice system idle iowait irq softirq steal: busy = all but idle and iowait.
    unsigned long long busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    return double(busy) / double(sysconf(_SC_CLK_TCK));
  }
  static double own_cpu_s() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
  }
  double sys0_ = -1, own0_ = 0;
  std::chrono::steady_clock::time_point t0_;
};

// The command line of a benchmark whose only option is --quick: sets `quick` and
// returns nothing to go on, or the exit code to return at once (0 after --help, 2 for
// an unknown option).
inline std::optional<int> parse_quick_option(int argc, char** argv, const char* name, bool& quick) {
  quick = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
    } else if (a == "--help" || a == "-h") {
      std::printf("usage: %s [--quick]\n", name);
      return 0;
    } else {
      std::fprintf(stderr, "%s: unknown option '%s' (try --help)\n", name, a.c_str());
      return 2;
    }
  }
  return std::nullopt;
}

inline std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

// The rows of variants timed side by side: `prefix` (e.g. the example and size), then
// the name, median time, ratio to the first variant (the reference), calls, and "ok"
// when the output is within 1e-6 (relative) of the first variant's.
inline void add_timed_rows(Table& table, const std::vector<std::string>& prefix,
                           const std::vector<Variant>& vs,
                           const std::vector<std::unique_ptr<Buffer>>& outs) {
  double th = vs[0].timing.median_s;
  for (size_t i = 0; i < vs.size(); ++i) {
    std::string check = "reference";
    if (i > 0) {
      double e = max_rel_error(*outs[i], *outs[0]);
      check = e < 1e-6 ? std::string("ok") : "MISMATCH (" + fmt("%.2g", e) + ")";
    }
    std::vector<std::string> row = prefix;
    for (std::string c :
         {vs[i].name, fmt("%.3f", vs[i].timing.median_s * 1e3),
          fmt("%.3f", vs[i].timing.median_s / th), std::to_string(vs[i].timing.reps), check})
      row.push_back(std::move(c));
    table.add(std::move(row));
  }
}

// The end of a benchmark program: the table and the load during the run; returns 0.
inline int print_results(const Table& table, const LoadMonitor& load) {
  std::printf("\n");
  table.print();
  std::printf("load average at end: %s; CPU used by other processes during the run: %s\n",
              load_average().c_str(), load.describe().c_str());
  return 0;
}

// The rounds of a side-by-side table (bench_stencil, bench_conv): 10 to `max_reps` of
// about 1.5 s per variant, or 5 to 20 of about 0.3 s with --quick.
inline TimingPolicy side_by_side_policy(bool quick, int max_reps = 200) {
  TimingPolicy p;
  p.min_reps = quick ? 5 : 10;
  p.max_reps = quick ? 20 : max_reps;
  p.budget_s = quick ? 0.3 : 1.5;
  return p;
}

// The lines such a table starts with: `title` and the machine, the source revision
// and the load, and how each `unit` (grid, case) is timed, the ratio being the time
// over the `reference` variant's.
inline void print_side_by_side_header(const std::string& title, const TimingPolicy& p,
                                      const std::string& unit, const std::string& reference) {
  std::printf("%s; %s\n", title.c_str(), machine_description().c_str());
  std::printf("source %s; load average at start: %s\n", source_revision().c_str(),
              load_average().c_str());
  std::printf(
      "per %s: one warm-up call per variant, then %d-%d rounds calling each variant once "
      "(about %.1f s per variant); median time; ratio = time / %s time\n",
      unit.c_str(), p.min_reps, p.max_reps, p.budget_s, reference.c_str());
  std::fflush(stdout);
}

}  // namespace risec::bench
