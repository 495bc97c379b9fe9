// The strategy core: the rule wrapper that re-types rewritten terms, the
// combinators, the traversals and the predicates of spec/strategies.md.
#include "elevate/strategy.h"

#include "elevate/rule_util.h"
#include "rise/infer.h"
#include "rise/primitives.h"
#include "support/stack.h"

namespace risec::elevate {

using rise::ExprKind;

Failure fail_at(std::string rule, const Expr& e, std::string reason) {
  return Failure{std::move(reason), std::move(rule), e};
}

Failure runaway_at(std::string rule, const Expr& e, std::string reason) {
  Failure f = fail_at(std::move(rule), e, std::move(reason));
  f.runaway = true;
  return f;
}

// ---------------------------------------------------------------- structure

Context child_context(const Expr& e, size_t, const Context& ctx) {
  if (e->kind == ExprKind::DepLambda) {
    if (!ctx.below_root) return ctx;  // one of the entry's size parameters
    Context c = ctx;
    c.local_sizes.push_back(e->name);
    return c;
  }
  if (e->kind != ExprKind::Lambda) {
    if (ctx.below_root) return ctx;
    Context c = ctx;
    c.below_root = true;
    return c;
  }
  Context c = ctx;
  c.below_root = true;
  Type pt = e->type && e->type->kind == rise::TypeKind::Fun ? e->type->a : e->annot;
  c.vars.emplace_back(e->name, pt);
  return c;
}

// The environment of the i-th child of e: `env` itself where the context does not
// change (every node below the root but a binder's), else one made in `scratch`.
// Traversals ask for it at every node they visit; copying the context's variables
// there each time was a large part of their allocations (docs/testing.md).
static const Env& child_env(const Expr& e, size_t i, const Env& env, std::optional<Env>& scratch) {
  const bool binder = e->kind == ExprKind::Lambda || e->kind == ExprKind::DepLambda;
  if (!binder && env.ctx->below_root) return env;
  if (e->kind == ExprKind::DepLambda && !env.ctx->below_root) return env;
  scratch.emplace(env);
  scratch->ctx = child_context(e, i, env.ctx);
  return *scratch;
}

// ---------------------------------------------------------------- rules

Result retype(const std::string& rule_name, const Expr& e, const Context& ctx, const Type& expected,
              const Expr& original) {
  for (const auto& [name, t] : ctx.vars)
    if (!t) return fail_at(rule_name, original, "internal: untyped variable in context");
  try {
    rise::Checked c = rise::infer_in_context(e, ctx.vars, expected);
    return c.expr;
  } catch (const Error& err) {
    return fail_at(rule_name, original,
                   "the rewrite would produce an ill-typed program: " + err.message());
  }
}

namespace {

// `e` with every node that has no source location given `span`: the terms a rule
// builds point at the source it rewrote, so later errors (a mapPar for the C target,
// a missing toMem) name a place in the program.
Expr with_span(const Expr& e, const Span& span) {
  check_stack_depth(span);
  std::vector<Expr> kids = children(e);
  bool changed = false;
  for (Expr& k : kids) {
    Expr n = with_span(k, span);
    changed = changed || n != k;
    k = n;
  }
  if (!changed && e->span.known()) return e;
  Expr r = changed ? rebuild(e, kids) : e;
  if (r->span.known()) return r;
  auto n = std::make_shared<rise::ExprNode>(*r);
  n->span = span;
  return n;
}

}  // namespace

const std::string& Strategy::no_name() {
  static const std::string none;
  return none;
}

const Context& SharedContext::empty() {
  static const Context none;
  return none;
}

Failure& Result::change_failure() {
  if (failure_.use_count() != 1) failure_ = std::make_shared<Failure>(*failure_);
  return *failure_;
}

Result Result::located(const Span& where) && {
  if (!ok() && !failure_->where.known()) change_failure().where = where;
  return std::move(*this);
}

Env step_env(const Env& env, const Span& step) {
  Env inner = env;
  inner.step = step;
  return inner;
}

// The rewrite's new part is what is still untyped (rules build new nodes around the
// typed subterms they keep): its primitives are marked with the strategy step.
static Expr mark_step(const Expr& e, const Span& step) {
  if (!e || e->type) return e;
  Expr fn = mark_step(e->fn, step), arg = mark_step(e->arg, step);
  Expr out = fn == e->fn && arg == e->arg ? e : rise::with_children(e, fn, arg);
  if (out->kind == rise::ExprKind::Primitive && !out->step.known())
    out = rise::with_step(out, step);
  return out;
}

// New primitives without a place (map(f >> g) that mapFusion builds) stand where the
// term they replace was written: at its head primitive, else at the term. Errors,
// the disjoint-writes check, `run --profile` and `risec view` then point at the
// user's code rather than at the whole program the strategy was applied to.
static Expr place_new(const Expr& e, const Span& at) {
  if (!e || e->type) return e;
  Expr fn = place_new(e->fn, at), arg = place_new(e->arg, at);
  Expr out = fn == e->fn && arg == e->arg ? e : rise::with_children(e, fn, arg);
  if (out->kind == rise::ExprKind::Primitive && !out->span.known()) {
    auto placed = std::make_shared<rise::ExprNode>(*out);
    placed->span = at;
    out = placed;
  }
  return out;
}

static Span head_span(const Expr& e) {
  const Expr& h = rise::spine(e).head;
  return h->kind == rise::ExprKind::Primitive && h->span.known() ? h->span : e->span;
}

// Whether a rule's reason says the location is not of the form the rule rewrites
// (rather than a condition of that form failing): rules say so with "expected ...".
static bool is_kind_mismatch(const std::string& reason) {
  return reason.rfind("expected ", 0) == 0 || reason.find("not applicable") != std::string::npos ||
         reason.find("applies to data, not to a function") != std::string::npos;
}

void spend_work(const Env& env, int64_t n) {
  if (!env.work) return;
  env.work->charge(n);
  if (env.work->left < 0)
    throw Error(ErrorKind::User, std::string(kWorkLimitMessage) + " (" +
                                     std::to_string(env.work->spent) + " term nodes)");
}

// The nodes of e counted as a tree, at most `cap` (a shared subterm counts at each use).
static int64_t nodes_up_to(const Expr& e, int64_t cap) {
  int64_t n = 0;
  std::vector<const rise::ExprNode*> todo = {e.get()};
  while (!todo.empty() && n <= cap) {
    const rise::ExprNode* x = todo.back();
    todo.pop_back();
    ++n;
    if (x->fn) todo.push_back(x->fn.get());
    if (x->arg) todo.push_back(x->arg.get());
  }
  return n;
}

Strategy rule(const std::string& name, RewriteFn rewrite) {
  return Strategy(name, [name, rewrite](const Expr& e, const Env& env) -> Result {
    Result r = rewrite(e, env.ctx);
    if (!r.ok()) {
      Failure& f = r.change_failure();
      if (f.rule.empty()) f.rule = name;
      if (!f.subterm) f.subterm = e;
      f.refused = !f.not_its_kind && !is_kind_mismatch(f.reason);
      return r;
    }
    if (env.work) spend_work(env, nodes_up_to(r.expr(), env.work->left + 1));
    Expr rewritten = env.step.known() ? mark_step(r.expr(), env.step) : r.expr();
    if (const Span at = head_span(e); at.known()) rewritten = place_new(rewritten, at);
    Result typed = retype(name, rewritten, env.ctx, e->type, e);
    if (!typed.ok()) return typed;
    Expr out = e->span.known() ? with_span(typed.expr(), e->span) : typed.expr();
    if (env.tracer && env.tracer->on_rule) env.tracer->on_rule(name, e, out);
    return out;
  });
}

// ---------------------------------------------------------------- combinators

Strategy id() {
  return Strategy("id", [](const Expr& e, const Env&) -> Result { return e; });
}

Strategy fail() {
  return Strategy("fail",
                  [](const Expr& e, const Env&) -> Result { return fail_at("fail", e, "fail"); });
}

Strategy seq(Strategy a, Strategy b) {
  std::string name = a.name() + " ; " + b.name();
  return Strategy(name, [a, b](const Expr& e, const Env& env) -> Result {
    Result r = a(e, env);
    if (!r.ok()) return r;
    Result r2 = b(r.expr(), env);
    if (!r2.ok() && !r2.failure().after_match) r2.change_failure().after_match = true;
    return r2;
  });
}

Strategy lchoice(Strategy a, Strategy b) {
  std::string name = a.name() + " <+ " + b.name();
  return Strategy(name, [a, b](const Expr& e, const Env& env) -> Result {
    Result r = a(e, env);
    if (r.ok() || r.failure().runaway) return r;
    return b(e, env);
  });
}

namespace {

std::string joined_names(const std::vector<Strategy>& parts, const char* sep) {
  std::string name;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) name += sep;
    name += parts[i].name();
  }
  return name;
}

}  // namespace

