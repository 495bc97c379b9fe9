// How `risec tune` and `risec explore` time a candidate: a Measurer builds it (in
// parallel) and measures it (one at a time).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "driver/compile.h"
#include "driver/trial_db.h"

namespace risec::driver {

// How candidates are built and timed. The real one (make_measurer) runs the C
// compiler and `risec run --repeat`'s timing; tests inject a fake.
class Measurer {
 public:
  virtual ~Measurer() = default;
  // Called from worker threads, several at once: build what measuring needs. An
  // Error marks the trial Failed.
  virtual void prepare(const Compiled& c) = 0;
  // Called one at a time: the candidate's time in milliseconds (an Error marks the
  // trial Failed).
  virtual double measure(const Compiled& c, const TunePoint& point) = 0;
  // As measure, but a candidate whose first call takes longer than `stop_above_ms`
  // is not called again: it cannot be the fastest, and its time is that one call's
  // (so a result above `stop_above_ms` says the candidate was stopped). A slow
  // candidate then costs one call instead of `repeat` (an mm of 1024^3 in plain
  // loops takes seconds a call); one whose process runs past kill_limit_ms(stop) is
  // killed, and its time is that limit. The default measures in full.
  virtual double measure_unless_slower(const Compiled& c, const TunePoint& point,
                                       double stop_above_ms) {
    (void)stop_above_ms;
    return measure(c, point);
  }
  // As measure_unless_slower, for a candidate already called once (the call whose
  // result was checked against the interpreter took `first_ms`): that call counts as
  // the first of `repeat`, so a slow candidate costs one call, not two (a 2048^3 mm
  // in plain loops takes 20 s a call). The default ignores it.
  virtual double measure_after_first_call(const Compiled& c, const TunePoint& point,
                                          double first_ms, double stop_above_ms) {
    (void)first_ms;
    return measure_unless_slower(c, point, stop_above_ms);
  }
  // How much slower a first call is than the calls after it, on this program and
  // machine: the largest (first call - fastest call) of the candidates timed in full so
  // far (0 before any). A first call runs in a fresh process: its OpenMP threads are
  // started, its result's pages and its intermediates' buffers faulted in, its caches
  // cold. A 1.3 ms sharpen at 2048^2 took 7 ms on its first call, so "first call
  // above 3x the best" stopped every candidate of a millisecond kernel (issue 34). The
  // callers add this to their stop threshold (stop_threshold_ms), comparing a cold call
  // with a warm best plus the cold start.
  virtual double first_call_overhead_ms() const { return 0; }
  // A finalist timed again (autoschedule's last round, kFinalistRounds): a new time
  // of `repeat` calls, measured as `measure` does. The default returns `earlier_ms`,
  // the candidate's time so far, unchanged: a fake timer's table is exact.
  virtual double remeasure(const Compiled& c, const TunePoint& point, double earlier_ms) {
    (void)c;
    (void)point;
    return earlier_ms;
  }
};

// Autoschedule's last round: the candidates timed within kFinalistWindow times the
// best, at most kFinalists of them (the fastest first), are timed again, interleaved,
// in rounds (below; Measurer::remeasure; every other round in reverse), and each
// one's time becomes the least of its rounds' timings (not its first time, taken
// minutes earlier under other load). One timing of `repeat` calls in a row can be disturbed for its
// whole length by other load on the machine; softmax's schedule with both reductions
// on two accumulators and the division by a reciprocal (13% faster in interleaved
// minima) was timed once at 1.25x the chosen one and lost (issue 34).
// A best above kFinalistMaxMs a call skips the round: a disturbance is a small share
// of such a time, and 12 more timings of `repeat` calls would take minutes.
inline constexpr double kFinalistWindow = 1.5;
inline constexpr size_t kFinalists = 4;
// At least kFinalistRounds rounds; more, up to kFinalistMaxRounds, while all the
// rounds have taken less than kFinalistSeconds: a timing's speed on a shared virtual
// machine depends on the moment, for seconds at a time, and the least of few rounds
// can miss every fast moment of one finalist.
inline constexpr int kFinalistRounds = 3;
inline constexpr int kFinalistMaxRounds = 9;
inline constexpr double kFinalistSeconds = 20;
inline constexpr double kFinalistMaxMs = 1000;

// The default lowering is kept unless a candidate is faster by more than 3% of its
// time and by more than 50 ns (a timer step or two on a kernel of tens of
// nanoseconds): a smaller difference is the timings' noise, and a candidate may round
// differently (vectorised reductions) for nothing.
inline constexpr double kKeepDefaultMargin = 0.03;
inline constexpr double kKeepDefaultMinMs = 50e-6;

// The time above which a candidate's first call stops its timing: kStopAboveBest
// times the best so far, plus the measurer's first-call overhead.
double stop_threshold_ms(const Measurer& m, double best_ms);

// The time after which a candidate's process is killed, when its first call is to
// be stopped above `stop_above_ms`: twice that, plus a second, counted once the
// process has set up (loaded the object and, on OpenCL and CUDA, built the kernels:
// runtime/isolated.h). Such a candidate cannot be chosen; without the limit, each of
// the ten vectorised-reduction candidates of a 2048^3 mm took 30 s of a 360-s search.
double kill_limit_ms(double stop_above_ms);

// The factor over the best time so far above which tune and autoschedule stop timing
// a candidate after its first call (measure_unless_slower; the first call's own
// overhead added: stop_threshold_ms).
inline constexpr double kStopAboveBest = 3.0;

// A first call shorter than this never stops a candidate's timing: repeating it costs
// less than the C compiler spent building it (hundreds of milliseconds), and a cold
// first call of a sub-millisecond kernel is dominated by what the later calls do not
// pay (a fresh process's OpenMP threads, page faults of a packed operand's buffer):
// the MLP's 0.13 ms register blocks took 1.5 ms on their first call and were stopped
// against a 0.38 ms best, so tune kept a schedule 2.4x slower (issue 34).
inline constexpr double kAlwaysRepeatBelowMs = 25.0;

// Whether a candidate whose first call took `first_ms` is stopped there
// (measure_unless_slower): slower than `stop_above_ms`, and not cheap to repeat.
bool stop_after_first_call(double first_ms, double stop_above_ms);

// A first call above the stop threshold but at most this many times it is called
// again, warm, before the candidate is stopped: a first call runs in a fresh process
// (its OpenMP threads started, its output's and intermediates' pages faulted in), and
// on a quiet Zen 4 sharpen's vectorised candidates took 30 to 56 ms on their first
// call against 1.6 ms for the best, while such candidates run in 3 to 5 ms warm: one
// cold call is no measure of a millisecond kernel. Far slower ones (a 2048^3 mm in
// plain loops, 20 s a call) still cost one call.
inline constexpr double kWarmRecheckFactor = 10.0;

// The time of a candidate whose first call took `first_ms` (already made, in a process
// of its own), given `time_calls(k, limit_ms)`, which times k calls in a new process and
// returns the fastest (the limit when the process ran past `limit_ms`, 0 for none):
// stopped at the first call when stop_after_first_call says so and that call is more
// than kWarmRecheckFactor times `stop_above_ms`; otherwise such a candidate is called
// twice more (cold, then warm, under kill_limit_ms) and stopped only when the faster of
// those is still above the threshold; one that is not stopped is timed `repeat` calls
// in all. The least time seen is the result.
double time_after_first_call(double first_ms, double stop_above_ms, int repeat,
                             const std::function<double(int calls, double limit_ms)>& time_calls);

// Builds with $CC (runtime/jit.h) and times `repeat` calls on seeded inputs,
// returning the fastest.
std::unique_ptr<Measurer> make_measurer(const rise::SizeMap& sizes, uint64_t seed, int repeat);

}  // namespace risec::driver
