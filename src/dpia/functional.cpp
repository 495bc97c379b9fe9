// From low-level RISE to functional DPIA (see functional.h): full application of
// primitives, beta-reduction of applied lambdas, unique binder names, and the
// inference and checking of read/write annotations.
#include "dpia/functional.h"

#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "dpia/address_spaces.h"
#include "dpia/name_supply.h"
#include "dpia/target.h"
#include "support/stack.h"

namespace risec::dpia {

using rise::Expr;
using rise::ExprKind;
using rise::TypeKind;

const char* access_name(Access a) {
  return a == Access::Rd ? "rd" : "wr";
}

PType exp_t(Type dt, Access a) {
  return std::make_shared<const PhraseType>(PhraseType{PhraseType::Exp, std::move(dt), a});
}
PType acc_t(Type dt) {
  return std::make_shared<const PhraseType>(PhraseType{PhraseType::Acc, std::move(dt)});
}
PType comm_t() {
  return std::make_shared<const PhraseType>(PhraseType{PhraseType::Comm});
}
PType fun_t(PType a, PType b) {
  PhraseType t{PhraseType::Fun};
  t.a = std::move(a);
  t.b = std::move(b);
  return std::make_shared<const PhraseType>(std::move(t));
}

std::string print(const PType& t) {
  switch (t->kind) {
    case PhraseType::Exp:
      return "exp[" + rise::print(t->dt) + ", " + access_name(t->access) + "]";
    case PhraseType::Acc:
      return "acc[" + rise::print(t->dt) + "]";
    case PhraseType::Comm:
      return "comm";
    case PhraseType::Fun:
      return "(" + print(t->a) + " -> " + print(t->b) + ")";
    case PhraseType::Pair:
      return "(" + print(t->a) + " x " + print(t->b) + ")";
  }
  return "?";
}

Space to_space(rise::AddrSpace a) {
  switch (a) {
    case rise::AddrSpace::Global:
      return Space::Global;
    case rise::AddrSpace::Local:
      return Space::Local;
    case rise::AddrSpace::Private:
      return Space::Private;
    case rise::AddrSpace::Constant:
      return Space::Constant;
  }
  return Space::Default;
}

const char* loop_kind_name(LoopKind k) {
  switch (k) {
    case LoopKind::None:
      return "none";
    case LoopKind::Seq:
      return "for";
    case LoopKind::SeqUnroll:
      return "forUnroll";
    case LoopKind::Par:
      return "parFor";
    case LoopKind::Global:
      return "parForGlobal";
    case LoopKind::WorkGroup:
      return "parForWorkGroup";
    case LoopKind::Local:
      return "parForLocal";
  }
  return "?";
}

const char* space_name(Space s) {
  switch (s) {
    case Space::Default:
      return "default";
    case Space::Global:
      return "Global";
    case Space::Local:
      return "Local";
    case Space::Private:
      return "Private";
    case Space::Constant:
      return "Constant";
  }
  return "?";
}

namespace {

enum class Cat {
  View,        // data layout; access of the result follows the arguments
  Scalar,      // computes on readable values; result readable
  Compute,     // produces an array that must be written (mapSeq, ...)
  Reduce,      // accumulates in memory; result readable
  Loop,        // iterateWhile: a state in memory, updated until it exits; result readable
  Memory,      // toMem, oclToMem: result readable
  Let,         // let: value stored, result as the body
  NotLowered,  // kMustLower: no translation (high level, or interpreter only)
};

// The category of a primitive, from its family and traits in the primitive table.
Cat category(const rise::PrimitiveInfo& p) {
  using rise::Family;
  if (p.has(rise::kMustLower)) return Cat::NotLowered;
  if (p.is(rise::PrimId::Id)) return Cat::View;  // id passes its argument through
  switch (p.family) {
    case Family::Map:  // a low-level map is a loop; the high-level map is read as a view
    case Family::Scan:
    case Family::Iterate:
      return p.computes_array() ? Cat::Compute : Cat::View;
    case Family::Reduce:
      return Cat::Reduce;
    case Family::Loop:
      return Cat::Loop;
    case Family::Memory:
      return p.is(rise::PrimId::Let) ? Cat::Let : Cat::Memory;
    case Family::Vector:
      return Cat::Scalar;
    default:
      return p.is_scalar() ? Cat::Scalar : Cat::View;  // views, pairs, arrays, sliding windows
  }
}

struct Binding {
  Phrase value;  // the term the name stands for (a Var, or a substituted readable term)
  // A let-bound lambda that takes a function (`let twice = fun(k => fun(x => k(k(x))))`)
  // is kept as written and converted anew at each application, with its arguments
  // bound, in the scope of the let: `depth` is how many bindings that scope had.
  Expr deferred;
  size_t depth = 0;
  mutable bool used = false;  // whether `value` was used once already (see `use`)
};

class Converter {
 public:
  explicit Converter(const Target& target) : target_(target) {}