Strategy seq_all(std::vector<Strategy> parts) {
  if (parts.empty()) return id();
  if (parts.size() == 1) return parts[0];
  std::string name = joined_names(parts, " ; ");
  auto shared = std::make_shared<const std::vector<Strategy>>(std::move(parts));
  return Strategy(name, [shared](const Expr& e, const Env& env) -> Result {
    Expr cur = e;
    for (size_t i = 0; i < shared->size(); ++i) {
      Result r = (*shared)[i](cur, env);
      if (!r.ok()) {
        // As in seq: a failure after the first part succeeded is marked.
        if (i > 0 && !r.failure().after_match) r.change_failure().after_match = true;
        return r;
      }
      cur = r.expr();
    }
    return cur;
  });
}

Strategy lchoice_all(std::vector<Strategy> parts) {
  if (parts.empty()) return fail();
  if (parts.size() == 1) return parts[0];
  std::string name = joined_names(parts, " <+ ");
  auto shared = std::make_shared<const std::vector<Strategy>>(std::move(parts));
  return Strategy(name, [shared](const Expr& e, const Env& env) -> Result {
    Result r = (*shared)[0](e, env);
    for (size_t i = 1; i < shared->size() && !r.ok() && !r.failure().runaway; ++i)
      r = (*shared)[i](e, env);
    return r;
  });
}

