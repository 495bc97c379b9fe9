// ELEVATE strategies over RISE programs. A strategy is a function from a typed
// program to success (a new typed program) or failure (a reason, the rule that
// failed and the subterm it was tried on). Combinators, traversals and predicates
// build strategies from strategies; rules (rules.h) are the leaves.
//
// Typing: rules produce untyped new nodes around typed subterms; the rule wrapper
// (`rule()`) re-infers the rewritten subterm in the typing context of the location
// (the types of the lambda-bound variables in scope) and requires its type to equal
// the type of the term it replaces. A rule whose result does not type-check in
// place fails; so every successful step keeps the whole program well typed.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rise/expr.h"
#include "support/diagnostics.h"

namespace risec::elevate {

using rise::Expr;
using rise::Type;

// The types of the variables in scope at a location (innermost last), so that rules
// and predicates can type new terms.
struct Context {
  std::vector<std::pair<std::string, Type>> vars;
  // Sizes bound by a depFun inside the program (iterate's step function), not by the
  // entry's leading depFuns: a condition on them cannot be checked when the generated
  // function is called.
  std::vector<std::string> local_sizes;
  bool below_root = false;  // a node other than the leading depFuns is above
};

// An Env's context, shared by the Envs that have the same one: an Env is copied at
// every step of a strategy file a traversal calls (step_env), and copying the
// variables' names there was a large part of a search's allocations.
class SharedContext {
 public:
  SharedContext() = default;
  SharedContext(Context c) : p_(std::make_shared<const Context>(std::move(c))) {}  // NOLINT
  operator const Context&() const { return p_ ? *p_ : empty(); }  // NOLINT: reads as one
  const Context* operator->() const { return p_ ? p_.get() : &empty(); }

 private:
  static const Context& empty();
  std::shared_ptr<const Context> p_;
};

struct Failure {
  std::string reason;
  std::string rule;  // the rule (or combinator) that failed
  Expr subterm;      // where it was tried (may be null)
  Span where;        // the call in the strategy file that failed (when known)
  // Set when the failure happened after the first part of a sequence succeeded (a
  // rule failing where its predicate matched): traversals report such a failure
  // rather than the root's, because it says why the wanted location did not work.
  bool after_match = false;
  // Set when the rule refused the location as not of the kind it transforms (a map
  // whose elements are not windows), rather than for a condition of that kind (a length
  // the width does not divide): a bottom-up traversal reports a location's refusal of
  // the second sort over a deeper one of this sort (strategy.cpp, bottom_up_impl).
  bool not_its_kind = false;
  // Set by the rule wrapper when a rule refused a location for a condition of it (a
  // length 18 that 4 does not divide) rather than as not of the form it rewrites
  // ("expected reduce(op)(init)(xs)"): a traversal of a bare rule that applies nowhere
  // reports the first such refusal, not the root's mismatch.
  bool refused = false;
  // Set when a strategy does not terminate (a traversal or repeat stopped by its
  // bounds): the combinators that try another way on a failure (<+, try, repeat, the
  // traversals) pass it on instead, so that `try` cannot turn a runaway into success
  // (held-out M: repeat(tryAll(idAfter)) exited 0 with chains of id).
  bool runaway = false;
  // The predicate's name (isApplied(isMap)) when a predicate failed: a traversal whose
  // root failure is a predicate's, with no match anywhere, says it held nowhere.
  std::string predicate;
  // The strategies a file's lets define that the failure happened in, innermost
  // first, each with the call that ran it: `where` is in a let's body, and these say
  // which call of it failed (a let called twice, failing the second time).
  std::vector<std::pair<std::string, Span>> calls;
};

class Result {
 public:
  Result(Expr e) : expr_(std::move(e)) {}  // NOLINT: implicit success
  Result(Failure f) : failure_(std::make_shared<Failure>(std::move(f))) {}  // NOLINT
  bool ok() const { return expr_ != nullptr; }
  explicit operator bool() const { return ok(); }
  const Expr& expr() const { return expr_; }
  const Failure& failure() const { return *failure_; }
  // The failure, to change before passing the result on: copied first only where
  // another Result shares it (a failed rule's reason is otherwise copied at every
  // combinator it passes through).
  Failure& change_failure();
  // This result, its failure located at `where` if it has no place yet.
  Result located(const Span& where) &&;

