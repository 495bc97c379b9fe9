// What `risec tune` (the autoscheduler and a template), and `risec explore` check before
// they search, in one place (docs/tuning.md, "Before the search"): a search compiles and
// runs many candidates, so whatever would make every one of them fail the same way is
// refused at once, with the exit code `risec run` gives for it (docs/guarantees.md):
//  - an unknown target (Usage, exit 2), as `run` refuses it;
//  - sizes whose inputs and result need more than the memory limit (Usage, exit 2):
//    check_memory_needs, the check `run` does;
//  - a GPU target with no device to measure on (External, exit 4): probe_gpu_device;
//  - for c and openmp, a C compiler that does not make a shared object of an empty
//    unit with the flags of the environment (External, exit 4);
//  - an output (-o) that is a directory or an input (exit 2), or whose directory cannot
//    be written (exit 4): check_output_file, check_outputs.
// And after it: when no candidate could be measured, the error carries the run-time
// failure of the default (or the first candidate that ran) with its exit code (4, or 3
// for a result that differs from the interpreter's), as `run` reports the same
// failure; see SearchFailures.
#pragma once

#include <optional>
#include <string>

#include "driver/gpu_device.h"
#include "rise/check.h"
#include "risec/error.h"

namespace risec::driver {

// `command` names the command in messages ("tune", "explore"). Returns the GPU
// target's device (nullopt for c and openmp).
std::optional<GpuDevice> check_before_search(const std::string& command, const rise::Program& p,
                                             const std::string& entry, const rise::SizeMap& sizes,
                                             const std::string& target, const std::string& output);

// The failures of a search's candidates: the first that is not the candidate's own fault
// (the program failed when it ran, or an external tool did: exit 4; or its result
// differs from the interpreter's, a wrong answer as `run --check` reports it: exit 3),
// preferring the default's. `fail` throws the search's final error, "no ... could be
// measured", with that failure's kind and message; otherwise User (exit 1) with
// `last_reason`.
class SearchFailures {
 public:
  void note(const Error& e, bool is_default);
  [[noreturn]] void fail(const std::string& what, const std::string& last_reason,
                         Span span = {}) const;

 private:
  std::optional<Error> external_;
  bool from_default_ = false;
};

}  // namespace risec::driver
