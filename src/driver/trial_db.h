// The trial database of `risec tune` (docs/tuning.md, "The trial database"): every
// point tried in a study, kept in SQLite so that a second search of the same study
// resumes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "elevate/parser.h"

namespace risec::driver {

// One point of the search: a value per declared parameter, in declaration order.
using TunePoint = std::vector<int64_t>;

struct Trial {
  enum class Status { Measured, Invalid, Failed };
  TunePoint point;
  Status status = Status::Measured;
  double time_ms = 0;  // Measured: the fastest run's time
  std::string error;   // Invalid (the rewrite's or checker's reason), Failed (the C
                       // compiler's or the program's)
  int number = 0;      // order in the study, from 1
};

// "ti=32,v=16" for a point of `params`.
std::string point_text(const std::vector<elevate::StrategyParam>& params, const TunePoint& p);

// What a tuning record is kept for: the program (a hash of its normalised text), the
// entry, the sizes, the target (with the code generator's flags), the CPU model and
// the risec version. driver/tuned.h makes one.
struct TunedKey {
  std::string program;  // 16 hex digits
  std::string entry;    // the definition's name
  std::string sizes;    // "k=32,m=64,n=128"
  std::string target;   // "c", "openmp --no-shift-tails", ...
  std::string cpu;      // support/cpu.h cpu_model()
  std::string version;  // RISEC_VERSION
};

// The best strategy found for a key: its text (no parameters left), its time and
// what found it ("risec tune scal.rise --strategy t.elv", for people reading the table).
struct TunedRecord {
  std::string strategy;
  double time_ms = 0;
  std::string source;
};

// The trial database (SQLite). A study is one (program, template, sizes, target,
// entry, lanes) combination, named by a key; tables `studies` and `trials`
// (docs/tuning.md lists their columns, for querying with the sqlite3 shell).
class TrialDb {
 public:
  // ":memory:" or an empty path: a database that lives as long as this object.
  // Throws risec::Error (User) when the file cannot be opened or is no database.
  // `read_only`: for lookup_best only; the file is neither created nor changed.
  explicit TrialDb(const std::string& path, bool read_only = false);
  ~TrialDb();
  TrialDb(const TrialDb&) = delete;
  TrialDb& operator=(const TrialDb&) = delete;

  // Throws risec::Error (User) unless a write to the database would succeed (a write
  // probed and rolled back): for searches that record only at the end (the
  // autoscheduler), so that an unwritable --db stops them before they start, as the
  // template search's first record (its study) does.
  void check_writable();

  void add_study(const std::string& key, const std::string& description);
  // The study's trials in the order they were made.
  std::vector<Trial> load(const std::string& key,
                          const std::vector<elevate::StrategyParam>& params);
  void add(const std::string& key, const std::vector<elevate::StrategyParam>& params,
           const Trial& t);

  // The best strategy known for a key (table `best`, one row per key; tuned.h makes
  // the keys). record_best keeps the faster of the stored record and this one and
  // says whether this one was stored.
  bool record_best(const TunedKey& key, const TunedRecord& record);
  std::optional<TunedRecord> lookup_best(const TunedKey& key);
  // The sizes of the records that differ from `key` only in them ("n=32", ...), in
  // text order: what a lookup at other sizes would find.
  std::vector<std::string> recorded_sizes(const TunedKey& key);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace risec::driver
