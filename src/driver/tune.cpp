// `risec tune` (see tune.h and docs/tuning.md).
#include "driver/tune.h"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <exception>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "driver/autoschedule.h"
#include "driver/commands.h"
#include "driver/run.h"
#include "rise/check.h"
#include "runtime/jit.h"
#include "support/cpu.h"
#include "support/diagnostics.h"
#include "support/files.h"

namespace risec::driver {

namespace {

[[noreturn]] void usage(const std::string& msg) {
  throw Error(ErrorKind::Usage, msg);
}

std::string first_line(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  return line.size() > 200 ? line.substr(0, 200) + " ..." : line;
}

const char* status_name(Trial::Status s) {
  switch (s) {
    case Trial::Status::Measured:
      return "measured";
    case Trial::Status::Invalid:
      return "invalid";
    case Trial::Status::Failed:
      return "failed";
  }
  return "failed";
}

}  // namespace

std::string point_text(const std::vector<elevate::StrategyParam>& params, const TunePoint& p) {
  std::string out;
  for (size_t i = 0; i < params.size() && i < p.size(); ++i)
    out += (i ? "," : "") + params[i].name + "=" + std::to_string(p[i]);
  return out;
}

// ---------------------------------------------------------------------------------
// The database
// ---------------------------------------------------------------------------------

struct TrialDb::Impl {
  sqlite3* db = nullptr;
  std::string path;

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(ErrorKind::User, "tuning database '" + path + "': " + what + ": " +
                                     (db ? sqlite3_errmsg(db) : "cannot open"));
  }
  void exec(const char* sql) {
    char* msg = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
      std::string m = msg ? msg : "error";
      sqlite3_free(msg);
      throw Error(ErrorKind::User, "tuning database '" + path + "': " + m);
    }
  }
  // A prepared statement, finalised on scope exit.
  struct Stmt {
    sqlite3_stmt* s = nullptr;
    ~Stmt() { sqlite3_finalize(s); }
  };
  void prepare(Stmt& st, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &st.s, nullptr) != SQLITE_OK) fail("preparing a query");
  }
  void text(Stmt& st, int i, const std::string& v) {
    sqlite3_bind_text(st.s, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
};

TrialDb::TrialDb(const std::string& path) : impl_(std::make_unique<Impl>()) {
  impl_->path = path.empty() ? ":memory:" : path;
  if (sqlite3_open(impl_->path.c_str(), &impl_->db) != SQLITE_OK) {
    std::string msg = impl_->db ? sqlite3_errmsg(impl_->db) : "cannot open";
    sqlite3_close(impl_->db);
    impl_->db = nullptr;
    throw Error(ErrorKind::User, "cannot open the tuning database '" + path + "': " + msg);
  }
  sqlite3_busy_timeout(impl_->db, 10000);
  try {
    impl_->exec(
        "CREATE TABLE IF NOT EXISTS studies("
        "  study TEXT PRIMARY KEY, description TEXT,"
        "  created TEXT DEFAULT CURRENT_TIMESTAMP);"
        "CREATE TABLE IF NOT EXISTS trials("
        "  study TEXT NOT NULL REFERENCES studies(study), number INTEGER NOT NULL,"
        "  point TEXT NOT NULL, status TEXT NOT NULL, time_ms REAL, error TEXT,"
        "  created TEXT DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY(study, point));");
  } catch (...) {
    sqlite3_close(impl_->db);
    throw;
  }
}

TrialDb::~TrialDb() {
  sqlite3_close(impl_->db);
}

void TrialDb::add_study(const std::string& key, const std::string& description) {
  Impl::Stmt st;
  impl_->prepare(st, "INSERT OR IGNORE INTO studies(study, description) VALUES(?, ?)");
  impl_->text(st, 1, key);
  impl_->text(st, 2, description);
  if (sqlite3_step(st.s) != SQLITE_DONE) impl_->fail("recording the study");
}

std::vector<Trial> TrialDb::load(const std::string& key,
                                 const std::vector<elevate::StrategyParam>& params) {
  Impl::Stmt st;
  impl_->prepare(st,
                 "SELECT number, point, status, time_ms, error FROM trials WHERE study = ? "
                 "ORDER BY number");
  impl_->text(st, 1, key);
  std::vector<Trial> out;
  int rc;
  while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) {
    Trial t;
    t.number = sqlite3_column_int(st.s, 0);
    std::string point = reinterpret_cast<const char*>(sqlite3_column_text(st.s, 1));
    std::string status = reinterpret_cast<const char*>(sqlite3_column_text(st.s, 2));
    t.time_ms = sqlite3_column_double(st.s, 3);
    if (const unsigned char* e = sqlite3_column_text(st.s, 4))
      t.error = reinterpret_cast<const char*>(e);
    t.status = status == "measured"  ? Trial::Status::Measured
               : status == "invalid" ? Trial::Status::Invalid
                                     : Trial::Status::Failed;
    // The point's values, in the parameters' order (the study key fixes them).
    elevate::ParamValues values = elevate::parse_param_values({point});
    bool ok = values.size() == params.size();
    for (const elevate::StrategyParam& p : params) {
      auto it = values.find(p.name);
      ok = ok && it != values.end();
      if (ok) t.point.push_back(it->second);
    }
    if (!ok) impl_->fail("trial '" + point + "' does not match the template's parameters");
    out.push_back(std::move(t));
  }
  if (rc != SQLITE_DONE) impl_->fail("reading the trials");
  return out;
}

