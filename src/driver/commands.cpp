// The check, print and eval subcommands (spec/cli.md).
#include "driver/commands.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <variant>

#include "driver/api_impl.h"
#include "driver/bind.h"
#include "driver/compile.h"
#include "driver/memory_check.h"
#include "driver/run.h"
#include "driver/sizes_from_inputs.h"
#include "elevate/library.h"
#include "elevate/parser.h"
#include "rise/check.h"
#include "rise/interp.h"
#include "rise/parser.h"
#include "rise/printer.h"
#include "rise/resolve.h"
#include "runtime/npy.h"
#include "support/files.h"
#include "support/random.h"

namespace risec::driver {

namespace {

[[noreturn]] void command_usage(const std::string& msg) {
  throw Error(ErrorKind::Usage, msg);
}

int64_t parse_int(const std::string& s, const std::string& what) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range && p == s.data() + s.size())
    command_usage(what + ": '" + s + "' does not fit in 64 bits (the values allowed are " +
                  std::to_string(std::numeric_limits<int64_t>::min()) + " to " +
                  std::to_string(std::numeric_limits<int64_t>::max()) + ")");
  if (ec != std::errc() || p != s.data() + s.size() || s.empty())
    command_usage(what + ": '" + s + "' is not an integer");
  return v;
}

// Whether e binds a size (a depFun, or a dependent argument that is a function of
// sizes), the only way a size in it can be symbolic.
bool binds_sizes(const rise::Expr& e) {
  return rise::any_subexpr(e, [](const rise::Expr& x) {
    return x->kind == rise::ExprKind::DepLambda ||
           (x->kind == rise::ExprKind::DepApp && std::holds_alternative<rise::NatFun>(x->type_arg));
  });
}

// numpy-like text for an array: shape, dtype and values (elided when long, unless
// `full`).
std::string format_ndarray(const runtime::NdArray& a, bool full) {
  std::ostringstream out;
  out << runtime::dtype_name(a.dtype) << runtime::shape_string(a.shape) << " = ";
  auto elem = [&](int64_t i) {
    std::ostringstream e;
    switch (a.dtype) {
      case runtime::DType::F32:
        e << a.as<float>()[i];
        break;
      case runtime::DType::F64:
        e << a.as<double>()[i];
        break;
      case runtime::DType::Bool:
        e << (a.as<uint8_t>()[i] ? "true" : "false");
        break;
      case runtime::DType::I8:
        e << int(a.as<int8_t>()[i]);
        break;
      case runtime::DType::I16:
        e << a.as<int16_t>()[i];
        break;
      case runtime::DType::I32:
        e << a.as<int32_t>()[i];
        break;
      case runtime::DType::I64:
        e << a.as<int64_t>()[i];
        break;
      case runtime::DType::U8:
        e << unsigned(a.as<uint8_t>()[i]);
        break;
      case runtime::DType::U16:
        e << a.as<uint16_t>()[i];
        break;
      case runtime::DType::U32:
        e << a.as<uint32_t>()[i];
        break;
      case runtime::DType::U64:
        e << a.as<uint64_t>()[i];
        break;
    }
    return e.str();
  };
  int64_t n = a.count();
  if (a.shape.empty()) return out.str() + elem(0);
  if (full) {
    // Every element, nested by dimension as NumPy prints it, the rows of the last
    // dimension one per line: [[1, 2],\n [3, 4]].
    const size_t rank = a.shape.size();
    std::vector<int64_t> at(rank, 0);
    for (int64_t i = 0; i < n; ++i) {
      // the dimensions that start a new row here (all at i = 0)
      size_t open = rank;
      while (open > 0 && at[open - 1] == 0) --open;
      if (i > 0) out << (open < rank ? ",\n" + std::string(open, ' ') : ", ");
      out << std::string(rank - open, '[') << elem(i);
      // advance the index, closing the dimensions that end
      size_t d = rank;
      while (d > 0 && ++at[d - 1] == a.shape[d - 1]) {
        at[d - 1] = 0;
        out << "]";
        --d;
      }
    }
    return out.str();
  }
  out << "[";
  for (int64_t i = 0; i < n; ++i) {
    if (n > 20 && i == 10) {
      out << ", ...";
      i = n - 10;
    }
    if (i > 0) out << ", ";
    out << elem(i);
  }
  out << "]";
  return out.str();
}

}  // namespace

rise::Program load_program(const std::string& path) {
  auto src = std::make_shared<SourceFile>(SourceFile{path, read_text_file(path, "the program")});
  return rise::parse_program(src);
}