  Phrase convert(const Expr& e) {
    reserve_names(names_, e);
    return conv(e);
  }

 private:
  const Target& target_;
  std::vector<std::pair<std::string, Binding>> env_;
  // Binders are renamed apart from each other and from every name of the program
  // (dpia/name_supply.h).
  NameSupply names_;
  Span near_;  // the innermost known span around the node being converted

  std::string fresh(const std::string& base) {
    std::string b = base;
    size_t cut = b.find("__");
    if (cut != std::string::npos) b = b.substr(0, cut);
    return names_.fresh(b + "_");
  }

  // A name as the source writes it (without the suffix rise::fresh_name adds).
  static std::string source_name(const std::string& name) {
    return name.substr(0, name.find("__"));
  }

  const Binding* lookup(const std::string& name) {
    for (auto it = env_.rbegin(); it != env_.rend(); ++it)
      if (it->first == name) return &it->second;
    return nullptr;
  }

  static Phrase make(PhraseNode n) { return std::make_shared<const PhraseNode>(std::move(n)); }

  Phrase var(const std::string& name, const Type& t, Access a, const Span& span) {
    PhraseNode n{PhraseNode::Var, span, t, exp_t(t, a)};
    n.name = name;
    return make(std::move(n));
  }

  // ------------------------------------------------------------ substitution
  static bool has_binder(const Phrase& f) {
    if (f->kind == PhraseNode::Lambda) return true;
    for (const Phrase& a : f->args)
      if (has_binder(a)) return true;
    return false;
  }

  // f with every lambda binder in it renamed to a fresh name. Every copy of a phrase
  // that binds names gets one (a let-bound function applied twice, an argument
  // substituted for a parameter used twice), so that binders stay unique in the
  // whole program: later passes key loop counters and views by binder name (issue:
  // `sm(sm(a))` with a with-loop in `sm` left `i_4` unbound).
  Phrase freshen(const Phrase& f) {
    if (!has_binder(f)) return f;
    std::map<std::string, std::string> renamed;
    return freshen(f, renamed);
  }
  Phrase freshen(const Phrase& f, std::map<std::string, std::string>& renamed) {
    if (f->kind == PhraseNode::Var) {
      auto it = renamed.find(f->name);
      if (it == renamed.end()) return f;
      PhraseNode n = *f;
      n.name = it->second;
      return make(std::move(n));
    }
    if (f->args.empty()) return f;
    PhraseNode n = *f;
    std::optional<std::pair<std::string, std::optional<std::string>>> saved;
    if (f->kind == PhraseNode::Lambda) {
      auto it = renamed.find(f->name);
      saved.emplace(f->name,
                    it == renamed.end() ? std::nullopt : std::optional<std::string>(it->second));
      n.name = fresh(f->display.empty() ? f->name : f->display);
      renamed[f->name] = n.name;
    }
    for (Phrase& a : n.args) a = freshen(a, renamed);
    if (saved) {
      if (saved->second)
        renamed[saved->first] = *saved->second;
      else
        renamed.erase(saved->first);
    }
    return make(std::move(n));
  }

