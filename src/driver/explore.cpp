// `risec explore` (see explore.h and docs/tuning.md).
#include "driver/explore.h"

#include <algorithm>
#include <deque>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <unordered_map>

#include "driver/commands.h"
#include "driver/run.h"
#include "driver/search_preflight.h"
#include "driver/tune.h"
#include "elevate/library.h"
#include "elevate/parser.h"
#include "rise/primitives.h"
#include "rise/printer.h"
#include "support/diagnostics.h"
#include "support/files.h"

namespace risec::driver {

using rise::Expr;
using rise::ExprKind;

std::string site_strategy(const Site& s) {
  std::string text = s.rule;
  for (auto it = s.path.rbegin(); it != s.path.rend(); ++it) text = *it + "(" + text + ")";
  return text;
}

namespace {

elevate::Strategy parse_main(const std::string& text) {
  return elevate::parse_strategy_file(
      std::make_shared<SourceFile>(SourceFile{"explore.elv", "let main = " + text + ";\n"}));
}

// The primitive at the head of a fully applied call and its value arguments.
const rise::PrimitiveInfo* head_prim(const Expr& e, std::vector<Expr>* args) {
  rise::Spine sp = rise::spine(e);
  if (sp.head->kind != ExprKind::Primitive || !sp.head->prim) return nullptr;
  args->clear();
  for (const auto& a : sp.args)
    if (!a.dep) args->push_back(a.value);
  return sp.head->prim;
}

bool is_map_call(const Expr& e) {
  std::vector<Expr> args;
  const rise::PrimitiveInfo* p = head_prim(e, &args);
  return p && p->is(rise::PrimId::Map) && args.size() == 2;
}

}  // namespace

// The copy that materialises a view (as examples/jacobi3/padded_row.elv writes it).
const char* const kCopy = "idAfter ; normalize(liftId) ; lowerToC";
const std::string kStoreRule = std::string("storeInMemory(isApplied(id), ") + kCopy + ")";

namespace {

// Views worth storing: they rearrange or re-read their input, so their readers
// compute indices (a clamp, a transposition) or read elements several times (the
// windows of slide); zip, split, join and friends only rename.
bool storable_view(const rise::PrimitiveInfo& p) {
  using rise::PrimId;
  for (PrimId id : {PrimId::Transpose, PrimId::PadCst, PrimId::PadClamp, PrimId::Slide,
                    PrimId::Gather, PrimId::Reorder})
    if (p.is(id)) return true;
  return false;
}

// A call of `e` that a hoist or a store could materialise: a full map or reduction,
// or a storable view, of data type. The predicate that selects it and the strategy
// that computes it (a view needs a copy to be computed).
std::optional<std::pair<std::string, std::string>> storable(const Expr& e) {
  if (e->kind != ExprKind::App || !e->type || !rise::is_data(e->type)) return std::nullopt;
  std::vector<Expr> args;
  const rise::PrimitiveInfo* p = head_prim(e, &args);
  if (!p) return std::nullopt;
  const char* const unchanged = "id";  // the strategy, not a primitive
  if (p->is(rise::PrimId::Map) && args.size() == 2)
    return std::pair{"isFullyApplied(isMap)", unchanged};
  if (p->is(rise::PrimId::Reduce) && args.size() == 3)
    return std::pair{"isFullyApplied(isReduce)", unchanged};
  if (storable_view(*p) && e->type->kind == rise::TypeKind::Array)
    return std::pair{"isFullyApplied(isPrimitive(" + p->name + "))", std::string(kCopy)};
  return std::nullopt;
}

bool is_stored(const Expr& e) {
  std::vector<Expr> args;
  const rise::PrimitiveInfo* p = e->kind == ExprKind::App ? head_prim(e, &args) : nullptr;
  return p && p->family == rise::Family::Memory && !p->is(rise::PrimId::Let);
}

// The predicates and strategies of the subterms of `e` (a loop's function) that do
// not use `bound` (the loop's variable and those bound inside it): what a hoist at
// the loop may move out. Stored data is left alone.
void invariants(const Expr& e, std::vector<std::string>& bound,
                std::set<std::pair<std::string, std::string>>& out) {
  if (is_stored(e)) return;
  if (auto what = storable(e)) {
    bool local = false;
    for (const std::string& v : rise::free_vars(e))
      local = local || std::find(bound.begin(), bound.end(), v) != bound.end();
    if (!local) {
      out.insert(*what);
      return;
    }
  }
  if (e->kind == ExprKind::Lambda) bound.push_back(e->name);
  for (const Expr& k : rise::children(e)) invariants(k, bound, out);
  if (e->kind == ExprKind::Lambda) bound.pop_back();
}

// Candidate sites by their form; each is confirmed by applying its rule. Stored data
// (under toMem) is not looked into: it is stored already, and this keeps the
// variants finite.
void collect(const Expr& e, std::vector<std::string>& path, std::vector<Site>& out) {
  if (is_stored(e)) return;
  if (e->kind == ExprKind::App) {
    std::vector<Expr> args;
    const rise::PrimitiveInfo* p = head_prim(e, &args);
    const std::string at = location(e->span);
    if (p && p->is(rise::PrimId::Map) && args.size() == 2 && is_map_call(args[1]))
      out.push_back({Site::Kind::Fusion, "mapFusion", path, at});
    if (p && p->is(rise::PrimId::Reduce) && args.size() == 3 && is_map_call(args[2]))
      out.push_back({Site::Kind::Fusion, "fuseReduceMap", path, at});
    if (p && storable_view(*p) && e->type && e->type->kind == rise::TypeKind::Array)
      out.push_back({Site::Kind::Store, kStoreRule, path, at});
    if (p && p->is(rise::PrimId::Map) && args.size() == 2 && args[0]->kind == ExprKind::Lambda) {
      std::vector<std::string> bound;
      std::set<std::pair<std::string, std::string>> found;
      invariants(args[0], bound, found);
      for (const auto& [pred, how] : found)
        out.push_back({Site::Kind::Hoist, "hoist(" + pred + ", " + how + ")", path, at});
    }
  }
  auto down = [&](const char* step, const Expr& child) {
    path.push_back(step);
    collect(child, path, out);
    path.pop_back();
  };
  switch (e->kind) {
    case ExprKind::Lambda:
    case ExprKind::DepLambda:
      down("body", e->fn);
      break;
    case ExprKind::App:
      down("function", e->fn);
      down("argument", e->arg);
      break;
    case ExprKind::DepApp:
      down("function", e->fn);
      break;
    default:
      break;
  }
}

// Bytes of a data type with constant sizes (0 when a size is not constant).
int64_t model_data_bytes(const rise::Type& t) {
  switch (t->kind) {
    case rise::TypeKind::Scalar:
      return std::max(1, rise::scalar_bits(t->scalar) / 8);
    case rise::TypeKind::Index:
      return 4;
    case rise::TypeKind::NatData:
      return 8;
    case rise::TypeKind::Array:
    case rise::TypeKind::Vector: {
      std::optional<int64_t> n = t->size.as_const();
      return n ? *n * model_data_bytes(t->a) : 0;
    }
    case rise::TypeKind::Pair:
      return model_data_bytes(t->a) + model_data_bytes(t->b);
    default:
      return 0;
  }
}

void cost_of(const Expr& e, int64_t trips, MemoryCost& c) {
  std::vector<Expr> args;
  const rise::PrimitiveInfo* p = e->kind == ExprKind::App ? head_prim(e, &args) : nullptr;
  if (p && p->family == rise::Family::Memory && !p->is(rise::PrimId::Let) && args.size() == 1) {
    const int64_t bytes = model_data_bytes(args[0]->type);
    c.allocated += bytes;
    c.traffic += 2 * bytes * trips;
    ++c.stores;
    cost_of(args[0], trips, c);
    return;
  }
  const bool loop = p && (p->family == rise::Family::Map || p->family == rise::Family::Reduce ||
                          p->family == rise::Family::Scan);
  if (loop && args.size() >= 2 && args.back()->type &&
      args.back()->type->kind == rise::TypeKind::Array) {
    const int64_t n = args.back()->type->size.as_const().value_or(1);
    c.iterations += trips * n;
    cost_of(args[0], trips * n, c);
    for (size_t i = 1; i < args.size(); ++i) cost_of(args[i], trips, c);
    return;
  }
  for (const Expr& k : rise::children(e)) cost_of(k, trips, c);
}

}  // namespace

std::vector<AppliedSite> applied_sites(const rise::Checked& c, elevate::WorkMeter* work) {
  std::vector<Site> found;
  std::vector<AppliedSite> sites;
  std::vector<std::string> path;
  collect(c.expr, path, found);
  for (Site& s : found) {
    if (work && work->exhausted()) break;  // the search stops; the rest is not tried
    try {
      rise::Checked after =
          apply_strategy(parse_main(site_strategy(s)), c, false, nullptr, false, work);
      sites.push_back({std::move(s), std::move(after)});
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::User) throw;
    }
  }
  return sites;
}