Strategy try_(Strategy s) {
  return Strategy("try(" + s.name() + ")", lchoice(s, id()));
}

// Whether the step from `before` to `after` rewrote a subterm x into a term that
// contains x itself (idAfter: x -> id(x)): a rule that does not look at its context
// applies to that x again at the next step, growing the program forever. The
// rewritten site is found by descending while all children but one are unchanged.
static bool wraps_what_it_rewrote(const Expr& before, const Expr& after) {
  Expr b = before, a = after;
  // The innermost differing pair whose old term is not a leaf: the rewritten term is
  // compared whole (liftId turns id(x) into map(fun(y => id(y)))(x), where the
  // primitive id reappears but id(x) does not).
  Expr site_b, site_a;
  for (int depth = 0; depth < 100000; ++depth) {
    if (!children(b).empty()) site_b = b, site_a = a;
    if (b->kind != a->kind) break;
    std::vector<Expr> kb = children(b), ka = children(a);
    if (kb.size() != ka.size() || kb.empty()) break;
    int differing = -1;
    bool several = false;
    for (size_t i = 0; i < kb.size(); ++i)
      if (kb[i] != ka[i] && !rise::alpha_equal(kb[i], ka[i])) {
        several = differing >= 0;
        differing = static_cast<int>(i);
      }
    if (differing < 0 || several) break;
    b = kb[differing];
    a = ka[differing];
  }
  if (!children(b).empty()) site_b = b, site_a = a;
  if (!site_b) return false;
  std::vector<Expr> todo = children(site_a);
  while (!todo.empty()) {
    Expr n = todo.back();
    todo.pop_back();
    if (rise::alpha_equal(n, site_b)) return true;
    for (const Expr& k : children(n)) todo.push_back(k);
  }
  return false;
}

Strategy repeat(Strategy s) {
  return Strategy("repeat(" + s.name() + ")", [s](const Expr& e, const Env& env) -> Result {
    Expr cur = e;
    // A step that keeps growing the term (splitJoin(2) splitting the maps of length 2
    // it made into 1 x 2) makes each step slower than the last, without end (held-out
    // L: normalize(splitJoin(2)) ran for hours at n = 8): stopped at 16 times the
    // term's first size, plus a margin.
    const int64_t limit = 16 * nodes_up_to(e, int64_t{1} << 24) + 2000;
    for (int i = 0; i < 100000; ++i) {
      Result r = s(cur, env);
      if (!r.ok()) return r.failure().runaway ? r : Result(cur);
      if (r.expr() == cur) return cur;  // no progress: stop rather than loop forever
      if (wraps_what_it_rewrote(cur, r.expr()))
        return runaway_at(
            "repeat", e,
            "repeat(" + s.name() +
                ") does not terminate: a step rewrote a term into one that contains "
                "it, where the next step applies again (bound it with repeatN(k, s))");
      if (nodes_up_to(r.expr(), limit) > limit)
        return runaway_at("repeat", e,
                          "repeat(" + s.name() +
                              ") does not terminate: its steps keep making the "
                              "term larger (more than 16 times its size after " +
                              std::to_string(i + 1) +
                              " steps); bound it with repeatN(k, s) or apply the rule at fewer "
                              "places");
      cur = r.expr();
    }
    return runaway_at("repeat", e, "repeat(" + s.name() + ") did not terminate after 100000 steps");
  });
}

