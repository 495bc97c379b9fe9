// The autoscheduler: `risec tune` without --strategy (see autoschedule.h).
#include "driver/autoschedule.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "driver/commands.h"
#include "driver/run.h"
#include "driver/schedule_gpu.h"
#include "driver/search_preflight.h"
#include "driver/tuned.h"
#include "elevate/parser.h"
#include "elevate/rule_util.h"
#include "runtime/jit.h"
#include "support/cpu.h"
#include "support/diagnostics.h"
#include "support/files.h"

namespace risec::driver {

namespace {

std::string leading_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

// The CPU's model name ("model name : X" in /proc/cpuinfo), for the file's header.
std::string cpu_name() {
  std::string line = leading_line(runtime::host_cpu());
  const size_t colon = line.find(':');
  if (colon != std::string::npos) line = line.substr(colon + 1);
  const size_t start = line.find_first_not_of(" \t");
  return start == std::string::npos ? "an unknown CPU" : line.substr(start);
}

// The number of array inputs of the entry (a tile reads each of them).
int array_inputs(const rise::Checked& high) {
  int n = 0;
  for (const EntryParam& p : value_parameters(high))
    n += p.type && p.type->kind == rise::TypeKind::Array;
  return std::max(n, 1);
}

// Whether the program calls a `foreign def` (C code the interpreter does not run).
bool uses_foreign(const rise::Expr& e) {
  std::vector<rise::Expr> todo = {e};
  while (!todo.empty()) {
    rise::Expr t = todo.back();
    todo.pop_back();
    if (t->kind == rise::ExprKind::Foreign) return true;
    for (const rise::Expr& k : rise::children(t)) todo.push_back(k);
  }
  return false;
}

// The candidates to measure, in order: the default lowering, then the model's best,
// at most a third of the budget from one structure while others remain (the model
// cannot tell structures apart well: measuring decides), or an equal share when
// there are more than three structures, a structure with each option of its stages
// decision counting as one of its own. The register-blocked
// candidates (packed or not) count as one structure with two thirds: they are the
// program's contraction scheduled as the mm template does, ranked by their own model.
// The budget counts the candidates measured, not the ones whose code an earlier one has.
std::vector<size_t> measurement_order(const AutoscheduleResult& r, int budget) {
  // The default first, then under openmp its sequential twin (schedule_space.h): the
  // model ranks every parallel loop above it, but cannot see a loaded machine's fork
  // and join.
  std::vector<size_t> order = {0}, later;
  for (size_t i = 1; i < r.space.candidates.size() && order.size() < 2; ++i)
    if (r.space.candidates[i].sequential) order.push_back(i);
  std::map<std::string, int> per_structure;
  // A structure with its stages inlined is a group of its own (the model cannot tell
  // a stored stage from a recomputed one well either); with more than three groups
  // each gets an equal share.
  auto group = [&](size_t i) {
    const ScheduleCandidate& c = r.space.candidates[i];
    if (!c.block.empty()) return std::string("register blocks");
    return c.structure + (c.inlined() ? ", stages " + c.stages : "");
  };
  std::set<std::string> groups;
  for (size_t i = 1; i < r.space.candidates.size(); ++i)
    if (r.space.candidates[i].block.empty()) groups.insert(group(i));
  const int shares = std::max<int>(3, static_cast<int>(groups.size()));
  const int cap = std::max(2, (budget - 1) / shares), block_cap = std::max(2, 2 * (budget - 1) / 3);
  for (size_t i : r.ranking) {
    if (i == 0 || r.space.candidates[i].sequential) continue;
    const bool blocked = !r.space.candidates[i].block.empty();
    const std::string s = group(i);
    if (per_structure[s] >= (blocked ? block_cap : cap)) {
      later.push_back(i);
      continue;
    }
    ++per_structure[s];
    order.push_back(i);
  }
  order.insert(order.end(), later.begin(), later.end());
  return order;
}

// --explain's line for a kept default lowering.
std::string kept_default_line() {
  return "  no candidate measured faster than the default lowering (by more than the "
         "timings' noise, " +
         std::to_string(static_cast<int>(kKeepDefaultMargin * 100 + 0.5)) + "%), which is kept\n";
}

// --explain's "measured:" line: the default lowering's time and the chosen one's, and
// how many candidates were measured. "(timed once)" where the last round timed the
// chosen one again and not the default (the default above kFinalistMaxMs a call).
std::string measured_line(const AutoscheduleResult& r, double best_ms) {
  const auto retimed = [&](size_t c) {
    return std::find(r.retimed.begin(), r.retimed.end(), c) != r.retimed.end();
  };
  std::ostringstream o;
  o << "  measured:   the default lowering "
    << (r.default_ms > 0 ? format_time(r.default_ms) : std::string("failed"))
    << (r.default_ms > 0 && retimed(r.best) && !retimed(0) ? " (timed once)" : "")
    << ", the chosen " << format_time(best_ms) << " (" << std::fixed << std::setprecision(2)
    << (best_ms > 0 ? r.default_ms / best_ms : 0) << "x), " << r.measured.size()
    << " candidate(s) measured of " << r.space.candidates.size();
  return o.str();
}

// --explain for a GPU target: the mapping, the device, the model's reasons.
std::string explain_gpu(const AutoscheduleConfig& cfg, const AutoscheduleResult& r) {
  const ScheduleCandidate& b = r.space.candidates[r.best];
  const CostFeatures& f = r.costs[r.best];
  size_t rank = 0;
  for (size_t i = 0; i < r.ranking.size(); ++i)
    if (r.ranking[i] == r.best) rank = i + 1;
  double best_ms = 0;
  for (const ScheduleMeasurement& m : r.measured)
    if (m.candidate == r.best && m.time_ms) best_ms = *m.time_ms;
  std::ostringstream o;
  o << "autoschedule: the chosen schedule: " << b.label() << "\n";
  if (b.is_default) o << kept_default_line();
  o << "  mapped:     " << b.gpu << "\n  device:     " << cfg.device.name << "\n";
  o << "  model:      rank " << rank << " of " << r.ranking.size() << "; ";
  for (size_t i = 0; i < f.reasons.size(); ++i) o << (i ? "; " : "") << f.reasons[i];
  o << "\n" << measured_line(r, best_ms) << ", " << r.refused << " refused by compile's checks\n";
  return o.str();
}

// The parallel loops (mapPar, reducePar) of a lowered candidate, each with the
// schedule clause its pragma gets: "mapPar schedule(dynamic, 4)", "reducePar (OpenMP's
// default schedule)". Those the program writes itself count, not only the ones a
// candidate's steps add.
std::vector<std::string> parallel_loops(const rise::Expr& e) {
  std::vector<std::string> out;
  rise::for_each_subexpr(e, [&](const rise::Expr& x) {
    if (x->kind == rise::ExprKind::Primitive && x->prim && x->prim->loop == rise::LoopKind::Par) {
      std::string t = x->prim->name + (x->schedule.is_default()
                                           ? std::string(" (OpenMP's default schedule)")
                                           : " schedule(" + rise::schedule_text(x->schedule) + ")");
      if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    }
    return true;
  });
  return out;
}

std::string explain(const AutoscheduleConfig& cfg, const AutoscheduleResult& r) {
  const ScheduleCandidate& b = r.space.candidates[r.best];
  const CostFeatures& f = r.costs[r.best];
  std::ostringstream o;
  size_t rank = 0;
  for (size_t i = 0; i < r.ranking.size(); ++i)
    if (r.ranking[i] == r.best) rank = i + 1;
  o << "autoschedule: the chosen schedule: " << b.label() << "\n";
  if (b.is_default) o << kept_default_line();
  const std::vector<std::string> loops = cfg.target == "openmp" && b.lowered.expr
                                             ? parallel_loops(b.lowered.expr)
                                             : std::vector<std::string>{};
  const std::string threshold = std::to_string(elevate::util::kParallelWork);
  o << "  parallel:   "
    << (b.parallel.empty()
            ? std::string(cfg.target != "openmp" ? "no parallel loop (--target c is sequential)"
                          : loops.empty()
                              ? "no parallel loop (none in the fastest measured candidate)"
                              : "the program's own parallel loops (below), no step added")
        : b.parallel == "parallelOutput" && b.is_default && loops.empty()
            ? "no parallel loop (the default lowering leaves stages doing fewer than " + threshold +
                  " operations sequential)"
        : b.parallel == "parallelOutput" && b.is_default
            ? "the loops writing the result and each stored stage that do at least " + threshold +
                  " operations (parallelOutput(" + threshold + "), parallelStages)"
        : b.parallel == "parallelOutput"
            ? std::string("the loop writing the result (parallelOutput)")
        : b.parallel == "every stage"
            ? std::string("the outer loop of every stage, after lowering (parallelStages)")
        : b.parallel == "strips"
            ? std::string("the strips of output rows (each computes its producers' rows)")
        : b.parallel == "strips and stages"
            ? std::string("the strips of output rows (each computes its producers' rows), and "
                          "the outer loop of each stage computed whole before them")
        : b.parallel == "row panels"
            ? std::string("the panels of output rows, the only parallel loop (each computes "
                          "its rows of every layer)")
            : std::string("the outermost computing map"))
    << "\n";
  if (!loops.empty()) {
    o << "  loops:      ";
    for (size_t i = 0; i < loops.size(); ++i) o << (i ? ", " : "") << loops[i];
    o << "\n";
  }
  // The loops line names each loop's own schedule; without it (a candidate whose
  // lowered tree is not kept), the candidate's decision.
  if (!b.parallel.empty() && loops.empty())
    o << "  schedule:   "
      << (b.schedule.empty()
              ? std::string("OpenMP's default (static: one block of iterations "
                            "per thread)")
              : "schedule(" + b.schedule + "): chunks handed to whichever thread is free")
      << "\n";
  o << "  tiled:      "
    << (b.tile ? std::to_string(b.tile) + " x " + std::to_string(b.tile) +
                     " tiles of the outermost nest of two maps"
               : std::string("no"))
    << "\n";
  if (b.strip)
    o << "  strips:     the output rows in strips of " << b.strip
      << " rows, each computing the rows of its producer stages it reads (halos "
         "recomputed) into buffers of its own\n";
  if (!b.block.empty()) o << "  blocked:    " << b.block << " (" << b.block_reason << ")\n";
  o << "  vectorised: "
    << (b.vector.empty() ? std::string("no vectorize step (the C compiler may still vectorise)")
                         : "the innermost map, vectorize(" + b.vector +
                               ") (lanes = " + std::to_string(machine_lanes()) + ")")
    << "\n";
  if (!b.reduction.empty())
    o << "  reductions: add, mul, fmax and fmin into vector accumulators ("
      << (b.reduction == "lanes"       ? "one"
          : b.reduction == "2 x lanes" ? "two"
                                       : "four")
      << " of lanes = " << machine_lanes() << "), then their lanes reduced\n";
  if (b.inlined())
    o << "  stages:     computed where they are read ("
      << (b.stages == "inlined" ? std::string("the lets inlined") : b.stages) << ")"
      << (f.memory.stores > 0 ? "; lowering stores again a stage read through a pad or a "
                                "window (stored, below)"
                              : "")
      << "\n";
  o << "  unrolled:   " << (b.unrolled ? "short reductions expanded (expandReduce)" : "no") << "\n";
  o << "  stored:     " << f.memory.stores << " intermediate array(s), " << f.memory.allocated
    << " bytes (structure: " << b.structure << ")\n";
  o << "  model:      rank " << rank << " of " << r.ranking.size() << "; ";
  for (size_t i = 0; i < f.reasons.size(); ++i) o << (i ? "; " : "") << f.reasons[i];
  o << "\n";
  double best_ms = 0;
  for (const ScheduleMeasurement& m : r.measured)
    if (m.candidate == r.best && m.time_ms) best_ms = *m.time_ms;
  o << measured_line(r, best_ms) << "\n";
  return o.str();
}

// The last round (kFinalists, measure.h): the measured candidates within
// kFinalistWindow of the best, fastest first, timed again in turn, kFinalistRounds
// rounds or more (measure.h), every other one in reverse; each one's time the least of its rounds'
// timings (its first time when none succeeded). The default lowering joins the round whenever it
// was timed in full, under kFinalistMaxMs, and is not among them: the speed-up printed over it (the
// -o file's header, --explain) compares times taken alike, not one disturbed first timing with the
// least of several (held-out G). Returns the candidates timed again (none when the best alone would
// be, or the best took more than kFinalistMaxMs a call). A candidate that no longer compiles or
// runs keeps its time.
std::vector<size_t> time_finalists(const AutoscheduleConfig& cfg, Measurer& measurer,
                                   AutoscheduleResult& r, double best_ms) {
  if (best_ms > kFinalistMaxMs) return {};
  const auto timed = [](const ScheduleMeasurement& m) {
    return m.time_ms && !m.stopped && !m.killed;
  };
  std::vector<size_t> at;  // indices into r.measured
  for (size_t k = 0; k < r.measured.size(); ++k) {
    const ScheduleMeasurement& m = r.measured[k];
    if (timed(m) && *m.time_ms <= kFinalistWindow * best_ms) at.push_back(k);
  }
  std::stable_sort(at.begin(), at.end(), [&](size_t a, size_t b) {
    return *r.measured[a].time_ms < *r.measured[b].time_ms;
  });
  if (at.size() > kFinalists) at.resize(kFinalists);
  for (size_t k = 0; k < r.measured.size(); ++k) {
    const ScheduleMeasurement& m = r.measured[k];
    if (m.candidate == 0 && timed(m) && *m.time_ms <= kFinalistMaxMs &&
        std::find(at.begin(), at.end(), k) == at.end())
      at.push_back(k);
  }
  if (at.size() < 2) return {};
  std::vector<std::optional<Compiled>> compiled(at.size());
  for (size_t k = 0; k < at.size(); ++k) {
    try {
      compiled[k] = compile_candidate(cfg, r.space.candidates[r.measured[at[k]].candidate]);
      measurer.prepare(*compiled[k]);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Internal) throw;
      compiled[k].reset();
    }
  }
  // The rounds' own minimum replaces the first time: the first times were taken
  // minutes apart, under whatever else ran then, and a quiet moment favours one as a
  // disturbance penalises another (mm's two near register-block forms, softmax's
  // reciprocal form). Every other round runs in reverse order.
  // More rounds than kFinalistRounds while time allows: a timing's speed on a shared
  // virtual machine depends on the moment (the same process ran 4.2 or 6.6 ms a call
  // on the Zen 3 of 1 December, for seconds at a time), and a finalist whose few
  // rounds all fell in slow moments looked slower than it is. The rounds stop after
  // kFinalistMaxRounds, or once they have taken cfg.finalist_seconds (the first
  // kFinalistRounds always run).
  std::vector<std::optional<double>> least(at.size());
  const auto started = std::chrono::steady_clock::now();
  r.finalist_rounds = 0;
  for (int round = 0; round < kFinalistMaxRounds; ++round) {
    if (round >= kFinalistRounds && std::chrono::steady_clock::now() - started >
                                        std::chrono::duration<double>(cfg.finalist_seconds))
      break;
    for (size_t step = 0; step < at.size(); ++step) {
      const size_t k = round % 2 ? at.size() - 1 - step : step;
      if (!compiled[k]) continue;
      const ScheduleMeasurement& m = r.measured[at[k]];
      try {
        const double t = measurer.remeasure(
            *compiled[k], TunePoint{static_cast<int64_t>(m.candidate)}, *m.time_ms);
        least[k] = least[k] ? std::min(*least[k], t) : t;
      } catch (const Error& e) {
        if (e.kind() == ErrorKind::Internal) throw;
      }
    }
    ++r.finalist_rounds;
  }
  // The default keeps its first time where that was less: a parallel default's time is
  // bimodal on a loaded machine (microseconds, or milliseconds while its second thread
  // waits for a core), and rounds all caught in the slow mode made a held-out tester's
  // tune claim 12.7x over a default that was 1.6x faster than the schedule chosen.
  // Kept, the default is never the loser of one unlucky round.
  for (size_t k = 0; k < at.size(); ++k)
    if (least[k]) {
      std::optional<double>& t = r.measured[at[k]].time_ms;
      t = r.measured[at[k]].candidate == 0 ? std::min(*t, *least[k]) : *least[k];
    }
  std::vector<size_t> out;
  for (size_t k : at) out.push_back(r.measured[k].candidate);
  return out;
}

}  // namespace

