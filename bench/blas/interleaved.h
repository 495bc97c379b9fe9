// Timing helpers for the kernel benchmarks (bench/blas, bench/blackscholes), on top of
// bench/common/bench_util.h (in a namespace of their own, apart from that header's):
//   - interleaved timing: the variants of one kernel take turns, round after round,
//     so that a change in the machine's load (it is shared) affects all of them alike
//     and their ratios stay meaningful;
//   - a measure of the load other processes put on the machine during a run, printed
//     with the results so that a disturbed run can be recognised.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "../common/bench_util.h"

namespace risec::kernel_bench {

using bench::seconds_of;
using bench::Timing;

struct Turn {
  std::string name;
  std::function<void()> run;
};

struct InterleavedPolicy {
  int rounds = 7;          // each round runs every variant in turn
  int calls_per_turn = 3;  // timed calls per variant per round, after one untimed call
  int settle_ms = 150;     // pause before each turn (see below)
};

// For each variant, the median (and minimum) of rounds * calls_per_turn timed calls.
// Each turn starts with a pause and one untimed call (unlike bench::time_interleaved,
// which pauses once per round): OpenBLAS's worker threads spin
// for about 0.1 s after a call before they sleep, and OpenMP's for a shorter time;
// without the pause they would compete for the two cores with the next variant.
inline std::vector<Timing> time_interleaved(const std::vector<Turn>& variants,
                                            const InterleavedPolicy& p) {
  std::vector<std::vector<double>> samples(variants.size());
  for (int round = 0; round < p.rounds; ++round)
    for (size_t v = 0; v < variants.size(); ++v) {
      usleep(static_cast<useconds_t>(p.settle_ms) * 1000);
      variants[v].run();
      for (int c = 0; c < p.calls_per_turn; ++c) samples[v].push_back(seconds_of(variants[v].run));
    }
  std::vector<Timing> out;
  for (auto& s : samples) {
    std::sort(s.begin(), s.end());
    Timing t;
    t.reps = static_cast<int>(s.size());
    t.min_s = s.front();
    t.median_s = s.size() % 2 ? s[s.size() / 2] : 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]);
    out.push_back(t);
  }
  return out;
}

// CPU time used on the whole machine by processes other than this one, from
// /proc/stat (busy jiffies of all CPUs) minus this process's own user and system time.
class OtherLoad {
 public:
  OtherLoad() { start(); }
  void start() {
    busy0_ = machine_busy_s();
    self0_ = self_cpu_s();
    wall0_ = std::chrono::steady_clock::now();
  }
  // Average number of CPUs kept busy by other processes since start() (0: idle).
  double cpus() const {
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0_).count();
    double other = (machine_busy_s() - busy0_) - (self_cpu_s() - self0_);
    return wall > 0 ? std::max(0.0, other / wall) : 0.0;
  }

 private:
  static double machine_busy_s() {
    std::FILE* f = std::fopen("/proc/stat", "r");
    if (!f) return 0;
    unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0;
    int got = std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &system, &idle,
                          &iowait, &irq, &softirq);
    std::fclose(f);
    if (got != 7) return 0;
    return double(user + nice + system + irq + softirq) / double(sysconf(_SC_CLK_TCK));
  }
  static double self_cpu_s() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    auto s = [](const timeval& t) { return double(t.tv_sec) + 1e-6 * double(t.tv_usec); };
    return s(u.ru_utime) + s(u.ru_stime);
  }
  double busy0_ = 0, self0_ = 0;
  std::chrono::steady_clock::time_point wall0_;
};

}  // namespace risec::kernel_bench