// A step that changes nothing would change nothing again (strategies are
// deterministic), so the remaining steps are skipped, as repeat does: repeatN of a
// huge count of `id` ends at once.
Strategy repeat_n(int64_t n, Strategy s) {
  return Strategy("repeatN(" + std::to_string(n) + ", " + s.name() + ")",
                  [n, s](const Expr& e, const Env& env) -> Result {
                    Expr cur = e;
                    for (int64_t i = 0; i < n; ++i) {
                      Result r = s(cur, env);
                      // k times, as the spec says: a step after the first that fails
                      // fails the whole, saying which step it was
                      if (!r.ok() && i > 0) {
                        Failure& f = r.change_failure();
                        f.reason = "step " + std::to_string(i + 1) + " of repeatN(" +
                                   std::to_string(n) + ", ...) failed: " + f.reason;
                      }
                      if (!r.ok()) return r;
                      if (r.expr() == cur) return cur;
                      cur = r.expr();
                    }
                    return cur;
                  });
}

// ---------------------------------------------------------------- traversals

static Strategy on_child(const char* name, Strategy s, ExprKind k1, ExprKind k2, size_t index) {
  return Strategy(std::string(name) + "(" + s.name() + ")",
                  [name, s, k1, k2, index](const Expr& e, const Env& env) -> Result {
                    if (e->kind != k1 && e->kind != k2)
                      return fail_at(name, e, std::string(name) + ": not applicable here");
                    std::vector<Expr> kids = children(e);
                    std::optional<Env> scratch;
                    if (index >= kids.size())
                      return fail_at(name, e, std::string(name) + ": not applicable here");
                    Result r = s(kids[index], child_env(e, index, env, scratch));
                    if (!r.ok()) return r;
                    kids[index] = r.expr();
                    return rebuild(e, kids);
                  });
}

Strategy body(Strategy s) {
  return on_child("body", std::move(s), ExprKind::Lambda, ExprKind::DepLambda, 0);
}
Strategy function(Strategy s) {
  return on_child("function", std::move(s), ExprKind::App, ExprKind::DepApp, 0);
}
Strategy argument(Strategy s) {
  return on_child("argument", std::move(s), ExprKind::App, ExprKind::App, 1);
}

Strategy all(Strategy s) {
  return Strategy("all(" + s.name() + ")", [s](const Expr& e, const Env& env) -> Result {
    std::vector<Expr> kids = children(e);
    std::optional<Env> scratch;
    for (size_t i = 0; i < kids.size(); ++i) {
      Result r = s(kids[i], child_env(e, i, env, scratch));
      if (!r.ok()) return r;
      kids[i] = r.expr();
    }
    return rebuild(e, kids);
  });
}

Strategy one(Strategy s) {
  return Strategy("one(" + s.name() + ")", [s](const Expr& e, const Env& env) -> Result {
    std::vector<Expr> kids = children(e);
    std::optional<Env> scratch;
    std::optional<Failure> last;
    for (size_t i = 0; i < kids.size(); ++i) {
      Result r = s(kids[i], child_env(e, i, env, scratch));
      if (r.ok()) {
        kids[i] = r.expr();
        return rebuild(e, kids);
      }
      last = r.failure();
    }
    if (last) return *last;
    return fail_at("one", e, "one(" + s.name() + "): no child to apply it to");
  });
}

Strategy some(Strategy s) {
  return Strategy("some(" + s.name() + ")", [s](const Expr& e, const Env& env) -> Result {
    std::vector<Expr> kids = children(e);
    std::optional<Env> scratch;
    bool any = false;
    std::optional<Failure> last;
    for (size_t i = 0; i < kids.size(); ++i) {
      Result r = s(kids[i], child_env(e, i, env, scratch));
      if (r.ok()) {
        kids[i] = r.expr();
        any = true;
      } else {
        last = r.failure();
      }
    }
    if (!any) {
      if (last) return *last;
      return fail_at("some", e, "some(" + s.name() + "): no child to apply it to");
    }
    return rebuild(e, kids);
  });
}

// The children of e as rise::children lists them (the function or body, then an
// application's argument), one at a time: topDown and bottomUp visit every node
// until their strategy applies, and need the list only where it did.
static size_t child_count(const Expr& e) {
  switch (e->kind) {
    case ExprKind::App:
      return 2;
    case ExprKind::Lambda:
    case ExprKind::DepLambda:
    case ExprKind::DepApp:
    case ExprKind::Annotation:
      return 1;
    default:
      return 0;
  }
}
static const Expr& child(const Expr& e, size_t i) {
  return i == 0 ? e->fn : e->arg;
}
// e with its i-th child replaced by k.
static Expr with_child(const Expr& e, size_t i, Expr k) {
  return i == 0 ? rebuild(e, std::move(k), e->arg) : rebuild(e, e->fn, std::move(k));
}

