// Shared helpers for writing rewrite rules and normal forms: matching primitive
// applications in typed terms, building new (untyped) terms with fresh binders,
// capture-avoiding substitution (of values and of type-level arguments), beta/eta
// normalisation and the classification of primitives into views and computations.
//
// Rules match typed terms and build untyped ones: the rule wrapper (strategy.h)
// re-infers the result in context. Every builder here returns untyped nodes around
// the (typed) subterms it is given.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "elevate/strategy.h"
#include "rise/expr.h"
#include "rise/primitives.h"
#include "rise/type.h"
#include "rise/value.h"

namespace risec::elevate::util {

using rise::Nat;
using rise::TypeArg;

// ---------------------------------------------------------------- matching

// A primitive applied to arguments: `split(4)(x)` has head split, deps {4}, args {x}.
struct PrimCall {
  Expr head;                                              // the Primitive node
  std::vector<TypeArg> deps;                              // explicit dependent arguments, in order
  std::vector<Expr> args;                                 // value arguments, in order
  const std::string& name() const { return head->name; }  // for messages
  bool is(rise::PrimId id) const { return head->prim && head->prim->is(id); }
  rise::PrimId id() const;
  // The i-th dependent argument as a Nat (nullopt when it is not a Nat).
  std::optional<Nat> dep_nat(size_t i) const;
};

// `e` as a primitive application with any number of arguments (a bare primitive
// has none); nullopt when the head of e's spine is not a primitive.
std::optional<PrimCall> as_prim_call(const Expr& e);

// `e` is the primitive `id` with all its explicit dependent arguments and exactly
// `nargs` value arguments. Primitives are named by PrimId only: a misspelt one does
// not compile.
std::optional<PrimCall> match_prim(const Expr& e, rise::PrimId id, size_t nargs);

// map(f)(x) with the high-level map: {f, x}.
std::optional<std::pair<Expr, Expr>> match_map(const Expr& e);

// A function that maps `g` over its argument: `map(g)` or `fun(a => map(g)(a))`
// (a not free in g). Returns g.
std::optional<Expr> match_map_fn(const Expr& f);

// A function that is the unary primitive application `prim(deps..)` or its
// eta-expansion `fun(a => prim(deps..)(a))`, e.g. `transpose`, `split(4)`,
// `fun(a => slide(3)(1)(a))`. Returns the primitive call without its argument.
std::optional<PrimCall> match_unary_fn(const Expr& f);

// The value of a scalar literal (an Int, Scalar or cast(literal)) as a double.
std::optional<double> literal_value(const Expr& e);

// A binary operator given as a primitive (`add`), as its eta-expansion
// `fun(a => fun(b => add(a)(b)))`, or with the operands swapped; returns the
// primitive and whether the operands are swapped.
struct BinaryOp {
  const rise::PrimitiveInfo* prim = nullptr;
  bool is(rise::PrimId id) const { return prim && prim->is(id); }
  bool swapped = false;
};
std::optional<BinaryOp> match_binary_op(const Expr& op);

// fun(x => x)
bool is_identity_fn(const Expr& f);

// ---------------------------------------------------------------- building

Expr prim(rise::PrimId id);
// id(a)(b)...
Expr call(rise::PrimId id, const std::vector<Expr>& args);
// id(d1)(d2)...(a)(b)... with explicit dependent arguments first.
Expr call(rise::PrimId id, const std::vector<TypeArg>& deps, const std::vector<Expr>& args);
// x cut at q: {take(q)(x), drop(q)(x)}; when x is concat(a)(b) with a of exactly q
// elements, {a, b}, without a second copy of x. The rules that split a map at q
// (vectorizeRemainder, peelRemainder) use it, so that splitting the maps of a chain
// one after the other keeps one copy of each producer instead of doubling the chain
// at every map (a chain of K maps made 2^K of them).
std::pair<Expr, Expr> split_at(const Nat& q, const Expr& x);
// The call's dependent and value arguments applied to a different head, e.g. the
// arguments of map(f)(x) to `mapSeq` or to `mapGlobal(0)`.
Expr rebuild_call(const PrimCall& c, const Expr& new_head);

// fun(x => body(x)) with a fresh binder named after `base`.
Expr fun(const std::string& base, const std::function<Expr(const Expr&)>& body);
// fun(x => fun(y => body(x, y)))
Expr fun2(const std::string& a, const std::string& b,
          const std::function<Expr(const Expr&, const Expr&)>& body);

// f(arg); when f is a lambda, beta-reduced if that duplicates no work: the
// parameter occurs at most once and not under a lambda, or arg is a variable, a
// literal, a primitive or a projection (fst/snd chain) of a variable. Otherwise the
// redex f(arg) is returned.
Expr apply_fn(const Expr& f, const Expr& arg);
// f when it is a lambda, else fun(x => f(x)).
Expr as_lambda(const Expr& f);
// f with outer eta-redexes removed: fun(x => g(x)) (x not free in g) becomes g.
Expr eta_reduced(const Expr& f);

// map(as_lambda(f))(x): a map in data-flow normal form.
Expr mk_map(const Expr& f, const Expr& x);
// fun(a => map(as_lambda(f))(a)): the function map(f) in data-flow normal form.
Expr mk_map_fn(const Expr& f);
// fun(acc, y => op(acc)(f(y))): the operator of a sequential reduction that reduces
// map(f)(x) while reading x (reduce-map fusion: no array of f's results).
Expr fold_after_map(const Expr& op, const Expr& f);

// ---------------------------------------------------------------- variables

using rise::occurs_free;                              // rise/expr.h: whether x occurs free in e
int count_free(const std::string& x, const Expr& e);  // number of free occurrences
// e[x := v], renaming binders of e that would capture free variables of v.
Expr substitute(const Expr& e, const std::string& x, const Expr& v);
// Replace type-level variables (sizes, data types, ...) in annotations, dependent
// arguments, index literals and node types of e; binders are respected.
Expr substitute_types(const Expr& e, const rise::TypeSubst& s);

// One beta step at the root: App(Lambda) or DepApp(DepLambda); nullopt otherwise.
std::optional<Expr> beta_step(const Expr& e);
// One eta step at the root: fun(x => f(x)) with x not free in f; nullopt otherwise.
std::optional<Expr> eta_step(const Expr& e);
// Normalise with beta (and eta when `eta`) everywhere; returns e itself when
// nothing changed. Lambdas with a parameter annotation (the declared parameters of
// a program) are not eta-reduced, so that the program keeps its declared types.
// The result is untyped where it changed.
Expr beta_eta_normalize(const Expr& e, bool eta);
// Remove every beta-redex without duplicating work: fun(x => b)(a) becomes b[x := a]
// when x occurs at most once outside lambdas in b, or a is a variable, literal or
// projection of a variable, or a is not data; otherwise let(a)(fun(x => b)).
Expr beta_normalize_sharing(const Expr& e);

// ---------------------------------------------------------------- types

// n of an array type n.dt (nullopt for other types or null).
std::optional<Nat> array_size(const Type& t);
// The element type of an array type (null for other types).
Type array_elem(const Type& t);
// Number of leading array dimensions.
int array_rank(const Type& t);
// The parameter type of a function type (null for other types or null).
Type fun_param(const Type& t);
// The type of v when it holds vectors and is fully known (no type variables, no
// symbolic sizes), else nullptr: what a rule writes on the binder of a let it
// introduces for v, so that the widths stay in the program's text (a width that
// nothing but v's own past typing fixed cannot be inferred again).
Type vector_annotation(const Expr& v);

// ---------------------------------------------------------------- classification

// The low-level maps (family Map but the high-level map: mapSeq, mapPar, ...): fully
// applied, they compute an array.
bool is_map_like(const rise::PrimitiveInfo* p);
// reduce and its low-level forms (family Reduce).
bool is_reduce_like(const rise::PrimitiveInfo* p);
// The associative and commutative operators of the primitive table, for messages:
// "add, mul, fmin or fmax".
std::string assoc_comm_names();
// Whether e computes: a primitive that computes (PrimitiveInfo::computes: arithmetic,
// math, reductions, scans, iterations, sliding windows, low-level loops), a foreign
// function, or an identity map (an explicit copy).
bool computes(const Expr& e);

// Roughly the operations a loop primitive's call `c` (map, reduction or scan: its
// function first) of type `call_type` executes itself, its other arguments left out
// (the default lowering's threshold for a parallel loop): its length times what its
// function does, at least 1 an iteration (the element it stores), where each
// arithmetic primitive applied counts 1 (on vectors, 1 a lane), a math function (exp,
// sqrt, ...) 8, and a nested loop likewise. A loop of unknown length, an iteration, a
// data-dependent loop or a foreign function (of unknown cost) counts as very large. A
// call still waiting for its array (mapSeq(f), the function of an outer map) loops over
// the array its type takes.
double loop_work(const PrimCall& c, const rise::Type& call_type);

// parallelOutput's and parallelStages' threshold in the default lowering: a stage
// doing fewer operations than this (stage_work: a constant table of weights, a cheap
// pointwise stage of a few thousand elements) costs more to fork and join than it
// computes, and stays sequential. Symbolic sizes count as large. Measured on a 2-core
// Zen 4 (loaded), a chain of 200 stages v * a + b (2 operations an element), every
// stage parallel against none: 0.15 against 0.025 ms at 2048 elements, 0.25 to 0.67
// against 0.14 ms at 8192, 0.65 to 0.9 against 1.0 to 1.2 ms at 16384 (docs/cli.md,
// "The default lowering").
inline constexpr int64_t kParallelWork = 32768;

// Whether evaluating `e` can stop the program (a *partial* computation): integer
// division or modulo (by zero, or the least value by -1), an index made from data
// (natAsIndex, a cast to idx[n] or natType: out of range), a foreign function (any C
// code), or anything containing one (a map or reduction whose function divides).
// Total computations (float arithmetic, scalar casts, reads at indices of type idx[n])
// are not.
bool may_fail(const Expr& e);

// The value arguments of the application `e` (the whole spine) that run only under a
// condition, maybe never, each time `e` runs: a select's branches (so also `&&`,
// `||`), iterateWhile's step, a let's value when it is a function (it runs where it is
// called), and the function arguments of an application whose head is not a primitive
// (a let-bound function may call them or not). Every motion rule (cse, licm, hoist,
// storeInMemory) keeps a term that may_fail inside such a position: moved out, it
// would run where the program never runs it (docs/guarantees.md, "Partial operations").
// Loop functions are not conditional: sizes are positive, so a loop runs at least once.
std::vector<Expr> conditional_args(const Expr& e);

// Whether a rule that splits an array of length `len` into blocks of `n` must refuse:
// the reason when n provably cannot divide len (constants that do not divide, or a
// symbolic length with a constant non-zero remainder, such as 4*m + 2 by 4), nullopt
// otherwise. For a symbolic length that n may divide, the rewritten program's type
// records the side condition n | len, which generic code checks on entry.
// A length that depends on a size bound inside the program (`ctx.local_sizes`, such
// as iterate's l) is refused too: its condition cannot be checked on entry.
std::optional<std::string> divisibility_refusal(const Nat& n, const Nat& len, const Context& ctx);

// ---------------------------------------------------------------- strategies

// A strategy that transforms the whole term with `transform` (untyped result) and
// re-types it once in context; succeeds unchanged when the result is alpha-equal
// to the input. Used for normal forms and whole-program passes.
Strategy whole_term(const std::string& name,
                    std::function<Result(const Expr&, const Env&)> transform);

// ---------------------------------------------------------------- shared rules

// The data-flow normal form expansion (normal_forms.cpp) of a BENF term: every
// primitive fully applied and every function argument of a primitive a lambda
// (with one lambda per parameter). Untyped where it changed.
Expr dfnf_expand(const Expr& e);

// A typed scalar literal holding the scalar value v (of type t); nullopt for other
// values or types.
std::optional<Expr> value_literal(const rise::Value& v, const Type& t);

// mapFission (rules_algorithmic.cpp); with `applied_only`, only the form applied to
// data, map(fun(x => f(g(x))))(d), matches (the form RNF uses).
Strategy map_fission_rule(bool applied_only);

}  // namespace risec::elevate::util
