// accT and conT (see translate.h).
#include "dpia/translate.h"
#include "dpia/name_supply.h"
#include "dpia/register_block.h"
#include "dpia/step_in_place.h"
#include "rise/views.h"
#include "support/stack.h"

#include <functional>
#include <map>

namespace risec::dpia {

namespace {

using rise::Family;
using rise::PrimId;
using rise::TypeKind;
using Cont = std::function<CommandP(const ExpressionP&)>;

Nat size_of(const Type& t) {
  if (t->kind != TypeKind::Array && t->kind != TypeKind::Vector && t->kind != TypeKind::Index)
    internal_error("DPIA: size of a non-array type " + rise::print(t));
  return t->size;
}

class Translator {
 public:
  CommandP run(const Phrase& entry, const std::string& out, std::vector<Input>* inputs,
               const std::vector<std::string>& in_scope) {
    // Every name of the program, and those the caller's code uses, is in scope:
    // the loops and temporaries invented below never shadow one.
    reserve_names(names_, entry);
    names_.reserve(out);
    for (const std::string& n : in_scope) names_.reserve(n);
    Phrase body = entry;
    while (body->kind == PhraseNode::Lambda) {
      Type dt = body->type->a;
      inputs->push_back({body->name, dt, body->display});
      env_[body->name] = ex_var(body->name, dt);
      body = body->body();
    }
    return acc(body, ac_var(out, body->type));
  }

 private:
  std::map<std::string, ExpressionP> env_;
  NameSupply names_;   // dpia/name_supply.h
  int gpu_loops_ = 0;  // the GPU loops (mapGlobal, mapLocal, ..) around the phrase

  std::string fresh(const std::string& base, const std::vector<std::string>& suffixes = {}) {
    return names_.fresh(base, suffixes);
  }

  Nat loop_var(const std::string& name, const Nat& n) { return Nat::var(name, Nat(0), n); }

  // A loop (or an accumulator) that the primitive `e` made (a map's or a reduction's),
  // knowing it: where a parallel loop's writes cannot be proven disjoint, the error
  // names the primitive and points at it (dpia/disjoint_check.h).
  static CommandP made_by(CommandP loop, const Phrase& e) {
    if (!loop || (loop->kind != Command::For && loop->kind != Command::New)) return loop;
    Command c = *loop;
    c.origin = e->prim;
    c.span = e->head_span.known() ? e->head_span : e->span;
    c.step = e->step;
    if (c.kind == Command::For) c.schedule = e->schedule;
    if (c.kind == Command::For) c.prefetch = e->prefetch;  // (the rule prefetch's distance)
    return std::make_shared<const Command>(std::move(c));
  }

  // Bind a lambda's parameter to a value and translate with `f`.
  template <class Fn>
  CommandP with_param(const Phrase& lam, const ExpressionP& v, Fn&& f) {
    if (lam->kind != PhraseNode::Lambda)
      internal_error("DPIA: expected a lambda, found " + lam->name);
    // Binder names are unique (functional.cpp), so no outer binding is shadowed.
    env_[lam->name] = v;
    CommandP r = f(lam->body());
    env_.erase(lam->name);
    return r;
  }
  // Two parameters (a curried lambda of two arguments).
  template <class Fn>
  CommandP with_params(const Phrase& lam, const ExpressionP& a, const ExpressionP& b, Fn&& f) {
    return with_param(lam, a, [&](const Phrase& inner) { return with_param(inner, b, f); });
  }

  // An array literal (nested makeArray) of more scalar literals than specialise
  // unrolls over (kTableMin) is a table of constants (Command::table): bound data
  // (--bind) of thousands of values becomes one static array, not a store per
  // element. Smaller ones keep their stores, which the C compiler folds.
  static constexpr size_t kTableMin = 65;
  static bool table_scalars(const Phrase& e, std::vector<rise::Literal>& out) {
    if (e->kind == PhraseNode::Literal) {
      if (e->type->kind != TypeKind::Scalar) return false;
      rise::Literal l = e->lit;
      l.scalar = e->type->scalar;
      out.push_back(l);
      return true;
    }
    if (e->kind != PhraseNode::Prim || !e->prim || !e->prim->is(PrimId::MakeArray)) return false;
    for (const Phrase& a : e->args)
      if (!table_scalars(a, out)) return false;
    return true;
  }
  static std::shared_ptr<const std::vector<rise::Literal>> table_of(const Phrase& e) {
    std::vector<rise::Literal> out;
    if (!e->prim || !e->prim->is(PrimId::MakeArray) || !table_scalars(e, out) ||
        out.size() < kTableMin)
      return nullptr;
    return std::make_shared<const std::vector<rise::Literal>>(std::move(out));
  }

  // ------------------------------------------------------------ copies
  // Write a readable value of any data type into an acceptor, element by element.
  CommandP copy(const AcceptorP& a, const ExpressionP& v) {
    const Type& t = a->dt;
    switch (t->kind) {
      case TypeKind::Array: {
        std::string i = fresh("i");
        Nat iv = loop_var(i, t->size);
        return cm_for(i, t->size, LoopKind::Seq, copy(ac_idx(a, iv), ex_idx(v, iv)));
      }
      case TypeKind::Pair: {
        Acceptor a1{Acceptor::Pair1, t->a};
        a1.inner = a;
        Acceptor a2{Acceptor::Pair2, t->b};
        a2.inner = a;
        return cm_seq({copy(ac_make(a1), ex_fst(v)), copy(ac_make(a2), ex_snd(v))});
      }
      default:
        return cm_assign(a, v);
    }
  }

  AcceptorP ac_view(Acceptor::Kind k, Type dt, const AcceptorP& inner, Nat n = Nat(0)) {
    Acceptor a{k, std::move(dt)};
    a.inner = inner;
    a.n = std::move(n);
    return ac_make(std::move(a));
  }

  ExpressionP ex_view(Expression::Kind k, Type dt, std::vector<ExpressionP> args, Nat n = Nat(0)) {
    Expression e{k, std::move(dt)};
    e.args = std::move(args);
    e.n = std::move(n);
    return ex_make(std::move(e));
  }

  // A view's explicit Nat and Nat2Nat arguments, in order (its ViewSite).
  static std::vector<Nat> view_nats(const Phrase& e) {
    std::vector<Nat> out;
    for (const rise::TypeArg& t : e->targs)
      if (const Nat* n = std::get_if<Nat>(&t)) out.push_back(*n);
    return out;
  }
  // (a reorder's are checked where code reads or writes through them: require_reorder)
  static std::vector<rise::NatFun> view_funs(const Phrase& e, bool written = false) {
    std::vector<rise::NatFun> out;
    for (const rise::TypeArg& t : e->targs)
      if (const rise::NatFun* f = std::get_if<rise::NatFun>(&t)) out.push_back(*f);
    if (e->prim->is(PrimId::Reorder)) rise::require_reorder(view_nats(e), out, e->span, written);
    return out;
  }
  static std::vector<Type> arg_types(const Phrase& e) {
    std::vector<Type> out;
    for (const Phrase& a : e->args) out.push_back(a->type);
    return out;
  }
  // Value argument `input` of the view `e` written through its write map into B.
  static AcceptorP view_input_acceptor(const Phrase& e, int input, const AcceptorP& B) {
    return dpia::ac_view(*e->prim, input, arg_types(e), view_nats(e), view_funs(e, true), B);
  }
  // A view written by its write map, each value argument through its own acceptor.
  static bool writes_through_map(const Phrase& e) {
    return e->prim && e->prim->family == rise::Family::View && e->prim->write &&
           static_cast<int>(e->args.size()) == e->prim->arity;
  }