// The deepest failure reported by a traversal is the most useful: it names the
// rule and the subterm where the rule itself failed. For traversals that fail
// everywhere we report, in this order: a failure after a match (the rule refused where
// its predicate held), the first location where a bare rule refused for a condition of
// its own (Failure::refused), that the predicate held nowhere, else the root's failure.
static Result traversal_failure(const char* name, const Strategy& s, const Expr& e,
                                const std::optional<Failure>& first,
                                const std::optional<Failure>& refusal = std::nullopt) {
  if (first && first->after_match) return *first;
  Failure f{
      std::string(name) + "(" + s.name() + ") found no location where " + s.name() + " applies",
      s.name(), e};
  if (refusal) {
    f.reason += "; where it was of the form " + refusal->rule + " rewrites (" +
                (std::string(name) == "bottomUp" ? "innermost" : "outermost") +
                " such place), it refused: " + refusal->reason;
    f.subterm = refusal->subterm;
    f.where = refusal->where;
    return f;
  }
  if (first && !first->predicate.empty()) {
    f.reason += ": " + first->predicate + " holds nowhere in the term";
    return f;
  }
  if (first) f.reason += " (at the root: " + first->reason + ")";
  return f;
}

// The result at the first location where s succeeds; otherwise the first failure
// that happened after a match (see Failure::after_match), else the root's failure.
// `refusal` keeps the first (pre-order) Failure::refused.
static Result top_down_impl(const Strategy& s, const Expr& e, const Env& env, int depth,
                            std::optional<Failure>& refusal) {
  check_stack_depth(e->span);
  spend_work(env, 1);
  Result r = s(e, env);
  if (r.ok() || r.failure().runaway) return r;
  if (!refusal && r.failure().refused) refusal = r.failure();
  if (depth > 10000) return r;
  std::optional<Result> best;
  if (r.failure().after_match) best = r;
  std::optional<Env> scratch;
  for (size_t i = 0; i < child_count(e); ++i) {
    Result c = top_down_impl(s, child(e, i), child_env(e, i, env, scratch), depth + 1, refusal);
    if (c.ok()) return with_child(e, i, c.expr());
    if (c.failure().runaway) return c;
    if (!best && c.failure().after_match) best = c;
  }
  return best ? *best : r;
}

Strategy top_down(Strategy s) {
  return Strategy("topDown(" + s.name() + ")", [s](const Expr& e, const Env& env) -> Result {
    std::optional<Failure> refusal;
    Result r = top_down_impl(s, e, env, 0, refusal);
    if (r.ok()) return r;
    return traversal_failure("topDown", s, e, r.failure(), refusal);
  });
}

// Whether refusal a says more than b: a is about a location of the rule's kind, b not.
static bool outranks(const Failure& a, const Failure& b) {
  return b.not_its_kind && !a.not_its_kind;
}

static Result bottom_up_impl(const Strategy& s, const Expr& e, const Env& env, int depth,
                             std::optional<Failure>& refusal) {
  check_stack_depth(e->span);
  spend_work(env, 1);
  std::optional<Env> scratch;
  std::optional<Result> best;
  if (depth < 10000) {
    for (size_t i = 0; i < child_count(e); ++i) {
      Result c = bottom_up_impl(s, child(e, i), child_env(e, i, env, scratch), depth + 1, refusal);
      if (c.ok()) return with_child(e, i, c.expr());
      if (c.failure().runaway) return c;
      if (c.failure().after_match && (!best || outranks(c.failure(), best->failure()))) best = c;
    }
  }
  Result r = s(e, env);
  if (!r.ok() && !refusal && r.failure().refused) refusal = r.failure();
  // A refusal below (after its predicate matched) is the innermost location's: it
  // says why innermost(p)(s) did not apply, even where this location matched too
  // (innermost(isMap)(vectorize(16)) on map(map(f)) is about the inner map's length,
  // not the outer map's elements). Unless the one below only says that location is
  // not of the rule's kind and this one is: vectorizeWindows(8) on a map over 12
  // windows whose function maps over scalars is refused for the 12, not for the
  // scalars.
  if (r.ok() || !best) return r;
  if (r.failure().after_match && outranks(r.failure(), best->failure())) return r;
  return *best;
}

Strategy bottom_up(Strategy s) {
  return Strategy("bottomUp(" + s.name() + ")", [s](const Expr& e, const Env& env) -> Result {
    std::optional<Failure> refusal;
    Result r = bottom_up_impl(s, e, env, 0, refusal);
    if (r.ok()) return r;
    return traversal_failure("bottomUp", s, e, r.failure(), refusal);
  });
}