std::vector<Site> find_sites(const rise::Checked& c) {
  std::vector<Site> sites;
  for (AppliedSite& a : applied_sites(c)) sites.push_back(std::move(a.site));
  return sites;
}

MemoryCost memory_cost(const rise::Checked& lowered) {
  MemoryCost c;
  cost_of(lowered.expr, 1, c);
  return c;
}

std::string variant_strategy(const Variant& v, const std::string& header,
                             const std::string& finish) {
  std::string out = header;
  if (!finish.empty()) {
    // The template's main, renamed: `let main =` at the start of a line.
    static const std::regex main_let(R"((^|\n)(\s*)let(\s+)main(\s*)=)");
    out += std::regex_replace(finish, main_let, "$1$2let$3finish$4=");
    if (out.back() != '\n') out += '\n';
  }
  out += "let main = RNF";
  for (const Site& s : v.steps) out += "\n  ; " + site_strategy(s) + "  // at " + s.where;
  out += finish.empty() ? "\n  ; lowerToC;\n" : "\n  ; finish;\n";
  return out;
}

namespace {

class Explorer {
 public:
  // From now on, every rewrite is charged to `work`.
  void charge(elevate::WorkMeter* work) { work_ = work; }

  // The variant `from` followed by a fusion at `step`: its index and whether it is
  // new (nullopt when the step or the lowering fails).
  std::optional<std::pair<size_t, bool>> add(const Variant& from, const Site& step) {
    try {
      return add(from, {step, apply_strategy(parse_main(site_strategy(step)), from.program, false,
                                             nullptr, false, work_)});
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::User) throw;
      return std::nullopt;
    }
  }