  // The phrase a name stands for, at one of its uses: the second and later uses get
  // fresh binders.
  Phrase use(const Binding& b) {
    if (!b.used) {
      b.used = true;
      return b.value;
    }
    return freshen(b.value);
  }

  // Replace variable `name` by `value` in f (binders are unique, so no capture; each
  // copy of `value` after the first gets fresh binders).
  Phrase subst(const Phrase& f, const std::string& name, const Phrase& value) {
    bool first = true;
    return subst(f, name, value, has_binder(value), first);
  }
  Phrase subst(const Phrase& f, const std::string& name, const Phrase& value, bool binds,
               bool& first) {
    if (f->kind == PhraseNode::Var) {
      if (f->name != name) return f;
      if (!binds || first) {
        first = false;
        return value;
      }
      return freshen(value);
    }
    if (f->args.empty()) return f;
    bool changed = false;
    std::vector<Phrase> args;
    for (const Phrase& a : f->args) {
      Phrase s = subst(a, name, value, binds, first);
      changed |= s != a;
      args.push_back(s);
    }
    if (!changed) return f;
    PhraseNode n = *f;
    n.args = std::move(args);
    // Access may change when a wr value is substituted (it never is: only readable
    // values are substituted).
    return make(std::move(n));
  }

  // Apply a function phrase (a Lambda) to arguments by substitution.
  Phrase apply(const Phrase& fn, const std::vector<Phrase>& args, const Span& span) {
    Phrase cur = fn;
    for (const Phrase& a : args) {
      if (cur->kind != PhraseNode::Lambda)
        user_error("cannot compile this application: the function is not known statically", span);
      cur = subst(cur->body(), cur->name, a);
    }
    return cur;
  }

  // ------------------------------------------------------------ conversion
  // Not on ExprVisitor: it translates into DPIA phrases, application spines at once
  // (a primitive needs all its arguments).
  Phrase conv(const Expr& e) {
    check_stack_depth(e->span);
    // the innermost place known around what is converted, for errors at nodes a
    // strategy wrote without one
    Span outer = near_;
    if (e->span.known()) near_ = e->span;
    struct Restore {
      Span& s;
      Span v;
      ~Restore() { s = v; }
    } restore{near_, outer};
    switch (e->kind) {
      case ExprKind::Ident: {
        const Binding* b = lookup(e->name);
        if (!b) internal_error("unbound variable '" + e->name + "' in DPIA translation", e->span);
        if (Expr d = b->deferred) return in_scope_of(b->depth, [&] { return as_function(d); });
        return use(*b);
      }
      case ExprKind::Literal: {
        PhraseNode n{PhraseNode::Literal, e->span, e->type, exp_t(e->type, Access::Rd)};
        n.lit = e->lit;
        return make(std::move(n));
      }
      case ExprKind::Lambda:
        return lambda(e);
      case ExprKind::DepLambda: {
        PhraseNode n{PhraseNode::DepLambda, e->span, e->type, nullptr};
        n.name = e->name;
        n.args = {conv(e->fn)};
        n.ptype = n.args[0]->ptype;
        return make(std::move(n));
      }
      case ExprKind::Annotation:
        return conv(e->fn);
      default:
        return application(e);
    }
  }

  Phrase lambda(const Expr& e) {
    Type pt = e->type->a;
    std::string name = fresh(e->name);
    Phrase v = var(name, pt, Access::Rd, e->span);
    env_.push_back({e->name, Binding{v}});
    Phrase body = conv(e->fn);
    env_.pop_back();
    PhraseNode n{PhraseNode::Lambda, e->span, e->type, fun_t(exp_t(pt, Access::Rd), body->ptype)};
    n.name = name;
    n.display = e->name;
    n.args = {body};
    return make(std::move(n));
  }

  // Whether a function of type t takes a function among its (curried) parameters.
  static bool takes_function(const Type& t) {
    for (Type f = t; f && f->kind == TypeKind::Fun; f = f->b)
      if (f->a && (f->a->kind == TypeKind::Fun || f->a->kind == TypeKind::DepFun)) return true;
    return false;
  }