  // The address space named by a primitive's Addr argument (oclToMem(a),
  // oclReduceSeq(a)), or `otherwise` for one without.
  static Space addr_space(const Phrase& p, Space otherwise) {
    for (const rise::TypeArg& t : p->targs)
      if (const rise::Addr* a = std::get_if<rise::Addr>(&t)) {
        if (!a->space)
          user_error(p->name + ": the address space '" + a->var + "' must be known to compile",
                     p->span);
        return to_space(*a->space);
      }
    return otherwise;
  }

  static Nat targ_nat(const Phrase& p, size_t i) {
    if (i >= p->targs.size() || !std::holds_alternative<Nat>(p->targs[i]))
      internal_error("DPIA: " + p->name + " lacks its size argument");
    return std::get<Nat>(p->targs[i]);
  }

  // Whether the Nat value v fits its type: a natType value when provably >= 0, an
  // idx[n] value when provably in [0, n). Index and natType arithmetic and natAsIndex
  // whose result is not proven so stay run-time operations, which the backends check
  // (docs/architecture.md, "Bounds checks"; held-out K: indexAsNat(i) - 2 gave -2).
  static bool in_bounds(const Nat& v, const Type& t) {
    if (t->kind == TypeKind::NatData) return arith::provably_nonneg(v);
    return t->kind != TypeKind::Index ||
           (arith::provably_nonneg(v) && arith::provably_lt(v, t->size));
  }

  // A readable value as a Nat (index arithmetic stays symbolic where it can).
  CommandP with_nat(const ExpressionP& v, const Nat& bound,
                    const std::function<CommandP(const Nat&)>& k) {
    if (v->kind == Expression::Nat) return k(v->idx);
    std::string d = fresh("ix");
    Type it = rise::index_type(bound);
    return cm_new(d, it, Space::Private,
                  cm_seq({cm_assign(ac_var(d, it), v), k(Nat::var(d, Nat(0), bound))}));
  }

  // The value of a translation that needs no command, if there is one.
  std::optional<ExpressionP> pure(const Phrase& e) {
    ExpressionP captured;
    CommandP marker = cm_comment("pure");
    CommandP r = con(e, [&](const ExpressionP& v) {
      captured = v;
      return marker;
    });
    if (r == marker) return captured;
    return std::nullopt;
  }

  // ------------------------------------------------------------ destination views
  // Commands that complete a destination after the value written through a view
  // acceptor is in place: padCst's constant borders, padClamp's repeated edges
  // (the thesis's Map^D over padding views). Run in order, after the value.
  using Fills = std::vector<CommandP>;

  // Whether `e` mentions the variable `name`.
  static bool mentions(const Phrase& e, const std::string& name) {
    if (e->kind == PhraseNode::Var) return e->name == name;
    for (const Phrase& a : e->args)
      if (mentions(a, name)) return true;
    return false;
  }

  // Repeat^D (the thesis's Unrepeat): the value already written at dst[from] is
  // copied into dst[to_first .. to_first + count), read back through `back`, the
  // readable expression for dst; computed once, written count + 1 times.
  CommandP repeat_into(const AcceptorP& dst, const ExpressionP& back, const Nat& from,
                       const Nat& to_first, const Nat& count) {
    if (count.is_const(0)) return nullptr;
    std::string i = fresh("i");
    Nat iv = loop_var(i, count);
    return cm_for(i, count, LoopKind::Seq, copy(ac_idx(dst, to_first + iv), ex_idx(back, from)));
  }

  // padCst(l)(r)(c) of an n-array written into B: the borders.
  CommandP pad_cst_borders(const AcceptorP& B, const Nat& l, const Nat& r, const Nat& n,
                           const ExpressionP& c) {
    std::string i = fresh("i"), j = fresh("i");
    Nat iv = loop_var(i, l), jv = loop_var(j, r);
    return cm_seq(
        {l.is_const(0) ? nullptr : cm_for(i, l, LoopKind::Seq, copy(ac_idx(B, iv), c)),
         r.is_const(0) ? nullptr : cm_for(j, r, LoopKind::Seq, copy(ac_idx(B, l + n + jv), c))});
  }

  // padClamp(l)(r) of an n-array written into B, once its interior is: the edges are
  // read back from B and repeated into the borders (Repeat^D, the thesis's
  // Unrepeat). Null when B cannot be read back.
  CommandP pad_clamp_borders(const AcceptorP& B, const Nat& l, const Nat& r, const Nat& n) {
    ExpressionP back = readback(B);
    if (!back) return nullptr;
    return cm_seq(
        {repeat_into(B, back, l, Nat(0), l), repeat_into(B, back, l + n - Nat(1), l + n, r)});
  }

  // The acceptor for padClamp's or padCst's input: element i lands at B[l + i].
  AcceptorP pad_interior(const Phrase& pad, const AcceptorP& B) {
    if (pad->prim->is(PrimId::PadCst)) return view_input_acceptor(pad, 1, B);
    const Type& x = pad->args[0]->type;
    return dpia::ac_view(rise::primitive(PrimId::PadCst), 1, {x->a, x}, view_nats(pad), {}, B);
  }

  // The acceptor through which `x` (the parameter `param`, or a view of it) is
  // written when `body` is written into B, for a body built from views only:
  // transpose(x) into B is x into transposeAcc(B), and so on. Null when the body
  // computes or is not a view of the parameter. With `fills`, B is the real
  // destination and the commands that complete it are appended (padCst, padClamp);
  // without, B may be a map-view template's Hole and only the acceptor is built.
  AcceptorP view_acceptor(const Phrase& body, const std::string& param, const AcceptorP& B,
                          Fills* fills) {
    if (body->kind == PhraseNode::Var) return body->name == param ? B : nullptr;
    if (body->kind != PhraseNode::Prim || body->args.empty()) return nullptr;
    const Phrase& x = body->args.back();
    // Padding views: the input goes to the interior, the borders are filled after it.
    bool pad_cst = body->prim->is(PrimId::PadCst) && body->args.size() == 2;
    if (pad_cst || (body->prim->is(PrimId::PadClamp) && body->args.size() == 1)) {
      std::optional<ExpressionP> c;
      if (pad_cst) {
        if (mentions(body->args[0], param) || !(c = pure(body->args[0]))) return nullptr;
      }
      Fills inner;
      AcceptorP through = view_acceptor(x, param, pad_interior(body, B), fills ? &inner : nullptr);
      if (!through || !fills) return through;
      Nat l = targ_nat(body, 0), r = targ_nat(body, 1), n = size_of(x->type);
      CommandP own = pad_cst ? pad_cst_borders(B, l, r, n, *c) : pad_clamp_borders(B, l, r, n);
      if (!own) return nullptr;
      fills->insert(fills->end(), inner.begin(), inner.end());
      fills->push_back(own);
      return through;
    }
    if (writes_through_map(body) && body->args.size() == 1)
      return view_acceptor(x, param, view_input_acceptor(body, 0, B), fills);
    // asScalar's destination stores whole vectors (Acceptor::AsVector).
    if (body->prim && body->prim->is(rise::PrimId::AsScalar) && body->args.size() == 1)
      return view_acceptor(x, param, ac_view(Acceptor::AsVector, x->type, B, size_of(x->type->a)),
                           fills);
    if (body->prim->is(PrimId::Map) && body->args.size() == 2) {
      Fills own;
      AcceptorP m = map_view_acceptor(body->args[0], x->type, B, fills ? &own : nullptr);
      if (!m) return nullptr;
      AcceptorP through = view_acceptor(x, param, m, fills);
      if (through && fills) fills->insert(fills->end(), own.begin(), own.end());
      return through;
    }
    return nullptr;
  }

