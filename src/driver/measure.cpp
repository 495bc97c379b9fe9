// The real Measurer (see measure.h).
#include "driver/measure.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "driver/run.h"
#include "runtime/jit.h"

namespace risec::driver {

namespace {

class RealMeasurer : public Measurer {
 public:
  RealMeasurer(rise::SizeMap sizes, uint64_t seed, int repeat)
      : sizes_(std::move(sizes)), seed_(seed), repeat_(repeat) {}

  void prepare(const Compiled& c) override {
    runtime::build_shared_object(c.unit.source, c_compile_options(c));
  }

  double measure(const Compiled& c, const TunePoint&) override { return fastest(c, repeat_); }

  double measure_unless_slower(const Compiled& c, const TunePoint&, double stop_above_ms) override {
    const double first = fastest(c, 1, kill_limit_ms(stop_above_ms));
    return time_after_first_call(first, stop_above_ms, repeat_, timer(c));
  }

  double measure_after_first_call(const Compiled& c, const TunePoint&, double first_ms,
                                  double stop_above_ms) override {
    return time_after_first_call(first_ms, stop_above_ms, repeat_, timer(c));
  }

  double first_call_overhead_ms() const override { return overhead_ms_; }

  double remeasure(const Compiled& c, const TunePoint&, double) override {
    return fastest(c, repeat_);
  }

 private:
  std::function<double(int, double)> timer(const Compiled& c) {
    return [this, &c](int calls, double limit_ms) { return fastest(c, calls, limit_ms); };
  }

  // The fastest of `calls` runs: other load on the machine only ever adds time, so
  // the minimum varies less between trials than the median does.
  // `limit_ms` > 0: a process still running after that long is killed, and the
  // limit is the answer.
  double fastest(const Compiled& c, int calls, double limit_ms = 0) {
    // Every candidate computes the same entry: the inputs are made once.
    if (!inputs_) inputs_ = make_inputs(c.high, {}, seed_);
    ExecOptions eo;
    eo.repeat = calls;
    eo.timeout_s = limit_ms / 1000;
    eo.timeout_returns = true;
    Execution ex = execute(c, sizes_, *inputs_, eo);
    if (ex.timed_out) return limit_ms;
    const double best = *std::min_element(ex.times_ms.begin(), ex.times_ms.end());
    // Each execute is a fresh process: its first call is the cold one.
    if (ex.times_ms.size() >= 2) overhead_ms_ = std::max(overhead_ms_, ex.times_ms.front() - best);
    return best;
  }

  rise::SizeMap sizes_;
  uint64_t seed_;
  int repeat_;
  std::optional<std::vector<rise::Value>> inputs_;
  double overhead_ms_ = 0;  // first_call_overhead_ms
};

}  // namespace

double kill_limit_ms(double stop_above_ms) {
  return 2 * stop_above_ms + 1000;
}

bool stop_after_first_call(double first_ms, double stop_above_ms) {
  return first_ms > stop_above_ms && first_ms >= kAlwaysRepeatBelowMs;
}

double time_after_first_call(double first_ms, double stop_above_ms, int repeat,
                             const std::function<double(int, double)>& time_calls) {
  if (repeat <= 1) return first_ms;
  int left = repeat - 1;
  double best = first_ms;
  if (stop_after_first_call(first_ms, stop_above_ms)) {
    if (first_ms > kWarmRecheckFactor * stop_above_ms) return first_ms;
    best = std::min(best, time_calls(2, kill_limit_ms(stop_above_ms)));
    if (stop_after_first_call(best, stop_above_ms)) return best;
    left -= 2;
  }
  if (left > 0) best = std::min(best, time_calls(left, 0));
  return best;
}

double stop_threshold_ms(const Measurer& m, double best_ms) {
  return kStopAboveBest * best_ms + m.first_call_overhead_ms();
}

std::unique_ptr<Measurer> make_measurer(const rise::SizeMap& sizes, uint64_t seed, int repeat) {
  return std::make_unique<RealMeasurer>(sizes, seed, repeat);
}

}  // namespace risec::driver