// The one-pass traversals (allTopDown, tryAll, everywhere) apply s at a location and
// then go on below in what s made of it: a rewrite that moves a layer's producer into a
// let leaves the next layer below, where s applies in turn. Two guards keep this one
// pass (spec/strategies.md):
// - a copy of a term that s rewrote above (hoist at toMem(t) makes let(toMem(t))(...),
//   idAfter makes id(x)) is not rewritten again: it is the location s was tried at, now
//   moved, and rewriting it again would repeat forever; the traversal goes on below it;
// - the rewrites of one pass are bounded (kRewritesPerNode per node of the term, plus a
//   margin; kNestedRewrites nested in each other): a rule that keeps making new locations where it
//   applies stops the pass with an error that names the rule and the location, instead of running
//   without end.
namespace {

constexpr long kRewritesPerNode = 4;
constexpr long kRewritesMargin = 256;
constexpr long kVisitsPerNode = 64;
constexpr long kVisitsMargin = 100000;
// Rewrites inside the results of rewrites inside the results of ... (a hoist per layer
// of a network nests one level per layer).
constexpr size_t kNestedRewrites = 64;

struct OnePass {
  const char* name;
  const Strategy& s;
  long rewrites_left;
  // Locations the pass may visit: a rewrite that copies what it rewrites (reorder's
  // interchange duplicates an operand) can grow the term exponentially within the
  // bound on rewrites (held-out K: everywhere(reorder([2,1])) after RNF ran without
  // end, its memory growing 100 MB/s).
  long visits_left;
  std::vector<Expr> rewritten;  // the terms rewritten on the path from the root
  std::optional<Failure> runaway;
  std::optional<Failure> refusal;  // the first Failure::refused

  // One more location visited; past the bound, the pass stops with an error here.
  void visit(const Expr& e) {
    if (--visits_left >= 0 || runaway) return;
    runaway = runaway_at(name, e,
                         std::string(name) + "(" + s.name() + ") does not terminate: " + s.name() +
                             " keeps making the term larger, so that the pass has ever more "
                             "places to visit (stopped here)");
  }

  bool is_copy_of_rewritten(const Expr& e) const {
    for (const Expr& t : rewritten)
      if (t == e || rise::alpha_equal(t, e)) return true;
    return false;
  }

  // s at e, unless e is such a copy (then nothing).
  std::optional<Result> apply(const Expr& e, const Env& env) {
    if (!rewritten.empty() && is_copy_of_rewritten(e)) return std::nullopt;
    Result r = s(e, env);
    if (!r.ok() && r.failure().runaway && !runaway) runaway = r.failure();
    if (!r.ok() && !refusal && r.failure().refused) refusal = r.failure();
    // What a rewrite makes counts as visited too: a rewrite doubling its location,
    // nested in the previous one's result, grows the term exponentially within few
    // visits.
    if (r.ok() && r.expr() != e && !runaway) {
      visits_left -= nodes_up_to(r.expr(), std::max(visits_left, 0L));
      if (visits_left < 0) visit(e);
    }
    if (r.ok() && r.expr() != e && (--rewrites_left < 0 || rewritten.size() >= kNestedRewrites) &&
        !runaway)
      runaway =
          runaway_at(name, e,
                     std::string(name) + "(" + s.name() + ") does not terminate: " + s.name() +
                         " keeps applying to terms its own rewrites made (stopped after " +
                         "too many rewrites in one pass, here)");
    return r;
  }
};

long term_size(const Expr& e) {
  long n = 0;
  rise::for_each_subexpr(e, [&](const Expr&) { return ++n, true; });
  return n;
}

OnePass one_pass(const char* name, const Strategy& s, const Expr& e) {
  const long size = term_size(e);
  return OnePass{
      name, s, kRewritesPerNode * size + kRewritesMargin, kVisitsPerNode * size + kVisitsMargin, {},
      {},   {}};
}

}  // namespace

static Result all_top_down_impl(OnePass& pass, const Expr& e, const Env& env) {
  check_stack_depth(e->span);
  spend_work(env, 1);
  pass.visit(e);
  if (pass.runaway) return *pass.runaway;
  std::optional<Result> r = pass.apply(e, env);
  if (r && !r->ok()) return *r;
  if (pass.runaway) return *pass.runaway;
  Expr x = r ? r->expr() : e;
  const bool pushed = x != e;
  if (pushed) pass.rewritten.push_back(e);
  std::vector<Expr> kids = children(x);
  std::optional<Env> scratch;
  std::optional<Result> out;
  for (size_t i = 0; i < kids.size() && !out; ++i) {
    Result c = all_top_down_impl(pass, kids[i], child_env(x, i, env, scratch));
    if (!c.ok())
      out = c;
    else
      kids[i] = c.expr();
  }
  if (pushed) pass.rewritten.pop_back();
  if (out) return *out;
  return rebuild(x, kids);
}

Strategy all_top_down(Strategy s) {
  return Strategy("allTopDown(" + s.name() + ")", [s](const Expr& e, const Env& env) -> Result {
    OnePass pass = one_pass("allTopDown", s, e);
    return all_top_down_impl(pass, e, env);
  });
}

