// The strips decision of the autoscheduler's space (see schedule_strips.h).
#include "driver/schedule_strips.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>

#include "elevate/rule_util.h"
#include "support/diagnostics.h"

namespace risec::driver {

namespace {

// A place in the term, as the traversals that reach it: body, function, argument.
enum class Move { Body, Function, Argument };
using Path = std::vector<Move>;

// `s` applied at `path` (body(argument(s)) ...).
std::string at(const Path& path, const std::string& s) {
  std::string open, close;
  for (Move m : path) {
    open += m == Move::Body ? "body(" : m == Move::Function ? "function(" : "argument(";
    close += ")";
  }
  return open + s + close;
}

Path then(Path p, std::initializer_list<Move> more) {
  p.insert(p.end(), more);
  return p;
}

// The rules that move the strips one stage towards the inputs, what each means, and
// where it leaves the strips (relative to where it applied).
struct Push {
  const char* rule;
  const char* comment;
  bool halo;                          // a slide passed: overlapping blocks of rows
  std::vector<std::vector<Move>> to;  // the paths the strips continue at
};

const std::vector<Push>& pushes() {
  static const std::vector<Push> p = {
      {"splitOfSlide",
       "the strips' windows read from overlapping blocks of rows of the array they slide "
       "over (each block: a strip's rows and the halo the next strip reads too)",
       true,
       {{Move::Argument}}},
      {"slideOfSlide",
       "the blocks' windows read from larger overlapping blocks of the array below (the "
       "halos of both stages)",
       true,
       {{Move::Argument}}},
      {"splitBeforeMap",
       "the map below (a stage, or a view of its rows) applied per strip, to the strip's "
       "rows only",
       false,
       {{Move::Argument}}},
      {"slideBeforeMap",
       "the map below (a stage, or a view of its rows) applied per strip, to the block of "
       "rows the strip reads (a stage's halo rows computed by both strips that read them)",
       false,
       {{Move::Argument}}},
      {"splitBeforeZip",
       "both zipped arrays cut into the same strips",
       false,
       {{Move::Argument, Move::Argument}, {Move::Argument, Move::Function, Move::Argument}}},
      {"splitOfJoin",
       "the rows below come in groups (an upsampling stage's pairs of rows): each strip the "
       "joined groups of a strip of them",
       false,
       {{Move::Argument}}},
  };
  return p;
}

using Attempt =
    std::function<std::optional<rise::Checked>(const std::string&, const rise::Checked&)>;

// The plans of `start`, whose entry body (at `base`) is the map `out` over the output
// rows, prepared by `prep`: one per strip height whose strips reach a window.
std::vector<StripPlan> plans_of(const rise::Checked& start, const std::vector<ScheduleStep>& prep,
                                const std::pair<rise::Expr, rise::Expr>& out, const Path& base,
                                const std::vector<int64_t>& preferred, const Attempt& attempt,
                                const StripPlanOptions& options) {
  const std::optional<rise::Nat> len = elevate::util::array_size(out.second->type);
  const rise::Type row = elevate::util::array_elem(out.second->type);
  if (!len || !len->as_const() || !row || row->kind != rise::TypeKind::Array) return {};
  const int64_t rows = *len->as_const();

  // The preferred heights first; where none of them gives a plan (an upsampling by 3,
  // whose strips must be multiples of 3; a push refused by a height), up to six other
  // divisors of the rows, the largest first.
  std::vector<int64_t> heights = strip_heights(rows, preferred);
  const size_t first = heights.size();
  for (int64_t v = rows / 2; !preferred.empty() && v >= 2 && heights.size() < first + 6; --v)
    if (rows % v == 0 && std::find(heights.begin(), heights.end(), v) == heights.end())
      heights.push_back(v);
  std::vector<StripPlan> plans;
  for (size_t h = 0; h < heights.size(); ++h) {
    if (h == first && !plans.empty()) break;
    const int64_t v = heights[h];
    StripPlan plan;
    plan.rows = v;
    plan.strips = rows / v;
    plan.steps = prep;
    const std::string split = at(base, "splitJoin(" + std::to_string(v) + ")");
    std::optional<rise::Checked> cur = attempt(split, start);
    if (!cur) continue;
    plan.steps.push_back({"strips", split,
                          "the output rows in " + std::to_string(plan.strips) + " strips of " +
                              std::to_string(v) + " rows (splitJoin on the map writing them)"});
    // The strips pushed towards the inputs, one place at a time (each push changes
    // only the term below its place, so the other places stay valid).
    std::vector<Path> places = {then(base, {Move::Argument, Move::Argument})};
    for (int guard = 0; !places.empty() && guard < 64; ++guard) {
      const Path place = places.back();
      places.pop_back();
      for (const Push& p : pushes()) {
        const std::string text = at(place, p.rule);
        std::optional<rise::Checked> pushed = attempt(text, *cur);
        if (!pushed) continue;
        cur = std::move(pushed);
        plan.steps.push_back({"strips", text, p.comment});
        plan.halos += p.halo;
        for (const std::vector<Move>& to : p.to) {
          Path next = place;
          next.insert(next.end(), to.begin(), to.end());
          places.push_back(next);
        }
        break;
      }
    }
    if (plan.halos == 0 && options.need_halo) continue;  // no window: nothing computed per strip
    // The maps over the strips fused into one (only there: inside a strip, a
    // producer's rows stay apart from the views that read them, so lowerToC stores
    // the rows, not their windows).
    plan.steps.push_back(
        {"strips", "repeat(" + at(then(base, {Move::Argument}), "mapFusion <+ zipMapFusion") + ")",
         "each strip one iteration of the outer map: its producers' rows (stored in a "
         "buffer of the strip where a window reads them), then its output rows"});
    plans.push_back(std::move(plan));
  }
  return plans;
}

}  // namespace

std::vector<int64_t> strip_heights(int64_t rows, const std::vector<int64_t>& preferred) {
  std::vector<int64_t> out;
  if (preferred.empty()) return out;
  for (int64_t v : preferred)
    if (v >= 2 && rows % v == 0 && rows / v >= 2 &&
        std::find(out.begin(), out.end(), v) == out.end())
      out.push_back(v);
  if (!out.empty()) return out;
  for (int64_t v = rows / 2; v >= 2 && out.size() < 2; --v)
    if (rows % v == 0) out.push_back(v);
  return out;
}

std::vector<StripPlan> strip_plans(const rise::Checked& high, const std::vector<int64_t>& preferred,
                                   int* rewrites, const StripPlanOptions& options) {
  auto attempt = [&](const std::string& text,
                     const rise::Checked& c) -> std::optional<rise::Checked> {
    try {
      return rewrite_with(text, c, rewrites, false);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::User) throw;
      return std::nullopt;
    }
  };
  std::optional<rise::Checked> dfnf = attempt("DFNF", high);
  if (!dfnf) return {};
  // The entry's lambdas (their bodies: the output).
  Path base;
  for (rise::Expr e = dfnf->expr;
       e->kind == rise::ExprKind::Lambda || e->kind == rise::ExprKind::DepLambda;
       e = rise::children(e)[0])
    base.push_back(Move::Body);
  const std::string stages =
      "normalize(inlineStage) ; normalize(padClampBeforeMap <+ padCstBeforeMap)";
  const ScheduleStep dfnf_step{"strips", "DFNF", "data-flow normal form"};
  const ScheduleStep stages_step{
      "strips", stages,
      "the lets' stages inlined (each computed per strip below), paddings of rows moved "
      "below the maps to the inputs"};
  // The output a map over rows: directly, or after the column pass of a separable
  // filter written with transposes, transpose(map(pad >> slide >> map(g))(transpose(
  // rows))), is read as a pass over windows of rows (examples/blur5/chunks_parallel.elv).
  const std::string down_pass =
      "argument(mapFission ; argument(mapFission)) ; mapMapFBeforeTranspose ; "
      "argument(mapSlideBeforeTranspose) ; argument(argument(argument(mapPadBeforeTranspose ; "
      "argument(removeTransposePair)))) ; mapFusion";
  const ScheduleStep cols_step{
      "strips", at(base, down_pass),
      "the column pass, written as transpose(map(pass)(transpose(rows))), read as a pass "
      "over windows of rows: its maps, slide and padding moved across the transposes, "
      "which cancel"};
  // Failing that, every column pass, wherever it is (a pyramid's passes below its
  // output: lapband's downsampling and upsampling), read so; an upsampling pass
  // (pad >> slide >> map(g) >> join, g making a pair of values) becomes the joined
  // pairs of rows it makes of each window of rows.
  const std::string up_pass =
      "argument(mapFission ; argument(mapFission ; argument(mapFission))) ; "
      "mapJoinBeforeTranspose ; argument(argument(mapMapFBeforeTranspose ; "
      "argument(mapSlideBeforeTranspose ; argument(argument(mapPadBeforeTranspose ; "
      "argument(removeTransposePair))))))";
  const ScheduleStep passes_step{
      "strips", "normalize((" + down_pass + ") <+ (" + up_pass + "))",
      "every column pass, written transpose(map(pass)(transpose(rows))), read as a pass "
      "over windows of rows (an upsampling pass: the joined pairs of rows it makes of "
      "each window)"};
  const ScheduleStep pads_step{
      "strips", "normalize(padClampBeforeMap <+ padCstBeforeMap)",
      "the paddings of rows the passes brought moved below the maps to the inputs"};
  std::vector<StripPlan> plans;
  for (std::vector<ScheduleStep> steps :
       {std::vector<ScheduleStep>{stages_step}, std::vector<ScheduleStep>{cols_step, stages_step},
        std::vector<ScheduleStep>{stages_step, passes_step, pads_step}}) {
    steps.insert(steps.end(), options.structure.begin(), options.structure.end());
    std::optional<rise::Checked> c = dfnf;
    for (size_t i = 0; i < steps.size() && c; ++i) {
      std::optional<rise::Checked> next = attempt(steps[i].strategy, *c);
      // the passes' step only where it reads one (else the first way, with one more step)
      if (next && steps[i].strategy == passes_step.strategy &&
          rise::alpha_equal(next->expr, c->expr))
        next.reset();
      c = std::move(next);
    }
    if (!c) continue;
    rise::Expr e = c->expr;
    for (size_t i = 0; i < base.size(); ++i) e = rise::children(e)[0];
    std::optional<std::pair<rise::Expr, rise::Expr>> out = elevate::util::match_map(e);
    if (!out || !out->second->type) continue;
    std::vector<ScheduleStep> prep = {dfnf_step};
    prep.insert(prep.end(), steps.begin(), steps.end());
    plans = plans_of(*c, prep, *out, base, preferred, attempt, options);
    if (!plans.empty()) break;
  }
  return plans;
}