rise::SizeMap parse_sizes(const std::vector<std::string>& texts) {
  rise::SizeMap out;
  for (const std::string& text : texts) {
    std::stringstream ss(text);
    std::string item;
    // An empty item (",n=1", "n=1,", "n=1,,m=2") is refused, not skipped: it is most
    // often a value lost in a script's variable expansion. An empty text is no sizes
    // (the API's and the tests' callers; the command line refuses an empty --size).
    if (text.empty()) continue;
    if (text.back() == ',')
      command_usage("--size '" + text + "': an empty item (expected NAME=VALUE[,NAME=VALUE...])");
    while (std::getline(ss, item, ',')) {
      if (item.empty())
        command_usage("--size '" + text + "': an empty item (expected NAME=VALUE[,NAME=VALUE...])");
      size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0)
        command_usage("--size expects NAME=VALUE[,NAME=VALUE...], got '" + item + "'");
      std::string name = item.substr(0, eq);
      // A size given twice (in one --size or in two) is refused, as --input given twice is:
      // silently keeping the last value hides a typo.
      if (out.count(name)) command_usage("--size " + name + " is given twice");
      out[name] = parse_int(item.substr(eq + 1), "--size " + name);
    }
  }
  return out;
}

uint64_t parse_seed(const std::string& text) {
  if (text.empty()) return 0;
  int64_t v = parse_int(text, "--seed");
  if (v < 0) command_usage("--seed must be non-negative");
  return static_cast<uint64_t>(v);
}

int cmd_check(const CheckArgs& o) {
  // Through the public API (include/risec/risec.h), as an embedding program would.
  risec::Function f = api::wrap(load_program(o.file)).check(o.entry, parse_sizes(o.sizes_text));
  std::cout << f.type() << "\n";
  for (const std::string& r : f.requirements()) std::cout << "requires: " << r << "\n";
  return 0;
}

int cmd_print(const PrintArgs& o) {
  rise::Program p = load_program(o.file);
  rise::PrintOptions opts;
  opts.types = o.types;
  if (o.entry.empty() && !o.types) {
    std::cout << rise::print_program(rise::with_schedules_read(p, &rise::prelude()), opts);
    return 0;
  }
  rise::Checked c = rise::check_program(p, o.entry);
  std::string name = o.entry.empty() ? p.defs.back().name : o.entry;
  if (o.types) std::cout << "// " << name << " : " << rise::print(c.type) << "\n";
  std::cout << "def " << name << " = " << rise::print_expr(c.expr, opts) << "\n";
  return 0;
}

int cmd_eval(const EvalArgs& o) {
  rise::Program p = load_program(o.file);
  rise::SizeMap sizes = parse_sizes(o.sizes_text);
  uint64_t seed = parse_seed(o.seed_text);
  const std::map<std::string, std::string> files = parse_input_options(o.inputs);
  const std::map<std::string, std::string> binds = parse_input_options(o.binds, "--bind");
  check_bound_not_input(files, binds);
  sizes_from_inputs(p, o.entry, files, &sizes, binds);
  rise::Checked c = rise::check_program(p, o.entry, &sizes);
  check_memory_needs(c, /*with_interpreter=*/true);
  // Before the interpreter runs: an --output that is a directory, or cannot be written.
  if (!o.output.empty()) check_output_file(o.output, "--output");
  // Bound inputs are constants of the program the interpreter runs (as for `run
  // --check`); the others are what the program without --bind would get.
  std::vector<rise::Value> inputs = unbound_inputs(c, files, binds, seed);
  if (!binds.empty()) c = bind_inputs(c, binds);
  rise::Interpreter interp;
  rise::Value f = interp.run(c.expr, inputs);
  emit_result(rise::to_ndarrays(f, entry_result_type(c)), o.output, o.full);
  return 0;
}

void emit_result(const std::vector<runtime::NdArray>& outs, const std::string& output, bool full) {
  if (outs.size() == 1) {
    if (!output.empty()) {
      runtime::write_npy(output, outs[0]);
    } else {
      std::cout << format_ndarray(outs[0], full) << "\n";
    }
    return;
  }
  // A result holding pairs is several arrays: out.npy -> out_0.npy, out_1.npy, ...
  std::string stem = output;
  if (stem.size() > 4 && stem.substr(stem.size() - 4) == ".npy") stem.resize(stem.size() - 4);
  if (output.empty()) {
    for (size_t i = 0; i < outs.size(); ++i)
      std::cout << "[" << i << "] " << format_ndarray(outs[i], full) << "\n";
    return;
  }
  std::vector<OutputFile> files;
  for (size_t i = 0; i < outs.size(); ++i)
    files.push_back({stem + "_" + std::to_string(i) + ".npy", runtime::serialize_npy(outs[i])});
  write_output_files(files);  // all checked against the inputs before any is written
  for (const OutputFile& f : files) std::cout << "wrote " << f.path << "\n";
}

