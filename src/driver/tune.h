// `risec tune` (spec/cli.md, docs/tuning.md): search a strategy template's parameters
// (`param NAME in [...]`) by compiling and measuring. The parts live in their own
// headers, included here so that a user of tune.h sees all of them:
//   trial_db.h  the trial database (SQLite);
//   measure.h   how a candidate is built and timed (Measurer);
//   search.h    the search (Searcher, tune(), compile_point, run_trial);
// and this file the command.
#pragma once

#include <string>

#include "driver/commands.h"
#include "driver/measure.h"
#include "driver/search.h"
#include "driver/trial_db.h"

namespace risec::driver {

// The value of a positive integer option, `fallback` when it is empty (Usage error
// naming the flag otherwise).
int positive_option(const std::string& text, const std::string& flag, int fallback);
// The --size values for the program's entry, which a search measures at: the entry
// is checked with them and every size must be known (located errors otherwise).
rise::SizeMap search_sizes(const rise::Program& p, const TuneArgs& o);
rise::SizeMap search_sizes(const rise::Program& p, const std::string& entry, rise::SizeMap sizes);

// The `tune` subcommand.
int cmd_tune(const TuneArgs& o);

}  // namespace risec::driver