  // The acceptor for x when map(f)(x), x: n.s, is written into B and f is a view
  // function: element i of x goes through f's acceptor into B[i]. Null otherwise.
  // With `fills`, f's fills for every element (a loop over i) are appended.
  AcceptorP map_view_acceptor(const Phrase& f, const Type& x_type, const AcceptorP& B,
                              Fills* fills) {
    if (f->kind != PhraseNode::Lambda || x_type->kind != TypeKind::Array) return nullptr;
    Acceptor hole{Acceptor::Hole, B->dt->a};
    AcceptorP tmpl = view_acceptor(f->body(), f->name, ac_make(std::move(hole)), nullptr);
    if (!tmpl) return nullptr;
    if (fills) {
      Nat n = size_of(x_type);
      std::string i = fresh("i");
      Nat iv = loop_var(i, n);
      Fills each;
      if (!view_acceptor(f->body(), f->name, ac_idx(B, iv), &each)) return nullptr;
      if (!each.empty()) fills->push_back(cm_for(i, n, LoopKind::Seq, cm_seq(std::move(each))));
    }
    Acceptor m{Acceptor::MapView, x_type};
    m.inner = B;
    m.tmpl = tmpl;
    return ac_make(std::move(m));
  }

  // Whether writes through `a` go through a scatter's destination.
  static bool through_scatter(const AcceptorP& a) {
    for (AcceptorP p = a; p; p = p->inner)
      if (p->kind == Acceptor::Scatter) return true;
    return false;
  }

  // Zeros of any data type of scalars, pairs and arrays written into `a` (scatter's
  // positions that no index names).
  CommandP zeros(const AcceptorP& a, const Span& where) {
    const Type& t = a->dt;
    switch (t->kind) {
      case TypeKind::Array: {
        std::string i = fresh("i");
        Nat iv = loop_var(i, t->size);
        return cm_for(i, t->size, LoopKind::Seq, zeros(ac_idx(a, iv), where));
      }
      case TypeKind::Pair:
        return cm_seq({zeros(ac_view(Acceptor::Pair1, t->a, a), where),
                       zeros(ac_view(Acceptor::Pair2, t->b, a), where)});
      case TypeKind::Scalar: {
        Expression zero{Expression::Lit, t};
        zero.lit.kind = rise::LitKind::Scalar;
        zero.lit.scalar = t->scalar;
        return cm_assign(a, ex_make(std::move(zero)));
      }
      default:
        user_error("scatter of elements of type " + rise::print(t) + " cannot be compiled yet",
                   where);
    }
  }