int cmd_rules(const RulesArgs&) {
  std::cout << elevate::library_listing();
  return 0;
}

std::string read_text_file(const std::string& path, const std::string& role) {
  // A program or strategy is text of at most this many bytes: /dev/zero, a huge or
  // growing file is refused after reading that much, not read until memory runs out.
  constexpr size_t kMaxTextBytes = size_t{16} << 20;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(ErrorKind::User, "cannot read '" + path + "': it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::User, "cannot read '" + path + "'");
  note_input(path, role);
  std::string text;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxTextBytes)
      throw Error(ErrorKind::User, "cannot read '" + path + "': it is larger than 16 MiB (" + role +
                                       " must be a text file)");
  }
  return text;
}

SourceRef strategy_source(const std::string& arg) {
  std::error_code ec;
  if (std::filesystem::exists(arg, ec))
    return std::make_shared<SourceFile>(SourceFile{arg, read_text_file(arg, "the strategy")});
  // `--strategy simplify`: a library strategy without arguments may be named instead
  // of a file, when no file of that name exists (docs/cli.md).
  const elevate::LibraryEntry* e = elevate::find_entry(arg);
  if (e && e->params.empty())
    return std::make_shared<SourceFile>(SourceFile{"<--strategy " + arg + ">", arg});
  // Inline text (`--strategy 'vectorize(8) @ outermost(isApplied(isMap)) ; lowerToC'`).
  // A file name has none of these characters; a missing file is reported as one.
  if (arg.find_first_of(" \t\n;@()<+") == std::string::npos) read_text_file(arg, "the strategy");
  // Whole file text or one strategy expression: the file grammar takes both (a file
  // may be one expression, with an optional ';'), so the text is parsed as the user
  // wrote it and every error points at the user's own line and column.
  return std::make_shared<SourceFile>(SourceFile{"<--strategy>", arg});
}

void require_strategy_for_params(const std::vector<std::string>& params,
                                 const std::string& strategy) {
  if (!params.empty() && strategy.empty())
    command_usage("--param gives values to a strategy's parameters: add --strategy");
}

elevate::Strategy load_strategy(const std::string& path, const std::vector<std::string>& params) {
  return elevate::parse_strategy_file(strategy_source(path), elevate::parse_param_values(params));
}

rise::Checked apply_strategy(const elevate::Strategy& s, const rise::Checked& c, bool trace,
                             const elevate::Tracer* caller_tracer, bool with_note,
                             elevate::WorkMeter* work) {
  elevate::Tracer tracer;
  tracer.on_rule = [](const std::string& rule, const rise::Expr& before, const rise::Expr&) {
    std::string where = rise::print_expr(before);
    if (where.size() > 300) where = where.substr(0, 300) + " ...";
    std::cerr << "[rewrite] " << rule;
    if (before->span.known()) std::cerr << " at " << location(before->span);
    std::cerr << "\n    " << where << "\n";
  };
  elevate::Env env;
  env.sizes = &c.sizes;
  env.work = work;
  if (trace) env.tracer = &tracer;
  if (caller_tracer) env.tracer = caller_tracer;
  // A rewrite that keeps splitting a symbolic size (normalize(splitJoin(2)) on an
  // n-array: n/2/2/...) overflows the size arithmetic before any bound on the term's
  // growth stops it (held-out M: exit 70).
  elevate::Result r = [&] {
    try {
      return s(c.expr, env);
    } catch (const arith::ArithError& e) {
      throw Error(ErrorKind::User,
                  std::string("strategy failed: a rewrite made the program's sizes overflow "
                              "64 bits (") +
                      e.what() +
                      "; a rule splitting or multiplying a size without end?): bound the "
                      "rewrite with repeatN(k, s) or apply it at fewer places",
                  c.expr->span);
    }
  }();
  if (!r.ok()) {
    const elevate::Failure& f = r.failure();
    std::string msg =
        "strategy failed: " + (f.rule.empty() ? std::string("") : f.rule + ": ") + f.reason;
    std::string note;
    for (const auto& [let, call] : f.calls)
      note += "note: in '" + let + "', called at " + location(call) + "\n";
    if (f.subterm && with_note) {
      std::string t = rise::print_expr(f.subterm);
      if (t.size() > 2000) t = t.substr(0, 2000) + " ...";
      note += "note: tried on:\n" + t;
    }
    if (!note.empty() && note.back() == '\n') note.pop_back();
    throw Error(ErrorKind::User, msg, f.where, note);
  }
  rise::Checked out = c;
  out.expr = r.expr();
  out.type = r.expr()->type;
  // Rewrites on symbolic sizes may need new side conditions (splitJoin(4) on an
  // n-array needs 4 | n): the result's own, beside the program's. Only a size that a
  // depFun binds (one of the entry's left generic, or one bound inside the program)
  // can be symbolic: a result without depFun has none, and inferring it again (a
  // sixth of building an autoscheduler space) would find no condition. Each rule's
  // result was type-checked in place already (elevate/strategy.h).
  if (!r.expr()->type || (r.expr() != c.expr && binds_sizes(r.expr()))) {
    rise::Checked again = rise::infer_expr(r.expr());
    for (const rise::SideCondition& sc : again.conditions) {
      bool seen = false;
      for (const rise::SideCondition& have : out.conditions) seen = seen || have.same(sc);
      if (!seen) out.conditions.push_back(sc);
    }
  }
  return out;
}