 private:
  Expr expr_;
  std::shared_ptr<Failure> failure_;  // changed only while unshared (change_failure)
};

// Observes each successful rule application (for --trace).
struct Tracer {
  std::function<void(const std::string& rule, const Expr& before, const Expr& after)> on_rule;
};

// A bound on the work of strategy applications (Env::work): the term nodes the
// traversals visit and the nodes of each rule's result (retyped whole). When it runs
// out, the application stops by throwing a risec::Error (User) whose message starts
// with kWorkLimitMessage: not a Failure, which try or <+ would take for a failed
// attempt and go on. The autoscheduler's space is built under one
// (driver/schedule_space.h), so that a rewrite whose work grows faster than the
// program stops before it is spent.
struct WorkMeter {
  int64_t left = 0;
  int64_t spent = 0;
  bool exhausted() const { return left <= 0; }
  void charge(int64_t n) {
    spent += n;
    left -= n;
  }
};
inline constexpr const char* kWorkLimitMessage = "the rewrite reached its work limit";

struct Env {
  SharedContext ctx;
  WorkMeter* work = nullptr;  // null: no bound
  const Tracer* tracer = nullptr;
  // The innermost call of a strategy file being evaluated (set by the parser's
  // evaluation, elevate/parser.h): each rule marks the primitives its rewrite creates
  // with it (rise::ExprNode::step), so that an error about such a primitive can name
  // the strategy step that introduced it.
  Span step;
  // The sizes substituted into the program (rise::Checked::sizes; null or empty: none,
  // generic code): `tunedAt` checks them.
  const std::map<std::string, int64_t>* sizes = nullptr;
};

// Charges n units to env's meter (none: nothing); throws when it runs out.
void spend_work(const Env& env, int64_t n);

// `env` with `step` as the current strategy step.
Env step_env(const Env& env, const Span& step);

using StrategyFn = std::function<Result(const Expr&, const Env&)>;

// A strategy is shared, not copied: combinators capture the strategies they are made
// of, and copying one copied its whole tree of captured functions and names, at every
// application that passed a strategy on by value.
class Strategy {
 public:
  Strategy() = default;
  Strategy(std::string name, StrategyFn fn)
      : impl_(std::make_shared<const Impl>(Impl{std::move(name), std::move(fn)})) {}
  Result operator()(const Expr& e, const Env& env) const { return impl_->fn(e, env); }
  Result operator()(const Expr& e) const { return impl_->fn(e, Env{}); }
  const std::string& name() const { return impl_ ? impl_->name : no_name(); }
  bool valid() const { return impl_ && static_cast<bool>(impl_->fn); }

 private:
  struct Impl {
    std::string name;
    StrategyFn fn;
  };
  static const std::string& no_name();
  std::shared_ptr<const Impl> impl_;
};

// The strings by value, moved into the failure: most callers pass literals, and a rule
// fails at most of the locations a traversal tries it at.
Failure fail_at(std::string rule, const Expr& e, std::string reason);
// fail_at of a strategy that does not terminate (Failure::runaway).
Failure runaway_at(std::string rule, const Expr& e, std::string reason);

// ---- rules ----
// A rule: a partial rewrite of one location. `rewrite` returns the new (untyped or
// partly typed) term, or nullopt/a Failure when it does not apply. The wrapper
// re-types the result in context (see above) and reports it to the tracer.
using RewriteFn = std::function<Result(const Expr&, const Context&)>;
Strategy rule(const std::string& name, RewriteFn rewrite);

// Type `e` (a rewritten term) in context; its type must equal `expected` when given.
// Returns the typed term or a failure naming `rule`.
Result retype(const std::string& rule, const Expr& e, const Context& ctx, const Type& expected,
              const Expr& original);

// ---- core combinators ----
Strategy id();
Strategy fail();
Strategy seq(Strategy a, Strategy b);
Strategy lchoice(Strategy a, Strategy b);
// `s0 ; s1 ; ...` and `s0 <+ s1 <+ ...` over a list, run in a loop: the same results
// as nesting seq/lchoice, without recursion that grows with the list's length.
Strategy seq_all(std::vector<Strategy> parts);
Strategy lchoice_all(std::vector<Strategy> parts);
Strategy try_(Strategy s);
Strategy repeat(Strategy s);
Strategy repeat_n(int64_t n, Strategy s);

// ---- traversals ----
Strategy body(Strategy s);
Strategy function(Strategy s);
Strategy argument(Strategy s);
Strategy all(Strategy s);
Strategy one(Strategy s);
Strategy some(Strategy s);
Strategy top_down(Strategy s);
Strategy bottom_up(Strategy s);
Strategy all_top_down(Strategy s);
Strategy try_all(Strategy s);
Strategy everywhere(Strategy s);
Strategy normalize(Strategy s);
Strategy outermost(Strategy pred, Strategy s);
Strategy innermost(Strategy pred, Strategy s);

// ---- predicates (succeed unchanged when the property holds) ----
Strategy is_primitive(const std::string& name);
Strategy is_map();
Strategy is_reduce();
Strategy is_reduce_seq();
Strategy is_map_seq();
Strategy is_transpose();
Strategy is_lambda();
Strategy is_applied(Strategy p);
Strategy is_fully_applied(Strategy p);
Strategy map_nest(int depth);
Strategy contains_computation();
// Holds when each (name, value) is a size substituted into the program (Env::sizes)
// with that value; else fails naming the sizes the strategy was tuned at and the
// program's (symbolic: no --size).
Strategy tuned_at(std::vector<std::pair<std::string, int64_t>> sizes);

// The children of a node and a rebuild function (used by traversals and rules): the
// RISE traversal of rise/expr.h.
using rise::children;
using rise::rebuild;
// The context of child i of e given the context of e.
Context child_context(const Expr& e, size_t i, const Context& ctx);

}  // namespace risec::elevate