std::vector<ScheduleCandidate> strip_candidates(const rise::Checked& high, const SpaceOptions& opt,
                                                ScheduleSpace& space) {
  std::vector<ScheduleCandidate> out;
  const std::optional<ScheduleStep> unroll = unroll_step(high);
  const std::optional<ScheduleStep> taps = taps_step(high, opt.target);
  for (const StripPlan& plan : strip_plans(high, opt.strips, &space.rewrites)) {
    // Whether parallelStages finds a stage computed whole below the strips depends on
    // the plan only: found out by the plan's first candidate, the others follow it.
    std::optional<bool> stages_below;
    for (bool unrolled : {false, true})
      for (bool vector : {false, true}) {
        if (unrolled && !unroll) continue;
        ScheduleCandidate c;
        c.structure = "strips";
        c.strip = plan.rows;
        c.steps = plan.steps;
        if (unrolled) c.steps.push_back(*unroll);
        c.unrolled = unrolled;
        if (opt.target == "openmp") {
          c.steps.push_back({"parallel", "mapPar @ outermost(isFullyApplied(isMap))",
                             "the strips an OpenMP parallel loop (each strip computes its own "
                             "producers' rows in buffers of its own)"});
          c.parallel = "strips";
        }
        if (vector) {
          c.steps.push_back(vectorize_lanes_step());
          c.vector = "lanes";
        }
        if (taps) c.steps.push_back(*taps);
        if (!lower_candidate(c, high, space)) continue;
        // What the strips stopped above (lapband's horizontal pass below a padding of
        // its windows) is computed whole before them: its loops parallel too, where
        // there are such loops.
        if (opt.target == "openmp" && stages_below.value_or(true)) {
          ScheduleCandidate whole = c;
          whole.steps.push_back(
              {"parallel", "parallelStages",
               "after lowering, the outer loop of each stage computed whole before the "
               "strips an OpenMP parallel loop too",
               true});
          whole.parallel = "strips and stages";
          if (lower_candidate(whole, high, space)) {
            stages_below = !rise::alpha_equal(whole.lowered.expr, c.lowered.expr);
            if (*stages_below) out.push_back(std::move(whole));
          }
        }
        out.push_back(std::move(c));
      }
  }
  return out;
}

}  // namespace risec::driver
