// RISE expressions: identifiers, lambdas, applications, dependent lambdas and
// applications, literals, primitives and foreign functions. Nodes are immutable and
// shared; every node keeps its source span, and after type inference every node
// carries its type. Rewriting builds new trees that share unchanged subtrees.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rise/par_schedule.h"
#include "rise/type.h"
#include "support/diagnostics.h"

namespace risec::rise {

struct ExprNode;
using Expr = std::shared_ptr<const ExprNode>;
struct PrimitiveInfo;
enum class PrimId : uint8_t;

enum class ExprKind {
  Ident,       // a variable bound by a lambda (or, before resolution, a definition)
  Lambda,      // fun(name => body)
  App,         // fn(arg)
  DepLambda,   // depFun(name: kind => body)
  DepApp,      // fn(type-level argument)
  Literal,     // a scalar, index or natType constant
  Primitive,   // a primitive of the table (rise/primitives.h)
  Foreign,     // a user `foreign def` function
  Annotation,  // expr : type (removed by type inference)
};

enum class LitKind {
  Int,     // an integer literal whose type comes from context (i32 by default)
  Scalar,  // a literal of a fixed scalar type
  Index,   // lidx(i, n): an index of type idx[n]
  NatVal,  // a Nat as a run-time value (natType)
};

struct Literal {
  LitKind kind = LitKind::Int;
  ScalarKind scalar = ScalarKind::I32;  // Scalar (and Int once its type is known)
  // The value: integers (and bools) in `i`, floating point in `f`.
  int64_t i = 0;
  double f = 0.0;
  Nat nat;   // Index: the value; NatVal: the value
  Nat size;  // Index: n of idx[n]
  // Scalar: `inf`, `-inf` and `nan`, whose floating-point type (f64 by default) comes
  // from context; inference sets `scalar`.
  bool float_from_context = false;
  // Scalar bool: the false/true of `a && b` and `a || b`, which is a mask of all-false
  // (all-true) lanes when a is a vector mask (inference makes it a vectorFromScalar).
  // On the select primitive of `a && b` and `a || b`: a bool operand b is broadcast
  // when a is a mask.
  bool mask_from_context = false;
  // NatVal: the size as a number of a scalar type (natAsScalar), not natType.
  bool scalar_value = false;
  // NatVal: what its being a natural number means, in the words of the with-loop
  // that wrote it (withloop.cpp); empty: "this natType value".
  std::string why;
};

struct ForeignFun {
  std::string name;
  std::vector<std::string> params;
  std::vector<Type> param_types;
  Type result;
  std::string body;  // C function body, braces included
  Span span;
};

struct ExprNode {
  ExprKind kind;
  Span span;
  Type type;  // null before inference