  // The same with the step applied already (applied_sites).
  std::optional<std::pair<size_t, bool>> add(const Variant& from, AppliedSite step) {
    Variant v;
    v.steps = from.steps;
    v.steps.push_back(std::move(step.site));
    v.program = std::move(step.program);
    return insert(std::move(v));
  }

  std::optional<std::pair<size_t, bool>> insert(Variant v) {
    if (work_ && work_->exhausted()) return std::nullopt;  // the search is over
    v.key = rise::print_expr(v.program.expr);
    // Printing the key visits the program: a unit a character's worth of nodes.
    if (work_) {
      const int64_t n = static_cast<int64_t>(v.key.size() / 16) + 1;
      work_->charge(n);
    }
    const size_t hash = std::hash<std::string>{}(v.key);
    for (auto [it, end] = index_.equal_range(hash); it != end; ++it)
      if (variants[it->second].key == v.key) return std::pair{it->second, false};
    try {
      v.cost = memory_cost(apply_strategy(elevate::make_strategy("lowerToC"), v.program, false,
                                          nullptr, false, work_));
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::User) throw;
      return std::nullopt;
    }
    index_.emplace(hash, variants.size());
    variants.push_back(std::move(v));
    return std::pair{variants.size() - 1, true};
  }

  std::vector<size_t> children(size_t i) {
    std::vector<size_t> out;
    const Variant from = variants[i];
    for (AppliedSite& s : applied_sites(from.program, work_))
      if (auto k = add(from, std::move(s)); k && k->second) out.push_back(k->first);
    return out;
  }

  // The variant's program is no longer needed (its strategy is its steps).
  void drop_program(size_t i) { variants[i].program = rise::Checked{}; }

  bool better(size_t a, size_t b) const {
    const Variant &x = variants[a], &y = variants[b];
    if (x.cost < y.cost || y.cost < x.cost) return x.cost < y.cost;
    return x.key < y.key;
  }

  std::vector<Variant> variants;

 private:
  elevate::WorkMeter* work_ = nullptr;
  // The variants by their key's hash (the keys, each a printed program, held once).
  std::unordered_multimap<size_t, size_t> index_;
};

}  // namespace