  // The binding of e when e names a deferred let-bound lambda, else null.
  const Binding* deferred_binding(const Expr& e) {
    if (e->kind != ExprKind::Ident) return nullptr;
    const Binding* b = lookup(e->name);
    return b && b->deferred ? b : nullptr;
  }

  // Runs `convert` with the first `depth` bindings only (those of a let's scope; the
  // ones made inside it hidden), as lexical scope wants, and restores them after.
  template <class F>
  Phrase in_scope_of(size_t depth, const F& convert) {
    std::vector<std::pair<std::string, Binding>> inner(
        env_.begin() + static_cast<std::ptrdiff_t>(depth), env_.end());
    env_.resize(depth);
    struct Back {
      std::vector<std::pair<std::string, Binding>>& env;
      std::vector<std::pair<std::string, Binding>>& inner;
      size_t depth;
      ~Back() {
        env.resize(depth);
        env.insert(env.end(), inner.begin(), inner.end());
      }
    } back{env_, inner, depth};
    return convert();
  }

  // A deferred let-bound lambda applied to `vargs`: the arguments are converted where
  // they stand, then the lambda's body with its parameters bound to them, in the scope
  // of the let (as (fun(k => ...))(a) is: a phrase substituted for its parameter).
  Phrase apply_deferred(Binding b, const std::vector<Expr>& vargs, const Span& span) {
    // Each argument as what its parameter is bound to: another deferred lambda passed
    // on (`app(twice)`) stays one, so that the body applies it to known functions.
    std::vector<Binding> args;
    for (const Expr& a : vargs) {
      if (const Binding* d = deferred_binding(a)) {
        args.push_back(*d);
        continue;
      }
      bool is_fn = a->type && (a->type->kind == TypeKind::Fun || a->type->kind == TypeKind::DepFun);
      args.push_back(Binding{is_fn ? as_function(a) : conv(a)});
    }
    size_t used = 0;
    Phrase result = in_scope_of(b.depth, [&] {
      Expr lam = b.deferred;
      size_t pushed = 0;
      while (used < args.size() && lam->kind == ExprKind::Lambda) {
        env_.push_back({lam->name, args[used]});
        lam = lam->fn;
        ++used;
        ++pushed;
      }
      Phrase body = lam->kind == ExprKind::Lambda ? lambda(lam) : conv(lam);
      env_.resize(env_.size() - pushed);
      return body;
    });
    if (used == args.size()) return result;
    std::vector<Phrase> more;
    for (size_t i = used; i < args.size(); ++i) {
      const Binding& a = args[i];
      more.push_back(a.deferred ? in_scope_of(a.depth, [&] { return as_function(a.deferred); })
                                : use(a));
    }
    return apply(result, more, span);
  }

  // A function argument as a Lambda phrase (eta-expanding partial applications).
  Phrase as_function(const Expr& e) {
    if (e->kind == ExprKind::Lambda) return lambda(e);
    if (e->kind == ExprKind::DepLambda) return conv(e);
    // Eta-expand: fun(x => e(x)) with as many parameters as e's type has arrows
    // (one is enough: a curried body is expanded recursively).
    if (!e->type || e->type->kind != TypeKind::Fun) user_error("expected a function here", e->span);
    // named after the function it stands for, which errors name
    std::string x = rise::fresh_name(e->kind == ExprKind::Ident ? e->name : "eta");
    Expr body = rise::with_type(
        rise::app(e, rise::with_type(rise::ident(x, e->span), e->type->a), e->span), e->type->b);
    Expr lam = rise::with_type(rise::lambda(x, body, nullptr, e->span), e->type);
    return lambda(lam);
  }