void TrialDb::add(const std::string& key, const std::vector<elevate::StrategyParam>& params,
                  const Trial& t) {
  Impl::Stmt st;
  impl_->prepare(st,
                 "INSERT OR REPLACE INTO trials(study, number, point, status, time_ms, error) "
                 "VALUES(?, ?, ?, ?, ?, ?)");
  impl_->text(st, 1, key);
  sqlite3_bind_int(st.s, 2, t.number);
  impl_->text(st, 3, point_text(params, t.point));
  impl_->text(st, 4, status_name(t.status));
  if (t.status == Trial::Status::Measured)
    sqlite3_bind_double(st.s, 5, t.time_ms);
  else
    sqlite3_bind_null(st.s, 5);
  impl_->text(st, 6, t.error);
  if (sqlite3_step(st.s) != SQLITE_DONE) impl_->fail("recording a trial");
}

// ---------------------------------------------------------------------------------
// Measuring
// ---------------------------------------------------------------------------------

namespace {

class RealMeasurer : public Measurer {
 public:
  RealMeasurer(rise::SizeMap sizes, uint64_t seed, int repeat)
      : sizes_(std::move(sizes)), seed_(seed), repeat_(repeat) {}

  void prepare(const Compiled& c) override {
    runtime::build_shared_object(c.unit.source, c_compile_options(c));
  }

  double measure(const Compiled& c, const TunePoint&) override {
    // Every candidate computes the same entry: the inputs are made once.
    if (!inputs_) inputs_ = make_inputs(c.high, {}, seed_);
    ExecOptions eo;
    eo.repeat = repeat_;
    Execution ex = execute(c, sizes_, *inputs_, eo);
    // The fastest run: other load on the machine only ever adds time, so the minimum
    // varies less between trials than the median does.
    return *std::min_element(ex.times_ms.begin(), ex.times_ms.end());
  }

 private:
  rise::SizeMap sizes_;
  uint64_t seed_;
  int repeat_;
  std::optional<std::vector<rise::Value>> inputs_;
};

}  // namespace

std::unique_ptr<Measurer> make_measurer(const rise::SizeMap& sizes, uint64_t seed, int repeat) {
  return std::make_unique<RealMeasurer>(sizes, seed, repeat);
}

// ---------------------------------------------------------------------------------
// The search
// ---------------------------------------------------------------------------------