namespace {

// Measures a variant: its strategy compiled and timed, or, with a template, the
// template's parameters tuned on this structure (`risec tune`'s search, in memory)
// and the best point's time.
void measure(const ExploreConfig& cfg, Variant& v, int64_t id, Measurer& measurer,
             SearchFailures& failures) {
  const std::string text = variant_strategy(v, "", cfg.finish ? cfg.finish->text : "");
  auto file =
      std::make_shared<SourceFile>(SourceFile{cfg.finish ? cfg.finish->name : "explore.elv", text});
  TuneConfig t;
  t.program = cfg.program;
  t.entry = cfg.entry;
  t.sizes = cfg.sizes;
  t.target = cfg.target;
  t.strategy = file;
  t.study_key = "explore";
  t.budget = cfg.trials;
  t.workers = 1;
  t.seed = cfg.seed;
  t.shift_tails = cfg.shift_tails;
  t.bounds_checks = cfg.bounds_checks;
  try {
    if (cfg.finish && !elevate::strategy_params(file).empty()) {
      TrialDb db(":memory:");
      TuneResult tr = tune(t, db, measurer);
      v.time_ms = tr.best->time_ms;
      v.tuned = "// " + point_text(tr.params, tr.best->point) + "\n" + tr.best_strategy;
      return;
    }
    Compiled c = compile_point(t, {}, {});  // no parameters: the strategy as it is
    measurer.prepare(c);
    v.time_ms = measurer.measure(c, TunePoint{id});
  } catch (const Error& e) {
    v.error = e.what();
    failures.note(e, /*is_default=*/false);
  }
}

}  // namespace

int64_t explore_work_limit(const rise::Expr& program, const ExploreConfig& cfg) {
  if (cfg.max_work > 0) return cfg.max_work;
  int64_t nodes = 0;
  rise::for_each_subexpr(program, [&](const Expr&) { return ++nodes, true; });
  return kExploreWorkBase + kExploreWorkPerNode * nodes;
}