Compiled compile_candidate(const AutoscheduleConfig& cfg, const ScheduleCandidate& c) {
  CompileRequest req;
  req.program = cfg.program;
  req.entry = cfg.entry;
  req.sizes = &cfg.sizes;
  req.target = cfg.target;
  req.shift_tails = cfg.shift_tails;
  req.bounds_checks = cfg.bounds_checks;
  std::optional<elevate::Strategy> s;
  if (!c.is_default) {
    s = elevate::parse_strategy_file(
        std::make_shared<SourceFile>(SourceFile{"autoschedule.elv", c.strategy_text()}));
    req.strategy = &*s;
  }
  return compile(req);
}

std::vector<size_t> rank_and_order(AutoscheduleResult& r, int budget) {
  r.ranking.clear();
  for (size_t i = 0; i < r.space.candidates.size(); ++i) r.ranking.push_back(i);
  // Register-blocked candidates first, in the order their own model (register block
  // and cache footprint, schedule_blocked.h) gave them: the loop-count model cannot
  // see a register block.
  std::stable_sort(r.ranking.begin(), r.ranking.end(), [&](size_t a, size_t b) {
    const bool ba = !r.space.candidates[a].block.empty(), bb = !r.space.candidates[b].block.empty();
    if (ba != bb) return ba;
    return !ba && r.costs[a].score < r.costs[b].score;
  });
  return measurement_order(r, budget);
}