  // ------------------------------------------------------------ accT
  CommandP acc(const Phrase& e, const AcceptorP& A) {
    check_stack_depth(e->span);
    if (e->kind != PhraseNode::Prim)
      return con(e, [&](const ExpressionP& v) { return copy(A, v); });
    const rise::PrimitiveInfo& pr = *e->prim;
    const auto& a = e->args;
    // A map of views (map(transpose), map(join), ...) writes its input through the
    // views, element by element, instead of through a temporary and a copy.
    if (pr.is(PrimId::Map)) {
      Fills fills;
      if (AcceptorP through = map_view_acceptor(a[0], a[1]->type, A, &fills)) {
        fills.insert(fills.begin(), acc(a[1], through));
        return cm_seq(std::move(fills));
      }
    }
    if (pr.family == Family::Map) {
      LoopKind kind = pr.loop;
      if (a[1]->kind == PhraseNode::Prim && a[1]->prim->family == Family::Sliding)
        return sliding(e, kind, A);
      // A GPU level's dimension is the map's first (explicit Nat) argument.
      int dim = 0;
      if (is_gpu_loop(kind)) {
        auto d = targ_nat(e, 0).as_const();
        if (!d || *d < 0 || *d > 2)
          user_error(pr.name + ": the dimension must be 0, 1 or 2", e->span);
        dim = static_cast<int>(*d);
      }
      // A loop writing through scatter's destination stays sequential: two of its
      // elements may have the same index, and the last one must win.
      if (kind != LoopKind::Seq && kind != LoopKind::SeqUnroll && through_scatter(A)) {
        if (is_gpu_loop(kind))
          user_error(pr.name +
                         " writes through scatter, whose repeated indices keep the last write: "
                         "it must be a sequential map (mapSeq)",
                     e->span);
        kind = LoopKind::Seq;
      }
      return con(a[1], [&, kind, dim](const ExpressionP& x) {
        Nat n = size_of(x->dt);
        std::string i = fresh("i");
        Nat iv = loop_var(i, n);
        gpu_loops_ += is_gpu_loop(kind);
        CommandP body =
            with_param(a[0], ex_idx(x, iv), [&](const Phrase& b) { return acc(b, ac_idx(A, iv)); });
        gpu_loops_ -= is_gpu_loop(kind);
        return made_by(cm_for(i, n, kind, body, dim), e);
      });
    }
    if (pr.family == Family::Reduce) {
      // An array accumulator is kept in the destination when that is plain memory (no
      // temporary, no copies per step), unless the program places it in private or local
      // memory (oclReduceSeq(Private)) or it is a CPU's register block (register_block.h).
      Space chosen = addr_space(e, Space::Default);
      bool placed = chosen == Space::Private || chosen == Space::Local ||
                    (!gpu_loops_ && A->kind != Acceptor::Var && register_block(pr.loop, e->type));
      if (e->type->kind == TypeKind::Array && !placed && !needs_next(e))
        if (ExpressionP readback = acceptor_as_exp(A)) return reduce_in_place(e, A, readback);
      return reduce(e, [&](const ExpressionP& r) { return copy(A, r); });
    }
    if (pr.family == Family::Loop)
      return iterate_while(e, [&](const ExpressionP& r) { return copy(A, r); });
    if (pr.family == Family::Scan) {
      return con(a[2], [&](const ExpressionP& x) {
        Nat n = size_of(x->dt);
        Type t = e->type->a;
        std::string v = fresh("acc");
        std::string i = fresh("i");
        Nat iv = loop_var(i, n);
        // an array accumulator the step does not write in step: through a temporary
        const bool through = type_holds_array(t) && !step_in_place(a[0], false);
        CommandP step = with_params(a[0], ex_idx(x, iv), ex_var(v, t), [&](const Phrase& b) {
          return through ? through_next(b, v, t, Space::Default) : acc(b, ac_var(v, t));
        });
        return cm_new(v, t, Space::Private,
                      cm_seq({acc(a[1], ac_var(v, t)),
                              cm_for(i, n, LoopKind::Seq,
                                     cm_seq({step, copy(ac_idx(A, iv), ex_var(v, t))}))}));
      });
    }
    if (pr.is(PrimId::Let)) return let(e, [&](const Phrase& b) { return acc(b, A); });
    if (pr.family == Family::Memory || pr.is(PrimId::Id)) return acc(a.back(), A);
    if (pr.is(PrimId::MakePair))
      return cm_seq({acc(a[0], ac_view(Acceptor::Pair1, a[0]->type, A)),
                     acc(a[1], ac_view(Acceptor::Pair2, a[1]->type, A))});
    if (pr.is(PrimId::PadCst)) {
      // Destination view: the borders and the interior are written separately, so
      // no loop has a conditional.
      Nat l = targ_nat(e, 0), r = targ_nat(e, 1);
      Nat n = size_of(a[1]->type);
      return con(a[0], [&, l, r, n](const ExpressionP& c) {
        std::string i = fresh("i"), j = fresh("i");
        Nat iv = loop_var(i, l), jv = loop_var(j, r);
        AcceptorP interior = view_input_acceptor(e, 1, A);
        return cm_seq(
            {l.is_const(0) ? nullptr : cm_for(i, l, LoopKind::Seq, copy(ac_idx(A, iv), c)),
             acc(a[1], interior),
             r.is_const(0) ? nullptr
                           : cm_for(j, r, LoopKind::Seq, copy(ac_idx(A, l + n + jv), c))});
      });
    }
    if (pr.is(PrimId::PadClamp)) {
      Nat l = targ_nat(e, 0), r = targ_nat(e, 1);
      // A computed input is written straight into the interior, and its edges are
      // repeated from there into the borders (Repeat^D): no temporary, no copy.
      if (ExpressionP back = readback(A); back && !pure(a[0]))
        return cm_seq(
            {acc(a[0], pad_interior(e, A)), pad_clamp_borders(A, l, r, size_of(a[0]->type))});
      return con(a[0], [&, l, r](const ExpressionP& x) {
        Nat n = size_of(x->dt);
        std::string i = fresh("i"), j = fresh("i"), k = fresh("i");
        Nat iv = loop_var(i, l), jv = loop_var(j, r), kv = loop_var(k, n);
        return cm_seq({l.is_const(0)
                           ? nullptr
                           : cm_for(i, l, LoopKind::Seq, copy(ac_idx(A, iv), ex_idx(x, Nat(0)))),
                       cm_for(k, n, LoopKind::Seq, copy(ac_idx(A, l + kv), ex_idx(x, kv))),
                       r.is_const(0) ? nullptr
                                     : cm_for(j, r, LoopKind::Seq,
                                              copy(ac_idx(A, l + n + jv), ex_idx(x, n - Nat(1))))});
      });
    }
    if (pr.is(PrimId::AsScalar)) {
      // m.vec[t, n] written into an (m*n).t acceptor: whole vectors are stored.
      Nat lanes = size_of(a[0]->type->a);
      return acc(a[0], ac_view(Acceptor::AsVector, a[0]->type, A, lanes));
    }
    // Any other writable view: each value argument through the row's write map.
    if (writes_through_map(e)) {
      std::vector<CommandP> parts;
      for (size_t i = 0; i < a.size(); ++i)
        parts.push_back(acc(a[i], view_input_acceptor(e, static_cast<int>(i), A)));
      return cm_seq(std::move(parts));
    }
    if (pr.is(PrimId::Scatter)) {
      // Positions no index names are zero (docs/language.md): the destination is
      // cleared, then x's elements are written where their indices say, in order
      // (a repeated index keeps the last write; the loops writing through the
      // scatter stay sequential, see the map case).
      CommandP clear = zeros(A, e->span);
      return con(a[0], [&, clear](const ExpressionP& ix) {
        return cm_seq({clear, acc(a[1], ac_scatter(A, ix, a[1]->type))});
      });
    }
    if (pr.is(PrimId::Update)) {
      // At^D, a point update: x is written into the destination, then v into
      // element i of it, so no element is tested against i and nothing is copied
      // twice (a computed x is written in place).
      Nat n = size_of(e->type);
      return cm_seq({acc(a[2], A), con(a[0], [&, n](const ExpressionP& i) {
                       return with_nat(i, n,
                                       [&](const Nat& iv) { return acc(a[1], ac_idx(A, iv)); });
                     })});
    }
    if (pr.is(PrimId::MakeArray)) {
      if (auto table = table_of(e)) {
        std::string t = fresh("tmp");
        return cm_new_table(t, e->type, table, copy(A, ex_var(t, e->type)));
      }
      std::vector<CommandP> items;
      for (size_t i = 0; i < a.size(); ++i)
        items.push_back(acc(a[i], ac_idx(A, Nat(static_cast<int64_t>(i)))));
      return cm_seq(std::move(items));
    }
    if (pr.is(PrimId::Generate)) {
      Nat n = size_of(e->type);
      // Repeat^D: an element that needs commands (a reduction, a loop) and does not
      // depend on the index is computed once, into A[0], and copied from there.
      const Phrase& f = a[0];
      if (f->kind == PhraseNode::Lambda && !mentions(f->body(), f->name))
        if (ExpressionP back = readback(A); back && !pure(f->body()))
          return cm_seq({acc(f->body(), ac_idx(A, Nat(0))),
                         repeat_into(A, back, Nat(0), Nat(1), n - Nat(1))});
      std::string i = fresh("i");
      Nat iv = loop_var(i, n);
      return cm_for(i, n, LoopKind::Seq,
                    with_param(a[0], ex_nat(iv, rise::index_type(n)),
                               [&](const Phrase& b) { return acc(b, ac_idx(A, iv)); }));
    }
    if (pr.family == Family::Iterate) return iterate(e, A);
    if (pr.family == Family::Sliding) {
      // Not consumed by a sequential map (that case is `sliding`): the windows are
      // what slide(sz)(1)(map(load)(x)) would give, written out one by one.
      Nat sz = pr.is(PrimId::CircularBuffer) ? targ_nat(e, 1) : targ_nat(e, 0);
      return con(a[1], [&, sz](const ExpressionP& x) {
        Nat n = size_of(e->type);
        std::string i = fresh("i"), j = fresh("j");
        Nat iv = loop_var(i, n), jv = loop_var(j, sz);
        return cm_for(
            i, n, LoopKind::Seq,
            cm_for(j, sz, LoopKind::Seq, with_param(a[0], ex_idx(x, iv + jv), [&](const Phrase& b) {
                     return acc(b, ac_idx(ac_idx(A, iv), jv));
                   })));
      });
    }
    // Everything else is computed as a readable value and copied.
    return con(e, [&](const ExpressionP& v) { return copy(A, v); });
  }

