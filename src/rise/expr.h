// RISE expressions: identifiers, lambdas, applications, dependent lambdas and
// applications, literals, primitives and foreign functions. Nodes are immutable and
// shared; every node keeps its source span, and after type inference every node
// carries its type. Rewriting builds new trees that share unchanged subtrees.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rise/type.h"
#include "support/diagnostics.h"

namespace risec::rise {

struct ExprNode;
using Expr = std::shared_ptr<const ExprNode>;
struct PrimitiveInfo;

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
};

// ---- constructors (span optional, type null) ----
Expr ident(const std::string& name, Span span = {});
Expr lambda(const std::string& param, Expr body, Type param_annot = nullptr, Span span = {});
Expr app(Expr fn, Expr arg, Span span = {});
Expr dep_lambda(Kind kind, const std::string& binder, Expr body, Span span = {});
Expr dep_app(Expr fn, TypeArg arg, Span span = {});
Expr literal(const Literal& lit, Span span = {});
Expr primitive(const std::string& name, Span span = {});  // internal error if unknown
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

bool is_prim(const Expr& e, const char* name);

// Structural equality up to renaming of bound variables (alpha equivalence);
// types are ignored.
bool alpha_equal(const Expr& a, const Expr& b);

// Free variables (lambda-bound identifiers not bound inside e).
std::vector<std::string> free_vars(const Expr& e);

// A fresh name based on `base` that does not occur in `avoid`.
std::string fresh_name(const std::string& base);

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
