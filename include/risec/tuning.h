// Tuning a strategy template from outside risec (docs/tuning.md): the points of the
// template's `param` declarations come from the caller (the Python package's
// risec.tuning drives this from Optuna), and each one is compiled and measured as a
// trial of `risec tune` is: the same pipeline, the same C compiler flags, the same
// seeded inputs and timing. Part of the public API (risec/risec.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "risec/risec.h"

namespace risec {

// One `param` declaration of a template.
struct TuneParameter {
  std::string name;
  std::vector<int64_t> values;  // in declaration order; the first is the default
  // `param (a, b) in permutations([...])`: the declaration's index among such groups
  // (-1 for a plain parameter) and this name's position in it.
  int group = -1;
  size_t position = 0;
};

// The outcome of one trial.
struct TrialResult {
  enum class Status {
    Measured,  // time_ms is the fastest of the timed runs
    Invalid,   // the rewrite or the checker rejects the point (error says why)
    Failed,    // the C compiler or the run failed (error says how)
  };
  Status status = Status::Measured;
  double time_ms = 0;
  std::string error;
};

struct TunerOptions {
  std::string entry;         // the definition; empty: the last one
  Sizes sizes;               // the sizes measured at (every size of the entry)
  std::string target = "c";  // c, openmp, opencl, cuda
  int repeat = 5;            // timed runs per trial
  uint64_t seed = 0;         // the inputs' seed
};

class Tuner {
 public:
  // `program_text` is the program's text and `strategy` the template's (named
  // `strategy_name` in messages); both identify the study (key()), as `risec tune`
  // does. Throws a located Error (User) when the template has no parameters or does
  // not parse, Error (Usage) for a size the entry does not have.
  Tuner(const std::string& program_text, const std::string& program_name,
        const std::string& strategy, const std::string& strategy_name, const TunerOptions& options);
  ~Tuner();
  Tuner(const Tuner&) = delete;
  Tuner& operator=(const Tuner&) = delete;

  // The declarations, in order.
  const std::vector<TuneParameter>& parameters() const;
  // Identifies the study: program and template texts, sizes, target, entry, lanes.
  const std::string& key() const;
  // Compile and measure the template at these values (every parameter named once;
  // Error (Usage) otherwise). Runs on a thread with a large stack.
  TrialResult trial(const std::map<std::string, int64_t>& values) const;
  // The template with these values substituted (the declarations removed).
  std::string strategy(const std::map<std::string, int64_t>& values) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace risec
