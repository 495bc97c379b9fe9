// Type inference's internals (see infer.h and the overview at the top of infer.cpp),
// shared by its two files:
//   infer.cpp        the expression walk: scopes, type-level arguments, expressions,
//                    index arithmetic, and the entry points
//   infer_solve.cpp  metas and their solution: unification of types and sizes,
//                    postponed size equations, bool/mask polymorphism, defaults for
//                    literals, the final substitution and the side conditions
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "rise/check.h"
#include "rise/infer.h"
#include "rise/lexer.h"
#include "rise/primitives.h"
#include "rise/withloop.h"
#include "support/stack.h"

namespace risec::rise::infer_impl {

// An integer literal without a suffix takes its type from the context (`x + 300`
// with x: u8); a value that type cannot hold is an error at the literal, as a
// suffixed one is (`300u8`), not a silent wrap. Floating-point contexts take any.
inline void check_int_literal_fits(int64_t v, ScalarKind k, Span span) {
  if (!is_integer(k)) return;
  const int bits = scalar_bits(k);
  if (bits >= 64 && is_signed_int(k)) return;  // parsed as an int64_t already
  bool fits;
  if (is_unsigned_int(k))
    fits = v >= 0 && (bits >= 64 || v <= (int64_t{1} << bits) - 1);
  else
    fits = v >= -(int64_t{1} << (bits - 1)) && v <= (int64_t{1} << (bits - 1)) - 1;
  if (!fits)
    user_error("integer literal " + std::to_string(v) + " does not fit in " + scalar_name(k) +
                   ", the type its context gives it",
               span);
}

inline bool is_meta_name(const std::string& n) {
  return !n.empty() && n[0] == '?';
}

struct Ctx {
  Span span;
  Type expected;
  Type found;
  std::string what;  // "in the argument of map", ...
};

struct Postponed {
  Nat a, b;
  Ctx ctx;
};

struct PendingCondition {
  arith::Divisibility d;
  std::string prim;
  Span span;
};

// A size the checker solved for, which must not be negative.
struct PendingNonNegative {
  Nat value;
  std::string prim;
  Span span;
};

// A primitive that is polymorphic over bool and vector masks (vec[bool, n]), solved
// once the types around it are known:
//   Compare: t -> t -> mask, mask = bool, or vec[bool, n] when t = vec[s, n];
//   Mask:    mask is bool or vec[bool, n] (not, and the false/true of && and ||);
//   Select:  mask -> t -> t -> t, mask = bool (any t), or vec[bool, n] when t is a
//            vector of n lanes (or pairs of such), chosen lane-wise;
//   Broadcast: an operand of && or || (its type `operand`) in its slot (`slot`), with
//            the operator's condition `mask`: a bool broadcast to vec[bool, n] when the
//            condition is a mask, the operand's own type otherwise.
struct MaskUse {
  enum Kind { Compare, Mask, Select, Broadcast } kind;
  Type operand;  // Compare: t; Select: t; Broadcast: the operand's type
  Type mask;
  Span span;
  std::string what;
  Type slot = nullptr;  // Broadcast
};

struct IntLit {
  std::string meta;
  int64_t value;
  Span span;
  Nat nat = Nat(0);  // nat_values_: the size
};

class Inferer {
 public:
  explicit Inferer(const SizeMap* sizes) : sizes_(sizes) {}
  bool closed = false;  // a whole program: every size name written is bound in it

  Checked run(const Expr& e, const std::vector<std::pair<std::string, Type>>* vars = nullptr,
              const Type& expected = nullptr);