  // A sequential map over the windows of circularBuffer / rotateValues: each input
  // element is loaded (through the load function) once, into a rolling buffer of
  // `alloc` elements (circularBuffer, windows read modulo alloc) or into sz
  // registers shifted every iteration (rotateValues) — the DPS and views thesis's
  // eager Slide.
  CommandP sliding(const Phrase& map, LoopKind kind, const AcceptorP& A) {
    const Phrase& cb = map->args[1];
    const Phrase& body_fn = map->args[0];
    bool circular = cb->prim->is(PrimId::CircularBuffer);
    if (kind != LoopKind::Seq && kind != LoopKind::SeqUnroll)
      user_error(cb->name + " must be consumed by a sequential map (mapSeq)", map->span);
    Nat alloc = targ_nat(cb, 0);
    Nat sz = circular ? targ_nat(cb, 1) : alloc;
    if (circular && !arith::provably_le(sz, alloc))
      user_error("circularBuffer needs a buffer (" + alloc.to_string() +
                     ") at least as large as the window (" + sz.to_string() + ")",
                 cb->span);
    const Phrase& load = cb->args[0];
    Type t = cb->type->a->a;  // n.sz.t
    return con(cb->args[1], [&, kind, alloc, sz, circular](const ExpressionP& x) {
      Nat n = size_of(cb->type);
      std::string buf = fresh("win");
      Type buf_t = rise::array(alloc, t);
      AcceptorP bufA = ac_var(buf, buf_t);
      ExpressionP bufE = ex_var(buf, buf_t);
      auto load_into = [&](const Nat& src, const AcceptorP& dst) {
        return with_param(load, ex_idx(x, src), [&](const Phrase& b) { return acc(b, dst); });
      };
      std::string j = fresh("j");
      Nat jv = loop_var(j, sz - Nat(1));
      CommandP prologue = cm_for(j, sz - Nat(1), LoopKind::SeqUnroll,
                                 load_into(jv, ac_idx(bufA, circular ? jv : jv + Nat(1))));
      std::string i = fresh("i");
      Nat iv = loop_var(i, n);
      CommandP step;
      ExpressionP window;
      if (circular) {
        step = load_into(iv + sz - Nat(1), ac_idx(bufA, arith::mod(iv + sz - Nat(1), alloc)));
        std::string w = fresh("w");
        Expression g{Expression::Generate, rise::array(sz, t)};
        g.name = w;
        g.args = {ex_idx(bufE, arith::mod(iv + Nat::var(w, Nat(0), sz), alloc))};
        window = ex_make(std::move(g));
      } else {
        std::string r = fresh("j");
        Nat rv = loop_var(r, sz - Nat(1));
        CommandP shift = cm_for(r, sz - Nat(1), LoopKind::SeqUnroll,
                                copy(ac_idx(bufA, rv), ex_idx(bufE, rv + Nat(1))));
        step = cm_seq({shift, load_into(iv + sz - Nat(1), ac_idx(bufA, sz - Nat(1)))});
        window = bufE;
      }
      CommandP body =
          with_param(body_fn, window, [&](const Phrase& b) { return acc(b, ac_idx(A, iv)); });
      return cm_new(buf, buf_t, Space::Private,
                    cm_seq({prologue, cm_for(i, n, kind, cm_seq({step, body}))}));
    });
  }

  CommandP let(const Phrase& e, const std::function<CommandP(const Phrase&)>& k) {
    const Phrase& v = e->args[0];
    const Phrase& f = e->args[1];
    // A readable array (a view) is used in place; anything else, in particular a
    // scalar computation, is computed once into a variable.
    if (v->access() == Access::Rd && v->type->kind == TypeKind::Array) {
      if (auto x = pure(v)) return with_param(f, *x, k);
    }
    // Index arithmetic stays symbolic (a with-loop's index names are such lets once
    // lowered), so that indices simplify and need no variable.
    if (v->type->kind == TypeKind::NatData || v->type->kind == TypeKind::Index) {
      if (auto x = pure(v); x && (*x)->kind == Expression::Nat) return with_param(f, *x, k);
    }
    std::string t = fresh(f->display.empty() ? "tmp" : f->display);
    Type dt = v->type;
    // The let's memory is the one its value chooses (let(oclToMem(Local)(x))), if any.
    Space space = dt->kind == TypeKind::Array ? Space::Default : Space::Private;
    if (v->kind == PhraseNode::Prim && v->prim->family == Family::Memory)
      space = addr_space(v, space);
    return cm_new(t, dt, space, cm_seq({acc(v, ac_var(t, dt)), with_param(f, ex_var(t, dt), k)}),
                  f->display, f->span);
  }

  // reduceSeq(f)(init)(x): an accumulator in memory, updated in a loop.
  CommandP reduce(const Phrase& e, const Cont& k) {
    const auto& a = e->args;
    LoopKind kind = e->prim->loop;
    return con(a[2], [&, kind](const ExpressionP& x) {
      Nat n = size_of(x->dt);
      Type t = e->type;
      std::string v = fresh("acc");
      std::string i = fresh("i");
      Nat iv = loop_var(i, n);
      CommandP step = with_params(a[0], ex_var(v, t), ex_idx(x, iv), [&](const Phrase& b) {
        // A pair accumulator is written one component at a time: the step's result
        // goes to a temporary first, or the second component would read the first's
        // new value (an argmax's select(b._1 > a._1) would compare against itself).
        if (t->kind == TypeKind::Pair) return through_next(b, v, t, Space::Private);
        if (t->kind == TypeKind::Array && needs_next(e))
          return made_by(through_next(b, v, t, addr_space(e, Space::Default)), e);
        return acc(b, ac_var(v, t));
      });
      Space space = addr_space(e, t->kind == TypeKind::Array ? Space::Default : Space::Private);
      CommandP loop = made_by(cm_for(i, n, kind, step), e);
      if (kind == LoopKind::Par) loop = with_reduction(loop, reduction_operator(a[0]), v, e);
      return made_by(cm_new(v, t, space, cm_seq({acc(a[1], ac_var(v, t)), loop, k(ex_var(v, t))})),
                     e);
    });
  }

  // iterateWhile(k)(cond)(step)(init): the state in memory, a loop of at most k
  // iterations that leaves when cond of the state is false and otherwise sets the
  // state to step of it:
  //   state := init; for (i < k) { if (!cond(state)) break; state := step(state) }
  CommandP iterate_while(const Phrase& e, const Cont& k) {
    const auto& a = e->args;
    const Nat n = targ_nat(e, 0);
    Type t = e->type;
    std::string v = fresh("state");
    std::string i = fresh("i");
    ExpressionP state = ex_var(v, t);
    auto leave_unless = [&](const ExpressionP& c) {
      Expression neg{Expression::Unary, c->dt};
      neg.prim = &rise::primitive(PrimId::Not);
      neg.args = {c};
      return cm_if(ex_make(std::move(neg)), cm_break(), cm_seq({}));
    };
    // The test reads the condition directly where it is an expression; one that needs
    // commands (a reduction) is computed into a variable first, so that the break is
    // never inside a loop of its own.
    CommandP direct;
    CommandP test = with_param(a[0], state, [&](const Phrase& b) {
      return con(b, [&](const ExpressionP& c) { return direct = leave_unless(c); });
    });
    if (test != direct) {
      std::string go = fresh("go");
      Type bt = a[0]->body()->type;
      test = cm_new(
          go, bt, Space::Private,
          cm_seq({with_param(a[0], state, [&](const Phrase& b) { return acc(b, ac_var(go, bt)); }),
                  leave_unless(ex_var(go, bt))}));
    }
    // A state of several components (a pair, an array) is written to a temporary
    // first: its parts are read while the new state is written.
    CommandP step = with_param(a[1], state, [&](const Phrase& b) {
      if (t->kind == TypeKind::Scalar || t->kind == TypeKind::Vector) return acc(b, ac_var(v, t));
      std::string next = fresh("next");
      Space ns = t->kind == TypeKind::Array ? Space::Default : Space::Private;
      return cm_new(next, t, ns,
                    cm_seq({acc(b, ac_var(next, t)), copy(ac_var(v, t), ex_var(next, t))}));
    });
    Space space = addr_space(e, t->kind == TypeKind::Array ? Space::Default : Space::Private);
    return cm_new(
        v, t, space,
        cm_seq({acc(a[2], ac_var(v, t)), cm_for_exiting(i, n, cm_seq({test, step})), k(state)}));
  }