ExploreResult explore(const ExploreConfig& cfg, Measurer& measurer) {
  ExploreResult r;
  elevate::WorkMeter meter;
  Explorer ex;
  SearchFailures failures;  // the run-time failure the final error reports
  rise::Checked high = rise::check_program(*cfg.program, cfg.entry, &cfg.sizes);
  Variant start;
  start.program = apply_strategy(elevate::make_strategy("RNF"), high, false);
  r.start_sites = find_sites(start.program);
  // The start (the unchanged program, lowered) is not charged: it is always a
  // candidate. All the search's rewrites after it are.
  if (!ex.insert(start)) throw Error(ErrorKind::User, "the program cannot be lowered after RNF");
  meter.left = explore_work_limit(high.expr, cfg);
  ex.charge(&meter);
  std::vector<size_t> order;  // candidates for measurement, best first
  if (cfg.search == ExploreSearch::Model) {
    // Breadth first over every variant while there are few; past `exhaustive`, only
    // the `beam` best of each level by the model are expanded. A round keeps at most
    // `max_round` new variants; the search stops when the work runs out.
    std::vector<size_t> level{0};
    while (!level.empty() && !meter.exhausted()) {
      std::vector<size_t> next;
      for (size_t i : level) {
        if (meter.exhausted()) break;
        if (next.size() >= cfg.max_round) {
          r.round_capped = true;
          break;
        }
        for (size_t k : ex.children(i)) next.push_back(k);
        ex.drop_program(i);  // expanded: only its steps and cost are needed now
        if (ex.variants.size() > cfg.exhaustive && next.size() > cfg.beam) {
          // A beam round: only the `beam` best so far can be expanded next (the
          // order is total), the others' programs are not needed.
          std::vector<size_t> ranked = next;
          std::nth_element(ranked.begin(), ranked.begin() + static_cast<long>(cfg.beam),
                           ranked.end(), [&](size_t a, size_t b) { return ex.better(a, b); });
          for (size_t j = cfg.beam; j < ranked.size(); ++j) ex.drop_program(ranked[j]);
        }
      }
      if (next.size() > cfg.max_round) {
        r.round_capped = true;
        std::sort(next.begin(), next.end(), [&](size_t a, size_t b) { return ex.better(a, b); });
        for (size_t j = cfg.max_round; j < next.size(); ++j) ex.drop_program(next[j]);
        next.resize(cfg.max_round);
      }
      if (ex.variants.size() > cfg.exhaustive) {
        std::sort(next.begin(), next.end(), [&](size_t a, size_t b) { return ex.better(a, b); });
        if (next.size() > cfg.beam) {
          for (size_t j = cfg.beam; j < next.size(); ++j) ex.drop_program(next[j]);
          next.resize(cfg.beam);
        }
      }
      level = std::move(next);
    }
    for (size_t i = 0; i < ex.variants.size(); ++i) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ex.better(a, b); });
  } else {
    // Random walks: from the start, stop with probability 1/(sites+1), else fuse at a
    // site drawn uniformly. Each walk's end is a candidate, in the order drawn. A
    // walk stops where the work runs out, and no more are drawn.
    std::mt19937_64 rng(cfg.seed);
    std::set<size_t> seen;
    for (size_t w = 0; w < cfg.walks && !meter.exhausted(); ++w) {
      size_t at = 0;
      while (!meter.exhausted()) {
        std::vector<AppliedSite> sites = applied_sites(ex.variants[at].program, &meter);
        if (meter.exhausted()) break;
        std::uniform_int_distribution<size_t> pick(0, sites.size());
        size_t k = pick(rng);
        if (k == sites.size()) break;
        auto next = ex.add(ex.variants[at], std::move(sites[k]));
        if (!next) break;
        at = next->first;
      }
      if (seen.insert(at).second) order.push_back(at);
    }
  }
  // Measuring needs the variants' steps only.
  for (size_t i = 0; i < ex.variants.size(); ++i) ex.drop_program(i);
  r.work_limited = meter.exhausted();
  r.work = meter.spent;
  if (cfg.progress && r.work_limited)
    *cfg.progress << "explore: the search truncated at its work limit (" << meter.spent
                  << " units): " << ex.variants.size() << " variant(s) kept\n";
  if (cfg.progress && r.round_capped)
    *cfg.progress << "explore: a round of the search capped at " << cfg.max_round
                  << " new variant(s), the rest dropped\n";
  // Measure the first `budget` candidates that compile.
  for (size_t i : order) {
    if (static_cast<int>(r.measured.size()) >= cfg.budget) break;
    Variant& v = ex.variants[i];
    measure(cfg, v, static_cast<int64_t>(i), measurer, failures);
    r.measured.push_back(i);
    if (cfg.progress) {
      int fusions = 0, stores = 0, hoists = 0;
      for (const Site& st : v.steps) {
        fusions += st.kind == Site::Kind::Fusion;
        stores += st.kind == Site::Kind::Store;
        hoists += st.kind == Site::Kind::Hoist;
      }
      *cfg.progress << "explore: " << r.measured.size() << "/" << cfg.budget << ": " << fusions
                    << " fusion(s), " << stores << " store(s) added, " << hoists
                    << " hoist(s); model: " << v.cost.stores << " store(s), traffic "
                    << v.cost.traffic << " B, allocated " << v.cost.allocated << " B, "
                    << v.cost.iterations << " iterations: "
                    << (v.time_ms ? format_time(*v.time_ms) : "failed: " + v.error);
      if (!v.tuned.empty())
        *cfg.progress << " (" << v.tuned.substr(0, v.tuned.find('\n')).substr(3) << ")";
      *cfg.progress << "\n";
    }
    if (v.time_ms && (!r.best || *v.time_ms < *ex.variants[*r.best].time_ms)) r.best = i;
  }
  if (!r.best) {
    std::string why;
    for (size_t i : r.measured)
      why = ex.variants[i].error.substr(0, ex.variants[i].error.find('\n'));
    failures.fail("no variant of the program could be measured (" +
                      std::to_string(r.measured.size()) + " tried)",
                  why.empty() ? "" : "last reason: " + why);
  }
  const Variant& b = ex.variants[*r.best];
  std::ostringstream head;
  head << "// risec explore: " << format_time(*b.time_ms) << ", the fastest of "
       << r.measured.size() << " measured of " << ex.variants.size() << " variants\n"
       << "// model: " << b.cost.stores << " store(s), traffic " << b.cost.traffic
       << " bytes, allocated " << b.cost.allocated << " bytes\n";
  // The template as measured, its imports made absolute (the result may be written
  // anywhere).
  r.best_strategy =
      b.tuned.empty()
          ? variant_strategy(b, head.str(),
                             cfg.finish ? elevate::with_absolute_imports(cfg.finish) : "")
          : head.str() + b.tuned;
  // Report in model order; indices follow.
  std::vector<size_t> by_model(ex.variants.size());
  for (size_t i = 0; i < by_model.size(); ++i) by_model[i] = i;
  std::sort(by_model.begin(), by_model.end(), [&](size_t a, size_t c) { return ex.better(a, c); });
  std::vector<size_t> where(by_model.size());
  for (size_t i = 0; i < by_model.size(); ++i) where[by_model[i]] = i;
  for (size_t i : by_model) r.variants.push_back(std::move(ex.variants[i]));
  for (size_t& m : r.measured) m = where[m];
  r.best = where[*r.best];
  return r;
}