  Phrase application(const Expr& e) {
    rise::Spine sp = rise::spine(e);
    const Expr& head = sp.head;
    std::vector<rise::TypeArg> targs;
    std::vector<Expr> vargs;
    for (const auto& a : sp.args) {
      if (a.dep) {
        if (!vargs.empty())
          user_error("a type-level argument after value arguments is not supported here", e->span);
        targs.push_back(a.type_arg);
      } else {
        vargs.push_back(a.value);
      }
    }
    if (head->kind == ExprKind::Primitive && head->prim && head->prim->is(rise::PrimId::Let) &&
        vargs.size() >= 2 && vargs[1]->kind == ExprKind::Lambda && vargs[0]->type &&
        vargs[0]->type->kind == TypeKind::Fun) {
      // let(v)(fun(g => b)) of a function v (`let g = fun(x => x * 2.0f) in ...`):
      // nothing is stored; g stands for v's lambda in b, as in the redex
      // (fun(g => b))(v), so that g(x) applies a known lambda. A lambda taking a
      // function is converted where it is applied (its function parameters are known
      // there only), as a definition is inlined.
      if (const Binding* d = deferred_binding(vargs[0]))
        env_.push_back({vargs[1]->name, *d});  // another name for a deferred lambda
      else if (vargs[0]->kind == ExprKind::Lambda && takes_function(vargs[0]->type))
        env_.push_back({vargs[1]->name, Binding{nullptr, vargs[0], env_.size()}});
      else
        env_.push_back({vargs[1]->name, Binding{as_function(vargs[0])}});
      Phrase result = conv(vargs[1]->fn);
      env_.pop_back();
      if (vargs.size() == 2) return result;
      std::vector<Phrase> more;
      for (size_t i = 2; i < vargs.size(); ++i) more.push_back(conv(vargs[i]));
      return apply(result, more, e->span);
    }
    if (head->kind == ExprKind::Primitive) return primitive(e, head, targs, vargs);
    if (head->kind == ExprKind::Foreign) {
      const auto& f = *head->foreign;
      if (vargs.size() != f.params.size())
        user_error("foreign function '" + f.name + "' must be applied to all its arguments",
                   e->span);
      PhraseNode n{PhraseNode::Foreign, e->span, e->type, exp_t(e->type, Access::Rd)};
      n.name = f.name;
      n.foreign = head->foreign;
      for (const Expr& a : vargs)
        n.args.push_back(readable(conv(a), "the foreign function " + f.name));
      return make(std::move(n));
    }
    if (head->kind == ExprKind::Lambda) {
      // (fun(x => b))(a) ...: a readable argument is substituted; a value that must
      // be written is stored first (let).
      if (vargs.empty()) internal_error("lambda head without arguments", e->span);
      Expr rest = head->fn;
      Phrase result;
      if (const Binding* d = deferred_binding(vargs[0])) {
        // a deferred lambda passed on: the parameter is another name for it
        env_.push_back({head->name, *d});
        result = conv(rest);
        env_.pop_back();
      } else if (Phrase arg = conv(vargs[0]);
                 arg->access() == Access::Rd || arg->kind == PhraseNode::Lambda) {
        env_.push_back({head->name, Binding{arg}});
        result = conv(rest);
        env_.pop_back();
      } else {
        Phrase lam = lambda(head);
        PhraseNode n{PhraseNode::Prim, e->span,
                     lam->ptype->b->kind == PhraseType::Exp ? lam->body()->type : head->type->b};
        n.prim = &rise::primitive(rise::PrimId::Let);
        n.name = n.prim->name;
        n.args = {arg, lam};
        n.ptype = exp_t(n.type, lam->body()->access());
        result = make(std::move(n));
      }
      if (vargs.size() == 1) return result;
      if (result->kind != PhraseNode::Lambda)
        user_error("cannot compile this application: the function is not known statically",
                   e->span);
      std::vector<Phrase> more;
      for (size_t i = 1; i < vargs.size(); ++i) more.push_back(conv(vargs[i]));
      return apply(result, more, e->span);
    }
    if (head->kind == ExprKind::Ident) {
      const Binding* b = lookup(head->name);
      if (b && b->deferred) return apply_deferred(*b, vargs, e->span);  // a copy: env_ changes
      if (b && b->value->kind == PhraseNode::Lambda) {
        Phrase fn = use(*b);  // before converting the arguments, which may grow env_
        std::vector<Phrase> args;
        for (const Expr& a : vargs) args.push_back(conv(a));
        return apply(fn, args, e->span);
      }
      // A function parameter of a lambda that is not applied where it stands (a
      // let-bound `fun(k => ... k(x) ...)`): its argument is unknown here.
      if (b && b->value->kind == PhraseNode::Var)
        user_error("cannot compile this application: '" + source_name(head->name) +
                       "' is a parameter whose function is not known where the lambda is "
                       "compiled (a let-bound function that applies a function parameter "
                       "compiles where it is applied to its arguments, not when it is passed "
                       "on unapplied: bind it with def, whose uses are inlined)",
                   e->span);
    }
    user_error(
        "cannot compile this application: the function is not a primitive or a known "
        "lambda",
        e->span);
  }

