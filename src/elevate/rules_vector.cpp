// Vectorisation (family "vector"): vectorize(n) turns a map over scalars into a map
// over SIMD vectors of n lanes,
//
//   map(f)(x)  ->  asScalar(map(f')(asVector(n)(x)))
//
// where f' is f lifted to vec[t, n]: scalar primitives and built-in math apply
// lane-wise (the interpreter and code generation support them on vectors), and every
// scalar subterm that does not depend on the lanes (a literal, a variable from
// outside, A[i][k] in a matrix product) is computed once and broadcast with
// vectorFromScalar. Arrays of pairs of scalars (zips) are vectorised component-wise:
// zip(a)(b) becomes zip(asVector(n)(a))(asVector(n)(b)), other arrays of pairs go
// through unzip. The rule matches map(f) applied to data (reached by
// innermost(isFullyApplied(isMap))) or not (outermost(isApplied(isMap))); it fails
// with the reason when the elements or the result are not scalars, when f cannot be
// lifted (it indexes arrays, reduces, compares, casts or calls a foreign function on
// the lanes) or when n does not divide the length. Lane order and values are
// unchanged, so the rewrite preserves the semantics exactly.
#include <functional>
#include <optional>
#include <set>

#include "elevate/library.h"
#include "elevate/rule_util.h"
#include "rise/infer.h"
#include "rise/primitives.h"
#include "rise/printer.h"
#include "support/cpu.h"

namespace risec::elevate {

using rise::ExprKind;
using rise::Nat;
using rise::PrimId;
using rise::TypeKind;
using util::call;

namespace {

bool lane_scalar(const Type& t) {
  return t && t->kind == TypeKind::Scalar && t->scalar != rise::ScalarKind::Bool;
}

// Whether a bool is among the scalars of t (vectors of bool are not supported).
bool has_bool(const Type& t) {
  if (!t) return false;
  if (t->kind == TypeKind::Scalar) return t->scalar == rise::ScalarKind::Bool;
  return t->kind == TypeKind::Pair && (has_bool(t->a) || has_bool(t->b));
}

// A scalar or a (nested) pair of scalars.
bool scalar_tree(const Type& t) {
  if (lane_scalar(t)) return true;
  return t && t->kind == TypeKind::Pair && scalar_tree(t->a) && scalar_tree(t->b);
}

// A scalar tree type with every scalar a vector of n lanes (nullptr for other types).
Type lane_type(const Type& t, int64_t n) {
  if (!t) return nullptr;
  if (t->kind == TypeKind::Scalar) return rise::vector_of(t, Nat(n));
  if (t->kind != TypeKind::Pair) return nullptr;
  Type a = lane_type(t->a, n), b = lane_type(t->b, n);
  return a && b ? rise::pair(a, b) : nullptr;
}

// The parameter type of a typed function (nullptr when unknown).
Type param_type(const Expr& f) {
  return f->type && f->type->kind == TypeKind::Fun ? f->type->a : nullptr;
}

// Integer division and modulo in a branch of a blend run in every lane, also in those
// the mask does not choose, where the scalar program never divides: the divisor d of
// each becomes select(c)(d)(1) in the branch taken when c is `when` (select(c)(1)(d) in
// the other), d in the lanes that keep the branch and a harmless 1 in the others. The
// scalar meaning is unchanged (where the branch is taken, c is `when`), so vector code
// fails exactly where the scalar program does. A binder inside the branch that hides a
// variable of c stops the guard there (c would mean something else below it).
Expr guard_divisions(const Expr& branch, const Expr& c, bool when) {
  struct Guard : rise::ExprMutator {
    Expr c;
    bool when = true;
    std::set<std::string> c_vars;
    Expr visit_lambda(const Expr& e) override {
      return c_vars.count(e->name) ? e : mutate_children(e);
    }
    Expr visit_app(const Expr& e) override {
      Expr r = mutate_children(e);
      auto d = util::as_prim_call(r);
      const Type& t = r->type;
      if (!d || (!d->is(PrimId::Div) && !d->is(PrimId::Mod)) || d->args.size() != 2 || !t ||
          t->kind != TypeKind::Scalar || !rise::is_integer(t->scalar))
        return r;
      const Expr& divisor = d->args[1];
      if (auto v = util::literal_value(divisor); v && *v != 0 && *v != -1) return r;
      Expr one = rise::with_type(rise::scalar_lit(t->scalar, 1, 1.0), t);
      Expr chosen =
          rise::with_type(call(PrimId::Select, {c, when ? divisor : one, when ? one : divisor}), t);
      return rise::with_type(rise::with_children(r, r->fn, chosen), t);
    }
  } guard;
  guard.c = c;
  guard.when = when;
  for (const std::string& v : rise::free_vars(c)) guard.c_vars.insert(v);
  return guard.mutate(branch);
}

// f lifted from scalars to vectors of lanes. Every lambda whose parameter becomes lanes
// is annotated with the parameter's vector type, and so is every broadcast: the widths
// of values that never meet a lane (a part of a reduction's state, of a let-bound pair
// or of the result that is the same in every lane) are then written in the program,
// and every later rule re-infers them (annotations of lambdas are kept by inference).
class Lifter {
 public:
  // `arrays`: a lane may also be an array (of arrays) of scalars, each entry a vector
  // of n lanes (vectorizeWindows: a stencil's window, entry k of the window of lane l
  // being entry k of the l-th window); indexing it, views of it, maps and reductions
  // over it are then lifted entry-wise.
  explicit Lifter(int64_t n, bool arrays = false) : n_(n), arrays_(arrays) {}
  std::string why;

  Expr lift_fn(const Expr& f) {
    if (f->kind == ExprKind::Lambda) {
      lanes_.insert(f->name);
      Expr b = lift(f->fn);
      return b ? lane_lambda(f->name, param_type(f), b) : nullptr;
    }
    std::string x = rise::fresh_name("x");
    lanes_.insert(x);
    Expr b = lift(rise::app(f, rise::ident(x)));
    return b ? lane_lambda(x, param_type(f), b) : nullptr;
  }

 private:
  int64_t n_;  // the lanes
  bool arrays_;
  std::set<std::string> lanes_;

  // The type of a lane holding a value of type t: scalars (and pairs of them) as
  // vectors, and with arrays_ arrays of those entry-wise (nullptr for other types).
  Type lane_of(const Type& t) const {
    if (arrays_ && t && t->kind == TypeKind::Array) {
      Type e = lane_of(t->a);
      return e ? rise::array(t->size, e) : nullptr;
    }
    return lane_type(t, n_);
  }

  bool uses_lanes(const Expr& e) const {
    for (const std::string& v : rise::free_vars(e))
      if (lanes_.count(v)) return true;
    return false;
  }

  // fun(x => body) where x holds lanes: annotated with the lanes of its scalar type.
  Expr lane_lambda(const std::string& x, const Type& scalar_param, const Expr& body) const {
    return rise::lambda(x, body, lane_of(scalar_param));
  }

  Expr fail(const std::string& reason) {
    if (why.empty()) why = reason;
    return nullptr;
  }