  // The operator of a parallel reduction: fun(a => fun(b => op(a)(b))) with op an
  // associative and commutative primitive (add, mul, fmin, fmax; the rule reducePar
  // checked associativity).
  static const rise::PrimitiveInfo* reduction_operator(const Phrase& f) {
    if (f->kind != PhraseNode::Lambda || f->body()->kind != PhraseNode::Lambda) return nullptr;
    const Phrase& b = f->body()->body();
    if (b->kind != PhraseNode::Prim || b->args.size() != 2) return nullptr;
    if (!b->prim->has(rise::kAssocComm)) return nullptr;
    auto is_var = [](const Phrase& x, const std::string& n) {
      return x->kind == PhraseNode::Var && x->name == n;
    };
    const std::string& p = f->name;
    const std::string& q = f->body()->name;
    if ((is_var(b->args[0], p) && is_var(b->args[1], q)) ||
        (is_var(b->args[0], q) && is_var(b->args[1], p)))
      return b->prim;
    return nullptr;
  }

  static CommandP with_reduction(const CommandP& loop, const rise::PrimitiveInfo* op,
                                 const std::string& var, const Phrase& e) {
    if (!op)
      user_error(
          "reducePar needs its operator to be add, mul, fmin or fmax applied to the accumulator "
          "and "
          "the element",
          e->span);
    if (e->type->kind == TypeKind::Array)
      user_error(
          "reducePar with an array accumulator is not supported by the OpenMP backend yet; use "
          "reduceSeq "
          "inside mapPar instead",
          e->span);
    Command c = *loop;
    c.reduction = op;
    c.reduction_var = var;
    return std::make_shared<const Command>(std::move(c));
  }

  // The readable expression for memory written through `a`, when `a` is a memory
  // variable or an element of one.
  static ExpressionP acceptor_as_exp(const AcceptorP& a) {
    if (a->kind == Acceptor::Var) return ex_var(a->name, a->dt);
    if (a->kind == Acceptor::Idx) {
      ExpressionP inner = acceptor_as_exp(a->inner);
      return inner ? ex_idx(inner, a->idx) : nullptr;
    }
    return nullptr;
  }

  // Like acceptor_as_exp, also through the interiors of padded destinations (the
  // acceptor padCst and padClamp write their input through): what the destination
  // views of the padding views read back.
  static ExpressionP readback(const AcceptorP& a) {
    if (a->kind == Acceptor::Idx) {
      ExpressionP inner = readback(a->inner);
      return inner ? ex_idx(inner, a->idx) : nullptr;
    }
    if (a->kind == Acceptor::View && a->prim->is(PrimId::PadCst) && a->input == 1) {
      ExpressionP inner = readback(a->inner);
      if (!inner) return nullptr;
      const Nat& l = a->nats[0];
      Nat n = size_of(a->dt);
      Type rest = rise::array(size_of(inner->dt) - l, a->dt->a);
      ExpressionP dropped = dpia::ex_view(rise::primitive(PrimId::Drop), rest, {l}, {}, {inner});
      return dpia::ex_view(rise::primitive(PrimId::Take), a->dt, {n}, {}, {dropped});
    }
    return acceptor_as_exp(a);
  }

  // The step `b` of an accumulator `v` of type t written to a temporary in `space`, then
  // copied to v: the step reads v while it is written.
  CommandP through_next(const Phrase& b, const std::string& v, const Type& t, Space space) {
    std::string next = fresh("next");
    return cm_new(next, t, space,
                  cm_seq({acc(b, ac_var(next, t)), copy(ac_var(v, t), ex_var(next, t))}));
  }

  // Whether the array accumulator of reduction `e` gets a temporary for each step's
  // result (dpia/step_in_place.h): one a strategy placed in private or local memory as
  // placed_step_needs_next says; a CPU register block only where its step may read it
  // out of order.
  bool needs_next(const Phrase& e) {
    Space chosen = addr_space(e, Space::Default);
    if (chosen == Space::Private || chosen == Space::Local)
      return placed_step_needs_next(e, chosen == Space::Private ? "private" : "local");
    if (!gpu_loops_ && register_block(e->prim->loop, e->type))
      return step_reads_out_of_order(e->args[0], true);
    return !step_in_place(e->args[0], true);
  }

  CommandP reduce_in_place(const Phrase& e, const AcceptorP& A, const ExpressionP& readback) {
    const auto& a = e->args;
    LoopKind kind = e->prim->loop;
    return con(a[2], [&, kind](const ExpressionP& x) {
      Nat n = size_of(x->dt);
      std::string i = fresh("i");
      Nat iv = loop_var(i, n);
      CommandP step =
          with_params(a[0], readback, ex_idx(x, iv), [&](const Phrase& b) { return acc(b, A); });
      // Initialise, unless the initial value is the destination itself (a nested
      // reduction continuing its parent's accumulator).
      std::optional<ExpressionP> start = pure(a[1]);
      CommandP init = start && same_memory(*start, readback) ? nullptr : acc(a[1], A);
      return cm_seq({init, made_by(cm_for(i, n, kind, step), e)});
    });
  }

  // iterate(k)(f)(x): double buffering (the paper's section VI, Listings 12-14):
  // newDoubleBuffer with a loop of k steps; step i reads m*n^(k-i) elements and
  // writes m*n^(k-i-1), then swaps the buffers, or, before the last step, points the
  // output at the result.
  CommandP iterate(const Phrase& e, const AcceptorP& A) {
    Nat k = targ_nat(e, e->targs.size() - 1);  // oclIterate's address space comes first
    const Phrase& step = e->args[0];
    const Phrase& input = e->args[1];
    if (step->kind != PhraseNode::DepLambda)
      user_error("iterate's step must be a depFun", step->span);
    Type elem = e->type->a;
    Nat m = size_of(e->type);
    Nat len = size_of(input->type);
    // n from the step's type: (l*n).t -> l.t
    Nat probe = Nat::var(step->name);
    Nat in_len = size_of(step->body()->type->a);
    Nat n = arith::exact_div(in_len, probe);
    // iterate(0): no step; the result is the input.
    if (k.is_const(0)) return acc(input, A);
    if (A->kind != Acceptor::Var) {
      // The output pointer must be memory of its own: iterate into a temporary.
      std::string t = fresh("tmp");
      return cm_new(t, e->type, Space::Default,
                    cm_seq({iterate(e, ac_var(t, e->type)), copy(A, ex_var(t, e->type))}));
    }
    return con(input, [&, k, n, m, len](const ExpressionP& x0) -> CommandP {
      auto body_with = [&, k, n, m, len](const ExpressionP& x) -> CommandP {
        std::string db = fresh("db", {double_buffer_in(""), double_buffer_out("")});
        std::string i = fresh("i");
        Nat iv = loop_var(i, k);
        Nat l = m * arith::pow(n, k - iv - Nat(1));
        Phrase body = subst_dep(step, l);
        ExpressionP in = ex_var(double_buffer_in(db), rise::array(l * n, elem));
        AcceptorP out = ac_var(double_buffer_out(db), rise::array(l, elem));
        Command sw{Command::Swap};
        sw.var = db;
        Command dn{Command::Done};
        dn.var = db;
        CommandP loop =
            cm_for(i, k, LoopKind::Seq,
                   cm_seq({with_param(body, in, [&](const Phrase& b) { return acc(b, out); }),
                           cm_if(arith::lt(iv + Nat(2), k), std::make_shared<const Command>(sw),
                                 std::make_shared<const Command>(dn))}));
        Command c{Command::NewDoubleBuffer};
        c.var = db;
        c.span = e->head_span.known() ? e->head_span : e->span;  // `iterate`, for refusals
        c.dt = elem;
        c.n = arith::exact_div(len, n);  // the first (largest) output
        c.iterations = k;
        c.exp = x;
        c.acc = A;
        c.body = {loop};
        return std::make_shared<const Command>(std::move(c));
      };
      if (x0->kind == Expression::Var) return body_with(x0);
      // The input pointer must be memory: store a view first.
      std::string t = fresh("tmp");
      return cm_new(t, x0->dt, Space::Default,
                    cm_seq({copy(ac_var(t, x0->dt), x0), body_with(ex_var(t, x0->dt))}));
    });
  }