 private:
  const SizeMap* sizes_;
  int counter_ = 0;
  // The solution, kept triangular: a bound value may mention names bound after it,
  // and zonk resolves them, storing each resolved value back so that it is resolved
  // once. Binding is then constant time; rewriting every earlier value at each
  // binding made checking quadratic in the length of the program (a chain of 2,000
  // maps took seconds).
  std::unordered_map<std::string, Type> datas_;
  std::unordered_map<std::string, Nat> nats_;
  std::vector<std::pair<std::string, Addr>> addrs_;
  // Bindings being resolved: a value that mentions its own name stays unresolved
  // there instead of looping.
  std::unordered_set<std::string> resolving_;
  std::vector<Postponed> postponed_;
  bool final_solve_ = false;  // solve_postponed(true) running: quotients are bound
  std::vector<PendingCondition> conditions_;
  std::vector<PendingNonNegative> nonneg_;
  std::vector<IntLit> int_lits_;
  std::vector<MaskUse> masks_;
  std::vector<IntLit> float_lits_;  // inf and nan: f32 or f64 from context
  std::vector<IntLit> nat_values_;  // sizes used as values: a number type or natType
  // The metas of integer literals, each with the span of a literal it types.
  std::map<std::string, Span> int_metas_;
  std::set<std::string> used_binders_;
  // Type-level names in scope: source name -> (kind, argument).
  std::vector<std::tuple<std::string, Kind, TypeArg>> tl_env_;
  // Value names in scope.
  std::vector<std::pair<std::string, Type>> env_;
  // Re-inferring a checked term (after a rewrite): each application's type from the
  // earlier check, a fallback for what the term alone leaves open once written
  // annotations are gone (cast(cast(x) : natType), (generate(f) : n.f32)).
  std::vector<std::pair<Type, Type>> earlier_types_;
  // Size names that mean the same in the earlier check and in this one: the term's
  // size binders that kept their names, and the sizes in the context's types.
  std::set<std::string> stable_sizes_;
  void record_earlier_type(const Expr& before, const Expr& after);
  // The primitive whose implicit sizes the metas numbered first..last instantiate (in
  // increasing, disjoint ranges, as they are made): a divisibility found while solving
  // for such a size is that primitive's (asVector's 8 | m), wherever the equation is
  // met (the argument of the map around it). Kept as ranges, looked up only when a
  // divisibility is found: inference runs on every rewrite.
  struct MetaOrigin {
    int first, last;
    Expr head;
  };
  std::vector<MetaOrigin> meta_origins_;
  void note_origins(int before, const Expr& head);
  const ExprNode* meta_origin(const std::string& meta) const;
  void use_earlier_types();
  // What a unification may change (bindings, postponed equations, conditions): an
  // attempt that fails halfway (use_earlier_types) is undone by restoring it.
  struct Solution {
    std::unordered_map<std::string, Type> datas;
    std::unordered_map<std::string, Nat> nats;
    std::vector<std::pair<std::string, Addr>> addrs;
    std::vector<Postponed> postponed;
    std::vector<PendingCondition> conditions;
    std::vector<PendingNonNegative> nonneg;
    std::vector<MaskUse> masks;
  };
  Solution save_solution() const;
  void restore_solution(Solution saved);
  // Unit tests of what inference keeps (tests/rise/infer_rollback_test.cpp).
  friend struct InferTestAccess;

  // ---------------------------------------------------------------- metas
  std::string fresh(const char* prefix);
  Type fresh_data() { return data_var(fresh("t")); }
  Nat fresh_nat() { return Nat::var(fresh("n")); }

  TypeArg fresh_arg(Kind k);

  // The type with every bound name replaced by its resolved value (names bound by a
  // depFun inside the type excepted).
  Type zonk(const Type& t);
  Nat zonk(const Nat& n);
  TypeArg zonk(const TypeArg& a);

  static bool shadowed(const std::vector<std::string>& bound, const std::string& name);

  Nat zonk_in(const Nat& n, const std::vector<std::string>& bound);

  Type zonk_in(const Type& t, std::vector<std::string>& bound);

  Type instantiate_implicits(Type t);

  // ---------------------------------------------------------------- messages
  // Types for messages: metas print as `_`.
  std::string show(const Type& t);

  [[noreturn]] void mismatch(const Ctx& ctx, const std::string& extra = "");

  // ---------------------------------------------------------------- binding
  void bind_nat(const std::string& name, const Nat& value) { nats_[name] = value; }

  void bind_data(const std::string& name, const Type& value, const Ctx& ctx);

  void bind_addr(const std::string& name, const Addr& value);

  // ---------------------------------------------------------------- unification
  void unify(const Type& a0, const Type& b0, const Ctx& ctx);

  void unify_nat(const Nat& a0, const Nat& b0, const Ctx& ctx);

  // A hint for an unsatisfiable linear equation c*u + r = 0 with constants.
  std::optional<std::string> arith_linear(const Nat& d, const Nat& var);

  void solve_postponed(bool final);

  std::string show_nat(const Nat& n);

  // ---------------------------------------------------------------- masks
  bool is_meta(const Type& t) { return t->kind == TypeKind::Var && is_meta_name(t->name); }

  // The type of a comparison, not, select (or a && / || literal) with its bool
  // replaced by a mask to be solved (MaskUse).
  Type mask_polymorphic(const PrimitiveInfo& p, const Type& inst, const Span& span);

  void solve_masks(bool final);

  // Whether t is a vector of `lanes` lanes or pairs of such (what a mask selects).
  void require_lanes(const Type& t0, const Nat& lanes, const MaskUse& u);

  bool solve_mask(const MaskUse& u, bool final);

  // ---------------------------------------------------------------- scopes
  // The type-level names in scope, for the types written in the program: their
  // values come from outside those types, so binders there must not capture them.
  TypeSubst tl_subst();

  const std::tuple<std::string, Kind, TypeArg>* find_tl(const std::string& name);

  const Type* find_value(const std::string& name);