  // Not on ExprMutator: lifting fails (nullptr) on what it cannot vectorise, and it
  // rebuilds whole application spines.
  // A value that does not depend on the lanes, for every lane: scalars (and bools, as
  // masks) broadcast, pairs of them component-wise. Each broadcast says its width (an
  // annotation, checked and dropped by type inference): a value that never meets a
  // lane, such as the part of a result or of a reduction's state that is the same in
  // every lane, has no other way to know it.
  Expr broadcast(const Expr& e) {
    if (!e->type) return e;
    if (e->type->kind == TypeKind::Scalar)
      return rise::annotation(call(PrimId::VectorFromScalar, {e}),
                              rise::vector_of(e->type, Nat(n_)));
    if (e->type->kind != TypeKind::Pair || !scalar_tree(e->type)) return e;
    if (auto p = util::match_prim(e, PrimId::MakePair, 2))
      return call(PrimId::MakePair, {broadcast(p->args[0]), broadcast(p->args[1])});
    auto parts = [&](const Expr& v) {
      return call(PrimId::MakePair,
                  {broadcast(rise::with_type(call(PrimId::Fst, {v}), e->type->a)),
                   broadcast(rise::with_type(call(PrimId::Snd, {v}), e->type->b))});
    };
    if (!util::computes(e)) return parts(e);
    // computed once, then taken apart
    std::string x = rise::fresh_name("b");
    return call(PrimId::Let, {e, rise::lambda(x, parts(rise::with_type(rise::ident(x), e->type)))});
  }

  // An array (of arrays) of scalars, or pairs of them, that does not depend on the
  // lanes, as the same array of vectors: every entry broadcast to the lanes (nullptr
  // for other entries).
  Expr broadcast_entries(const Expr& xs) {
    const Type& t = xs->type;
    if (!t || t->kind != TypeKind::Array || !t->a) return nullptr;
    const std::string s = rise::fresh_name("s");
    const Expr entry = rise::with_type(rise::ident(s), t->a);
    Expr body;
    if (t->a->kind == TypeKind::Array)
      body = broadcast_entries(entry);
    else if (t->a->kind == TypeKind::Scalar || scalar_tree(t->a))
      body = broadcast(entry);
    if (!body) return nullptr;
    return call(PrimId::Map, {rise::lambda(s, body, t->a), xs});
  }

  // reduceSeq(op)(init)(xs) (or reduce) over an array that does not depend on the lanes,
  // with an accumulator that does: a loop whose accumulator is a vector (a loop that
  // runs as often in every lane, made to do a lane-dependent amount of work by selects
  // on masks in op). op's accumulator is a lane, its element is not.
  // With arrays_, the array may hold lanes too (a window's entries): its elements are
  // then lanes of op as well (entry-wise: one vector accumulator for n windows).
  Expr lift_reduction(const rise::Spine& sp) {
    const bool over_lanes = sp.args.size() == 3 && uses_lanes(sp.args[2].value);
    if (sp.args.size() != 3 || (over_lanes && !arrays_))
      return fail("it uses a reduction over the lanes");
    Expr op = sp.args[0].value;
    // an operator given as a function (reduce(add)): eta-expanded, fun(acc, x => add(acc)(x))
    if (op->kind != ExprKind::Lambda && op->type && op->type->kind == TypeKind::Fun &&
        op->type->b && op->type->b->kind == TypeKind::Fun) {
      const Expr f = op;
      op = util::fun2("acc", "x",
                      [&](const Expr& a, const Expr& x) { return rise::app(rise::app(f, a), x); });
      // the parameters typed as the operator's (the lifter reads them)
      op = rise::with_type(
          rise::lambda(op->name,
                       rise::with_type(rise::lambda(op->fn->name, op->fn->fn, nullptr),
                                       rise::fun(f->type->b->a, f->type->b->b)),
                       nullptr),
          f->type);
    }
    if (op->kind != ExprKind::Lambda || op->fn->kind != ExprKind::Lambda)
      return fail("it uses a reduction whose operator is not written fun(acc, x => ...)");
    lanes_.insert(op->name);
    bool elem_lane = lanes_.count(op->fn->name) > 0;
    if (over_lanes)
      lanes_.insert(op->fn->name);
    else
      lanes_.erase(op->fn->name);
    Expr body = lift(op->fn->fn);
    if (elem_lane)
      lanes_.insert(op->fn->name);
    else
      lanes_.erase(op->fn->name);
    if (!body) return nullptr;
    Expr init = lift(sp.args[1].value);
    if (!init) return nullptr;
    Expr xs = sp.args[2].value;
    if (over_lanes && !(xs = lift(xs))) return nullptr;
    Expr fv = lane_lambda(op->name, param_type(op),
                          over_lanes ? lane_lambda(op->fn->name, param_type(op->fn), body)
                                     : rise::lambda(op->fn->name, body, op->fn->annot));
    // over lanes, the reduction's kind is left as it was (lowerToC fuses a reduce with
    // the map it reads)
    return over_lanes ? rise::apps(sp.head, {fv, init, xs})
                      : call(PrimId::ReduceSeq, {fv, init, xs});
  }

  // With arrays_: an operation on arrays that hold lanes, lifted entry-wise, or nothing
  // when `sp` is not one (lift then refuses it as before). Indexing (by an index the
  // same in every lane), views that only rearrange entries, and maps over such arrays
  // (their function's parameter a lane) or whose function uses lanes.
  std::optional<Expr> lift_array_op(const rise::Spine& sp) {
    const Expr& h = sp.head;
    auto is = [&](PrimId id) { return h->prim && h->prim->is(id); };
    std::vector<Expr> vals;
    for (const auto& a : sp.args)
      if (!a.dep) vals.push_back(a.value);
    auto rebuild = [&](const std::vector<Expr>& lifted) {
      Expr out = h;
      size_t k = 0;
      for (const auto& a : sp.args)
        out = a.dep ? rise::dep_app(out, a.type_arg) : rise::app(out, lifted[k++]);
      return out;
    };
    const bool view = is(PrimId::Idx) || is(PrimId::Join) || is(PrimId::Transpose) ||
                      is(PrimId::Split) || is(PrimId::Slide) || is(PrimId::Take) ||
                      is(PrimId::Drop) || is(PrimId::Zip);
    const bool map = is(PrimId::Map) || is(PrimId::MapSeq) || is(PrimId::MapSeqUnroll);
    if (!view && !map) return std::nullopt;
    if (vals.size() != static_cast<size_t>(h->prim->arity))
      return fail("it uses '" + h->name + "' on the lanes without all its arguments");
    if (view) {
      // idx(i)(xs): i the same in every lane; the other views' arguments all arrays
      // holding lanes (a zip of lanes with an array without would mix entry types)
      std::vector<Expr> lifted;
      for (size_t i = 0; i < vals.size(); ++i) {
        const bool index = is(PrimId::Idx) && i == 0;
        // zip of a window with an array the same for every lane (a stencil's weights,
        // pyrdown's zip(win)(w5)): that array's entries broadcast, entry k of every
        // lane paired with its entry k
        if (is(PrimId::Zip) && !uses_lanes(vals[i]) && uses_lanes(vals[1 - i])) {
          Expr b = broadcast_entries(vals[i]);
          if (!b) return fail("it zips an array of lanes with one of other than numbers");
          lifted.push_back(b);
          continue;
        }
        if (index != !uses_lanes(vals[i]))
          return fail(index ? "it indexes arrays with the lanes"
                            : "it combines an array of lanes with one without");
        Expr l = index ? vals[i] : lift(vals[i]);
        if (!l) return nullptr;
        lifted.push_back(l);
      }
      return rebuild(lifted);
    }
    const Expr& f = vals[0];
    if (f->kind != ExprKind::Lambda)
      return fail("it maps a function that is not written fun(x => ...) over the lanes");
    const bool over_lanes = uses_lanes(vals[1]);
    const bool was = lanes_.count(f->name) > 0;
    if (over_lanes)
      lanes_.insert(f->name);
    else
      lanes_.erase(f->name);
    Expr body = lift(f->fn);
    if (was)
      lanes_.insert(f->name);
    else
      lanes_.erase(f->name);
    if (!body) return nullptr;
    Expr xs = over_lanes ? lift(vals[1]) : vals[1];
    if (!xs) return nullptr;
    return rebuild({over_lanes ? lane_lambda(f->name, param_type(f), body)
                               : rise::lambda(f->name, body, f->annot),
                    xs});
  }

