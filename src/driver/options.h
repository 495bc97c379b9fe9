// The options of each subcommand of the risec command line, one struct per command.
// Every field is set by exactly one option, declared once in cli.cpp with its help
// text; the parser, `risec CMD --help` and the list of options a command accepts are
// all made from those declarations (cli.h), so that the help cannot name an option the
// command ignores, nor miss one it takes. Fields hold the text as written (`*_text`);
// the commands parse and check the values.
#pragma once

#include <string>
#include <vector>

namespace risec::driver {

struct CheckArgs {
  std::string file;
  std::string entry;
  std::vector<std::string> sizes_text;  // --size n=1024,m=512 (repeatable)
};

struct PrintArgs {
  std::string file;
  std::string entry;
  bool types = false;
};

struct EvalArgs {
  std::string file;
  std::string entry;
  std::vector<std::string> sizes_text;
  std::vector<std::string> inputs;  // --input NAME=FILE.npy
  std::vector<std::string> binds;   // --bind NAME=FILE.npy
  std::string output;
  bool full = false;
  std::string seed_text;
};

struct RulesArgs {};

struct RewriteArgs {
  std::string file;
  std::string entry;
  std::vector<std::string> sizes_text;
  std::string strategy;             // --strategy S.elv (or a library name, or text)
  std::vector<std::string> params;  // --param ti=32,v=16 (repeatable)
  std::vector<std::string> binds;
  bool trace = false;
  bool types = false;
};

struct CompileArgs {
  std::string file;
  std::string entry;
  std::vector<std::string> sizes_text;
  std::string strategy;
  std::vector<std::string> params;
  std::string target = "c";
  std::vector<std::string> binds;
  bool no_simplify = false;       // the default lowering is lowerToC alone
  bool no_shift_tails = false;    // plain innermost loops (c, openmp)
  bool no_bounds_checks = false;  // data-dependent indices unchecked
  std::string output;
  bool dump_dpia = false;
  bool trace = false;
  bool tuned = false;  // --tuned: the tuning database's best strategy (driver/tuned.h)
  std::string db;      // --db FILE: that database (default: tuned.h's default_db_path)
};

struct RunArgs {
  std::string file;
  std::string entry;
  std::vector<std::string> sizes_text;
  std::string strategy;
  std::vector<std::string> params;
  std::string target = "c";
  std::vector<std::string> inputs;
  std::vector<std::string> binds;
  bool no_simplify = false;
  bool no_shift_tails = false;
  bool no_bounds_checks = false;
  std::string output;
  bool full = false;
  std::string seed_text;
  bool check = false;
  std::string rtol_text;
  std::string atol_text;
  std::string repeat_text;
  std::string warmup_text;  // --warmup W: untimed calls before the timed ones
  std::string flops;        // --flops EXPR
  std::string global;       // --global N[,M,..] (GPU launch size)
  std::string local;        // --local N[,M,..] (GPU work-group size)
  bool profile = false;     // --profile: each top-level loop nest timed (c, openmp)
  bool trace = false;
  bool dump_dpia = false;
  bool tuned = false;
  std::string db;
};

struct TuneArgs {
  std::string file;
  std::string entry;
  std::vector<std::string> sizes_text;
  std::string strategy;  // --strategy TEMPLATE.elv
  std::string target = "c";
  std::string budget_text;   // --budget N
  std::string db;            // --db FILE
  std::string workers_text;  // --workers K
  std::string search;        // --search evolutionary|random
  std::string seed_text;
  std::string repeat_text;
  bool no_shift_tails = false;
  bool no_bounds_checks = false;
  std::string output;
  bool explain = false;  // --explain: the autoscheduler's choice in words
};

struct GraphArgs {
  std::string file;
  std::string entry;
  std::vector<std::string> sizes_text;
  std::string strategy;
  std::vector<std::string> params;
  bool trace = false;
  std::string output;
};

struct ViewArgs {
  std::string file;
  std::string entry;
  std::vector<std::string> sizes_text;
  std::string strategy;
  std::vector<std::string> params;
  std::string target = "c";
  bool no_simplify = false;
  std::string output;
};

struct ExploreArgs {
  std::string file;
  std::string entry;
  std::vector<std::string> sizes_text;
  std::string target = "c";
  std::string budget_text;
  std::string search;  // --search model|random
  std::string seed_text;
  std::string repeat_text;
  std::string strategy;     // --strategy TEMPLATE.elv: ends each variant
  std::string trials_text;  // --trials T: points tuned per variant with --strategy
  bool no_shift_tails = false;
  bool no_bounds_checks = false;
  std::string output;
};

}  // namespace risec::driver