  std::string name;              // Ident, Lambda/DepLambda binder, Primitive, Foreign
  Kind binder_kind = Kind::Nat;  // DepLambda
  Type annot;                    // Lambda: optional parameter annotation; Annotation: the type
  Expr fn;                       // App, DepApp: the function; Lambda/DepLambda/Annotation: body
  Expr arg;                      // App: the argument
  TypeArg type_arg;              // DepApp: the type-level argument
  Literal lit;                   // Literal
  const PrimitiveInfo* prim = nullptr;        // Primitive
  int count = 0;                              // Primitive makeArray: number of elements
  std::shared_ptr<const ForeignFun> foreign;  // Foreign
  // Primitive: the strategy step (a call in a .elv file) whose rewrite introduced it,
  // when a strategy made it (elevate/strategy.h, Env::step); unknown for what the
  // program spells. Errors about what the primitive does (a parallel loop's writes,
  // dpia/disjoint_check.h) name this step besides the primitive's place.
  Span step;
  // Primitive mapPar or reducePar: its OpenMP schedule (ompSchedule); the default for
  // every other node.
  ParSchedule schedule;
  // Primitive reduceSeq: bytes ahead at which each iteration of its loop prefetches
  // the streams it reads (the strategy rule prefetch; docs/codegen.md, "Software
  // prefetching"); 0, none, on every other node.
  int64_t prefetch = 0;
  // The quotients of the size expressions the parser read just before this node (a
  // type written on a binder, before its body's first node), each at its `/`: `/` on
  // sizes is exact, and the quotient must be whole even where the expression simplifies
  // it away (n/2*2 is n, and needs 2 to divide n). Inference makes each a side condition.
  std::vector<std::pair<Nat, Span>> size_quotients;
};

// ---- constructors (span optional, type null) ----
Expr ident(const std::string& name, Span span = {});
Expr lambda(const std::string& param, Expr body, Type param_annot = nullptr, Span span = {});
Expr app(Expr fn, Expr arg, Span span = {});
Expr dep_lambda(Kind kind, const std::string& binder, Expr body, Span span = {});
Expr dep_app(Expr fn, TypeArg arg, Span span = {});
Expr literal(const Literal& lit, Span span = {});
// The primitive `id` of the table (rise/primitives.h). Primitives are named by PrimId
// past the parser: a name from text is looked up with find_primitive first.
Expr prim_expr(PrimId id, Span span = {});
Expr make_array_prim(int count, Span span = {});
Expr foreign(std::shared_ptr<const ForeignFun> f, Span span = {});
Expr annotation(Expr e, Type t, Span span = {});

// Literals
Expr int_lit(int64_t v, Span span = {});  // context-typed integer
Expr f32_lit(double v, Span span = {});
Expr f64_lit(double v, Span span = {});
Expr scalar_lit(ScalarKind k, int64_t i, double f, Span span = {});
Expr bool_lit(bool b, Span span = {});

// A copy of `e` with a new type (same children).
Expr with_type(const Expr& e, Type t);
// A copy of `e` with new children (fn/arg), keeping everything else.
Expr with_children(const Expr& e, Expr fn, Expr arg);
// A copy of e (a primitive) with ExprNode::step set.
Expr with_step(const Expr& e, Span step);
// A copy of e (a primitive) with ExprNode::schedule set.
Expr with_schedule(const Expr& e, ParSchedule schedule);
// A copy of e (a primitive) with ExprNode::prefetch set.
Expr with_prefetch(const Expr& e, int64_t bytes);

// Application of a function to several arguments: f(a)(b)(c).
Expr apps(Expr fn, const std::vector<Expr>& args);
// Flatten `f(a)(b)` (App and DepApp) into its head and arguments in order.
struct Spine {
  Expr head;
  struct Arg {
    bool dep;    // DepApp argument
    Expr value;  // App argument
    TypeArg type_arg;
    const ExprNode* node;  // the application node
  };
  std::vector<Arg> args;
};
Spine spine(const Expr& e);

// e is the primitive `id` (a Primitive node of that row).
bool is_prim(const Expr& e, PrimId id);
// Whether e has one of the primitives `ids` anywhere (itself or below).
bool has_prim(const Expr& e, std::initializer_list<PrimId> ids);

// Structural equality up to renaming of bound variables (alpha equivalence);
// types are ignored.
bool alpha_equal(const Expr& a, const Expr& b);

// Free variables (lambda-bound identifiers not bound inside e).
std::vector<std::string> free_vars(const Expr& e);
// Whether `name` occurs free in e (stops at the first occurrence).
bool occurs_free(const std::string& name, const Expr& e);

// A fresh name based on `base` that does not occur in `avoid`.
std::string fresh_name(const std::string& base);

// The name of the identifier e as the user wrote it, for messages: the source text at
// its span when that is a name (a with-loop's index `i` renamed `i__3` keeps the
// span of the `i` written), else e->name without a fresh_name suffix.
std::string written_name(const Expr& e);

// ---- traversal ----
//
// The one structural traversal of RISE expressions. A node's children are its
// sub-expressions: the body of a Lambda, DepLambda or Annotation, the function of a
// DepApp, the function and then the argument of an App; Ident, Literal, Primitive and
// Foreign are leaves. Passes that rewrite expressions derive from ExprMutator and
// analyses from ExprVisitor, overriding only the node kinds they treat specially;
// binders, types and dependent arguments stay the business of the pass.

// The children of e, in order.
std::vector<Expr> children(const Expr& e);
// e with its children replaced by `kids` (as many, in the order of children(e)),
// keeping everything else; e itself when every child is the same node.
Expr rebuild(const Expr& e, const std::vector<Expr>& kids);
// The same with the children given directly (`arg` is ignored but for an App).
Expr rebuild(const Expr& e, Expr fn, Expr arg);

// Rewrites an expression bottom-up. mutate() dispatches on the node's kind; the
// default for each kind mutates the children and rebuilds the node only when one of
// them changed (so an unchanged tree comes back as the same object). A pass
// overrides the kinds it changes and calls mutate_children (or the base method) for
// the parts it leaves to the default.
class ExprMutator {
 public:
  virtual ~ExprMutator() = default;
  virtual Expr mutate(const Expr& e);

 protected:
  Expr mutate_children(const Expr& e);

  virtual Expr visit_ident(const Expr& e) { return e; }
  virtual Expr visit_lambda(const Expr& e) { return mutate_children(e); }
  virtual Expr visit_app(const Expr& e) { return mutate_children(e); }
  virtual Expr visit_dep_lambda(const Expr& e) { return mutate_children(e); }
  virtual Expr visit_dep_app(const Expr& e) { return mutate_children(e); }
  virtual Expr visit_literal(const Expr& e) { return e; }
  virtual Expr visit_primitive(const Expr& e) { return e; }
  virtual Expr visit_foreign(const Expr& e) { return e; }
  virtual Expr visit_annotation(const Expr& e) { return mutate_children(e); }
};

// Walks an expression without changing it, in the same way: visit() dispatches on
// the kind and the default for each kind visits the children in order.
class ExprVisitor {
 public:
  virtual ~ExprVisitor() = default;
  virtual void visit(const Expr& e);

 protected:
  void visit_children(const Expr& e);

  virtual void visit_ident(const Expr&) {}
  virtual void visit_lambda(const Expr& e) { visit_children(e); }
  virtual void visit_app(const Expr& e) { visit_children(e); }
  virtual void visit_dep_lambda(const Expr& e) { visit_children(e); }
  virtual void visit_dep_app(const Expr& e) { visit_children(e); }
  virtual void visit_literal(const Expr&) {}
  virtual void visit_primitive(const Expr&) {}
  virtual void visit_foreign(const Expr&) {}
  virtual void visit_annotation(const Expr& e) { visit_children(e); }
};

// Calls f on e and on its sub-expressions in pre-order; f returns whether to go on
// into the children of the node it was given.
void for_each_subexpr(const Expr& e, const std::function<bool(const Expr&)>& f);
// Whether p holds for e or one of its sub-expressions (pre-order; stops at the first).
bool any_subexpr(const Expr& e, const std::function<bool(const Expr&)>& p);

// ---- programs ----
struct Definition {
  std::string name;
  Span span;   // the name
  Type annot;  // optional `def f : T = ...`
  Expr body;   // null for foreign definitions
  std::shared_ptr<const ForeignFun> foreign;
};

struct Program {
  SourceRef source;
  std::vector<Definition> defs;
  const Definition* find(const std::string& name) const;
};

}  // namespace risec::rise
