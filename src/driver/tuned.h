// Tuning results reused (docs/tuning.md, "Results reused"): a search records the best
// strategy it found in the tuning database, keyed by the program, entry, sizes,
// target, CPU model and risec version (TunedKey, trial_db.h); `risec run/compile
// --tuned`, CompileOptions::tuned and Python's `tuned=True` compile with the record
// of their key, and without one use the default lowering after one note on stderr. A
// record made on another CPU, for other sizes or by another risec version is never
// used.
#pragma once

#include <optional>
#include <string>

#include "driver/trial_db.h"
#include "elevate/strategy.h"
#include "rise/check.h"
#include "rise/expr.h"

namespace risec::driver {

// The database `risec tune` and `--tuned` use when none is named: tuning.db in the
// cache directory ($RISEC_CACHE_DIR, else $XDG_CACHE_HOME/risec or ~/.cache/risec;
// runtime/jit.h).
std::string default_db_path();

// The target and the code generator's flags that change the code timed: "c",
// "openmp --no-shift-tails", "c --no-bounds-checks".
std::string target_code(const std::string& target, bool shift_tails, bool bounds_checks);

// The key of a program's record on this machine: a hash of the program as the RISE
// printer prints it (so whitespace and comments do not matter), the entry's name
// (empty: the last definition), the sizes, target_code, cpu_model() with the vector
// width machine_lanes() ("AMD EPYC 7B13 (lanes 16)"; for opencl and cuda the device's
// name, gpu_device_key) and RISEC_VERSION.
TunedKey tuned_key(const rise::Program& program, const std::string& entry,
                   const rise::SizeMap& sizes, const std::string& target_code);

// Stores `record` under `key` unless a faster one is there (returns whether it was
// stored).
bool record_best(TrialDb& db, const TunedKey& key, const TunedRecord& record);
// The record of `key`, if any.
std::optional<TunedRecord> lookup_best(TrialDb& db, const TunedKey& key);

// What `--tuned` compiles with: the strategy of the record for `key` in the database
// at `db_path` (empty: default_db_path(); a file that does not exist holds no
// record), or nullopt after the note "no tuning record for this program on <CPU> at
// sizes n=64 (entry f, target c); using the default lowering" on stderr, which lists
// the sizes that have a record when some do.
std::optional<elevate::Strategy> tuned_strategy(const TunedKey& key, const std::string& db_path);

// The Usage error for --tuned given with --strategy, in the words of the interface
// (support/words.h).
[[noreturn]] void tuned_with_strategy();

}  // namespace risec::driver