// `failure` (when given) keeps the root's failure, replaced by the first one that
// happened after a match (the rule's own refusal, which names its reason).
static Expr try_all_impl(OnePass& pass, const Expr& e, const Env& env, bool& any,
                         std::optional<Failure>* failure = nullptr) {
  check_stack_depth(e->span);
  spend_work(env, 1);
  pass.visit(e);
  if (pass.runaway) return e;
  std::optional<Result> r = pass.apply(e, env);
  if (pass.runaway) return e;
  Expr x = e;
  if (r && r->ok()) {
    any = true;
    x = r->expr();
  } else if (r && failure &&
             (!*failure || (!(*failure)->after_match && r->failure().after_match))) {
    *failure = r->failure();
  }
  const bool pushed = x != e;
  if (pushed) pass.rewritten.push_back(e);
  std::vector<Expr> kids = children(x);
  std::optional<Env> scratch;
  for (size_t i = 0; i < kids.size() && !pass.runaway; ++i)
    kids[i] = try_all_impl(pass, kids[i], child_env(x, i, env, scratch), any, failure);
  if (pushed) pass.rewritten.pop_back();
  return rebuild(x, kids);
}

Strategy try_all(Strategy s) {
  return Strategy("tryAll(" + s.name() + ")", [s](const Expr& e, const Env& env) -> Result {
    bool any = false;
    OnePass pass = one_pass("tryAll", s, e);
    Expr r = try_all_impl(pass, e, env, any);
    if (pass.runaway) return *pass.runaway;
    return r;
  });
}

Strategy everywhere(Strategy s) {
  return Strategy("everywhere(" + s.name() + ")", [s](const Expr& e, const Env& env) -> Result {
    bool any = false;
    OnePass pass = one_pass("everywhere", s, e);
    std::optional<Failure> failure;
    Expr r = try_all_impl(pass, e, env, any, &failure);
    if (pass.runaway) return *pass.runaway;
    if (!any) return traversal_failure("everywhere", s, e, failure, pass.refusal);
    return r;
  });
}

Strategy normalize(Strategy s) {
  return Strategy("normalize(" + s.name() + ")", repeat(top_down(s)));
}

Strategy outermost(Strategy pred, Strategy s) {
  return Strategy("outermost(" + pred.name() + ")(" + s.name() + ")", top_down(seq(pred, s)));
}

Strategy innermost(Strategy pred, Strategy s) {
  return Strategy("innermost(" + pred.name() + ")(" + s.name() + ")", bottom_up(seq(pred, s)));
}

// ---------------------------------------------------------------- predicates

// A predicate's failure is made at nearly every location a traversal visits: its
// reason is put together once, when the strategy is.
static Strategy predicate(const std::string& name, std::function<bool(const Expr&)> p) {
  auto holds = [name, p, reason = name + " does not hold here"](const Expr& e,
                                                                const Env&) -> Result {
    if (p(e)) return e;
    Failure f = fail_at(name, e, reason);
    f.predicate = name;
    return f;
  };
  return Strategy(name, holds);
}

// The primitive at the head of a chain of dependent applications (mapGlobal(0)).
static const rise::ExprNode* prim_head(const Expr& e) {
  const rise::ExprNode* x = e.get();
  while (x->kind == ExprKind::DepApp) x = x->fn.get();
  return x->kind == ExprKind::Primitive ? x : nullptr;
}

Strategy is_primitive(const std::string& name) {
  return predicate("isPrimitive(" + name + ")", [name](const Expr& e) {
    const rise::ExprNode* p = prim_head(e);
    return p && p->name == name;
  });
}

// The primitive `id` at the head of e (under its dependent arguments).
static bool has_prim_head(const rise::ExprNode* p, rise::PrimId id) {
  return p && p->prim && p->prim->is(id);
}

static Strategy named_prim(rise::PrimId id, const std::string& sname) {
  return predicate(sname, [id](const Expr& e) { return has_prim_head(prim_head(e), id); });
}

Strategy is_map() {
  return named_prim(rise::PrimId::Map, "isMap");
}
Strategy is_reduce() {
  return named_prim(rise::PrimId::Reduce, "isReduce");
}
Strategy is_reduce_seq() {
  return named_prim(rise::PrimId::ReduceSeq, "isReduceSeq");
}
Strategy is_map_seq() {
  return named_prim(rise::PrimId::MapSeq, "isMapSeq");
}
Strategy is_transpose() {
  return named_prim(rise::PrimId::Transpose, "isTranspose");
}
Strategy is_lambda() {
  return predicate("isLambda", [](const Expr& e) { return e->kind == ExprKind::Lambda; });
}

static bool r_ok_applied(const Strategy& p, const Expr& e, const Env& env) {
  return e->kind == ExprKind::App && p(e->fn, env).ok();
}