namespace {

TunePoint to_point(const std::vector<elevate::StrategyParam>& params, const Genome& g) {
  TunePoint p;
  for (size_t i = 0; i < g.size(); ++i) p.push_back(params[i].values[g[i]]);
  return p;
}

// The number of parameters from `i` on that are one unit of the search: 1 for a
// plain parameter, the whole declaration for the first name of a permutation.
size_t unit_size(const std::vector<elevate::StrategyParam>& params, size_t i) {
  if (params[i].group < 0) return 1;
  return params[i].values.size();
}

std::optional<Genome> to_genome(const std::vector<elevate::StrategyParam>& params,
                                const TunePoint& p) {
  Genome g;
  for (size_t i = 0; i < params.size(); ++i) {
    auto it = std::find(params[i].values.begin(), params[i].values.end(), p[i]);
    if (it == params[i].values.end()) return std::nullopt;
    g.push_back(static_cast<size_t>(it - params[i].values.begin()));
  }
  // A permutation's names hold distinct values.
  for (size_t i = 0; i < params.size(); i += unit_size(params, i)) {
    const size_t k = unit_size(params, i);
    std::set<size_t> seen(g.begin() + long(i), g.begin() + long(i + k));
    if (seen.size() != k) return std::nullopt;
  }
  return g;
}

elevate::ParamValues to_values(const std::vector<elevate::StrategyParam>& params,
                               const TunePoint& p) {
  elevate::ParamValues v;
  for (size_t i = 0; i < params.size(); ++i) v[params[i].name] = p[i];
  return v;
}

// Progress on stderr: a bar redrawn in place on a terminal, else a line per trial.
class Progress {
 public:
  Progress(std::ostream* out, bool tty, int budget) : out_(out), tty_(tty), budget_(budget) {}

  void trial(int done, const std::string& point, const Trial& t, const std::string& best) {
    if (!out_) return;
    std::string what = t.status == Trial::Status::Measured ? format_time(t.time_ms)
                       : t.status == Trial::Status::Failed ? "failed: " + first_line(t.error)
                                                           : "pruned: " + first_line(t.error);
    if (!tty_) {
      *out_ << "tune: " << (t.status == Trial::Status::Invalid ? "      " : "") << "[" << done
            << "/" << budget_ << "] " << point << ": " << what;
      if (!best.empty()) *out_ << " (best " << best << ")";
      *out_ << "\n" << std::flush;
      return;
    }
    const int width = 30;
    int filled = budget_ > 0 ? std::min(width, done * width / budget_) : width;
    *out_ << "\r\033[K[" << std::string(static_cast<size_t>(filled), '#')
          << std::string(static_cast<size_t>(width - filled), '.') << "] " << done << "/" << budget_
          << "  best " << (best.empty() ? "-" : best) << std::flush;
  }
  void done() {
    if (out_ && tty_) *out_ << "\n" << std::flush;
  }

 private:
  std::ostream* out_;
  bool tty_;
  int budget_;
};

}  // namespace

Searcher::Searcher(const std::vector<elevate::StrategyParam>& params, SearchKind kind,
                   uint64_t seed, const std::vector<elevate::StrategyConstraint>& constraints,
                   int64_t lanes)
    : params_(params), kind_(kind), rng_(seed), constraints_(constraints), lanes_(lanes) {
  for (const auto& p : params_) {
    // A permutation of k values: k! points, a factor k - position per name.
    full_space_ *=
        static_cast<double>(p.group < 0 ? p.values.size() : p.values.size() - p.position);
    std::vector<size_t> order(p.values.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return p.values[a] < p.values[b]; });
    by_value_.push_back(std::move(order));
  }
  space_ = full_space_;
  if (constraints_.empty()) return;
  // The points that satisfy the constraints, counted when there are few enough.
  counted_ = full_space_ <= kEnumerable;
  if (!counted_) return;
  size_t valid_points = 0;
  for_each_point([&](const Genome& g) { valid_points += valid(g); });
  space_ = static_cast<double>(valid_points);
}

bool Searcher::valid(const Genome& g) const {
  if (constraints_.empty()) return true;
  elevate::ParamValues v = to_values(params_, to_point(params_, g));
  v["lanes"] = lanes_;
  return elevate::violated_constraint(constraints_, v) == nullptr;
}

void Searcher::for_each_point(const std::function<void(const Genome&)>& f) const {
  // An odometer whose digits are the plain parameters' indices and the permutations
  // (in lexicographic order, from the identity).
  Genome g(params_.size());
  for (size_t i = 0; i < g.size(); ++i) g[i] = params_[i].group < 0 ? 0 : params_[i].position;
  for (;;) {
    f(g);
    size_t i = 0;
    for (; i < g.size(); i += unit_size(params_, i)) {
      if (params_[i].group >= 0) {
        const auto begin = g.begin() + long(i);
        if (std::next_permutation(begin, begin + long(unit_size(params_, i)))) break;
      } else if (++g[i] < params_[i].values.size()) {
        break;
      } else {
        g[i] = 0;
      }
    }
    if (i == g.size()) break;
  }
}

