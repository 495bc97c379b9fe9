// The risec command line (spec/cli.md): argument parsing, then calls into the
// driver library. Every error reaches the user as `file:line:col: error: ...` with
// the exit code of its kind; nothing here aborts.
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "driver/commands.h"
#include "driver/explore.h"
#include "driver/graph.h"
#include "driver/run.h"
#include "driver/tune.h"
#include "support/diagnostics.h"
#include "support/files.h"
#include "support/stack.h"
#include "support/words.h"

namespace {

using risec::driver::Options;

struct Command {
  const char* name;
  const char* synopsis;
  const char* help;
  int (*run)(const Options&);
};

const Command kCommands[] = {
    {"check", "risec check FILE.rise [--entry NAME] [--size n=..]",
     "Parse and type-check FILE.rise and print the entry's type. The entry is the\n"
     "definition named by --entry, else the last one in the file.\n",
     risec::driver::cmd_check},
    {"print", "risec print FILE.rise [--entry NAME] [--types]",
     "Pretty-print the program (all definitions, or only --entry). With --types, lambda\n"
     "parameters are annotated with their inferred types.\n",
     risec::driver::cmd_print},
    {"eval",
     "risec eval FILE.rise --size n=..,m=.. [--input NAME=FILE.npy ...] [--bind NAME=FILE.npy ...] "
     "[--output FILE.npy] [--full] [--seed N] [--entry NAME]",
     "Run the reference interpreter on the entry. Inputs are the entry's fun parameters\n"
     "in order; missing ones are generated from --seed (floats in [0,1), integers in\n"
     "[0,100), booleans fair). --bind NAME=FILE.npy puts the file's values in the program\n"
     "in place of NAME (as compile does; the other inputs are drawn as without it). The\n"
     "result is written to --output as .npy, or printed with its type and shape: the\n"
     "first and last 10 values of more than 20, or with --full every value, one row of\n"
     "the last dimension per line.\n",
     risec::driver::cmd_eval},
    {"rules", "risec rules",
     "List the strategy library: rewrite rules, normal forms, traversals,\n"
     "combinators and predicates, each with a one-line description.\n",
     risec::driver::cmd_rules},
    {"rewrite",
     "risec rewrite FILE.rise --strategy S.elv [--param NAME=V,..] [--entry NAME] [--size n=..] "
     "[--bind NAME=FILE.npy ...] [--trace] [--types]",
     "Apply the strategy in S.elv to the entry and print the rewritten program. With\n"
     "--trace, each rule applied and the subterm it rewrote are printed on stderr. A\n"
     "failing strategy reports the rule that failed, located in S.elv, and the subterm\n"
     "it was tried on. --size specialises the program first. --param gives values to the\n"
     "strategy's parameters (`param NAME in [..];`; each defaults to its first value).\n"
     "--bind NAME=FILE.npy specialises the program on the file's values as compile does\n"
     "(the values in place of NAME, then the strategy, then `specialise`).\n",
     risec::driver::cmd_rewrite},
    {"compile",
     "risec compile FILE.rise [--strategy S.elv [--param NAME=V,..]] [--target c|openmp|opencl] "
     "[--entry NAME] [--size n=..] [--bind NAME=FILE.npy ...] [--no-simplify] [--no-shift-tails] "
     "[--no-bounds-checks] [-o OUT.c]",
     "Generate C for the entry: one self-contained C99 translation unit (and, with -o,\n"
     "a header OUT.h next to OUT.c). Without --strategy the default lowering is applied:\n"
     "simplify ; lowerToC (lowerToC alone with --no-simplify). Without --size the code is generic "
     "in the sizes (int parameters,\n"
     "whose preconditions, e.g. 4 divides n, are checked on entry; see docs/codegen.md);\n"
     "with it, sizes are constants. --bind NAME=FILE.npy makes the input NAME a constant:\n"
     "its values are folded into the code (reductions over them unrolled, zero weights\n"
     "removed), NAME leaves the function's parameters and the sizes its shape determines\n"
     "are fixed. --dump-dpia prints the imperative DPIA on stderr, --trace each rule the\n"
     "strategy applied (as for rewrite). --no-shift-tails keeps\n"
     "innermost loops plain (c, openmp: by default a short loop whose trip count the vector\n"
     "width does not divide runs as blocks, the last one shifted inwards; docs/codegen.md).\n"
     "Indices made from data (natAsIndex, casts to idx[n], index arithmetic, inputs of\n"
     "indices) are checked where they are made; --no-bounds-checks leaves them unchecked.\n"
     "--target opencl writes OUT.cl (the kernels) beside OUT.c (the host function, with\n"
     "the C target's signature, which embeds and launches them) and OUT.h.\n",
     risec::driver::cmd_compile},
    {"run",
     "risec run FILE.rise [--strategy S.elv [--param NAME=V,..]] [--target c|openmp|opencl] "
     "--size n=..,m=.. "
     "[--input NAME=FILE.npy ...] [--bind NAME=FILE.npy ...] [--no-simplify] [--no-shift-tails] "
     "[--no-bounds-checks] [--output FILE.npy] [--full] "
     "[--seed N] "
     "[--check [--rtol R] "
     "[--atol A]] [--repeat K] [--flops EXPR] [--global N[,M..]] [--local N[,M..]] "
     "[--entry NAME]",
     "Compile the entry as `risec compile` does (specialised to --size), compile the C\n"
     "with $CC (default cc) -O3 -march=native -ffp-contract=fast and $RISEC_CFLAGS, load\n"
     "it and run it once (K times with --repeat, printing the min and median time) on the\n"
     "inputs `risec eval` would use: --input files by parameter name, the others drawn\n"
     "from --seed; --bind inputs are compiled in as constants (as for compile). The\n"
     "result is written to --output as .npy, or printed (every value with --full, as for\n"
     "eval). --check runs\n"
     "the reference interpreter on the same inputs and compares element by element:\n"
     "|got - expected| <= atol + rtol * max(|got|, |expected|) for floats (defaults\n"
     "--rtol 1e-4 --atol 1e-5), exact for other types; a mismatch exits with code 3.\n"
     "--flops EXPR (e.g. 2*n*m) prints GFLOP/s from the median time. Compiled code is\n"
     "cached in $RISEC_CACHE_DIR (default $XDG_CACHE_HOME/risec or ~/.cache/risec).\n"
     "--target opencl links -lOpenCL, prints the platform and device used (pick the\n"
     "platform with $RISEC_OPENCL_PLATFORM, an index or part of its name) and reports\n"
     "the kernels' time (profiling events); --global/--local set the launch sizes per\n"
     "dimension instead of the program's (see docs/targets.md). --trace and --dump-dpia\n"
     "print what they print for compile.\n",
     risec::driver::cmd_run},
    {"tune",
     "risec tune FILE.rise [--strategy TEMPLATE.elv] --size n=..,m=.. [--target c|openmp] "
     "[--budget N] [--db FILE] [--workers K] [--search evolutionary|random] [--seed S] "
     "[--repeat R] [--entry NAME] [--no-shift-tails] [--no-bounds-checks] [--explain] "
     "[-o BEST.elv]",
     "Without --strategy, the autoscheduler: risec builds the program's space of schedules\n"
     "(fusion, stores and hoists, parallel loop, tiling, vectorisation, unrolled taps, loop\n"
     "order), ranks it with a cost model, measures the default lowering and the best-ranked\n"
     "candidates (--budget N of them, default 30), each checked against the interpreter,\n"
     "and writes the fastest as a commented strategy (stdout, -o BEST.elv); --explain\n"
     "prints the chosen schedule in words and the default's and the best's times on\n"
     "stderr (docs/tuning.md, \"Without a template\"; --db and --search are for\n"
     "templates).\n"
     "With --strategy, search the values of the template's parameters (`param NAME in [..];`)\n"
     "by measuring. "
     "Points the rewrite or the type checker rejects (a tile size that does not divide a\n"
     "size) are pruned before the C compiler runs; candidates are compiled K at a time\n"
     "(default: the number of cores) and measured one at a time (the median of R runs,\n"
     "default 5, as `risec run --repeat`). The search is evolutionary (docs/tuning.md);\n"
     "--search random is the baseline. --budget N (default 50) counts the trials measured\n"
     "in the study, including earlier runs stored in --db FILE (SQLite; without it, in\n"
     "memory): a second run with the same database resumes. Progress goes to stderr; the\n"
     "best strategy, with its values substituted, to stdout and to -o BEST.elv.\n"
     "--no-shift-tails compiles every candidate with plain innermost loops (as for\n"
     "compile; a study of its own in --db), --no-bounds-checks without index checks. The values "
     "are tune's to choose: --param is\n"
     "refused.\n",
     risec::driver::cmd_tune},
    {"graph",
     "risec graph FILE.rise [--strategy S.elv [--param NAME=V,..]] [--entry NAME] [--size n=..] "
     "[--trace] [-o OUT.dot|.svg|.png]",
     "Draw the entry as a Graphviz graph (DOT): a node per primitive application (with\n"
     "an edge to each argument, in order), lambda, variable and literal, each with its\n"
     "type; a subterm shared in memory is drawn once. With --strategy, two clusters: the\n"
     "program before and after it. -o OUT.dot writes the DOT text (without -o it is\n"
     "printed); -o OUT.svg or OUT.png writes OUT.dot and renders it with Graphviz's\n"
     "`dot` (exit 4 when dot is not installed).\n",
     risec::driver::cmd_graph},
    {"explore",
     "risec explore FILE.rise --size n=..,m=.. [--target c|openmp] [--budget N] "
     "[--search model|random] [--seed S] [--repeat R] [--entry NAME] "
     "[--strategy TEMPLATE.elv [--trials T]] [--no-shift-tails] [--no-bounds-checks] [-o BEST.elv]",
     "Explore where intermediate arrays are stored in memory or kept as views: from the\n"
     "program in RNF (every computed intermediate stored), each variant fuses maps into\n"
     "the map or reduction that reads them, stores views that are read many times\n"
     "(transpose, pad, slide) or hoists loop-invariant computations out of loops.\n"
     "Variants are ranked by a cost model (bytes stored and read back, loop iterations,\n"
     "bytes allocated; docs/tuning.md), all of them when there are at most 256, else by\n"
     "a beam search; --search random draws random walks instead. The first N (default\n"
     "5) are compiled and measured (the median of R runs, default 5); the fastest\n"
     "variant's strategy goes to stdout and to -o BEST.elv. With --strategy, the\n"
     "template's main ends each variant instead of lowerToC and its parameters are tuned\n"
     "for each measured variant (T points, default 8, by risec tune's search).\n"
     "--no-shift-tails compiles every variant with plain innermost loops,\n"
     "--no-bounds-checks without index checks.\n",
     risec::driver::cmd_explore},
};

const char* kVersionLine = "risec " RISEC_VERSION;

void print_help() {
  std::printf(
      "%s - a compiler for RISE array programs with ELEVATE rewrite strategies\n\n"
      "usage: risec <command> [options]\n\ncommands:\n",
      kVersionLine);
  for (const Command& c : kCommands) std::printf("  %s\n", c.synopsis);
  std::printf(
      "\nrisec <command> --help describes a command. Exit codes: 0 success, 1 the program or\n"
      "strategy is wrong, 2 bad usage, 3 --check found a mismatch, 4 an external tool\n"
      "failed, 70 internal error.\n");
}

[[noreturn]] void usage(const std::string& msg) {
  throw risec::Error(risec::ErrorKind::Usage, msg);
}

Options parse_options(const Command& cmd, int argc, char** argv) {
  Options o;
  auto value = [&](int& i, const std::string& flag) -> std::string {
    if (i + 1 >= argc)
      usage(std::string(flag) + " needs a value (see risec " + cmd.name + " --help)");
    return argv[++i];
  };
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    std::string inline_value;
    bool has_inline = false;
    if (a.rfind("--", 0) == 0) {
      size_t eq = a.find('=');
      if (eq != std::string::npos) {
        inline_value = a.substr(eq + 1);
        a = a.substr(0, eq);
        has_inline = true;
      }
    }
    auto get = [&]() { return has_inline ? inline_value : value(i, a); };
    if (!a.empty() && a[0] == '-') o.given.push_back(a);
    if (a == "--help" || a == "-h") {
      o.help = true;
    } else if (a == "--entry") {
      o.entry = get();
    } else if (a == "--size") {
      o.sizes_text.push_back(get());
    } else if (a == "--strategy") {
      o.strategy = get();
      if (o.strategy.find_first_not_of(" \t\n;") == std::string::npos)
        usage("--strategy needs an .elv file, a library strategy or strategy text, got '" +
              o.strategy + "'");
    } else if (a == "--param") {
      o.params.push_back(get());
    } else if (a == "--budget") {
      o.budget_text = get();
    } else if (a == "--db") {
      o.db = get();
    } else if (a == "--trials") {
      o.trials_text = get();
    } else if (a == "--workers") {
      o.workers_text = get();
    } else if (a == "--search") {
      o.search = get();
    } else if (a == "--target") {
      o.target = get();
    } else if (a == "--dump-dpia") {
      o.dump_dpia = true;
    } else if (a == "--trace") {
      o.trace = true;
    } else if (a == "--explain") {
      o.explain = true;
    } else if (a == "--no-simplify") {
      o.no_simplify = true;
    } else if (a == "--no-shift-tails") {
      o.no_shift_tails = true;
    } else if (a == "--no-bounds-checks") {
      o.no_bounds_checks = true;
    } else if (a == "--types") {
      o.types = true;
    } else if (a == "--full") {
      o.full = true;
    } else if (a == "--input") {
      o.inputs.push_back(get());
    } else if (a == "--bind") {
      o.binds.push_back(get());
    } else if (a == "--output" || a == "-o") {
      o.output = get();
    } else if (a == "--seed") {
      o.seed_text = get();
    } else if (a == "--check") {
      o.check = true;
    } else if (a == "--rtol") {
      o.rtol_text = get();
    } else if (a == "--atol") {
      o.atol_text = get();
    } else if (a == "--repeat") {
      o.repeat_text = get();
    } else if (a == "--flops") {
      o.flops = get();
    } else if (a == "--global") {
      o.global = get();
    } else if (a == "--local") {
      o.local = get();
    } else if (!a.empty() && a[0] == '-') {
      usage("unknown option '" + a + "' for risec " + cmd.name + " (see risec " + cmd.name +
            " --help)");
    } else if (o.file.empty()) {
      o.file = a;
    } else {
      usage("unexpected argument '" + a + "'");
    }
  }
  return o;
}

