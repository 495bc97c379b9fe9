// `risec tune`, the command (see tune.h and docs/tuning.md).
#include "driver/tune.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <iostream>
#include <limits>
#include <thread>

#include "driver/autoschedule.h"
#include "driver/commands.h"
#include "driver/run.h"
#include "driver/search_preflight.h"
#include "driver/tuned.h"
#include "rise/check.h"
#include "support/cpu.h"
#include "support/diagnostics.h"
#include "support/files.h"

namespace risec::driver {

namespace {

[[noreturn]] void tune_usage(const std::string& msg) {
  throw Error(ErrorKind::Usage, msg);
}

}  // namespace

int positive_option(const std::string& text, const std::string& flag, int fallback) {
  if (text.empty()) return fallback;
  int v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range && p == text.data() + text.size() && text[0] != '-')
    tune_usage(flag + ": '" + text + "' is too large (at most " +
               std::to_string(std::numeric_limits<int>::max()) + ")");
  if (ec != std::errc() || p != text.data() + text.size() || v < 1)
    tune_usage(flag + ": '" + text + "' is not a positive number");
  return v;
}

rise::SizeMap search_sizes(const rise::Program& p, const TuneArgs& o) {
  return search_sizes(p, o.entry, parse_sizes(o.sizes_text));
}

rise::SizeMap search_sizes(const rise::Program& p, const std::string& entry, rise::SizeMap sizes) {
  rise::Checked c = rise::check_program(p, entry, &sizes);
  entry_parameters(c);  // every size known
  return sizes;
}

int cmd_tune(const TuneArgs& o) {
  // Without a template, the autoscheduler builds the space itself (autoschedule.h).
  if (o.strategy.empty()) return cmd_autoschedule(o);
  if (o.explain) tune_usage("--explain is for risec tune without --strategy (the autoscheduler)");
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
    tune_usage("--search must be evolutionary or random, got '" + o.search + "'");
  cfg.seed = parse_seed(o.seed_text);
  const std::string program_text = read_text_file(o.file, "the program");
  rise::Program p = load_program(o.file);
  cfg.program = &p;
  cfg.entry = o.entry;
  cfg.sizes = search_sizes(p, o);
  cfg.target = o.target;
  // Before the search: the target, the sizes' memory, -o and the GPU device.
  (void)check_before_search("tune", p, o.entry, cfg.sizes, o.target, o.output);
  cfg.strategy = strategy_source(o.strategy);
  cfg.shift_tails = !o.no_shift_tails;
  cfg.bounds_checks = !o.no_bounds_checks;
  // Plain loops, or no index checks, time differently: a study of their own (the
  // default's key is unchanged, so databases of earlier runs resume).
  const std::string code = target_code(cfg.target, cfg.shift_tails, cfg.bounds_checks);
  // The files the template imports are part of it: editing one starts a new study.
  std::string strategy_text = cfg.strategy->text;
  for (const SourceRef& f : elevate::strategy_imports(cfg.strategy))
    strategy_text += '\0' + f->name + '\0' + f->text;
  cfg.study_key = study_key(program_text, strategy_text, cfg.sizes, code, o.entry);
  cfg.progress = &std::cerr;
  cfg.tty = isatty(STDERR_FILENO) != 0;
  // The trials, and the best strategy for --tuned, persist: by default in the cache.
  const std::string db_path = o.db.empty() ? default_db_path() : o.db;
  TrialDb db(db_path);
  note_input(db_path, o.db.empty() ? "the tuning database" : "--db");
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
  // The record `risec run --tuned` uses for this program, entry, sizes, target and CPU
  // (tuned.h), unless a faster one is there.
  const TunedRecord record{r.best_strategy, r.best->time_ms,
                           "risec tune " + o.file + " --strategy " + o.strategy};
  if (record_best(db, tuned_key(p, o.entry, cfg.sizes, code), record))
    std::cerr << "tune: recorded for --tuned in " << db_path << "\n";
  else
    std::cerr << "tune: " << db_path << " keeps its record for --tuned (as fast or faster)\n";
  std::cout << best;
  if (!o.output.empty()) write_output_file(o.output, best);
  return 0;
}

}  // namespace risec::driver
