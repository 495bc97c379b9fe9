// The commands of the risec command line and their options (see cli.h).
#include "driver/cli.h"

#include <algorithm>
#include <set>

#include "driver/commands.h"
#include "driver/explore.h"
#include "driver/graph.h"
#include "driver/run.h"
#include "driver/tune.h"
#include "driver/view.h"
#include "support/diagnostics.h"

namespace risec::driver {

namespace {

[[noreturn]] void cli_usage(const std::string& msg) {
  throw Error(ErrorKind::Usage, msg);
}

// One option of a command whose options are the struct A: how it is written, the
// name of its value ("" for a switch), what it does, and how it sets A.
template <class A>
struct Opt {
  std::string flag;   // "--size"
  std::string alias;  // "-o", or ""
  std::string value;  // "n=..,m=..", "" for a switch
  std::string help;
  bool required = false;  // shown without brackets in the synopsis
  std::function<void(A&, const std::string&)> set;
};

template <class A>
Opt<A> text(std::string flag, std::string value, std::string help, std::string A::*field) {
  return {std::move(flag), "",    std::move(value),
          std::move(help), false, [field](A& a, const std::string& v) { a.*field = v; }};
}
template <class A>
Opt<A> many(std::string flag, std::string value, std::string help,
            std::vector<std::string> A::*field) {
  return {std::move(flag),
          "",
          std::move(value),
          std::move(help) + " (repeatable)",
          false,
          [field](A& a, const std::string& v) { (a.*field).push_back(v); }};
}
template <class A>
Opt<A> flag(std::string name, std::string help, bool A::*field) {
  return {std::move(name), "",    "",
          std::move(help), false, [field](A& a, const std::string&) { a.*field = true; }};
}

// The options several commands share, each declared once; `help` replaces the text
// where a command gives the option a meaning of its own.
template <class A>
Opt<A> entry() {
  return text<A>("--entry", "NAME", "the definition to use (default: the last one in the file)",
                 &A::entry);
}
template <class A>
Opt<A> size(const std::string& help) {
  return many<A>("--size", "n=..,m=..", "size values, NAME=VALUE[,NAME=VALUE..]: " + help,
                 &A::sizes_text);
}
template <class A>
Opt<A> strategy(const std::string& help, bool required = false) {
  Opt<A> o = text<A>("--strategy", "S.elv",
                     help +
                         "; an .elv file, a library strategy without arguments (simplify) "
                         "or strategy text (docs/cli.md)",
                     &A::strategy);
  o.required = required;
  o.set = [](A& a, const std::string& v) {
    if (v.find_first_not_of(" \t\n;") == std::string::npos)
      cli_usage("--strategy needs an .elv file, a library strategy or strategy text, got '" + v +
                "'");
    a.strategy = v;
  };
  return o;
}
template <class A>
Opt<A> param() {
  return many<A>("--param", "NAME=V,..",
                 "values of the strategy's parameters (`param NAME in [..];`), each of which "
                 "defaults to its first value",
                 &A::params);
}
template <class A>
Opt<A> target(const std::string& help) {
  return text<A>("--target", "c|openmp|..", help, &A::target);
}
template <class A>
Opt<A> bind(const std::string& help) {
  return many<A>("--bind", "NAME=FILE.npy", help, &A::binds);
}
template <class A>
Opt<A> input() {
  return many<A>("--input", "NAME=FILE.npy",
                 "the value of the entry's parameter NAME (the others are drawn from --seed)",
                 &A::inputs);
}
template <class A>
Opt<A> output(const std::string& value, const std::string& help) {
  Opt<A> o = text<A>("--output", value, help, &A::output);
  o.alias = "-o";
  return o;
}
template <class A>
Opt<A> seed(const std::string& help) {
  return text<A>("--seed", "N", help, &A::seed_text);
}
template <class A>
Opt<A> full() {
  return flag<A>("--full",
                 "print every element of the result, one row of the last dimension per line "
                 "(by default the first and last 10 of more than 20)",
                 &A::full);
}
template <class A>
Opt<A> trace() {
  return flag<A>("--trace",
                 "print each rule the strategy applies, and the subterm it rewrote, on "
                 "stderr",
                 &A::trace);
}
template <class A>
Opt<A> types() {
  return flag<A>("--types", "annotate lambda parameters with their inferred types", &A::types);
}
template <class A>
Opt<A> no_simplify() {
  return flag<A>("--no-simplify",
                 "without --strategy, lower with lowerToC alone instead of simplify ; lowerToC",
                 &A::no_simplify);
}
template <class A>
Opt<A> no_shift_tails(const std::string& help) {
  return flag<A>("--no-shift-tails", help, &A::no_shift_tails);
}
template <class A>
Opt<A> no_bounds_checks(const std::string& help) {
  return flag<A>("--no-bounds-checks", help, &A::no_bounds_checks);
}
template <class A>
Opt<A> dump_dpia() {
  return flag<A>("--dump-dpia", "print the imperative DPIA on stderr", &A::dump_dpia);
}
template <class A>
Opt<A> repeat(const std::string& help) {
  return text<A>("--repeat", "K", help, &A::repeat_text);
}
template <class A>
Opt<A> budget(const std::string& help) {
  return text<A>("--budget", "N", help, &A::budget_text);
}
template <class A>
Opt<A> search(const std::string& values, const std::string& help) {
  return text<A>("--search", values, help, &A::search);
}

template <class A>
Opt<A> tuned() {
  return flag<A>("--tuned",
                 "compile with the best strategy risec tune recorded for this program, entry, "
                 "sizes, target and CPU (docs/tuning.md, \"Results reused\"); without a record, "
                 "the default lowering after a note on stderr; not with --strategy",
                 &A::tuned);
}
template <class A>
Opt<A> tuned_db() {
  return text<A>("--db", "FILE",
                 "the tuning database --tuned reads (default: tuning.db in the cache directory)",
                 &A::db);
}

const char* kShiftTails =
    "keep innermost loops plain (c, openmp: by default a short loop whose trip count the vector "
    "width does not divide runs as blocks, the last one shifted inwards; docs/codegen.md)";
const char* kBoundsChecks =
    "leave indices made from data (natAsIndex, casts to idx[n], index arithmetic, inputs of "
    "indices) unchecked; by default each is checked where it is made";

// A command: its name, whether it takes FILE.rise, what it does and its options.
template <class A>
struct Spec {
  std::string name;
  bool takes_file = true;
  std::string description;
  std::vector<Opt<A>> options;
  int (*run)(const A&) = nullptr;
};

// Breaks `text` into lines of at most `width` columns, the first continuing a line
// that is `indent` columns long and the others indented by `indent` spaces.
std::string wrap(const std::string& text, size_t indent, size_t width = 88) {
  std::string out;
  size_t col = indent;
  bool line_start = true;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(at, end - at);
    at = end + 1;
    if (word.empty()) continue;
    if (!line_start && col + 1 + word.size() > width) {
      out += "\n" + std::string(indent, ' ');
      col = indent;
      line_start = true;
    }
    if (!line_start) {
      out += ' ';
      ++col;
    }
    out += word;
    col += word.size();
    line_start = false;
  }
  return out;
}

template <class A>
std::string synopsis(const Spec<A>& s) {
  std::string out = "risec " + s.name + (s.takes_file ? " FILE.rise" : "");
  for (const Opt<A>& o : s.options) {
    std::string w = (o.alias.empty() ? o.flag : o.alias) + (o.value.empty() ? "" : " " + o.value);
    out += o.required ? " " + w : " [" + w + "]";
  }
  return out;
}

template <class A>
std::string help(const Spec<A>& s) {
  std::string out = "usage: risec " + s.name + (s.takes_file ? " FILE.rise" : "") +
                    (s.options.empty() ? "" : " [options]") + "\n\n";
  // The description: paragraphs separated by blank lines, each wrapped.
  size_t at = 0;
  while (at < s.description.size()) {
    size_t end = s.description.find("\n\n", at);
    if (end == std::string::npos) end = s.description.size();
    out += wrap(s.description.substr(at, end - at), 0) + "\n\n";
    at = end + 2;
  }
  out += "options:\n";
  constexpr size_t kColumn = 28;
  auto line = [&](const std::string& left, const std::string& text) {
    std::string l = "  " + left;
    if (l.size() + 2 > kColumn)
      out += l + "\n" + std::string(kColumn, ' ');
    else
      out += l + std::string(kColumn - l.size(), ' ');
    out += wrap(text, kColumn) + "\n";
  };
  for (const Opt<A>& o : s.options)
    line((o.alias.empty() ? "" : o.alias + ", ") + o.flag + (o.value.empty() ? "" : " " + o.value),
         o.help);
  line("-h, --help", "print this help");
  return out;
}

template <class A>
std::vector<std::string> flags(const Spec<A>& s) {
  std::vector<std::string> out = {"--help", "-h"};
  for (const Opt<A>& o : s.options) {
    out.push_back(o.flag);
    if (!o.alias.empty()) out.push_back(o.alias);
  }
  return out;
}

bool another_command_takes(const std::string& flag) {
  for (const Command& c : commands())
    if (std::find(c.flags.begin(), c.flags.end(), flag) != c.flags.end()) return true;
  return false;
}

template <class A>
A parse(const Spec<A>& s, const std::vector<std::string>& args) {
  A a;
  std::string file;
  const std::string see = " (see risec " + s.name + " --help)";
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (arg.size() < 2 || arg[0] != '-') {
      if (!s.takes_file || !file.empty()) cli_usage("unexpected argument '" + arg + "'" + see);
      file = arg;
      continue;
    }
    std::string inline_value;
    bool has_inline = false;
    if (arg.rfind("--", 0) == 0) {
      if (size_t eq = arg.find('='); eq != std::string::npos) {
        inline_value = arg.substr(eq + 1);
        arg.resize(eq);
        has_inline = true;
      }
    }
    if (arg == "--help" || arg == "-h") continue;
    auto o = std::find_if(s.options.begin(), s.options.end(),
                          [&](const Opt<A>& x) { return x.flag == arg || x.alias == arg; });
    if (o == s.options.end()) {
      if (another_command_takes(arg)) cli_usage("risec " + s.name + " does not take " + arg + see);
      cli_usage("unknown option '" + arg + "' for risec " + s.name + see);
    }
    if (o->value.empty()) {
      if (has_inline) cli_usage(arg + " takes no value" + see);
      o->set(a, "");
      continue;
    }
    if (!has_inline && i + 1 >= args.size()) cli_usage(arg + " needs a value" + see);
    const std::string value = has_inline ? inline_value : args[++i];
    // An empty value (`--db ""`, `-o ""`) names nothing: refused for every option, never
    // taken as the option left out (which would silently use its default).
    if (value.empty()) cli_usage(arg + " needs a value, got an empty one" + see);
    o->set(a, value);
  }
  if constexpr (requires { a.file; }) {
    if (file.empty()) cli_usage("risec " + s.name + " needs a FILE.rise argument");
    a.file = file;
  }
  return a;
}