// `flag` written in `text` as a word of its own (followed by a space, `]`, `=`, `.`,
// `,` or the end), e.g. "--size" in "[--size n=..]" but not in "--sizes".
bool mentions(const std::string& text, const std::string& flag) {
  for (size_t at = text.find(flag); at != std::string::npos; at = text.find(flag, at + 1)) {
    size_t end = at + flag.size();
    bool starts = at == 0 || text[at - 1] == ' ' || text[at - 1] == '[' || text[at - 1] == '\n';
    bool ends = end == text.size() || std::strchr(" ]=.,)\n", text[end]);
    if (starts && ends) return true;
  }
  return false;
}

// The options a command's synopsis or help names are the ones it honours; any other
// is refused rather than ignored (`risec check --target opencl` would otherwise
// succeed and do nothing with it).
void refuse_unknown_options(const Command& c, const Options& o) {
  const std::string text = std::string(c.synopsis) + "\n" + c.help;
  for (const std::string& flag : o.given) {
    if (flag == "--help" || flag == "-h") continue;
    bool ok = flag == "-o" || flag == "--output"
                  ? mentions(text, "-o") || mentions(text, "--output")
                  : mentions(text, flag);
    if (!ok)
      usage("risec " + std::string(c.name) + " does not take " + flag + " (see risec " + c.name +
            " --help)");
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_help();
    return 2;
  }
  std::string first = argv[1];
  if (first == "--help" || first == "-h" || first == "help") {
    print_help();
    return 0;
  }
  if (first == "--version") {
    std::printf("%s\n", kVersionLine);
    return 0;
  }
  try {
    for (const Command& c : kCommands) {
      if (first != c.name) continue;
      Options o = parse_options(c, argc, argv);
      if (o.help) {
        std::printf("usage: %s\n\n%s", c.synopsis, c.help);
        return 0;
      }
      if (o.file.empty() && std::strcmp(c.name, "rules") != 0)
        usage(std::string("risec ") + c.name + " needs a FILE.rise argument");
      refuse_unknown_options(c, o);
      // The files the command reads are its inputs, which no output may overwrite; a
      // write beyond the file size limit fails (EFBIG, a located error) rather than
      // killing risec (support/files.h).
      risec::InputScope inputs;
      // Messages name options as the command line spells them (support/words.h).
      risec::InterfaceScope words(risec::Interface::CommandLine);
      std::signal(SIGXFSZ, SIG_IGN);
      // The compiler's recursive passes run on a large stack (support/stack.h).
      return risec::run_with_large_stack([&] { return c.run(o); });
    }
    usage("unknown command '" + first + "' (see risec --help)");
  } catch (const risec::Error& e) {
    std::cerr << risec::format_error(e);
    return risec::exit_code(e.kind());
  } catch (const std::bad_alloc&) {
    std::cerr << "risec: error: out of memory\n";
    return 70;
  } catch (const std::exception& e) {
    std::cerr << "risec: internal error: " << e.what() << "\n";
    return 70;
  }
}