  Phrase readable(const Phrase& f, const std::string& consumer) {
    if (f->kind == PhraseNode::Lambda || f->access() == Access::Rd) return f;
    std::string what = f->kind == PhraseNode::Prim ? f->name : "this value";
    throw Error(ErrorKind::User,
                "the result of " + what + " must be stored in memory before " + consumer +
                    " can read it: wrap it in toMem (strategy rule toMemAfter)",
                f->span);
  }

  // The lanes of a vector type inside `t` for which `bad` holds, if any.
  template <class Bad>
  static std::optional<int64_t> vector_lanes_where(const Type& t, const Bad& bad) {
    if (!t) return std::nullopt;
    switch (t->kind) {
      case TypeKind::Vector:
        if (auto n = t->size.as_const(); n && bad(*n)) return *n;
        return std::nullopt;
      case TypeKind::Array:
        return vector_lanes_where(t->a, bad);
      case TypeKind::Pair:
      case TypeKind::Fun:
        if (auto n = vector_lanes_where(t->a, bad)) return n;
        return vector_lanes_where(t->b, bad);
      case TypeKind::DepFun:
        return vector_lanes_where(t->b, bad);
      default:
        return std::nullopt;
    }
  }

  Phrase primitive(const Expr& e, const Expr& head, const std::vector<rise::TypeArg>& targs,
                   const std::vector<Expr>& vargs) {
    const std::string& name = head->name;
    const rise::PrimitiveInfo* info = head->prim;
    if (!info) internal_error("primitive " + name + " without a table row", head->span);
    int arity = info->is(rise::PrimId::MakeArray) ? head->count : info->arity;
    // Where an error about it points: a primitive a strategy wrote (lowerToC's mapSeq,
    // globalOutput's mapGlobal) may have no place of its own; the application's, or the
    // nearest one around it, says where.
    const Span& at = head->span.known() ? head->span : e->span.known() ? e->span : near_;
    // Parallel and OpenCL primitives must suit the target.
    // A scheduled one shows its schedule, an OpenMP clause as well.
    if (info->has(rise::kOpenMP) && !target_.runs(LoopKind::Par)) {
      // A loop a rule made from the `map` (or `reduce`) written here: the program is
      // fine, the strategy is one for OpenMP (one tuned with --target openmp, say).
      const std::string word = word_at(head->span);
      std::string msg =
          name +
          (head->schedule.is_default() ? std::string()
                                       : "(" + rise::schedule_text(head->schedule) + ")") +
          " needs the OpenMP target (--target openmp); the " + target_.name +
          (target_.runs(LoopKind::Global)
               ? (info->family == rise::Family::Reduce
                      ? " target has no parallel reduction: split it (splitStrategy) and run "
                        "its parts' reductions in a mapGlobal, or keep it sequential "
                        "(reduceSeq)"
                      : " target runs parallel maps as mapGlobal/mapWorkGroup/mapLocal")
           : !word.empty() && word != name
               ? " target has no parallel loops, and the strategy made this " + word +
                     " one: compile with --target openmp, or use a strategy for the " +
                     target_.name + " target (without parallel, mapPar or reducePar)"
               : " target runs sequentially (use mapSeq/reduceSeq)");
      user_error(msg, head->span);
    }
    // Software prefetching (the rule prefetch) is an instruction of the CPU targets.
    if (head->prefetch && target_.runs(LoopKind::Global))
      user_error(name + ": software prefetching (the strategy rule prefetch(" +
                     std::to_string(head->prefetch) + ")) is for the CPU targets (c, openmp); " +
                     "the " + target_.name + " target has no prefetch instruction: leave the " +
                     "step out of a strategy for it",
                 head->span.known() ? head->span : e->span);
    if (info->has(rise::kOpenCL) && !target_.runs(LoopKind::Global)) {
      // A GPU map a rule made (globalOutput, say) stands at the map it came from
      // (held-out H).
      const std::string word = word_at(head->span);
      user_error(name + " needs an OpenCL or CUDA target; the " + target_.name +
                     " target cannot run it" +
                     (!word.empty() && word != name
                          ? ", and the strategy made this " + word +
                                " one: compile with --target opencl or cuda, or use a strategy "
                                "for the " +
                                target_.name + " target"
                          : std::string()),
                 at);
    }
    // Vector types of any width exist on the C targets (padded to a power of two
    // lanes); OpenCL's have 2, 3, 4, 8 or 16 lanes, CUDA's 2 or 4.
    if (int most = target_.max_vector_lanes) {
      const bool cuda = target_.backend == Target::Backend::Cuda;
      auto no_type = [most, cuda](int64_t n) {
        const bool pow2 = n > 1 && (n & (n - 1)) == 0;
        return n > most || !(pow2 || (n == 3 && !cuda));
      };
      for (const Type& t : {e->type, head->type})
        if (auto lanes = vector_lanes_where(t, no_type))
          user_error(name + ": a vector of " + std::to_string(*lanes) +
                         " lanes cannot be compiled for " +
                         (cuda ? std::string("CUDA (its vector types have 2 or 4 lanes)")
                               : std::string("OpenCL (its vector types have 2, 3, 4, 8 or 16 "
                                             "lanes)")),
                     at);
    }
    Cat cat = category(*info);
    if (cat == Cat::NotLowered && info->has(rise::kHighLevel))
      user_error(name +
                     " has no implementation choice yet: lower it (reduceSeq, reducePar, ...), "
                     "for example with the strategy lowerToC",
                 head->span);
    if (cat == Cat::NotLowered)
      user_error(name + " cannot be compiled yet (only the interpreter runs it)", head->span);
    if (static_cast<int>(vargs.size()) < arity) {
      // Eta-expand the missing arguments.
      Expr full = e;
      Type t = e->type;
      std::vector<std::string> names;
      std::vector<Type> types;
      for (int i = static_cast<int>(vargs.size()); i < arity; ++i) {
        if (!t || t->kind != TypeKind::Fun) internal_error("primitive type too short", e->span);
        // named after the function it stands for, which errors name
        std::string x = rise::fresh_name(e->kind == ExprKind::Ident ? e->name : "eta");
        names.push_back(x);
        types.push_back(t->a);
        full =
            rise::with_type(rise::app(full, rise::with_type(rise::ident(x), t->a), e->span), t->b);
        t = t->b;
      }
      for (size_t i = names.size(); i-- > 0;) {
        Type ft = rise::fun(types[i], full->type);
        full = rise::with_type(rise::lambda(names[i], full, nullptr, e->span), ft);
      }
      return lambda(full);
    }
    if (static_cast<int>(vargs.size()) > arity)
      user_error("cannot compile " + name + " applied to more arguments than it takes", e->span);

    // The parameter types of the instantiated primitive tell which arguments are
    // functions.
    std::vector<Type> ptypes;
    Type t = head->type;
    for (int i = 0; i < arity && t && t->kind == TypeKind::Fun; ++i) {
      ptypes.push_back(t->a);
      t = t->b;
    }
    PhraseNode n{PhraseNode::Prim, e->span, e->type};
    n.name = name;
    n.prim = info;
    n.head_span = head->span;
    n.step = head->step;
    n.schedule = head->schedule;
    n.prefetch = head->prefetch;
    n.count = head->count;
    n.targs = targs;
    for (size_t i = 0; i < vargs.size(); ++i) {
      bool is_fn = i < ptypes.size() && !rise::is_data(ptypes[i]);
      n.args.push_back(is_fn ? as_function(vargs[i]) : conv(vargs[i]));
    }
    n.ptype = exp_t(e->type, result_access(n, cat));
    return make(std::move(n));
  }