void Searcher::record(const Genome& g, bool measured, double time_ms) {
  tried_.insert(g);
  if (measured) measured_.push_back({time_ms, g});
}

// The evolutionary search is steady-state. After the template's own point and a
// first population of random points, a parent is the best of three measured points
// drawn at random (tournament selection), sometimes crossed with a second
// parent (each parameter from either), then mutated by moving one or two parameters
// to a neighbouring value (by value, one place, sometimes two; a permutation swaps
// two of its names' values, and a crossover takes it whole). Parameters are
// sizes (tiles, widths) and a good point's neighbours tend to be good, so
// this spends the budget near the best points found, while one proposal in five is
// uniform at random so that the search keeps exploring (docs/tuning.md).
std::optional<Genome> Searcher::propose() {
  if (exhausted()) return std::nullopt;
  if (kind_ == SearchKind::Evolutionary) {
    // The template's own values first (the author's guess).
    Genome first(params_.size(), 0);
    for (size_t i = 0; i < first.size(); ++i)
      first[i] = params_[i].group < 0 ? 0 : params_[i].position;
    if (!tried(first) && valid(first)) return first;
    if (measured_.size() >= kInitialPopulation && uniform() >= 0.2) {
      for (int attempt = 0; attempt < 64; ++attempt) {
        Genome child = tournament();
        if (uniform() < 0.3) {
          Genome other = tournament();
          for (size_t i = 0; i < child.size(); i += unit_size(params_, i))
            if (uniform() < 0.5)
              std::copy_n(other.begin() + long(i), unit_size(params_, i), child.begin() + long(i));
        }
        mutate(child);
        if (!tried(child) && valid(child)) return child;
      }
    }
  }
  return random_untried();
}

double Searcher::uniform() {
  return std::uniform_real_distribution<double>(0, 1)(rng_);
}
size_t Searcher::below(size_t n) {
  return std::uniform_int_distribution<size_t>(0, n - 1)(rng_);
}

Genome Searcher::tournament() {
  const std::pair<double, Genome>* best = nullptr;
  for (int k = 0; k < 3; ++k) {
    const auto& c = measured_[below(measured_.size())];
    if (!best || c.first < best->first) best = &c;
  }
  return best->second;
}

void Searcher::mutate(Genome& g) {
  const int changes = uniform() < 0.7 ? 1 : 2;
  for (int c = 0; c < changes; ++c) {
    const size_t i = below(g.size());
    if (params_[i].group >= 0) {
      // A permutation: swap this name's value with another name's of the declaration.
      const size_t first = i - params_[i].position, k = unit_size(params_, first);
      if (k < 2) continue;
      size_t j = first + below(k - 1);
      if (j >= i) ++j;
      std::swap(g[i], g[j]);
      continue;
    }
    const std::vector<size_t>& order = by_value_[i];
    const size_t n = order.size();
    if (n < 2) continue;
    // Neighbours by value: the list's order puts the default first, not in order.
    const long at = std::find(order.begin(), order.end(), g[i]) - order.begin();
    const long step = uniform() < 0.8 ? 1 : 2;
    const long to = std::clamp(at + (uniform() < 0.5 ? -step : step), 0L, long(n) - 1);
    g[i] = order[static_cast<size_t>(to)];
  }
}

std::optional<Genome> Searcher::random_untried() {
  Genome g(params_.size());
  // Rejection sampling while most of the space is untried, else a pick among the
  // untried points enumerated. Constraints reject points too: sampling gives up
  // after kDraws draws (then enumerates the space if it is small enough).
  constexpr int kDraws = 200000;
  if (static_cast<double>(tried_.size()) < space_ / 2) {
    for (int draw = 0; draw < kDraws; ++draw) {
      for (size_t i = 0; i < g.size(); i += unit_size(params_, i)) {
        if (params_[i].group < 0) {
          g[i] = below(params_[i].values.size());
          continue;
        }
        const auto begin = g.begin() + long(i), end = begin + long(unit_size(params_, i));
        std::iota(begin, end, size_t{0});
        std::shuffle(begin, end, rng_);
      }
      if (!tried(g) && valid(g)) return g;
    }
    if (full_space_ > kEnumerable) return std::nullopt;
  }
  // Every point in turn.
  std::vector<Genome> left;
  for_each_point([&](const Genome& p) {
    if (!tried(p) && valid(p)) left.push_back(p);
  });
  if (left.empty()) return std::nullopt;
  return left[below(left.size())];
}