  // iterateWhile(k)(cond)(step)(init) whose state depends on the lanes (Sierra's varying
  // while): the state becomes vectors, and the loop runs while any lane's condition
  // holds; a lane whose condition is false keeps its state (the step is a blend on the
  // mask), so it stays false and the lane is frozen:
  //   iterateWhile(k)(fun(x => any(m(x))))(fun(x => select(m(x))(step'(x))(x)))(init')
  // Lane i runs exactly the steps the scalar loop runs for it (at most k), so the
  // results are the scalar ones; the loop ends when no lane is active.
  Expr lift_while(const rise::Spine& sp) {
    Expr out = sp.head;
    std::vector<Expr> vals;
    for (const auto& a : sp.args) {
      if (a.dep)
        out = rise::dep_app(out, a.type_arg);
      else
        vals.push_back(a.value);
    }
    if (vals.size() != 3)
      return fail("it uses iterateWhile without its condition, step and initial state");
    const Expr& cond = vals[0];
    const Expr& step = vals[1];
    if (cond->kind != ExprKind::Lambda || step->kind != ExprKind::Lambda)
      return fail("it uses iterateWhile whose condition or step is not written fun(x => ...)");
    if (!vals[2]->type || !scalar_tree(vals[2]->type))
      return fail("it uses iterateWhile whose state is not a scalar (or pairs of scalars)");
    const std::string& x = step->name;
    lanes_.insert(cond->name);
    lanes_.insert(x);
    Expr scalar_mask = util::substitute(cond->fn, cond->name, rise::ident(x));
    Expr mask = lift(scalar_mask);
    if (!mask) return nullptr;
    Expr test = lift(cond->fn);
    if (!test) return nullptr;
    // the step runs in every lane, also in the frozen ones the scalar loop left
    Expr next = lift(guard_divisions(step->fn, scalar_mask, true));
    if (!next) return nullptr;
    Expr init = lift(vals[2]);
    if (!init) return nullptr;
    // a condition the same in every lane stays a scalar (any of its broadcast)
    Expr vcond = uses_lanes(cond->fn)
                     ? lane_lambda(cond->name, param_type(cond), call(PrimId::Any, {test}))
                     : lane_lambda(cond->name, param_type(cond), cond->fn);
    // the mask is computed once per step (a let), and blends each part of the state
    Expr vstep =
        lane_lambda(x, param_type(step),
                    call(PrimId::Let, {mask, util::fun("active", [&](const Expr& m) {
                                         return call(PrimId::Select, {m, next, rise::ident(x)});
                                       })}));
    return rise::apps(out, {vcond, vstep, init});
  }

  Expr lift(const Expr& e) {
    // A lambda met here is a let's body or a beta-redex's function, whose argument is
    // lifted (a lane, or broadcast to one): its parameter is a lane even where its
    // body mentions nothing else of the lanes (`let q = x + c in (1.0f, q)`).
    if (e->kind == ExprKind::Lambda) {
      bool fresh = lanes_.insert(e->name).second;
      Expr b = lift(e->fn);
      if (fresh) lanes_.erase(e->name);
      return b ? lane_lambda(e->name, param_type(e), b) : nullptr;
    }
    if (!uses_lanes(e)) {
      // computed once and broadcast to every lane
      if (e->type && (e->type->kind == TypeKind::Scalar || scalar_tree(e->type)))
        return broadcast(e);
      return e;
    }
    switch (e->kind) {
      case ExprKind::Ident:
        return e;
      case ExprKind::App:
        break;
      default:
        return fail("it contains an expression that cannot be vectorised");
    }
    rise::Spine sp = rise::spine(e);
    const Expr& h = sp.head;
    if (h->kind == ExprKind::Lambda) {
      // a beta-redex: the lambda's parameter becomes a vector
      Expr f = lift(h);
      if (!f) return nullptr;
      Expr out = f;
      for (const auto& a : sp.args) {
        if (a.dep) return fail("it applies a function to a type-level argument");
        Expr la = lift(a.value);
        if (!la) return nullptr;
        out = rise::app(out, la);
      }
      return out;
    }
    if (h->kind == ExprKind::Foreign)
      return fail("it calls the foreign function '" + h->name + "' on the lanes");
    if (h->kind != ExprKind::Primitive)
      return fail("it applies a function variable ('" + rise::print_expr(h) + "') to the lanes");
    const std::string& n = h->name;
    auto is = [&](PrimId id) { return h->prim && h->prim->is(id); };
    // lane-wise primitives, and those that pass lanes through (pairs, let) or choose
    // between them (select)
    // (comparisons give masks, vec[bool, n]; a select on a mask blends lane-wise)
    bool ok = (h->prim && h->prim->has(rise::kLaneWise)) || is(PrimId::Fst) || is(PrimId::Snd) ||
              is(PrimId::MakePair) || is(PrimId::Let) || is(PrimId::Select) || is(PrimId::Gt) ||
              is(PrimId::Lt) || is(PrimId::Equal) || is(PrimId::Not);
    if (is(PrimId::Let) && sp.args.size() == 2 && !uses_lanes(sp.args[0].value) &&
        sp.args[1].value->kind == ExprKind::Lambda) {
      // a value the same in every lane stays a scalar (broadcast where it meets lanes)
      const Expr& f = sp.args[1].value;
      bool was_lane = lanes_.erase(f->name) > 0;
      Expr b = lift(f->fn);
      if (was_lane) lanes_.insert(f->name);
      if (!b) return nullptr;
      return rise::app(rise::app(h, sp.args[0].value), rise::lambda(f->name, b));
    }
    if (!ok) {
      if (is(PrimId::Reduce) || is(PrimId::ReduceSeq)) return lift_reduction(sp);
      if (arrays_)
        if (std::optional<Expr> r = lift_array_op(sp)) return *r;
      if (is(PrimId::IterateWhile)) return lift_while(sp);
      if (h->prim && h->prim->family == rise::Family::Reduce) return fail("it uses a reduction");
      if (is(PrimId::Idx) || is(PrimId::Generate) || is(PrimId::Take) || is(PrimId::Drop))
        return fail("it indexes arrays with the lanes");
      if (is(PrimId::Cast)) return fail("it casts values (casts are not vectorised)");
      return fail("it uses '" + n + "', which does not apply lane-wise");
    }
    if (is(PrimId::Select) && sp.args.size() == 3 && !sp.args[0].dep &&
        uses_lanes(sp.args[0].value)) {
      // a blend computes both branches in every lane
      sp.args[1].value = guard_divisions(sp.args[1].value, sp.args[0].value, true);
      sp.args[2].value = guard_divisions(sp.args[2].value, sp.args[0].value, false);
    }
    Expr out = h;
    for (size_t i = 0; i < sp.args.size(); ++i) {
      const auto& a = sp.args[i];
      if (a.dep) {
        out = rise::dep_app(out, a.type_arg);
        continue;
      }
      if (is(PrimId::Select) && i == 0 && !uses_lanes(a.value)) {
        // a condition the same in every lane stays a scalar (a branch in C)
        out = rise::app(out, a.value);
        continue;
      }
      Expr la = lift(a.value);
      if (!la) return nullptr;
      if ((is(PrimId::Fst) || is(PrimId::Snd)) && !projection_path(la) && !loop_result(la)) {
        // the part the projection drops may hold lanes nothing else determines: the
        // pair is bound by a let that says its type (a loop's state says it already)
        std::string t = rise::fresh_name("t");
        return call(PrimId::Let, {la, rise::lambda(t, rise::app(out, rise::ident(t)),
                                                   lane_type(a.value->type, n_))});
      }
      out = rise::app(out, la);
    }
    if (is(PrimId::Select) && sp.args.size() == 3 && uses_lanes(sp.args[0].value))
      return shortcut(out, lane_type(e->type, n_));
    return out;
  }