int cmd_explore(const ExploreArgs& o) {
  ExploreConfig cfg;
  cfg.budget = positive_option(o.budget_text, "--budget", 5);
  const int repeat = positive_option(o.repeat_text, "--repeat", 5);
  if (o.search.empty() || o.search == "model")
    cfg.search = ExploreSearch::Model;
  else if (o.search == "random")
    cfg.search = ExploreSearch::Random;
  else
    throw Error(ErrorKind::Usage, "--search must be model or random, got '" + o.search + "'");
  if (!o.strategy.empty()) cfg.finish = strategy_source(o.strategy);
  cfg.trials = positive_option(o.trials_text, "--trials", 8);
  cfg.seed = parse_seed(o.seed_text);
  rise::Program p = load_program(o.file);
  cfg.program = &p;
  cfg.entry = o.entry;
  cfg.sizes = search_sizes(p, o.entry, parse_sizes(o.sizes_text));
  cfg.target = o.target;
  cfg.progress = &std::cerr;
  cfg.shift_tails = !o.no_shift_tails;
  cfg.bounds_checks = !o.no_bounds_checks;
  // Before the search, which may take long: -o is none of the files read above.
  if (cfg.finish) (void)elevate::strategy_imports(cfg.finish);
  (void)check_before_search("explore", p, o.entry, cfg.sizes, o.target, o.output);
  auto measurer = make_measurer(cfg.sizes, cfg.seed, repeat);
  ExploreResult r = explore(cfg, *measurer);
  std::cerr << "explore: " << r.start_sites.size() << " site(s) in the RNF program, "
            << r.variants.size() << " variant(s); best "
            << format_time(*r.variants[*r.best].time_ms) << "\n";
  std::cout << r.best_strategy;
  if (!o.output.empty()) write_output_file(o.output, r.best_strategy);
  return 0;
}

}  // namespace risec::driver