  // Substitute a Nat for a DepLambda's binder in its body's types (the body is a
  // Lambda over the step's input).
  Phrase subst_dep(const Phrase& dep, const Nat& value) {
    rise::TypeSubst s;
    s.nats[dep->name] = value;
    std::function<Phrase(const Phrase&)> go = [&](const Phrase& f) -> Phrase {
      PhraseNode n = *f;
      if (n.type) n.type = rise::substitute(n.type, s);
      if (n.ptype && n.ptype->kind == PhraseType::Exp) n.ptype = exp_t(n.type, n.ptype->access);
      for (auto& t : n.targs) t = rise::substitute(t, s);
      for (auto& a : n.args) a = go(a);
      return std::make_shared<const PhraseNode>(std::move(n));
    };
    return go(dep->body());
  }

  // ------------------------------------------------------------ conT
  CommandP con(const Phrase& e, const Cont& k) {
    check_stack_depth(e->span);
    switch (e->kind) {
      case PhraseNode::Var: {
        auto it = env_.find(e->name);
        if (it == env_.end()) internal_error("DPIA: unbound variable " + e->name, e->span);
        return k(it->second);
      }
      case PhraseNode::Literal:
        return k(literal(e));
      case PhraseNode::Foreign: {
        std::vector<ExpressionP> vals;
        return con_list(e->args, 0, vals, [&](std::vector<ExpressionP>& xs) {
          Expression c{Expression::Call, e->type};
          c.name = e->name;
          c.foreign = e->foreign;
          c.args = xs;
          return k(ex_make(std::move(c)));
        });
      }
      case PhraseNode::Lambda:
      case PhraseNode::DepLambda:
        internal_error("DPIA: a function where a value is expected", e->span);
      case PhraseNode::Prim:
        return con_prim(e, k);
    }
    return nullptr;
  }

  CommandP con_list(const std::vector<Phrase>& args, size_t i, std::vector<ExpressionP>& acc_vals,
                    const std::function<CommandP(std::vector<ExpressionP>&)>& k) {
    if (i == args.size()) return k(acc_vals);
    return con(args[i], [&, i](const ExpressionP& v) {
      acc_vals.push_back(v);
      CommandP r = con_list(args, i + 1, acc_vals, k);
      acc_vals.pop_back();
      return r;
    });
  }

  ExpressionP literal(const Phrase& e) {
    const rise::Literal& l = e->lit;
    if (e->type->kind == TypeKind::Index || e->type->kind == TypeKind::NatData) {
      Nat v = l.kind == rise::LitKind::Int ? Nat(l.i) : l.nat;
      return ex_nat(v, e->type);
    }
    if (l.kind == rise::LitKind::NatVal) {
      // a size as a number (natAsScalar): the size converted to the scalar type
      Expression c{Expression::Cast, e->type};
      c.args = {ex_nat(l.nat, rise::nat_data())};
      return ex_make(std::move(c));
    }
    Expression x{Expression::Lit, e->type};
    x.lit = l;
    if (e->type->kind == TypeKind::Scalar) x.lit.scalar = e->type->scalar;
    return ex_make(std::move(x));
  }

  CommandP materialize(const Phrase& e, const Cont& k, Space space = Space::Default) {
    std::string t = fresh("tmp");
    Type dt = e->type;
    return cm_new(t, dt, space, cm_seq({acc(e, ac_var(t, dt)), k(ex_var(t, dt))}));
  }