std::string study_key(const std::string& program_text, const std::string& strategy_text,
                      const rise::SizeMap& sizes, const std::string& target,
                      const std::string& entry) {
  // The CPU (its model and feature flags) and the statistic timed are part of the
  // study: timings from another machine, or medians from before tune timed the
  // minimum, are not comparable with this run's.
  std::string all = program_text + '\0' + strategy_text + '\0' + target + '\0' + entry + '\0' +
                    std::to_string(machine_lanes()) + '\0' + runtime::host_cpu() +
                    "\0statistic=min";
  for (const auto& [n, v] : sizes) all += '\0' + n + "=" + std::to_string(v);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016zx", std::hash<std::string>{}(all));
  return buf;
}

TuneResult tune(const TuneConfig& cfg, TrialDb& db, Measurer& measurer) {
  TuneResult r;
  elevate::StrategyDeclarations decls = elevate::strategy_declarations(cfg.strategy);
  r.params = decls.params;
  const auto& params = r.params;
  if (params.empty())
    throw Error(ErrorKind::User,
                "the strategy declares no parameters to tune (add e.g. `param ti in [16, 32];` "
                "before its lets)",
                Span{cfg.strategy, 0, 0});
  if (cfg.budget < 1) usage("--budget must be at least 1");
  Searcher search(params, cfg.search, cfg.seed, decls.constraints);
  if (search.space() == 0)
    throw Error(ErrorKind::User,
                "no point of the template's space (" +
                    std::to_string(std::llround(search.unconstrained_space())) +
                    " points) satisfies its constraints",
                decls.constraints.front().span);
  r.trials = db.load(cfg.study_key, params);
  int counted = 0;  // measured or failed: what the budget counts
  for (const Trial& t : r.trials) {
    if (auto g = to_genome(params, t.point))
      search.record(*g, t.status == Trial::Status::Measured, t.time_ms);
    counted += t.status != Trial::Status::Invalid;
  }
  auto update_best = [&](const Trial& t) {
    if (t.status == Trial::Status::Measured && (!r.best || t.time_ms < r.best->time_ms)) r.best = t;
  };
  for (const Trial& t : r.trials) update_best(t);
  auto best_text = [&]() {
    return r.best ? format_time(r.best->time_ms) + " " + point_text(params, r.best->point)
                  : std::string();
  };
  Progress progress(cfg.progress, cfg.tty, cfg.budget);
  if (cfg.progress) {
    *cfg.progress << "tune: " << std::llround(search.space())
                  << " point(s) in the template's space";
    if (!decls.constraints.empty())
      *cfg.progress << (search.space_counted()
                            ? " that satisfy its constraints (" +
                                  std::to_string(std::llround(search.unconstrained_space())) +
                                  " without them)"
                            : " (too many to count those that satisfy its constraints)");
    *cfg.progress << "\n";
  }
  if (cfg.progress && counted > 0)
    *cfg.progress << "tune: resuming: " << r.trials.size() << " trial(s) in the database\n";

  const int workers = std::max(1, cfg.workers);
  auto store = [&](Trial t) {
    t.number = static_cast<int>(r.trials.size()) + 1;
    db.add(cfg.study_key, params, t);
    r.trials.push_back(t);
    update_best(t);
    progress.trial(counted, point_text(params, t.point), t, best_text());
  };

  while (counted < cfg.budget) {
    // A batch: as many valid candidates as there are workers (and budget left).
    struct Candidate {
      TunePoint point;
      std::optional<Compiled> compiled;
      std::string error;
    };
    std::vector<Candidate> batch;
    const int want = std::min(workers, cfg.budget - counted);
    while (static_cast<int>(batch.size()) < want) {
      std::optional<Genome> g = search.propose();
      if (!g) break;
      Candidate c{to_point(params, *g), std::nullopt, {}};
      // Rewrite and generate code: the checker and the rules prune invalid points.
      try {
        c.compiled = compile_point(cfg, params, c.point);
      } catch (const Error& e) {
        if (e.kind() != ErrorKind::User) throw;
        search.record(*g, false, 0);
        Trial t;
        t.point = c.point;
        t.status = Trial::Status::Invalid;
        t.error = e.what();
        store(t);
        continue;
      }
      // Recorded as tried now, so that the batch has no duplicates; its time comes
      // with the measurement.
      search.record(*g, false, 0);
      batch.push_back(std::move(c));
    }
    if (batch.empty()) break;  // every point tried
    // The C compiler, in parallel.
    {
      std::vector<std::thread> threads;
      for (Candidate& c : batch)
        threads.emplace_back([&measurer, &c] {
          try {
            measurer.prepare(*c.compiled);
          } catch (const std::exception& e) {
            c.error = e.what();
          }
        });
      for (std::thread& t : threads) t.join();
    }
    // Measurement, one at a time.
    for (Candidate& c : batch) {
      Trial t;
      t.point = c.point;
      if (c.error.empty()) {
        try {
          t.time_ms = measurer.measure(*c.compiled, c.point);
        } catch (const Error& e) {
          c.error = e.what();
        }
      }
      if (!c.error.empty()) {
        t.status = Trial::Status::Failed;
        t.error = c.error;
      }
      if (auto g = to_genome(params, c.point))
        search.record(*g, t.status == Trial::Status::Measured, t.time_ms);
      ++counted;
      ++r.new_trials;
      store(t);
    }
  }
  progress.done();
  if (!r.best) {
    std::string why;
    for (const Trial& t : r.trials)
      if (!t.error.empty()) why = first_line(t.error);
    if (r.trials.empty() && !decls.constraints.empty())
      why = "no point that satisfies the constraints was found among random draws";
    throw Error(ErrorKind::User,
                "no point of the template could be measured (" + std::to_string(r.trials.size()) +
                    " tried)" + (why.empty() ? "" : "; last reason: " + why),
                Span{cfg.strategy, 0, 0});
  }
  r.best_strategy = elevate::substitute_params(cfg.strategy, to_values(params, r.best->point));
  return r;
}