  // The access of a primitive's result, checking its arguments' accesses.
  Access result_access(const PhraseNode& n, Cat cat) {
    auto data_args = [&]() {
      std::vector<Phrase> out;
      for (const Phrase& a : n.args)
        if (a->kind != PhraseNode::Lambda && a->kind != PhraseNode::DepLambda) out.push_back(a);
      return out;
    };
    switch (cat) {
      case Cat::Scalar:
        for (const Phrase& a : data_args()) readable(a, n.name);
        return Access::Rd;
      case Cat::Compute: {
        // The array input(s) must be readable; the function body may write. A map over
        // the windows of circularBuffer / rotateValues loads each element into the
        // rolling buffer itself (translate's `sliding`), so their load function may
        // compute.
        for (const Phrase& a : data_args()) {
          bool windows = n.prim->family == rise::Family::Map && a->kind == PhraseNode::Prim &&
                         a->prim->family == rise::Family::Sliding;
          if (!windows) readable(a, n.name);
        }
        return Access::Wr;
      }
      case Cat::Reduce: {
        // reduceSeq(f)(init)(x): init may be written into the accumulator; x is read.
        std::vector<Phrase> d = data_args();
        if (!d.empty()) readable(d.back(), n.name);
        return Access::Rd;
      }
      case Cat::Loop:  // the initial state is written into the state's memory
      case Cat::Memory:
        return Access::Rd;
      case Cat::Let:
        return n.args.size() > 1 ? n.args[1]->body()->access() : Access::Rd;
      case Cat::View: {
        Access acc = Access::Rd;
        for (const Phrase& a : n.args) {
          Access x = a->kind == PhraseNode::Lambda ? a->body()->access() : a->access();
          if (x == Access::Wr) acc = Access::Wr;
        }
        // A result that must be written can be when the row writes an argument
        // (its access column): through an acceptor (a destination view), into the
        // result's destination (makePair, generate, padClamp's interior, whose edges
        // are repeated from there), or into a buffer of its own (circularBuffer).
        if (acc == Access::Wr && !n.prim->writable()) {
          for (const Phrase& a : n.args) readable(a, n.name);
        }
        // A map view reads its input.
        if (n.prim->family == rise::Family::Map) readable(n.args.back(), n.name);
        return acc;
      }
      case Cat::NotLowered:
        break;
    }
    return Access::Rd;
  }
};

}  // namespace

Phrase from_rise(const rise::Expr& e, const Target& target) {
  Converter c(target);
  Phrase f = c.convert(e);
  check_address_spaces(f);
  return f;
}

void check(const Phrase& f) {
  switch (f->kind) {
    case PhraseNode::Var:
    case PhraseNode::Literal:
      if (!f->ptype || f->ptype->kind != PhraseType::Exp) internal_error("DPIA: untyped leaf");
      return;
    case PhraseNode::Lambda:
    case PhraseNode::DepLambda:
      check(f->body());
      return;
    case PhraseNode::Prim:
    case PhraseNode::Foreign:
      if (!f->ptype || f->ptype->kind != PhraseType::Exp)
        internal_error("DPIA: primitive " + f->name + " without an expression type");
      for (const Phrase& a : f->args) check(a);
      return;
  }
}

}  // namespace risec::dpia
