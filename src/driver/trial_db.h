// The trial database of `risec tune` (docs/tuning.md, "The trial database"): every
// point tried in a study, kept in SQLite so that a second search of the same study
// resumes.
#pragma once

#include <cstdint>
#include <memory>
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

// The trial database (SQLite). A study is one (program, template, sizes, target,
// entry, lanes) combination, named by a key; tables `studies` and `trials`
// (docs/tuning.md lists their columns, for querying with the sqlite3 shell).
class TrialDb {
 public:
  // ":memory:" or an empty path: a database that lives as long as this object.
  // Throws risec::Error (User) when the file cannot be opened or is no database.
  explicit TrialDb(const std::string& path);
  ~TrialDb();
  TrialDb(const TrialDb&) = delete;
  TrialDb& operator=(const TrialDb&) = delete;

  void add_study(const std::string& key, const std::string& description);
  // The study's trials in the order they were made.
  std::vector<Trial> load(const std::string& key,
                          const std::vector<elevate::StrategyParam>& params);
  void add(const std::string& key, const std::vector<elevate::StrategyParam>& params,
           const Trial& t);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace risec::driver