// The strategy's text with a first step `tunedAt(n, 64, ...)`: its paths (body(...))
// and block sizes assume the sizes it was tuned at, so at other sizes, or generic,
// it stops with an error naming them (docs/tuning.md) rather than failing at a rule.
static std::string with_tuned_sizes(const std::string& text, const rise::SizeMap& sizes) {
  const std::string head = "let main =\n";
  if (sizes.empty() || text.rfind(head, 0) != 0) return text;
  std::string check;
  size_t in_call = 0;
  for (const auto& [name, value] : sizes) {
    if (in_call == 8) {
      check += ") ; ";
      in_call = 0;
    }
    check += in_call == 0 ? "tunedAt(" : ", ";
    check += name + ", " + std::to_string(value);
    ++in_call;
  }
  check += ")";
  return head +
         "  // the sizes it was tuned at: other sizes, or none (generic code), are refused\n  " +
         check + " ;\n" + text.substr(head.size());
}

AutoscheduleResult autoschedule(const AutoscheduleConfig& cfg, Measurer& measurer) {
  if (cfg.budget < 1) throw Error(ErrorKind::Usage, "--budget must be at least 1");
  AutoscheduleResult r;
  const rise::Checked high = rise::check_program(*cfg.program, cfg.entry, &cfg.sizes);
  const bool gpu = is_gpu_target(cfg.target);
  // Building the space can take a while on a long program: say so before it starts.
  if (cfg.progress) *cfg.progress << "autoschedule: building the space of schedules ...\n";
  if (gpu) {
    // The GPU space comes with its own model's costs (schedule_gpu.h).
    GpuSpace g = build_gpu_space(high, cfg.target, cfg.device);
    r.space = std::move(g.space);
    r.costs = std::move(g.costs);
  } else {
    SpaceOptions so = cfg.space;
    so.target = cfg.target;
    so.threads = cfg.machine.threads;
    so.fork_join_cycles = cfg.machine.fork_join_cycles;
    r.space = build_space(high, so);
    const int inputs = array_inputs(high);
    for (const ScheduleCandidate& c : r.space.candidates)
      r.costs.push_back(estimate_cost(c.lowered, cfg.machine, c.tile, inputs));
  }
  const std::vector<size_t> order = rank_and_order(r, cfg.budget);
  if (cfg.progress)
    *cfg.progress << "autoschedule: " << r.space.candidates.size() << " candidate(s) ("
                  << r.space.dropped << " refused by a rule, " << r.space.duplicates
                  << " duplicate(s)"
                  << (r.space.work_limited ? ", the space truncated at its work limit"
                      : r.space.truncated  ? ", the space truncated"
                                           : "")
                  << (r.space.reduced ? ", a long program: reduced space" : "") << "); measuring "
                  << std::min<size_t>(r.space.candidates.size(), static_cast<size_t>(cfg.budget))
                  << ", the default lowering first\n";

  // The reference: the interpreter's result on the inputs every candidate runs on. A
  // program calling a `foreign def` cannot be interpreted: its reference is the default
  // lowering's result (measured first), which every other candidate must equal.
  const bool foreign = uses_foreign(high.expr);
  std::optional<std::vector<rise::Value>> inputs_v;
  std::optional<rise::Value> expected;
  // The rounding allowance of the reference (run --check's): a candidate that
  // reassociates a long sum differs from the interpreter's sequential one by more than
  // the relative tolerance, and is still right.
  // Computed the first time a candidate fails the tolerance alone.
  std::optional<rise::RoundingBound> expected_bound;
  bool bound_tried = false;
  std::string no_reference;  // why there is no reference, once that is known
  const rise::Type result_type = entry_result_type(high);
  std::optional<size_t> best;
  double best_ms = 0;
  int n = 0;
  const size_t budget = static_cast<size_t>(cfg.budget);
  // Candidates whose generated code an earlier one has are skipped (not measured, not
  // counted in the budget), each with a progress line naming the earlier one, so that
  // the [k/N] lines that do not appear are accounted for.
  std::map<std::string, size_t> codes;
  // Batches of `workers` candidates: rewritten and generated one after the other, built
  // by the C compiler in parallel (as risec tune does), then checked and measured one
  // at a time.
  const size_t workers = static_cast<size_t>(std::max(1, cfg.workers));
  SearchFailures failures;  // the run-time failure the final error reports
  Span default_error_at;    // where the default lowering's error is (the final one's place)
  for (size_t at = 0; at < order.size() && r.measured.size() < budget;) {
    struct Job {
      size_t i;
      std::optional<Compiled> compiled;
      std::string error;
    };
    std::vector<Job> batch;
    for (; at < order.size() && batch.size() < workers && r.measured.size() + batch.size() < budget;
         ++at) {
      Job j{order[at], std::nullopt, {}};
      try {
        j.compiled = compile_candidate(cfg, r.space.candidates[j.i]);
        const codegen::CUnit& u = j.compiled->unit;
        auto [same, fresh] = codes.emplace(u.source + '\0' + u.kernel_source, j.i);
        if (!fresh) {
          ++r.same_code;
          if (cfg.progress)
            *cfg.progress << "autoschedule: skipped " << r.space.candidates[j.i].label()
                          << ": same code as " << r.space.candidates[same->second].label() << "\n";
          continue;
        }
      } catch (const Error& e) {
        // A candidate compile's checks refuse (a parallel loop whose writes are not
        // disjoint, memory in the wrong address space) is skipped, not measured.
        if (e.kind() == ErrorKind::User && !r.space.candidates[j.i].is_default) {
          ++r.refused;
          if (cfg.progress)
            *cfg.progress << "autoschedule: skipped " << r.space.candidates[j.i].label() << ": "
                          << leading_line(e.what()) << "\n";
          continue;
        }
        j.error = leading_line(e.what());
        if (r.space.candidates[j.i].is_default) default_error_at = e.span();
      }
      batch.push_back(std::move(j));
    }
    {
      std::vector<std::thread> threads;
      for (Job& j : batch)
        if (j.compiled)
          threads.emplace_back([&measurer, &j] {
            try {
              measurer.prepare(*j.compiled);
            } catch (const std::exception& e) {
              j.error = leading_line(e.what());
            }
          });
      for (std::thread& t : threads) t.join();
    }
    for (Job& j : batch) {
      const size_t i = j.i;
      const ScheduleCandidate& c = r.space.candidates[i];
      ScheduleMeasurement m;
      m.candidate = i;
      m.error = j.error;
      if (m.error.empty()) {
        try {
          std::optional<double> checked_call_ms;  // the checked call's time
          // A candidate other than the first timed one is killed when its checked
          // call runs past kill_limit_ms: it can be neither chosen nor checked.
          const bool limited = best && !c.is_default;
          const double stop = limited ? stop_threshold_ms(measurer, best_ms) : 0;
          bool killed = false;
          if (cfg.check) {
            if (!inputs_v) inputs_v = make_inputs(j.compiled->high, {}, cfg.seed);
            if (!foreign && !expected && no_reference.empty()) {
              try {
                expected = interpret(j.compiled->high, *inputs_v);
              } catch (const Error& e) {
                if (e.kind() != ErrorKind::User) throw;
                no_reference = "the interpreter cannot run the program: " + leading_line(e.what());
              }
            }
            ExecOptions eo;
            if (limited) {
              eo.timeout_s = kill_limit_ms(stop) / 1000;
              eo.timeout_returns = true;
            }
            Execution ex = execute(*j.compiled, cfg.sizes, *inputs_v, eo);
            if (!ex.times_ms.empty()) checked_call_ms = ex.times_ms.front();
            if (ex.timed_out) {
              killed = true;
            } else if (foreign && c.is_default) {
              expected = ex.output;
            } else if (!expected) {
              throw Error(ErrorKind::User,
                          "no reference result to check it against (" +
                              (no_reference.empty() ? std::string("the default lowering failed")
                                                    : no_reference) +
                              ")");
            } else {
              Comparison cmp = compare_values(ex.output, *expected, result_type);
              if (!cmp.ok && !foreign) {
                if (!bound_tried) expected_bound = rounding_bound(j.compiled->high, *inputs_v);
                bound_tried = true;
                if (expected_bound)
                  cmp = compare_values(ex.output, *expected, result_type, kDefaultRtol,
                                       kDefaultAtol, &*expected_bound);
              }
              if (!cmp.ok)
                throw Error(ErrorKind::Mismatch,
                            std::string("the result differs from the ") +
                                (foreign ? "default lowering's" : "interpreter's") + ": " +
                                cmp.first_mismatch);
            }
          }
          // The default is timed in full; another candidate whose first call (the
          // checked one, when there was one) is more than kStopAboveBest times the
          // best so far, plus the overhead of a first call, is not called again
          // (unless that call was cheap to repeat: stop_after_first_call), and one
          // whose process runs past kill_limit_ms is killed.
          const TunePoint point{static_cast<int64_t>(i)};
          if (killed) {
            m.time_ms = kill_limit_ms(stop);
          } else if (limited) {
            m.time_ms = checked_call_ms ? measurer.measure_after_first_call(*j.compiled, point,
                                                                            *checked_call_ms, stop)
                                        : measurer.measure_unless_slower(*j.compiled, point, stop);
          } else {
            m.time_ms = measurer.measure(*j.compiled, point);
          }
          if (limited) {
            m.stopped = stop_after_first_call(*m.time_ms, stop);
            // Killed: the checked call's process, or the first timed one's (whose time
            // is then the limit itself). A device unit's first call, which builds its
            // kernels, may end past the limit (runtime/isolated.h) and is a measurement.
            m.killed = killed || (!checked_call_ms && *m.time_ms == kill_limit_ms(stop));
          }
        } catch (const Error& e) {
          m.error = leading_line(e.what());
          failures.note(e, c.is_default);
          if (c.is_default) default_error_at = e.span();
        }
      }
      ++n;
      if (m.time_ms && (!best || *m.time_ms < best_ms)) {
        best = i;
        best_ms = *m.time_ms;
      }
      if (i == 0 && m.time_ms) r.default_ms = *m.time_ms;
      if (cfg.progress)
        *cfg.progress << "autoschedule: [" << n << "/" << std::min(order.size(), budget) << "] "
                      << c.label() << ": "
                      << (m.time_ms ? format_time(*m.time_ms) : "failed: " + m.error)
                      << (m.killed ? " (killed at this time limit, far slower than the best; its "
                                     "result not checked)"
                          : m.stopped ? " (slower than 3x the best plus a first call's overhead: "
                                        "not timed in full)"
                                      : "")
                      << (best ? " (best " + format_time(best_ms) + ")" : std::string()) << "\n";
      r.measured.push_back(std::move(m));
    }
  }
  if (!best)
    failures.fail("no schedule of the program could be measured",
                  r.measured.empty() ? "" : "the default: " + r.measured.front().error,
                  default_error_at);
  r.retimed = time_finalists(cfg, measurer, r, best_ms);
  if (const std::vector<size_t>& fin = r.retimed; !fin.empty()) {
    // The fastest by the least of each one's rounds (the first measured on a tie).
    size_t chosen = *best;
    double chosen_ms = std::numeric_limits<double>::infinity();
    for (const ScheduleMeasurement& m : r.measured) {
      if (!m.time_ms) continue;
      if (m.candidate == 0) r.default_ms = *m.time_ms;
      if (*m.time_ms < chosen_ms) {
        chosen = m.candidate;
        chosen_ms = *m.time_ms;
      }
    }
    best = chosen;
    best_ms = chosen_ms;
    if (cfg.progress) {
      const bool with_default = std::find(fin.begin(), fin.end(), 0) != fin.end();
      const size_t fastest = fin.size() - with_default;
      *cfg.progress << "autoschedule: the "
                    << (fastest == 1 ? std::string() : std::to_string(fastest) + " ") << "fastest"
                    << (with_default ? " and the default lowering" : "")
                    << " timed again, interleaved, " << r.finalist_rounds
                    << " rounds (the least of each one's rounds):";
      for (size_t i : fin)
        for (const ScheduleMeasurement& m : r.measured)
          if (m.candidate == i)
            *cfg.progress << "\n  " << r.space.candidates[i].label() << ": "
                          << format_time(*m.time_ms);
      *cfg.progress << "\n";
    }
  }
  // A candidate replaces the default lowering only when it is faster by more than the
  // timings' noise (kKeepDefaultMargin, measure.h): held-out I saw schedules chosen, one
  // changing the rounding, for a timer step of 10 ns on a 30 ns kernel.
  if (*best != 0 && r.default_ms > 0 &&
      best_ms >
          std::min(r.default_ms * (1 - kKeepDefaultMargin), r.default_ms - kKeepDefaultMinMs)) {
    if (cfg.progress)
      *cfg.progress << "autoschedule: " << r.space.candidates[*best].label() << " ("
                    << format_time(best_ms) << ") is within the timings' noise of the default "
                    << "lowering (" << format_time(r.default_ms) << "): the default is kept\n";
    best = 0;
    best_ms = r.default_ms;
  }
  r.best = *best;
  const ScheduleCandidate& b = r.space.candidates[r.best];
  std::ostringstream head;
  head << "// risec tune (autoschedule, " << cfg.target << "): " << b.label() << "\n"
       << "// measured " << format_time(best_ms) << "; the default lowering "
       << (r.default_ms > 0 ? format_time(r.default_ms) : std::string("failed")) << "; "
       << r.measured.size() << " of " << r.space.candidates.size() << " candidate(s) measured, on "
       << (gpu ? cfg.device.name : cpu_name() + " (lanes " + std::to_string(machine_lanes()) + ")")
       << "\n";
  r.best_strategy = head.str() + with_tuned_sizes(b.strategy_text(), cfg.sizes);
  r.explanation = gpu ? explain_gpu(cfg, r) : explain(cfg, r);
  return r;
}