template <class A>
Command command(Spec<A> s) {
  Command c;
  c.name = s.name;
  c.synopsis = synopsis(s);
  c.help = help(s);
  c.flags = flags(s);
  auto shared = std::make_shared<Spec<A>>(std::move(s));
  c.parse = [shared](const std::vector<std::string>& args) { (void)parse(*shared, args); };
  c.run = [shared](const std::vector<std::string>& args) {
    return shared->run(parse(*shared, args));
  };
  return c;
}

std::vector<Command> make_commands() {
  std::vector<Command> out;
  out.push_back(command(Spec<CheckArgs>{
      "check",
      true,
      "Parse and type-check FILE.rise and print the entry's type, then the side conditions "
      "that remain symbolic (`requires: 4 divides n`).",
      {entry<CheckArgs>(), size<CheckArgs>("specialise the entry's type to them")},
      cmd_check}));
  out.push_back(command(Spec<PrintArgs>{
      "print",
      true,
      "Pretty-print the program: every definition, or only the entry with --entry or --types.",
      {entry<PrintArgs>(), types<PrintArgs>()},
      cmd_print}));
  out.push_back(command(Spec<EvalArgs>{
      "eval",
      true,
      "Run the reference interpreter on the entry. Its inputs are the entry's fun parameters "
      "in order: the --input files by name, the others drawn from --seed. The result is "
      "printed with its type and shape, or written with --output.",
      {size<EvalArgs>("those not given come from the shapes of the --input files"),
       input<EvalArgs>(),
       bind<EvalArgs>("the file's values in the program in place of the input NAME, as compile "
                      "does (the other inputs are drawn as without it)"),
       output<EvalArgs>("FILE.npy",
                        "write the result as .npy instead of printing it (a result of pairs as "
                        "FILE_0.npy, FILE_1.npy, ..)"),
       full<EvalArgs>(),
       seed<EvalArgs>("the seed of the inputs not given: floats in [0,1), integers in [0,100), "
                      "booleans fair (default 0)"),
       entry<EvalArgs>()},
      cmd_eval}));
  out.push_back(command(Spec<RulesArgs>{
      "rules",
      false,
      "List the strategy library: rewrite rules, normal forms, traversals, combinators and "
      "predicates, each with a one-line description.",
      {},
      cmd_rules}));
  out.push_back(command(Spec<RewriteArgs>{
      "rewrite",
      true,
      "Apply the strategy to the entry and print the rewritten program, with the side "
      "conditions it needs as `// requires:` comments. A failing strategy reports the rule that "
      "failed, located in the strategy, and the subterm it was tried on.",
      {strategy<RewriteArgs>("the strategy to apply", true), param<RewriteArgs>(),
       entry<RewriteArgs>(), size<RewriteArgs>("specialise the program to them first"),
       bind<RewriteArgs>("specialise the program on the file's values as compile does (the "
                         "values in place of NAME, then the strategy, then `specialise`)"),
       trace<RewriteArgs>(), types<RewriteArgs>()},
      cmd_rewrite}));
  out.push_back(command(Spec<CompileArgs>{
      "compile",
      true,
      "Generate code for the entry: one self-contained C99 translation unit (CUDA for --target "
      "cuda; for --target opencl the OpenCL kernels and the C host function that embeds and "
      "launches them). Without --strategy the default lowering is applied: simplify ; "
      "lowerToC (with --target openmp, simplify ; try(parallelOutput(32768)) ; lowerToC ; "
      "try(parallelStages); with cuda, simplify ; try(globalOutput(2)) ; lowerToC, or "
      "globalOutput(1), or no mapping, the first compile's checks accept; with opencl, "
      "globalOutput(1) or no mapping; docs/targets.md).",
      {strategy<CompileArgs>("the strategy instead of the default lowering"), param<CompileArgs>(),
       target<CompileArgs>("c (default), openmp, opencl or cuda (docs/targets.md)"),
       entry<CompileArgs>(),
       size<CompileArgs>("the sizes become constants; without them the code is generic in the "
                         "sizes and checks their preconditions (4 divides n) on entry "
                         "(docs/codegen.md)"),
       bind<CompileArgs>("the input NAME becomes a constant: its values are folded into the code "
                         "(reductions over them unrolled, zero weights removed), NAME leaves "
                         "the function's parameters and the sizes its shape determines are "
                         "fixed"),
       no_simplify<CompileArgs>(), no_shift_tails<CompileArgs>(kShiftTails),
       no_bounds_checks<CompileArgs>(kBoundsChecks),
       output<CompileArgs>("OUT.c",
                           "write OUT.c (OUT.cu for cuda), the header OUT.h and for opencl the "
                           "kernels OUT.cl, instead of printing the code"),
       dump_dpia<CompileArgs>(), trace<CompileArgs>(), tuned<CompileArgs>(),
       tuned_db<CompileArgs>()},
      cmd_compile}));
  out.push_back(command(Spec<RunArgs>{
      "run",
      true,
      "Compile the entry as compile does, specialised to the sizes, build it with $CC "
      "(default cc) -O3 -march=native -ffp-contract=fast and $RISEC_CFLAGS, load it and run it "
      "on the inputs eval would use (--bind inputs are compiled in as constants); print the "
      "result and the time. Compiled code is cached in $RISEC_CACHE_DIR (default "
      "$XDG_CACHE_HOME/risec or ~/.cache/risec).\n\n"
      "--target opencl links -lOpenCL and prints the platform and device used (choose the "
      "platform with $RISEC_OPENCL_PLATFORM, an index or part of its name) and the kernels' "
      "time (docs/targets.md).",
      {strategy<RunArgs>("the strategy instead of the default lowering"),
       param<RunArgs>(),
       target<RunArgs>("c (default), openmp, opencl or cuda (docs/targets.md)"),
       size<RunArgs>("those not given come from the shapes of the --input files"),
       input<RunArgs>(),
       bind<RunArgs>("the input NAME is compiled in as a constant, as for compile"),
       no_simplify<RunArgs>(),
       no_shift_tails<RunArgs>(kShiftTails),
       no_bounds_checks<RunArgs>(kBoundsChecks),
       output<RunArgs>("FILE.npy",
                       "write the result as .npy instead of printing it (a result of pairs as "
                       "FILE_0.npy, FILE_1.npy, ..)"),
       full<RunArgs>(),
       seed<RunArgs>("the seed of the inputs not given, as for eval (default 0)"),
       flag<RunArgs>("--check",
                     "run the reference interpreter on the same inputs and compare element by "
                     "element: |got - expected| <= atol + rtol * max(|got|, |expected|) for "
                     "floats, exact for other types; a mismatch exits with code 3",
                     &RunArgs::check),
       text<RunArgs>("--rtol", "R", "the relative tolerance of --check (default 1e-4)",
                     &RunArgs::rtol_text),
       text<RunArgs>("--atol", "A", "the absolute tolerance of --check (default 1e-5)",
                     &RunArgs::atol_text),
       repeat<RunArgs>("run K times and print the minimum and the median time"),
       text<RunArgs>("--warmup", "W",
                     "call the program W times more before the timed calls, in the same "
                     "process, untimed (as a benchmark's warm-up; default 0)",
                     &RunArgs::warmup_text),
       text<RunArgs>("--flops", "EXPR",
                     "the work done, an expression of the sizes (2*n*m): print GFLOP/s from the "
                     "median time",
                     &RunArgs::flops),
       text<RunArgs>("--global", "N[,M..]",
                     "the GPU launch size per dimension instead of the program's (opencl, cuda)",
                     &RunArgs::global),
       text<RunArgs>("--local", "N[,M..]",
                     "the GPU work-group size per dimension instead of the program's",
                     &RunArgs::local),
       flag<RunArgs>("--profile",
                     "(c, openmp) time each top-level loop nest of the generated code and print "
                     "each one's mean time per call and share of the call, named after the "
                     "primitive that made it, where it is in the source and the arrays it writes",
                     &RunArgs::profile),
       entry<RunArgs>(),
       trace<RunArgs>(),
       dump_dpia<RunArgs>(),
       tuned<RunArgs>(),
       tuned_db<RunArgs>()},
      cmd_run}));
  out.push_back(command(Spec<TuneArgs>{
      "tune",
      true,
      "Without --strategy, the autoscheduler: risec builds the program's space of schedules "
      "(fusion, stores and hoists, parallel loop, tiling, vectorisation, unrolled taps, loop "
      "order; on opencl and cuda the global, work-group and local mapping, local-memory "
      "tiles and register blocks), ranks it with a cost model, measures the default lowering "
      "and the best-ranked candidates (--budget N of them, default 30; on the OpenCL or CUDA "
      "device present, an error when there is none), each checked against the interpreter, "
      "and writes the fastest as a commented strategy (docs/tuning.md, \"Without a "
      "template\").\n\n"
      "With --strategy, search the values of the template's parameters (`param NAME in [..];`) "
      "by measuring (docs/tuning.md). Points the rewrite or the type checker rejects (a tile size "
      "that does "
      "not divide a size) are pruned before the C compiler runs; candidates are compiled "
      "--workers at a time and measured one at a time, a candidate's time being the fastest "
      "of its --repeat runs. Every trial is stored in the --db database: a second run of the "
      "same study resumes. Progress goes to stderr; the best strategy, with its values "
      "substituted, to stdout and to -o, and into the database as the record that "
      "`risec run/compile --tuned` use for this program, entry, sizes, target and CPU (GPU "
      "targets: the device).",
      {strategy<TuneArgs>("the template whose parameters are searched (none: the autoscheduler)"),
       size<TuneArgs>("the sizes measured at (every size is needed)"),
       target<TuneArgs>("c (default), openmp, opencl or cuda (measured on the device present)"),
       budget<TuneArgs>("the trials measured (or failed) in the study, earlier runs included "
                        "(default 50); without --strategy the candidates measured, the "
                        "default lowering included (default 30)"),
       text<TuneArgs>("--db", "FILE",
                      "the SQLite database of the trials and of the best strategies, which "
                      "--tuned reads (default: tuning.db in the cache directory, "
                      "$RISEC_CACHE_DIR, else $XDG_CACHE_HOME/risec or ~/.cache/risec)",
                      &TuneArgs::db),
       text<TuneArgs>("--workers", "K", "C compilations at once (default: the number of cores)",
                      &TuneArgs::workers_text),
       search<TuneArgs>("evolutionary|random",
                        "the search: evolutionary (default) or random (the baseline)"),
       seed<TuneArgs>("the seed of the search and of the inputs (default 0)"),
       repeat<TuneArgs>("timed runs per candidate, of which the fastest is its time (default "
                        "5)"),
       entry<TuneArgs>(),
       no_shift_tails<TuneArgs>("compile every candidate with plain innermost loops (a study of "
                                "its own in the database)"),
       no_bounds_checks<TuneArgs>("compile every candidate without index checks (a study of its "
                                  "own in the database)"),
       output<TuneArgs>("BEST.elv", "also write the best strategy to this file"),
       flag<TuneArgs>("--explain",
                      "(without --strategy) print the chosen schedule in words, the model's "
                      "reasons and the default's and the best's times on stderr",
                      &TuneArgs::explain)},
      cmd_tune}));
  out.push_back(command(Spec<GraphArgs>{
      "graph",
      true,
      "Draw the entry as a Graphviz graph (DOT): a node per primitive application (with an "
      "edge to each argument, in order), lambda, variable and literal, each with its type; a "
      "subterm shared in memory is drawn once. Without -o the DOT text is printed.",
      {strategy<GraphArgs>("draw the program before and after this strategy, as two clusters"),
       param<GraphArgs>(), entry<GraphArgs>(),
       size<GraphArgs>("specialise the program to them first"), trace<GraphArgs>(),
       output<GraphArgs>("OUT.dot",
                         "write the DOT text to OUT.dot; OUT.svg or OUT.png writes OUT.dot and "
                         "renders it with Graphviz's dot (exit 4 when dot is not installed)")},
      cmd_graph}));
  out.push_back(command(Spec<ViewArgs>{
      "view",
      true,
      "Write one self-contained HTML page with the program, the strategy and each rule it "
      "applied (where, before and after), the program after it, the imperative DPIA and the "
      "generated code, linked by source locations: a click on a loop, a DPIA line or a step "
      "marks the program line it comes from, and a click on a program line marks everything "
      "that comes from it. The code shown has a `/* at FILE:LINE:COL */` comment before each "
      "loop; otherwise it is what compile writes. Without -o the page is printed.",
      {strategy<ViewArgs>("the strategy instead of the default lowering"), param<ViewArgs>(),
       target<ViewArgs>("c (default), openmp, opencl or cuda (docs/targets.md)"),
       size<ViewArgs>("specialise the program to them first"), entry<ViewArgs>(),
       no_simplify<ViewArgs>(), output<ViewArgs>("VIEW.html", "write the page to this file")},
      cmd_view}));
  out.push_back(command(Spec<ExploreArgs>{
      "explore",
      true,
      "Explore where intermediate arrays are stored in memory or kept as views: from the "
      "program in RNF (every computed intermediate stored), each variant fuses maps into the "
      "map or reduction that reads them, stores views that are read many times (transpose, "
      "pad, slide) or hoists loop-invariant computations out of loops. Variants are ranked by "
      "a cost model (bytes stored and read back, loop iterations, bytes allocated; "
      "docs/tuning.md), all of them when there are at most 256, else by a beam search. The "
      "first --budget are compiled and measured; the fastest variant's strategy goes to "
      "stdout and to -o.",
      {size<ExploreArgs>("the sizes measured at (every size is needed)"),
       target<ExploreArgs>("c (default) or openmp"),
       budget<ExploreArgs>("the variants measured (default 5)"),
       search<ExploreArgs>("model|random",
                           "model (default: the best by the cost model) or random (random "
                           "walks)"),
       seed<ExploreArgs>("the seed of the random walks and of the inputs (default 0)"),
       repeat<ExploreArgs>("timed runs per variant, of which the fastest is its time (default "
                           "5)"),
       entry<ExploreArgs>(),
       strategy<ExploreArgs>("a template whose main ends each variant instead of lowerToC; its "
                             "parameters are tuned for each measured variant"),
       text<ExploreArgs>("--trials", "T",
                         "points of the --strategy template tuned per variant (default 8)",
                         &ExploreArgs::trials_text),
       no_shift_tails<ExploreArgs>("compile every variant with plain innermost loops"),
       no_bounds_checks<ExploreArgs>("compile every variant without index checks"),
       output<ExploreArgs>("BEST.elv", "also write the fastest variant's strategy to this file")},
      cmd_explore}));
  return out;
}

}  // namespace

const std::vector<Command>& commands() {
  static const std::vector<Command> all = make_commands();
  return all;
}

const Command* find_command(const std::string& name) {
  for (const Command& c : commands())
    if (c.name == name) return &c;
  return nullptr;
}

bool wants_help(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(),
                     [](const std::string& a) { return a == "--help" || a == "-h"; });
}

}  // namespace risec::driver