  // A variable or a projection of one (z._2._1): its type is the variable's part.
  static bool projection_path(const Expr& e) {
    if (e->kind == ExprKind::Ident) return true;
    auto c = util::as_prim_call(e);
    return c && (c->is(PrimId::Fst) || c->is(PrimId::Snd)) && c->args.size() == 1 &&
           projection_path(c->args[0]);
  }

  // The result of a reduction or loop, whose state's type its lifted operator says.
  static bool loop_result(const Expr& e) {
    const Expr& h = rise::spine(e).head;
    return h->kind == ExprKind::Primitive && h->prim &&
           (h->prim->family == rise::Family::Reduce || h->prim->family == rise::Family::Loop);
  }

  static bool has_loop(const Expr& e) {
    if (e->kind == ExprKind::Primitive && e->prim &&
        (e->prim->family == rise::Family::Reduce || e->prim->family == rise::Family::Loop))
      return true;
    for (const Expr& k : rise::children(e))
      if (has_loop(k)) return true;
    return false;
  }

  // A blend select(m)(a)(b) whose a runs a loop: select(any(m))(select(m)(a)(b))(b), so
  // that the loop is skipped when no lane is active (Sierra's dynamic shortcut of a
  // varying if; a loop of such blocks stops working once every lane is done).
  // The mask (and b, unless a variable) is bound once, by lets that say their types.
  Expr shortcut(const Expr& blend, const Type& type) const {
    rise::Spine sp = rise::spine(blend);
    if (sp.args.size() != 3 || !has_loop(sp.args[1].value)) return blend;
    const Expr& b = sp.args[2].value;
    std::string m = rise::fresh_name("m");
    auto with_b = [&](const Expr& bv) {
      return call(PrimId::Select,
                  {call(PrimId::Any, {rise::ident(m)}),
                   call(PrimId::Select, {rise::ident(m), sp.args[1].value, bv}), bv});
    };
    Expr body;
    if (b->kind == ExprKind::Ident) {
      body = with_b(b);
    } else {
      std::string x = rise::fresh_name("b");
      body = call(PrimId::Let, {b, rise::lambda(x, with_b(rise::ident(x)), type)});
    }
    return call(PrimId::Let, {sp.args[0].value, rise::lambda(m, body, mask_type())});
  }