int cmd_autoschedule(const TuneArgs& o) {
  if (!o.search.empty())
    throw Error(ErrorKind::Usage,
                "--search needs --strategy: the autoscheduler measures the model's best "
                "candidates (docs/tuning.md)");
  AutoscheduleConfig cfg;
  cfg.budget = positive_option(o.budget_text, "--budget", 30);
  cfg.workers =
      positive_option(o.workers_text, "--workers",
                      static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  const int repeat = positive_option(o.repeat_text, "--repeat", 5);
  cfg.seed = parse_seed(o.seed_text);
  rise::Program p = load_program(o.file);
  cfg.program = &p;
  cfg.entry = o.entry;
  cfg.sizes = search_sizes(p, o);
  cfg.target = o.target;
  cfg.shift_tails = !o.no_shift_tails;
  cfg.bounds_checks = !o.no_bounds_checks;
  cfg.machine = host_cost_machine(o.target);
  // RISEC_TUNE_NO_STRIPS=1: the space without its strips (for A/B measurements,
  // bench/autoschedule/strips.sh).
  if (const char* off = std::getenv("RISEC_TUNE_NO_STRIPS"); off && *off && std::string(off) != "0")
    cfg.space.strips.clear();
  // Before the search: the target, the sizes' memory, -o and the GPU device.
  if (std::optional<GpuDevice> d =
          check_before_search("tune", p, o.entry, cfg.sizes, o.target, o.output)) {
    cfg.device = *d;
    std::cerr << "autoschedule: measuring on " << d->name << "\n";
  }
  cfg.progress = &std::cerr;
  // The best strategy becomes the record `risec run/compile --tuned` use for this
  // program, entry, sizes, target and CPU (tuned.h), unless a faster one is there.
  const std::string db_path = o.db.empty() ? default_db_path() : o.db;
  TrialDb db(db_path);
  // The best is recorded after the search: a database that cannot be written is
  // refused before it, not after (the search's result lost).
  db.check_writable();
  note_input(db_path, o.db.empty() ? "the tuning database" : "--db");
  if (!o.output.empty()) check_outputs({o.output});  // -o is not the database
  auto measurer = make_measurer(cfg.sizes, cfg.seed, repeat);
  AutoscheduleResult r = autoschedule(cfg, *measurer);
  if (o.explain) std::cerr << r.explanation;
  const std::optional<double> best_ms = [&]() -> std::optional<double> {
    for (const ScheduleMeasurement& m : r.measured)
      if (m.candidate == r.best) return m.time_ms;
    return std::nullopt;
  }();
  if (best_ms) {
    const TunedRecord record{r.best_strategy, *best_ms,
                             "risec tune " + o.file + " (autoscheduler)"};
    const std::string code = target_code(o.target, cfg.shift_tails, cfg.bounds_checks);
    if (record_best(db, tuned_key(p, o.entry, cfg.sizes, code), record))
      std::cerr << "tune: recorded for --tuned in " << db_path << "\n";
    else
      std::cerr << "tune: " << db_path << " keeps its record for --tuned (as fast or faster)\n";
  }
  std::cout << r.best_strategy;
  if (!o.output.empty()) write_output_file(o.output, r.best_strategy);
  return 0;
}

}  // namespace risec::driver