Strategy is_applied(Strategy p) {
  auto holds = [p, reason = "isApplied(" + p.name() + ") does not hold here",
                pname = "isApplied(" + p.name() + ")"](const Expr& e, const Env& env) -> Result {
    if (r_ok_applied(p, e, env)) return e;
    Failure f = fail_at("isApplied", e,
                        e->kind != ExprKind::App ? std::string("not an application") : reason);
    f.predicate = pname;
    return f;
  };
  return Strategy("isApplied(" + p.name() + ")", holds);
}

Strategy is_fully_applied(Strategy p) {
  auto holds = [p, reason = "isFullyApplied(" + p.name() + ") does not hold here",
                pname = "isFullyApplied(" + p.name() + ")"](const Expr& e,
                                                            const Env& env) -> Result {
    // The head and the count of value arguments, walked down the applications (no
    // copy of the spine: this runs at every node a traversal visits).
    int value_args = 0;
    const rise::ExprNode* x = e.get();
    Expr head = e;
    while (x->kind == ExprKind::App || x->kind == ExprKind::DepApp) {
      value_args += x->kind == ExprKind::App;
      head = x->fn;
      x = x->fn.get();
    }
    int arity = -1;
    if (head->kind == ExprKind::Primitive) {
      arity = head->prim ? head->prim->arity : 0;
      if (head->prim && head->prim->is(rise::PrimId::MakeArray)) arity = head->count;
    }
    // The predicate sees the head (a predicate: only whether it holds matters, so it
    // is asked only where the arity would let the whole hold).
    if (arity >= 0 && value_args == arity && p(head, env).ok()) return e;
    Failure f = fail_at("isFullyApplied", e, reason);
    f.predicate = pname;
    return f;
  };
  return Strategy("isFullyApplied(" + p.name() + ")", holds);
}

// map(f) with f a (possibly partial) nest of depth d-1, or map(fun(x => e)) with e a
// fully applied nest of depth d-1; a fully applied map(f)(x) likewise.
static bool map_nest_fn(const Expr& f, int d);
static bool map_nest_term(const Expr& e, int d) {
  if (d <= 0) return true;
  if (e->kind != ExprKind::App) return false;
  // fully applied: map(f)(x)
  if (e->fn->kind == ExprKind::App) {
    if (has_prim_head(prim_head(e->fn->fn), rise::PrimId::Map))
      return map_nest_fn(e->fn->arg, d - 1);
  }
  return false;
}
static bool map_nest_fn(const Expr& f, int d) {
  if (d <= 0) return true;
  if (f->kind == ExprKind::Lambda) return map_nest_term(f->fn, d);
  if (f->kind == ExprKind::App) {
    if (has_prim_head(prim_head(f->fn), rise::PrimId::Map)) return map_nest_fn(f->arg, d - 1);
  }
  return false;
}

Strategy map_nest(int depth) {
  return predicate("mapNest(" + std::to_string(depth) + ")", [depth](const Expr& e) {
    return map_nest_term(e, depth) ||
           (depth > 0 && map_nest_fn(e, depth) && e->kind == ExprKind::App &&
            has_prim_head(prim_head(e->fn), rise::PrimId::Map));
  });
}

Strategy contains_computation() {
  // one meaning of "computes" for rules and strategies (rule_util.h)
  return predicate("containsComputation", util::computes);
}

Strategy tuned_at(std::vector<std::pair<std::string, int64_t>> sizes) {
  std::string tuned;
  for (const auto& [n, v] : sizes)
    tuned += (tuned.empty() ? "" : ",") + n + "=" + std::to_string(v);
  return Strategy(
      "tunedAt(" + tuned + ")", [sizes, tuned](const Expr& e, const Env& env) -> Result {
        std::string here;
        bool same = true;
        for (const auto& [n, v] : sizes) {
          const bool given = env.sizes && env.sizes->count(n);
          same = same && given && env.sizes->at(n) == v;
          here += (here.empty() ? "" : ",") + n +
                  (given ? "=" + std::to_string(env.sizes->at(n)) : " symbolic");
        }
        if (same) return e;
        // Without any size the code is generic; with some (given, or fixed by the
        // shapes of bound inputs) the program's are named as they are.
        const bool generic = !env.sizes || env.sizes->empty();
        return fail_at("tunedAt", e,
                       "this strategy was tuned at sizes " + tuned +
                           " (risec tune wrote it for them: the places it names and the sizes of "
                           "its blocks assume them), but here " +
                           here +
                           (generic ? " (no --size: generic code); compile with --size " + tuned
                                    : "; compile at sizes " + tuned) +
                           ", or tune again at the sizes wanted");
      });
}

}  // namespace risec::elevate