  Type mask_type() const { return rise::vector_of(rise::scalar(rise::ScalarKind::Bool), Nat(n_)); }
};

// The array x of elements `elem` (scalars or pairs) as an array of vectors (of pairs
// of vectors).
Expr vec_data(const Expr& x, const Type& elem, int64_t n) {
  if (lane_scalar(elem)) return call(PrimId::AsVector, {Nat(n)}, {x});
  if (auto z = util::match_prim(x, PrimId::Zip, 2))
    return call(PrimId::Zip, {vec_data(z->args[0], elem->a, n), vec_data(z->args[1], elem->b, n)});
  auto split = [&](const Expr& v) {
    Expr u = call(PrimId::Unzip, {v});
    return call(PrimId::Zip, {vec_data(call(PrimId::Fst, {u}), elem->a, n),
                              vec_data(call(PrimId::Snd, {u}), elem->b, n)});
  };
  if (!util::computes(x)) return split(x);
  return rise::app(util::fun("v", split), x);
}

// The array y of vectors (or pairs of vectors) back as an array of scalars (or pairs
// of scalars): asScalar, component-wise for pairs (y is computed once and shared).
Expr scalar_data(const Expr& y, const Type& res, int64_t n) {
  if (lane_scalar(res)) return call(PrimId::AsScalar, {y});
  auto parts = [&](const Expr& v) {
    // the projections' parameters say the vectors' type (as lifted lambdas do)
    auto proj = [&](PrimId which) {
      std::string p = rise::fresh_name("p");
      return call(PrimId::Map,
                  {rise::lambda(p, call(which, {rise::ident(p)}), lane_type(res, n)), v});
    };
    return call(PrimId::Zip, {scalar_data(proj(PrimId::Fst), res->a, n),
                              scalar_data(proj(PrimId::Snd), res->b, n)});
  };
  if (!util::computes(y)) return parts(y);
  return rise::app(util::fun("v", parts), y);
}

// A lifted function whose result does not follow from its parameter (lanes that are
// the same in every lane, `fun(c => alpha)`) computes it into a let that says its type:
// nothing else in the program would determine the result's width.
Expr with_known_result(const Expr& fv, const Type& result, const Context& ctx) {
  // without the broadcasts' annotations, which type inference drops
  struct Unannotated : rise::ExprMutator {
    Expr visit_annotation(const Expr& e) override { return mutate(e->fn); }
  };
  try {
    rise::infer_in_context(Unannotated().mutate(fv), ctx.vars, nullptr);
    return fv;
  } catch (const Error&) {
  }
  std::string r = rise::fresh_name("r");
  return rise::lambda(
      fv->name, call(PrimId::Let, {fv->fn, rise::lambda(r, rise::ident(r), result)}), fv->annot);
}

// Why a width cannot be a vector width, or nothing. Any positive width can: the C
// targets pad widths that are not a power of two to the next one (docs/targets.md,
// "Vectors"); the GPU targets refuse the widths they have no type for, located at the
// primitive, when the program is compiled.
std::optional<std::string> width_refusal(int64_t n) {
  if (n <= 0) return "the vector width must be positive";
  if (n > kMaxLanes)
    return "the vector width " + std::to_string(n) + " is over risec's limit of " +
           std::to_string(kMaxLanes) + " lanes";
  return std::nullopt;
}

// vectorize(n) and vectorizeWindows(n): map(f), applied to data or not, whose elements
// `refuse_elem` accepts (its refusal otherwise) and whose function returns scalars
// (or pairs); the mapped array grouped into vectors by `group` (its elements' type
// given), f lifted to lanes (entry by entry of windows when `windows`), the result
// taken back to scalars.
Strategy lane_map_rule(const std::string& name, int64_t n, bool windows,
                       std::function<std::optional<std::string>(const Type&)> refuse_elem,
                       std::function<Expr(const Expr&, const Type&)> group) {
  return rule(name, [=](const Expr& e, const Context& ctx) -> Result {
    auto c = util::as_prim_call(e);
    if (!c || !c->is(PrimId::Map) || !c->deps.empty() || c->args.empty() || c->args.size() > 2)
      return fail_at(name, e, "expected map(f), applied to data or not");
    if (auto why = width_refusal(n)) return fail_at(name, e, *why);
    bool applied = c->args.size() == 2;
    Type in = applied ? c->args[1]->type : util::fun_param(e->type);
    Type out =
        applied ? e->type : (e->type && e->type->kind == TypeKind::Fun ? e->type->b : nullptr);
    auto len = util::array_size(in);
    Type elem = util::array_elem(in);
    Type res = util::array_elem(out);
    if (!len || !elem || !res) return fail_at(name, e, "the type of the map is unknown");
    if (auto why = refuse_elem(elem)) {
      Failure f = fail_at(name, e, *why);
      f.not_its_kind = true;
      return f;
    }
    if (!scalar_tree(res))
      return fail_at(name, e,
                     "the function's result is " + rise::print(res) +
                         (has_bool(res) ? ": vectors of bool are not supported (the function "
                                          "must return numbers, or pairs of numbers)"
                                        : ", not a scalar (or a pair of scalars)"));
    if (auto why = util::divisibility_refusal(Nat(n), *len, ctx))
      return fail_at(name, e, *why + " (the mapped array)");
    Lifter lifter(n, windows);
    Expr fv = lifter.lift_fn(c->args[0]);
    if (!fv) return fail_at(name, e, "the function cannot be vectorised: " + lifter.why);
    fv = with_known_result(fv, lane_type(res, n), ctx);
    auto build = [&](const Expr& x) {
      return scalar_data(call(PrimId::Map, {fv, group(x, elem)}), res, n);
    };
    if (applied) return build(c->args[1]);
    return util::fun("x", build);
  });
}

// Why vectorize(n) does not apply to a map over elements of type `elem`, or nothing.
std::optional<std::string> scalar_elem_refusal(const Type& elem) {
  if (elem->kind == TypeKind::Vector) return "the map is over vectors already";
  if (!scalar_tree(elem))
    return "the mapped array's elements are " + rise::print(elem) +
           ", not scalars (or pairs of scalars)";
  return std::nullopt;
}

Strategy vectorize_rule(int64_t n) {
  return lane_map_rule("vectorize(" + std::to_string(n) + ")", n, false, scalar_elem_refusal,
                       [n](const Expr& x, const Type& elem) { return vec_data(x, elem, n); });
}

// map(f)(x) of any length L -> concat(map(f)(take(q)(x)))(map(f)(drop(q)(x))) with
// q = L - L%n (provably a multiple of n), the first part then vectorised: a vector
// loop and a scalar loop over the last L%n elements. When n provably divides L it is
// vectorize(n).
Strategy vectorize_remainder_rule(int64_t n) {
  std::string name = "vectorizeRemainder(" + std::to_string(n) + ")";
  Strategy split = rule(name, [n, name](const Expr& e, const Context&) -> Result {
    auto m = util::match_map(e);
    if (!m) return fail_at(name, e, "expected a map applied to data, map(f)(x)");
    if (auto why = width_refusal(n)) return fail_at(name, e, *why);
    auto len = util::array_size(m->second->type);
    if (!len) return fail_at(name, e, "the length of the mapped array is unknown");
    // Refused before the split, as vectorize(n) would refuse its first part: the split
    // is retyped with everything the map reads (in a chain of maps normalized, every
    // map already vectorised would be, at every step).
    if (Type elem = util::array_elem(m->second->type))
      if (auto why = scalar_elem_refusal(elem)) {
        Failure f = fail_at(name, e, *why);
        f.not_its_kind = true;
        return f;
      }
    Nat q = *len - arith::mod(*len, Nat(n));
    if (q.is_const(0))
      return fail_at(name, e,
                     "the array (" + len->to_string() + " elements) is shorter than " +
                         std::to_string(n) + " lanes: there is nothing to vectorise");
    auto [first, last] = util::split_at(q, m->second);
    Expr body = call(PrimId::Map, {m->first, first});
    Expr rest = call(PrimId::Map, {m->first, last});
    return call(PrimId::Concat, {body, rest});
  });
  Strategy vec = vectorize_rule(n);
  // concat(a)(b): the vector part is the argument of the function concat(a)
  Strategy split_then_vectorize = seq(split, function(argument(vec)));
  return Strategy(name,
                  [n, name, vec, split_then_vectorize](const Expr& e, const Env& env) -> Result {
                    auto m = util::match_map(e);
                    bool whole = false;
                    if (m)
                      if (auto len = util::array_size(m->second->type))
                        whole = arith::provably_divides(Nat(n), *len);
                    Result r = whole ? vec(e, env) : split_then_vectorize(e, env);
                    // Refused by the vectorize(n) it is built on: named as the rule the user wrote.
                    if (!r.ok() && r.failure().rule.rfind("vectorize(", 0) == 0)
                      r.change_failure().rule = name;
                    return r;
                  });
}

// The depth of a nest of arrays of scalars (a window: 5.5.f32 is 2), or 0 when t is
// not one.
int window_depth(const Type& t) {
  if (!t || t->kind != TypeKind::Array) return 0;
  if (lane_scalar(t->a)) return 1;
  const int d = window_depth(t->a);
  return d ? d + 1 : 0;
}

// The windows x (L.k1...kr.s) in groups of n, each group as one window of vectors
// ((L/n).k1...kr.vec[s, n]): entry [k1..kr] of group j holds entry [k1..kr] of windows
// jn .. jn + n - 1. Only views: the group's index moved innermost by transposes, then
// each run of n scalars read as one vector (asVector of n entries, joined), so a read
// of a vector is a read of n consecutive windows' entries, one load where those are
// consecutive in memory (a slide by one: the window shifted along its row).
Expr window_vectors(const Expr& x, int depth, int64_t n) {
  // ch: n.k1...kd.s -> k1...kd.n.s (d >= 1)
  std::function<Expr(const Expr&, int)> inner = [&](const Expr& ch, int d) -> Expr {
    Expr t = call(PrimId::Transpose, {ch});
    if (d == 1) return t;
    return call(PrimId::Map, {util::fun("w", [&](const Expr& w) { return inner(w, d - 1); }), t});
  };
  // y: k1...kd.n.s -> k1...kd.vec[s, n]
  std::function<Expr(const Expr&, int)> vectors = [&](const Expr& y, int d) -> Expr {
    if (d == 1)
      return call(
          PrimId::Join,
          {call(
              PrimId::Map,
              {util::fun("a", [&](const Expr& a) { return call(PrimId::AsVector, {Nat(n)}, {a}); }),
               y})});
    return call(PrimId::Map, {util::fun("w", [&](const Expr& w) { return vectors(w, d - 1); }), y});
  };
  return call(PrimId::Map,
              {util::fun("g", [&](const Expr& g) { return vectors(inner(g, depth), depth); }),
               call(PrimId::Split, {Nat(n)}, {x})});
}

// map(f)(xs), xs's elements arrays (of arrays) of scalars -> asScalar(map(f')(groups))
// with the groups of window_vectors and f lifted to windows of vectors. Lane order and
// values are unchanged (exact).
Strategy vectorize_windows_rule(int64_t n) {
  return lane_map_rule(
      "vectorizeWindows(" + std::to_string(n) + ")", n, true,
      [](const Type& elem) -> std::optional<std::string> {
        if (window_depth(elem) == 0)
          return "the mapped array's elements are " + rise::print(elem) +
                 ", not arrays (of arrays) of scalars: windows";
        return std::nullopt;
      },
      [n](const Expr& x, const Type& elem) { return window_vectors(x, window_depth(elem), n); });
}

// ---------------------------------------------------------------- unrollJam2

// The first (pre-order) fully applied reduce, reduceSeq or iterateWhile in e.
Expr first_loop(const Expr& e) {
  if (!e) return nullptr;
  if (auto c = util::as_prim_call(e);
      c && (c->is(PrimId::Reduce) || c->is(PrimId::ReduceSeq) || c->is(PrimId::IterateWhile)) &&
      c->args.size() == 3)
    return e;
  switch (e->kind) {
    case ExprKind::App:
      if (Expr r = first_loop(e->fn)) return r;
      return first_loop(e->arg);
    case ExprKind::Lambda:
    case ExprKind::DepLambda:
    case ExprKind::DepApp:
    case ExprKind::Annotation:
      return first_loop(e->fn);
    default:
      return nullptr;
  }
}

// e with the node `target` replaced by `by`.
Expr replace_node_at(const Expr& e, const rise::ExprNode* target, const Expr& by) {
  if (!e) return e;
  if (e.get() == target) return by;
  switch (e->kind) {
    case ExprKind::App:
      return rise::with_children(e, replace_node_at(e->fn, target, by),
                                 replace_node_at(e->arg, target, by));
    case ExprKind::Lambda:
    case ExprKind::DepLambda:
    case ExprKind::DepApp:
    case ExprKind::Annotation:
      return rise::with_children(e, replace_node_at(e->fn, target, by), e->arg);
    default:
      return e;
  }
}

// body with the lets that bind a value computing nothing (a literal, a pair of them, a
// variable) inlined where a loop of it reads them: fun(c => let zero = (0, 0) in
// reduceSeq(..)(zero)(..)) then has a loop whose free variables are c's and the
// enclosing term's.
Expr inline_value_lets(const Expr& e) {
  if (!e) return e;
  if (auto c = util::as_prim_call(e); c && c->is(PrimId::Let) && c->args.size() == 2 &&
                                      c->args[1]->kind == ExprKind::Lambda &&
                                      !util::computes(c->args[0]))
    return inline_value_lets(util::substitute(c->args[1]->fn, c->args[1]->name, c->args[0]));
  switch (e->kind) {
    case ExprKind::App:
      return rise::with_children(e, inline_value_lets(e->fn), inline_value_lets(e->arg));
    case ExprKind::Lambda:
    case ExprKind::DepLambda:
    case ExprKind::DepApp:
    case ExprKind::Annotation:
      return rise::with_children(e, inline_value_lets(e->fn), e->arg);
    default:
      return e;
  }
}

// p[k] for an array of `size` elements p : size.t
Expr element_of(const Expr& p, int64_t k, int64_t size) {
  rise::Literal l;
  l.kind = rise::LitKind::Index;
  l.nat = Nat(k);
  l.size = Nat(size);
  return call(PrimId::Idx, {rise::literal(l), p});
}

// p[k] for a pair of elements p : 2.t
Expr element_of_two(const Expr& p, int64_t k) {
  return element_of(p, k, 2);
}

// Unroll and jam by 2: map(fun(c => B[L_c]))(ys), L_c the first loop of the mapped
// function, a reduction reduce(op)(init)(xs) with xs the same for every c or a loop
// iterateWhile(k)(cond)(step)(init), and ys of even length ->
//   join(map(fun(p => let r = L2 in makeArray(B[c:=p[0]][r._1], B[c:=p[1]][r._2])))
//   (split(2)(ys)))
// where L2 runs both elements' loops in one: reduceSeq(fun(acc, x => (op[c:=p[0]](acc._1)
// (x), op[c:=p[1]](acc._2)(x))))((init[c:=p[0]], init[c:=p[1]]))(xs), or iterateWhile(k)
// while either condition holds, each state stepping only while its own holds (a state
// whose condition failed stays as it is, as when its loop has left). Each step of the
// one loop advances two independent dependency chains, which the processor overlaps.
// A length not provably even keeps its last element apart: concat(the pairs, map(f) of
// the rest), as vectorizeRemainder does. Lets of the mapped function binding values
// that compute nothing are inlined first; a loop that reads another value bound
// inside the mapped function is refused.
Strategy unroll_jam2_rule() {
  const std::string name = "unrollJam2";
  return rule(name, [name](const Expr& e, const Context&) -> Result {
    auto m = util::match_map(e);
    if (!m) return fail_at(name, e, "expected a map applied to data, map(f)(ys)");
    const Expr& f = m->first;
    if (f->kind != ExprKind::Lambda)
      return fail_at(name, e, "the mapped function must be a lambda, fun(c => ...)");
    const std::string c = f->name;
    const Expr body = inline_value_lets(f->fn);
    Expr l_expr = first_loop(body);
    if (!l_expr)
      return fail_at(name, e, "the mapped function contains no reduction or iterateWhile");
    auto lc = util::as_prim_call(l_expr);
    const bool loop = lc->is(PrimId::IterateWhile);
    if (!loop && util::occurs_free(c, lc->args[2]))
      return fail_at(name, e, "the reduced array depends on the mapped element");
    for (const std::string& v : rise::free_vars(l_expr))
      if (v != c && !util::occurs_free(v, e))
        return fail_at(name, e,
                       "the loop uses '" + v +
                           "', bound inside the mapped function (a let of a computed value is "
                           "not inlined: inlineLet first)");
    auto len = util::array_size(m->second->type);
    if (!len) return fail_at(name, e, "the length of the mapped array is unknown");
    const bool even = arith::provably_divides(Nat(2), *len);
    Nat q = *len - arith::mod(*len, Nat(2));
    if (q.is_const(0)) return fail_at(name, e, "fewer than two elements: nothing to interleave");
    Expr per_pair = util::fun("p", [&](const Expr& p) {
      Expr p0 = element_of_two(p, 0), p1 = element_of_two(p, 1);
      auto at0 = [&](const Expr& x) { return util::substitute(x, c, p0); };
      auto at1 = [&](const Expr& x) { return util::substitute(x, c, p1); };
      const Expr& init = loop ? lc->args[2] : lc->args[1];
      Expr start = call(PrimId::MakePair, {at0(init), at1(init)});
      Expr both;
      if (loop) {
        Expr c0 = at0(lc->args[0]), c1 = at1(lc->args[0]);
        Expr s0 = at0(lc->args[1]), s1 = at1(lc->args[1]);
        Expr cond = util::fun("s", [&](const Expr& st) {
          return call(PrimId::Select,
                      {util::apply_fn(c0, call(PrimId::Fst, {st})), rise::bool_lit(true),
                       util::apply_fn(c1, call(PrimId::Snd, {st}))});
        });
        auto one = [](const Expr& cnd, const Expr& step, const Expr& part) {
          return call(PrimId::Select,
                      {util::apply_fn(cnd, part), util::apply_fn(step, part), part});
        };
        Expr step = util::fun("s", [&](const Expr& st) {
          return call(PrimId::MakePair,
                      {one(c0, s0, call(PrimId::Fst, {st})), one(c1, s1, call(PrimId::Snd, {st}))});
        });
        both = call(PrimId::IterateWhile, lc->deps, {cond, step, start});
      } else {
        Expr op0 = at0(lc->args[0]), op1 = at1(lc->args[0]);
        Expr step = util::fun2("acc", "x", [&](const Expr& acc, const Expr& x) {
          return call(PrimId::MakePair,
                      {util::apply_fn(util::apply_fn(op0, call(PrimId::Fst, {acc})), x),
                       util::apply_fn(util::apply_fn(op1, call(PrimId::Snd, {acc})), x)});
        });
        both = call(PrimId::ReduceSeq, {step, start, lc->args[2]});
      }
      return call(PrimId::Let,
                  {both, util::fun("r", [&](const Expr& r) {
                     Expr b0 = at0(replace_node_at(body, l_expr.get(), call(PrimId::Fst, {r})));
                     Expr b1 = at1(replace_node_at(body, l_expr.get(), call(PrimId::Snd, {r})));
                     return rise::apps(rise::make_array_prim(2), {b0, b1});
                   })});
    });
    if (even)
      return call(PrimId::Join,
                  {util::mk_map(per_pair, call(PrimId::Split, {Nat(2)}, {m->second}))});
    Expr pairs = call(PrimId::Split, {Nat(2)}, {call(PrimId::Take, {q}, {m->second})});
    return call(PrimId::Concat, {call(PrimId::Join, {util::mk_map(per_pair, pairs)}),
                                 call(PrimId::Map, {f, call(PrimId::Drop, {q}, {m->second})})});
  });
}

// The lanes first, first + stride, ... (count of them) of the vector r combined by op
// as a balanced tree: the lanes l and l + count/2 (rounded up) first, as a vector's
// halves are added; lane(i)(r) reads one lane.
Expr lane_tree(PrimId op, const Expr& r, int64_t first, int64_t stride, int64_t count) {
  if (count == 1) return call(PrimId::Lane, {Nat(first)}, {r});
  const int64_t half = (count + 1) / 2;
  // a power of two: interleaved halves (l with l + count/2, the halves of the vector);
  // otherwise the first half of the lanes with the rest
  if ((count & (count - 1)) == 0)
    return call(op, {lane_tree(op, r, first, stride * 2, count / 2),
                     lane_tree(op, r, first + stride, stride * 2, count / 2)});
  return call(op, {lane_tree(op, r, first, stride, half),
                   lane_tree(op, r, first + half * stride, stride, count - half)});
}

// vectorizeReduction(n), vectorizeReduction2(n), vectorizeReduction4(n) and their
// Remainder forms: reduce(op)(init)(map(f)(x)) (or reduce(op)(init)(x)) over scalars,
// op add, mul, fmax or fmin (found by PrimId), becomes
// partial results kept in one vector accumulator of n lanes (lane l accumulates the
// elements l, l+n, l+2n, ...), or in two (vectorizeReduction2: the even and the odd
// vectors, two independent dependency chains the processor overlaps) or four
// (vectorizeReduction4: a pair of pairs), the accumulators combined pairwise, then the
// n lanes combined as a tree and with init:
//   let r = reduceSeq(fun(acc, v => op(acc)(f'(v))))(start)(asVector(n)(x)) in
//   op(init)(op(op(lane(0)(r))(lane(n/2)(r)))(...) ...)
// with f' f lifted lane-wise. The tree (lane l with lane l + n/2, those with the pairs
// n/4 further, ...) is log2(n) operations deep: the sequential reduction of the lanes
// it replaces was a chain of n, which on 16 lanes cost more cycles per row than a
// loop over 1024 elements (layer norm, docs/performance.md). For add and mul the
// vector accumulators start at the neutral element (init joins at the end): the order
// of the operations changes, so the result's rounding does (as for blockedReduce and
// reducePar). fmax and fmin are idempotent and ignore NaN (a NaN operand gives the
// other one, as the interpreter's std::fmax and the C helper risec_fmax_*): the
// accumulators start at init, and the result is the sequential one exactly (of equal
// zeros, the sign may be another's). The vectors must divide the length (a constant
// one; a symbolic one is a precondition), as for vectorize(n). The Remainder forms
// take any length: the last L % (k n) elements in a scalar loop that continues from
// the vector part's result (q = L - L % (k n), symbolic as well: no precondition, as
// vectorizeRemainder):
//   reduceSeq(fun(acc, y => op(acc)(f(y))))(vector part of take(q)(x))(drop(q)(x)).
// Refused: an array shorter than the vectors, and one viewed from vectors already
// (asScalar).
Strategy vectorize_reduction_rule(int64_t n, int accumulators, bool remainder) {
  std::string name = "vectorizeReduction" +
                     (accumulators == 1 ? std::string() : std::to_string(accumulators)) +
                     (remainder ? "Remainder(" : "(") + std::to_string(n) + ")";
  return rule(
      name, [n, accumulators, remainder, name](const Expr& e, const Context& ctx) -> Result {
        auto c = util::as_prim_call(e);
        if (!c || (!c->is(PrimId::Reduce) && !c->is(PrimId::ReduceSeq)) || c->args.size() != 3)
          return fail_at(name, e, "expected a fully applied reduce(op)(init)(x)");
        if (auto why = width_refusal(n)) return fail_at(name, e, *why);
        auto op = util::match_binary_op(c->args[0]);
        const rise::PrimitiveInfo* opp = op ? op->prim : nullptr;
        const bool exact = opp && (opp->is(PrimId::Fmax) || opp->is(PrimId::Fmin));
        if (!opp || !(opp->is(PrimId::Add) || opp->is(PrimId::Mul) || exact))
          return fail_at(name, e,
                         "the operator must be add, mul, fmax or fmin (associative, commutative, "
                         "lane-wise)");
        if (!lane_scalar(e->type))
          return fail_at(name, e, "the reduction's result must be a scalar");
        Expr data = c->args[2];
        Expr f;  // the function mapped over the data, when there is one
        if (auto m = util::match_map(data)) {
          f = m->first;
          data = m->second;
        }
        if (util::match_prim(data, PrimId::AsScalar, 1))
          return fail_at(name, e,
                         "the reduced array is vectors viewed as scalars (asScalar) already: the "
                         "lanes of an earlier vectorised reduction");
        Type elem = util::array_elem(data->type);
        auto len = util::array_size(data->type);
        if (!elem || !len || !scalar_tree(elem))
          return fail_at(name, e,
                         "the reduced array's elements must be scalars (or pairs of scalars)");
        const int64_t block = n * accumulators;
        // the elements the vectors reduce: all when the vectors provably divide the length
        // without the remainder, a length the vectors do not divide is refused (constant)
        // or a precondition (symbolic), as vectorize(n)'s
        if (!remainder)
          if (auto why = util::divisibility_refusal(Nat(block), *len, ctx))
            return fail_at(name, e, *why);
        const bool whole = !remainder || arith::provably_divides(Nat(block), *len);
        const Nat q = whole ? *len : *len - arith::mod(*len, Nat(block));
        if (q.is_const(0))
          return fail_at(name, e,
                         "the array (" + len->to_string() + " elements) is shorter than " +
                             (accumulators == 1 ? "" : std::to_string(accumulators) + " x ") +
                             std::to_string(n) + " lanes: there is nothing to vectorise");
        Expr fv;
        if (f) {
          Lifter lifter(n);
          fv = lifter.lift_fn(f);
          if (!fv)
            return fail_at(name, e, "the mapped function cannot be vectorised: " + lifter.why);
        }
        const Type& res = e->type;
        // add and mul: the accumulator starts at the neutral element; fmax and fmin at init
        Expr first = exact ? c->args[1]
                           : rise::with_type(
                                 rise::scalar_lit(res->scalar, static_cast<int64_t>(opp->neutral),
                                                  opp->neutral),
                                 res);
        Expr start =
            rise::annotation(call(PrimId::VectorFromScalar, {first}), rise::vector_of(res, Nat(n)));
        auto value = [&](const Expr& v) { return fv ? rise::app(fv, v) : v; };
        // op of the vector accumulator and a vector of values, lane-wise (fmax and fmin
        // too: each target prints them on vectors with the scalar function's results, the
        // CPU targets as one max instruction when the accumulator is provably never NaN,
        // dpia/not_nan.h)
        auto combine = [&](const Expr& a, const Expr& y) { return call(opp->id, {a, y}); };
        Expr body = whole ? data : call(PrimId::Take, {q}, {data});
        Expr vectors = vec_data(body, elem, n);
        Expr acc;
        if (accumulators == 1) {
          Expr step = util::fun2(
              "acc", "v", [&](const Expr& a, const Expr& v) { return combine(a, value(v)); });
          acc = call(PrimId::ReduceSeq, {step, start, vectors});
        } else {
          // the k accumulators a pair (k = 2) or a pair of pairs (k = 4): accumulator j
          // takes the vectors j, j+k, j+2k, ...
          const int64_t k = accumulators;
          auto part = [k](const Expr& t, int64_t j) {
            if (k == 2) return call(j == 0 ? PrimId::Fst : PrimId::Snd, {t});
            return call(j % 2 == 0 ? PrimId::Fst : PrimId::Snd,
                        {call(j < 2 ? PrimId::Fst : PrimId::Snd, {t})});
          };
          auto tuple = [k](const std::vector<Expr>& xs) {
            if (k == 2) return call(PrimId::MakePair, {xs[0], xs[1]});
            return call(PrimId::MakePair, {call(PrimId::MakePair, {xs[0], xs[1]}),
                                           call(PrimId::MakePair, {xs[2], xs[3]})});
          };
          Expr step = util::fun2("acc", "p", [&](const Expr& a, const Expr& p) {
            std::vector<Expr> next;
            for (int64_t j = 0; j < k; ++j)
              next.push_back(combine(part(a, j), value(element_of(p, j, k))));
            return tuple(next);
          });
          Expr all = call(PrimId::ReduceSeq, {step, tuple(std::vector<Expr>(size_t(k), start)),
                                              call(PrimId::Split, {Nat(k)}, {vectors})});
          // combined pairwise: (a0 op a2) op (a1 op a3) for four
          acc = call(PrimId::Let, {all, util::fun("r", [&](const Expr& r) {
                                     if (k == 2) return combine(part(r, 0), part(r, 1));
                                     return combine(combine(part(r, 0), part(r, 2)),
                                                    combine(part(r, 1), part(r, 3)));
                                   })});
        }
        // the n lanes combined as a tree (lane l with lane l + n/2, then l + n/4, ...:
        // depth log2(n), where a sequential reduction of the lanes was a chain of n
        // dependent operations), then with init
        Expr out =
            call(PrimId::Let, {acc, util::fun("r", [&](const Expr& r) {
                                 return call(opp->id, {c->args[1], lane_tree(opp->id, r, 0, 1, n)});
                               })});
        if (whole) return out;
        // the last elements, continuing from the vectors' result (f applied in the loop)
        Expr rest = call(PrimId::Drop, {q}, {data});
        if (!f) return call(PrimId::ReduceSeq, {c->args[0], out, rest});
        Expr step = util::fun2("acc", "x", [&](const Expr& a, const Expr& x) {
          return call(opp->id, {a, util::apply_fn(f, x)});
        });
        return call(PrimId::ReduceSeq, {step, out, rest});
      });
}

}  // namespace

void register_vector(Registry& r) {
  r.rule({"unrollJam2",
          RuleFamily::Vector,
          "map(fun(c => B[L]))(ys), L a reduction over an array independent of c or an "
          "iterateWhile -> split(2) >> map(fun(p => one loop advancing L of p[0] and of p[1] "
          "together (a pair state; iterateWhile while either runs, each stepping while its own "
          "condition holds), then makeArray(B[p[0]], B[p[1]]))) >> join, an odd last element "
          "by the map (concat): two independent dependency chains per loop step",
          {},
          [](const Args&) { return unroll_jam2_rule(); }});
  r.rule({"vectorizeReduction",
          RuleFamily::Vector,
          "reduce(op)(init)(map(f)(x)) over scalars, op add, mul, fmax or fmin -> a reduction "
          "into one vec[t, n] accumulator (f lifted lane-wise), then a reduction of its n lanes; "
          "n must divide the length; add and mul change the order of the operations (rounding), "
          "fmax and fmin are exact",
          {ParamKind::Nat},
          [](const Args& a) { return vectorize_reduction_rule(arg_nat(a, 0), 1, false); }});
  r.rule({"vectorizeReduction2",
          RuleFamily::Vector,
          "vectorizeReduction(n) with two vec[t, n] accumulators (the even and the odd vectors: "
          "two dependency chains overlapped), combined lane-wise before the reduction of the "
          "lanes; 2n must divide the length",
          {ParamKind::Nat},
          [](const Args& a) { return vectorize_reduction_rule(arg_nat(a, 0), 2, false); }});
  r.rule({"vectorizeReduction4",
          RuleFamily::Vector,
          "vectorizeReduction(n) with four vec[t, n] accumulators (the vectors 4i, 4i+1, 4i+2, "
          "4i+3: four dependency chains, enough to keep a processor's two vector adders busy "
          "where an addition takes 3 or 4 cycles), combined pairwise; 4n must divide the length",
          {ParamKind::Nat},
          [](const Args& a) { return vectorize_reduction_rule(arg_nat(a, 0), 4, false); }});
  r.rule({"vectorizeReduction4Remainder",
          RuleFamily::Vector,
          "vectorizeReduction4(n) of any length L: the last L%4n elements by a scalar loop "
          "continuing from the vectors' result",
          {ParamKind::Nat},
          [](const Args& a) { return vectorize_reduction_rule(arg_nat(a, 0), 4, true); }});
  r.rule({"vectorizeReductionRemainder",
          RuleFamily::Vector,
          "vectorizeReduction(n) of any length L: the last L%n elements (symbolic L too) by a "
          "scalar loop continuing from the vectors' result; vectorizeReduction(n) when n "
          "divides L",
          {ParamKind::Nat},
          [](const Args& a) { return vectorize_reduction_rule(arg_nat(a, 0), 1, true); }});
  r.rule({"vectorizeReduction2Remainder",
          RuleFamily::Vector,
          "vectorizeReduction2(n) of any length L: the last L%2n elements by a scalar loop "
          "continuing from the vectors' result",
          {ParamKind::Nat},
          [](const Args& a) { return vectorize_reduction_rule(arg_nat(a, 0), 2, true); }});
  r.rule({"vectorizeRemainder",
          RuleFamily::Vector,
          "map(f)(x) of any length L -> the first L - L%n elements vectorised as by "
          "vectorize(n), the last L%n by the scalar map (concat of the two; symbolic L "
          "needs no precondition); vectorize(n) when n divides L",
          {ParamKind::Nat},
          [](const Args& a) { return vectorize_remainder_rule(arg_nat(a, 0)); }});
  r.rule({"vectorizeWindows",
          RuleFamily::Vector,
          "map(f) over windows (arrays of arrays of scalars: a stencil's) -> the windows in groups "
          "of n, each group one window of vec[t, n] (entry k of lane l is entry k of the group's "
          "l-th window: n consecutive windows' entries, one shifted vector load where they are "
          "consecutive in memory, two loads and a shuffle where they are two apart), f lifted "
          "entry-wise (indexing, views, maps and reductions over the window; a zip with an array "
          "the same for every window broadcasts its entries), asScalar of the results; n must "
          "divide the length; exact",
          {ParamKind::Nat},
          [](const Args& a) { return vectorize_windows_rule(arg_nat(a, 0)); }});
  r.rule({"vectorize",
          RuleFamily::Vector,
          "map(f) over scalars (or zips of scalars) -> asVector(n) >> map(f on vec[t, n]) >> "
          "asScalar (component-wise for pair results): lane-wise primitives and math, "
          "lane-independent scalars broadcast with vectorFromScalar; n must divide the length (no "
          "alignment assumed)",
          {ParamKind::Nat},
          [](const Args& a) { return vectorize_rule(arg_nat(a, 0)); }});
}

}  // namespace risec::elevate