Compiled compile_point(const TuneConfig& cfg, const std::vector<elevate::StrategyParam>& params,
                       const TunePoint& point) {
  elevate::Strategy s = elevate::parse_strategy_file(cfg.strategy, to_values(params, point));
  CompileRequest req;
  req.program = cfg.program;
  req.entry = cfg.entry;
  req.sizes = &cfg.sizes;
  req.strategy = &s;
  req.target = cfg.target;
  req.shift_tails = cfg.shift_tails;
  req.bounds_checks = cfg.bounds_checks;
  return compile(req);
}

Trial run_trial(const TuneConfig& cfg, const std::vector<elevate::StrategyParam>& params,
                const TunePoint& point, Measurer& measurer) {
  Trial t;
  t.point = point;
  // A point that violates a constraint is pruned before the rewrite.
  const elevate::StrategyDeclarations decls = elevate::strategy_declarations(cfg.strategy);
  elevate::ParamValues values = to_values(params, point);
  values["lanes"] = machine_lanes();
  if (const elevate::StrategyConstraint* v =
          elevate::violated_constraint(decls.constraints, values)) {
    t.status = Trial::Status::Invalid;
    t.error = "violates the constraint `" + v->text + "` (" + location(v->span) + ")";
    return t;
  }
  std::optional<Compiled> c;
  try {
    c = compile_point(cfg, params, point);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::User) throw;
    t.status = Trial::Status::Invalid;
    t.error = e.what();
    return t;
  }
  try {
    measurer.prepare(*c);
    t.time_ms = measurer.measure(*c, point);
  } catch (const Error& e) {
    t.status = Trial::Status::Failed;
    t.error = e.what();
  }
  return t;
}

// ---------------------------------------------------------------------------------
// The subcommand
// ---------------------------------------------------------------------------------

std::string format_time(double ms) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(ms < 10 ? 3 : 1) << ms << " ms";
  return out.str();
}