int cmd_rewrite(const RewriteArgs& o) {
  if (o.strategy.empty()) command_usage("risec rewrite needs --strategy S.elv");
  rise::Program p = load_program(o.file);
  rise::SizeMap sizes = parse_sizes(o.sizes_text);
  elevate::Strategy s = load_strategy(o.strategy, o.params);
  // --bind as for compile: the sizes the files' shapes fix, the values in place of the
  // parameters before the strategy, and `specialise` after it.
  const std::map<std::string, std::string> binds = parse_input_options(o.binds, "--bind");
  if (!binds.empty()) sizes_from_inputs(p, o.entry, {}, &sizes, binds, false);
  rise::Checked c = rise::check_program(p, o.entry, sizes.empty() ? nullptr : &sizes);
  if (!binds.empty()) c = bind_inputs(c, binds);
  rise::Checked r = apply_strategy(s, c, o.trace);
  if (!binds.empty()) r = apply_strategy(elevate::make_strategy("specialise"), r, o.trace);
  rise::PrintOptions opts;
  opts.types = o.types;
  std::string name = o.entry.empty() ? p.defs.back().name : o.entry;
  // The side conditions the result needs (the program's and those the strategy added
  // on symbolic sizes) as comments, so that the output still parses.
  for (const auto& sc : r.conditions)
    std::cout << "// requires: " << sc.describe() << " (" << sc.primitive << ")\n";
  std::cout << "def " << name << " = " << rise::print_expr(r.expr, opts) << "\n";
  return 0;
}

int cmd_compile(const CompileArgs& o) {
  require_strategy_for_params(o.params, o.strategy);
  // Through the public API (include/risec/risec.h), as an embedding program would.
  risec::CompileOptions co;
  co.entry = o.entry;
  co.sizes = parse_sizes(o.sizes_text);
  if (!o.strategy.empty()) co.strategy = api::wrap(load_strategy(o.strategy, o.params));
  co.target = o.target;
  co.trace = o.trace;
  co.simplify = !o.no_simplify;
  co.shift_tails = !o.no_shift_tails;
  co.bounds_checks = !o.no_bounds_checks;
  co.bind = parse_input_options(o.binds, "--bind");
  if (!o.db.empty() && !o.tuned)
    command_usage("--db names the tuning database of --tuned; add --tuned");
  co.tuned = o.tuned;
  co.tuning_db = o.db;
  risec::Source c = risec::compile(api::wrap(load_program(o.file)), co);
  if (o.dump_dpia) std::cerr << c.dpia();
  if (o.output.empty()) {
    // The OpenCL target: the kernels, then the host function (which embeds them).
    if (!c.kernels().empty()) std::cout << c.kernels() << "\n";
    std::cout << c.code();
    return 0;
  }
  // OUT.c (OUT.cu for CUDA), OUT.h, and OUT.cl for OpenCL; -o may name the .c/.cu. A
  // directory or a device (-o /dev/null) is refused, not taken as the files' stem.
  check_output_stem(o.output, "-o");
  std::string base = o.output;
  const std::string ext = c.target() == "cuda" ? ".cu" : ".c";
  if (base.size() > ext.size() && base.substr(base.size() - ext.size()) == ext)
    base.resize(base.size() - ext.size());
  std::vector<OutputFile> files = {{base + ext, c.code()}, {base + ".h", c.header()}};
  if (!c.kernels().empty()) files.push_back({base + ".cl", c.kernels()});
  write_output_files(files);  // all checked against the inputs before any is written
  return 0;
}

}  // namespace risec::driver