  CommandP con_prim(const Phrase& e, const Cont& k) {
    const rise::PrimitiveInfo& pr = *e->prim;
    const std::string& p = e->name;
    const auto& a = e->args;
    if (pr.is(PrimId::Let)) return let(e, [&](const Phrase& b) { return con(b, k); });
    if (pr.family == Family::Memory) return materialize(a.back(), k, addr_space(e, Space::Default));
    if (pr.is(PrimId::Id)) return con(a[0], k);
    if (pr.family == Family::Reduce) return reduce(e, k);
    if (pr.family == Family::Loop) return iterate_while(e, k);
    if (e->access() == Access::Wr) {
      // Only reachable for the entry's output or inside acc; reading it needs memory.
      return materialize(e, k);
    }
    // A view declared by a read map: its value arguments, then the view of them.
    if (e->prim && e->prim->family == rise::Family::View && e->prim->read &&
        static_cast<int>(a.size()) == e->prim->arity) {
      std::vector<ExpressionP> vals;
      return con_list(a, 0, vals, [&](std::vector<ExpressionP>& xs) {
        return k(dpia::ex_view(*e->prim, e->type, view_nats(e), view_funs(e), xs));
      });
    }
    if (pr.is(PrimId::AsVector) || pr.is(PrimId::AsVectorAligned)) {
      return con(a[0], [&](const ExpressionP& x) {
        Expression v = *ex_view(Expression::AsVector, e->type, {x}, targ_nat(e, 0));
        v.aligned = pr.is(PrimId::AsVectorAligned);
        v.span = e->head_span;
        return k(ex_make(std::move(v)));
      });
    }
    if (pr.is(PrimId::VectorFromScalar))
      return con(a[0], [&](const ExpressionP& x) {
        return k(ex_view(Expression::Broadcast, e->type, {x}));
      });
    if (pr.is(PrimId::Fst)) return con(a[0], [&](const ExpressionP& x) { return k(ex_fst(x)); });
    if (pr.is(PrimId::Snd)) return con(a[0], [&](const ExpressionP& x) { return k(ex_snd(x)); });
    if (pr.is(PrimId::MakePair) || pr.is(PrimId::Gather)) {
      Expression::Kind kind = pr.is(PrimId::MakePair) ? Expression::MkPair : Expression::Gather;
      return con(a[0], [&, kind](const ExpressionP& x) {
        return con(a[1], [&, kind](const ExpressionP& y) {
          return k(ex_view(kind, e->type, {x, y}));
        });
      });
    }
    if (pr.is(PrimId::Unzip)) {
      return con(a[0], [&](const ExpressionP& x) {
        Type pt = x->dt->a;
        std::string v = fresh("u");
        ExpressionP elem = ex_var(v, pt);
        Expression m1{Expression::MapView, e->type->a};
        m1.name = v;
        m1.args = {ex_fst(elem), x};
        Expression m2{Expression::MapView, e->type->b};
        m2.name = v;
        m2.args = {ex_snd(elem), x};
        return k(
            ex_view(Expression::MkPair, e->type, {ex_make(std::move(m1)), ex_make(std::move(m2))}));
      });
    }
    if (pr.is(PrimId::Idx)) {
      return con(a[0], [&](const ExpressionP& i) {
        return con(a[1], [&](const ExpressionP& x) {
          return with_nat(i, size_of(x->dt), [&](const Nat& iv) { return k(ex_idx(x, iv)); });
        });
      });
    }
    if (pr.is(PrimId::Generate) || pr.is(PrimId::Map)) {
      // A view whose elements are computed on access, when they need no memory.
      const Phrase& f = a[0];
      std::string v = fresh("g");
      if (pr.is(PrimId::Generate)) {
        Nat n = size_of(e->type);
        std::optional<ExpressionP> body;
        with_param(f, ex_nat(Nat::var(v, Nat(0), n), rise::index_type(n)), [&](const Phrase& b) {
          body = pure(b);
          return CommandP();
        });
        if (!body) return materialize(e, k);
        Expression g{Expression::Generate, e->type};
        g.name = v;
        g.args = {*body};
        return k(ex_make(std::move(g)));
      }
      return con(a[1], [&](const ExpressionP& x) -> CommandP {
        std::optional<ExpressionP> body;
        with_param(f, ex_var(v, x->dt->a), [&](const Phrase& b) {
          body = pure(b);
          return CommandP();
        });
        if (!body) return materialize(e, k);
        Expression m{Expression::MapView, e->type};
        m.name = v;
        m.args = {*body, x};
        return k(ex_make(std::move(m)));
      });
    }
    if (pr.is(PrimId::MakeArray))
      if (auto table = table_of(e)) {
        std::string t = fresh("tmp");
        return cm_new_table(t, e->type, table, k(ex_var(t, e->type)));
      }
    if (pr.is(PrimId::MakeArray) || pr.is(PrimId::Scatter) || pr.is(PrimId::Update))
      return materialize(e, k);
    if (pr.is(PrimId::MapFst) || pr.is(PrimId::MapSnd)) {
      return con(a[1], [&](const ExpressionP& x) -> CommandP {
        bool first = pr.is(PrimId::MapFst);
        ExpressionP part = first ? ex_fst(x) : ex_snd(x);
        return with_param(a[0], part, [&](const Phrase& b) {
          return con(b, [&](const ExpressionP& y) {
            return k(ex_view(Expression::MkPair, e->type,
                             first ? std::vector<ExpressionP>{y, ex_snd(x)}
                                   : std::vector<ExpressionP>{ex_fst(x), y}));
          });
        });
      });
    }
    if (pr.family == Family::Index || pr.is(PrimId::Cast)) {
      // An index made from a value (natAsIndex, a cast to idx[n]) is a Cast that the
      // backends check against n (docs/architecture.md, "Bounds checks"); one that is
      // a Nat proven in [0, n) stays symbolic.
      const Type& from = a[0]->type;
      if ((e->type->kind == TypeKind::Index || e->type->kind == TypeKind::NatData) &&
          from->kind == TypeKind::Scalar && rise::is_float(from->scalar))
        user_error("cast of a " + rise::print(from) + " value to " + rise::print(e->type) +
                       " (the interpreter refuses it when it runs): cast it to an integer "
                       "type first",
                   e->span);
      return con(a[0], [&](const ExpressionP& x) {
        if (x->kind == Expression::Nat && in_bounds(x->idx, e->type))
          return k(ex_nat(x->idx, e->type));
        Expression c{Expression::Cast, e->type};
        c.prim = &pr;
        c.args = {x};
        return k(ex_make(std::move(c)));
      });
    }
    if (pr.is(PrimId::Select) && a[0]->type->kind == TypeKind::Scalar) {
      // A branch that needs commands (a reduction, memory) must run only when taken
      // (`i > 0 && sum(x[i-1]...)`, `b != 0 && ... / b`): then a run-time conditional
      // writes the branch taken into a temporary. Each branch is translated once (as
      // its copy into the temporary), so nested selects stay linear.
      return con(a[0], [&](const ExpressionP& cond) {
        std::string t = fresh("sel");
        const Type& dt = e->type;
        ExpressionP v[2];
        CommandP write[2];
        bool pure_branches = true;
        for (int b = 0; b < 2; ++b) {
          CommandP direct;
          write[b] = con(a[b + 1], [&](const ExpressionP& x) {
            v[b] = x;
            return direct = copy(ac_var(t, dt), x);
          });
          pure_branches &= write[b] == direct;
        }
        if (pure_branches) return k(ex_view(Expression::Select, dt, {cond, v[0], v[1]}));
        return cm_new(t, dt, Space::Default,
                      cm_seq({cm_if(cond, write[0], write[1]), k(ex_var(t, dt))}));
      });
    }
    if (pr.is(PrimId::Select)) {
      // Lane-wise on vector masks: both branches are computed.
      std::vector<ExpressionP> vals;
      return con_list(a, 0, vals, [&](std::vector<ExpressionP>& xs) {
        return k(ex_view(Expression::Select, e->type, xs));
      });
    }
    if (pr.is_scalar()) {
      std::vector<ExpressionP> vals;
      return con_list(a, 0, vals, [&](std::vector<ExpressionP>& xs) {
        // Index arithmetic stays symbolic.
        if (xs.size() == 2 && xs[0]->kind == Expression::Nat && xs[1]->kind == Expression::Nat &&
            (pr.is(PrimId::Add) || pr.is(PrimId::Sub) || pr.is(PrimId::Mul))) {
          Nat r = pr.is(PrimId::Add)   ? xs[0]->idx + xs[1]->idx
                  : pr.is(PrimId::Sub) ? xs[0]->idx - xs[1]->idx
                                       : xs[0]->idx * xs[1]->idx;
          if (in_bounds(r, e->type)) return k(ex_nat(r, e->type));
        }
        // Division and modulo of a non-negative index by a positive constant (C's / and %
        // are floor division there) stay symbolic too, so that arith simplifies them.
        if (xs.size() == 2 && xs[0]->kind == Expression::Nat && xs[1]->kind == Expression::Nat &&
            (pr.is(PrimId::Div) || pr.is(PrimId::Mod)) && xs[1]->idx.as_const() &&
            *xs[1]->idx.as_const() > 0 && arith::provably_nonneg(xs[0]->idx)) {
          Nat r = pr.is(PrimId::Div) ? arith::floordiv(xs[0]->idx, xs[1]->idx)
                                     : arith::mod(xs[0]->idx, xs[1]->idx);
          if (in_bounds(r, e->type)) return k(ex_nat(r, e->type));
        }
        // Arithmetic is an operator (unary: neg, not); a math builtin is a call.
        bool math = pr.family == Family::Math;
        bool unary = !math && xs.size() == 1;
        Expression c{unary ? Expression::Unary : (math ? Expression::Call : Expression::Binary),
                     e->type};
        c.prim = &pr;
        c.args = xs;
        return k(ex_make(std::move(c)));
      });
    }
    if (pr.family == Family::Sliding || pr.family == Family::Scan || pr.family == Family::Iterate)
      return materialize(e, k);
    internal_error("DPIA: no continuation translation for " + p, e->span);
  }
};

}  // namespace

CommandP translate(const Phrase& entry, const std::string& output_name, std::vector<Input>* inputs,
                   const std::vector<std::string>& in_scope) {
  Translator t;
  return t.run(entry, output_name, inputs, in_scope);
}

}  // namespace risec::dpia
