// The search of `risec tune` (see search.h and docs/tuning.md).
#include "driver/search.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <sstream>
#include <thread>

#include "driver/search_preflight.h"
#include "runtime/jit.h"
#include "support/diagnostics.h"

namespace risec::driver {

std::string format_time(double ms) {
  // Below a millisecond, three significant digits (a kernel of a microsecond is
  // "0.00123 ms", not "0.000 ms"), in decimal notation like the others.
  int decimals = ms >= 10 ? 1 : 3;
  if (ms > 0 && ms < 1) decimals = std::min(12, 2 - static_cast<int>(std::floor(std::log10(ms))));
  std::ostringstream out;
  out << std::fixed << std::setprecision(decimals) << ms << " ms";
  return out.str();
}

namespace {

[[noreturn]] void search_usage(const std::string& msg) {
  throw Error(ErrorKind::Usage, msg);
}

std::string clipped_first_line(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  return line.size() > 200 ? line.substr(0, 200) + " ..." : line;
}

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
                       : t.status == Trial::Status::Failed
                           ? "failed: " + clipped_first_line(t.error)
                           : "pruned: " + clipped_first_line(t.error);
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
                    std::to_string(machine_lanes()) + '\0' + runtime::host_cpu() + '\0' +
                    "statistic=min";
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
  if (cfg.budget < 1) search_usage("--budget must be at least 1");
  Searcher search(params, cfg.search, cfg.seed, decls.constraints);
  if (search.space() == 0)
    throw Error(ErrorKind::User,
                "no point of the template's space (" +
                    std::to_string(std::llround(search.unconstrained_space())) +
                    " points) satisfies its constraints",
                decls.constraints.front().span);
  r.trials = db.load(cfg.study_key, params);
  int counted = 0;          // measured or failed: what the budget counts
  SearchFailures failures;  // the run-time failure the final error reports
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
          // A point more than kStopAboveBest times slower than the best so far (its
          // first call's overhead allowed for: stop_threshold_ms) is called once, not
          // `--repeat` times.
          t.time_ms = r.best
                          ? measurer.measure_unless_slower(
                                *c.compiled, c.point, stop_threshold_ms(measurer, r.best->time_ms))
                          : measurer.measure(*c.compiled, c.point);
        } catch (const Error& e) {
          c.error = e.what();
          failures.note(e, /*is_default=*/false);
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
      if (!t.error.empty()) why = clipped_first_line(t.error);
    if (r.trials.empty() && !decls.constraints.empty())
      why = "no point that satisfies the constraints was found among random draws";
    failures.fail("no point of the template could be measured (" + std::to_string(r.trials.size()) +
                      " tried)",
                  why.empty() ? "" : "last reason: " + why, Span{cfg.strategy, 0, 0});
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

}  // namespace risec::driver