int positive_option(const std::string& text, const std::string& flag, int fallback) {
  if (text.empty()) return fallback;
  int v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || v < 1)
    usage(flag + ": '" + text + "' is not a positive number");
  return v;
}

rise::SizeMap search_sizes(const rise::Program& p, const Options& o) {
  return search_sizes(p, o.entry, parse_sizes(o.sizes_text));
}

rise::SizeMap search_sizes(const rise::Program& p, const std::string& entry, rise::SizeMap sizes) {
  rise::Checked c = rise::check_program(p, entry, &sizes);
  entry_parameters(c);  // every size known
  return sizes;
}

int cmd_tune(const Options& o) {
  // Without a template, the autoscheduler builds the space itself (autoschedule.h).
  if (o.strategy.empty()) return cmd_autoschedule(o);
  if (!o.params.empty()) usage("risec tune chooses the parameters itself; remove --param");
  if (o.explain) usage("--explain is for risec tune without --strategy (the autoscheduler)");
  TuneConfig cfg;
  cfg.budget = positive_option(o.budget_text, "--budget", 50);
  cfg.workers =
      positive_option(o.workers_text, "--workers",
                      static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  const int repeat = positive_option(o.repeat_text, "--repeat", 5);
  if (o.search.empty() || o.search == "evolutionary")
    cfg.search = SearchKind::Evolutionary;
  else if (o.search == "random")
    cfg.search = SearchKind::Random;
  else
    usage("--search must be evolutionary or random, got '" + o.search + "'");
  cfg.seed = parse_seed(o.seed_text);
  const std::string program_text = read_text_file(o.file, "the program");
  rise::Program p = load_program(o.file);
  cfg.program = &p;
  cfg.entry = o.entry;
  cfg.sizes = search_sizes(p, o);
  cfg.target = o.target;
  cfg.strategy = strategy_source(o.strategy);
  cfg.shift_tails = !o.no_shift_tails;
  cfg.bounds_checks = !o.no_bounds_checks;
  // Plain loops, or no index checks, time differently: a study of their own (the
  // default's key is unchanged, so databases of earlier runs resume).
  const std::string code = cfg.target + (cfg.shift_tails ? "" : " --no-shift-tails") +
                           (cfg.bounds_checks ? "" : " --no-bounds-checks");
  // The files the template imports are part of it: editing one starts a new study.
  std::string strategy_text = cfg.strategy->text;
  for (const SourceRef& f : elevate::strategy_imports(cfg.strategy))
    strategy_text += '\0' + f->name + '\0' + f->text;
  cfg.study_key = study_key(program_text, strategy_text, cfg.sizes, code, o.entry);
  cfg.progress = &std::cerr;
  cfg.tty = isatty(STDERR_FILENO) != 0;
  TrialDb db(o.db);
  if (!o.db.empty()) note_input(o.db, "--db");
  // Before the search, which may take long: -o is none of the files read above.
  if (!o.output.empty()) check_outputs({o.output});
  std::string sizes;
  for (const auto& [n, v] : cfg.sizes)
    sizes += (sizes.empty() ? "" : ",") + n + "=" + std::to_string(v);
  db.add_study(cfg.study_key, o.file + " --strategy " + o.strategy + " --size " + sizes +
                                  " --target " + code + " (lanes " +
                                  std::to_string(machine_lanes()) + ")");
  auto measurer = make_measurer(cfg.sizes, cfg.seed, repeat);
  TuneResult r = tune(cfg, db, *measurer);
  int measured = 0, invalid = 0, failed = 0;
  for (const Trial& t : r.trials) {
    measured += t.status == Trial::Status::Measured;
    invalid += t.status == Trial::Status::Invalid;
    failed += t.status == Trial::Status::Failed;
  }
  std::cerr << "tune: " << measured << " measured, " << invalid << " pruned, " << failed
            << " failed; best " << format_time(r.best->time_ms) << " with "
            << point_text(r.params, r.best->point) << "\n";
  // The same text on stdout and in -o: the comment line, then the strategy.
  std::string best = "// risec tune: best " + format_time(r.best->time_ms) + " with " +
                     point_text(r.params, r.best->point) + "\n" + r.best_strategy;
  std::cout << best;
  if (!o.output.empty()) write_output_file(o.output, best);
  return 0;
}

}  // namespace risec::driver