  // A type written in the program, with the type-level names in scope substituted.
  // Its dependent binders are renamed where a depFun binder already has their name:
  // specialising that depFun (n := k) substitutes into this type, where a binder
  // named k would capture it ((k: Nat) -> n.k.f32 must not become (k: Nat) ->
  // k.k.f32).
  // Its sizes' divisions are exact (spec: `/` on sizes): the divisibility they need is
  // a side condition, located at `span` (n/2 with --size n=9 is an error there).
  Type written_type(const Type& annot, const Span& span,
                    const std::string& what = "in the type written here");
  TypeArg written_type(const TypeArg& a, const Span& span);
  // Every size name of a type written in the program is bound: by a depFun around it
  // or by a binder of the type itself ((k: Nat) -> k.f32). A name bound nowhere
  // (fun(x: k.f32 => x) with no k in scope) would be an unknown size that nothing
  // ever fixes.
  void require_bound_names(const Type& t, const Span& span);
  void require_bound_names(const Nat& n, const Span& span);
  // A size must be at least `least` (0 for array lengths and index ranges, 1 for the
  // lanes of a vector): a constant is decided now, a symbolic one becomes a side
  // condition (size - least >= 0) checked with the sizes (--size, or on entry of
  // generic code).
  void require_size(const Nat& n, int64_t least, const std::string& what, const Span& span);
  void require_whole_sizes(const Type& t, const Span& span, const std::string& what);
  // A size with fractional coefficients (n/2 is (1/2)*n) must be a whole number: the
  // least common denominator d divides d * n.
  void require_whole(const Nat& n, const std::string& what, const Span& span);
  Type separate_binders(const Type& t);

  std::string unique_binder(const std::string& name);

  // ---------------------------------------------------------------- type-level arguments
  Nat expr_to_nat(const Expr& e, const std::string& who);

  TypeArg expr_to_arg(const Expr& e, Kind kind, const std::string& who);

  static std::string head_name(const Expr& e);

  // Whether the head of e is a primitive the with-loop desugaring wrote.
  static bool from_with_loop(const Expr& e) {
    const Expr& h = spine(e).head;
    return h->kind == ExprKind::Primitive && written_by_with_loop(h->span);
  }

  // ---------------------------------------------------------------- expressions
  Expr typed(const Expr& e, Type t, Expr fn = nullptr, Expr arg = nullptr);

  // The entry: leading depFuns whose binder has a size in --size are applied.
  Expr infer_top(const Expr& e);

  // Type inference proper, not on ExprMutator: each kind has its own rule, the
  // environment grows at binders, and children are inferred in a rule-specific order.
  Expr infer(const Expr& e);

  bool kind_matches(const TypeArg& a, Kind k);

  Expr dep_apply(const Expr& e, const Expr& f, const Type& tf, const TypeArg& arg);

  // A size where a value is expected: its value, as the number type the context
  // needs (natType when nothing decides).
  Expr size_value(const Expr& e, const Nat& value);

  Expr infer_app(const Expr& e);

  // ---------------------------------------------------------------- index arithmetic
  // x[v] with v a natType (a with-loop index name, or arithmetic on one): v becomes
  // natAsIndex(n)(v) for the n of x, and check_index_arithmetic proves it in bounds.
  struct IndexCheck {
    Expr value;
    Nat size;
    Span span;
  };
  std::vector<IndexCheck> index_checks_;
  // Lambda binders in scope with the argument of the redex they belong to (or null),
  // and the identifiers typed under them: index arithmetic sees through redexes.
  Expr redex_arg_;
  std::vector<std::pair<std::string, Expr>> known_values_;
  std::unordered_map<const ExprNode*, Expr> ident_values_;

  Expr broadcast_logic_operand(const Expr& f, const Expr& a, const Span& span);
  Expr index_from_nat(const Expr& v, const Nat& size, const Span& span);

  // The value of index arithmetic as a term: numbers, sizes, indexAsNat of an index
  // variable (ranging over its idx[n]) and + - * of those.
  std::optional<Nat> symbolic_nat(const Expr& e, std::map<std::string, Nat>& vars);

  void check_index_arithmetic();

  // ---------------------------------------------------------------- finishing
  void default_nat_values();

  void default_float_literals();

  void default_int_literals();

  // An index literal `value` of type idx[size] must be below `size`.
  void require_index_in_range(int64_t value, const Nat& size, const Span& span);

  // `what` (a constant `value`) must be below `size`, the bound of `range(size)`. A
  // constant size is decided now; a symbolic one becomes the side condition
  // size - value - 1 >= 0, like the length a `take` needs: --size values that violate
  // it are refused before anything runs, and generic code checks it on entry.
  void require_below(int64_t value, const Nat& size0, const std::string& what,
                     const std::function<std::string(const std::string&)>& range, const Span& span);

  // lane(i) applied to a vec[t, n]: i is a constant below n.
  void check_lane(const Expr& e, const Nat& i0, const Type& fn_type);
  // Arithmetic and math (typed {t: Data} -> t -> ...) take scalars, vectors (lane-wise),
  // indices and natType values, not arrays or pairs.
  void check_operands(const Expr& e, const Type& type);
  // asVector/asScalar of masks (vec[bool, n]), which live in registers only.
  void check_mask_memory(const Expr& e, const Type& type);

  bool has_meta(const Type& t);

  // Not on ExprMutator: every node is copied (its type zonked) even where its
  // children do not change, and a primitive's dependent applications are retyped
  // together with their spine.
  Expr finalize(const Expr& e);

  void check_conditions(Checked& c);
};

}  // namespace risec::rise::infer_impl
