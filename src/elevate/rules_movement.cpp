// Movement rules (family "movement"): exchange a map (or a nest of two maps) with a
// data-layout primitive (transpose, split, slide, join, drop, take), or move a
// slide across a transpose. Names and directions are those of the RISE & Shine
// compiler (rise/elevate/rules/movement.scala), whose notation is used below:
// `x >> y` is x then y, `*f` is map(f), `**f` is map(map(f)), T transpose, S
// slide or split, J join. Every rule matches the composition applied to data, as
// it appears in DFNF (a map's function may be written map(g) or fun(a => map(g)(a)));
// the maps built are in DFNF (their functions are lambdas).
#include "elevate/library.h"
#include "elevate/rule_util.h"

namespace risec::elevate {

using rise::PrimId;

using rise::Nat;
using util::call;
using util::fun;
using util::mk_map;
using util::mk_map_fn;
using util::PrimCall;

namespace {

// slide(sz)(sp)(y) or split(n)(y)
std::optional<PrimCall> match_split_or_slide(const Expr& e) {
  if (auto c = util::match_prim(e, PrimId::Slide, 1)) return c;
  return util::match_prim(e, PrimId::Split, 1);
}

// A call of S with a new argument.
Expr with_arg(const PrimCall& c, const Expr& x) {
  return call(c.id(), c.deps, {x});
}

Expr transpose_fn() {
  return fun("a", [](const Expr& a) { return call(PrimId::Transpose, {a}); });
}

// The function fun(a => c(a)): the call `c` waiting for its array.
Expr as_fn(const PrimCall& c) {
  return fun("a", [&](const Expr& a) { return with_arg(c, a); });
}

// transpose(map(P)(y)) with P a primitive call waiting for its array (map(slide(3)(1)),
// map(join), map(padCst(l)(r)(c)), also as fun(a => P(a))): P and y.
struct MappedUnderTranspose {
  PrimCall p;
  Expr y;
};
std::optional<MappedUnderTranspose> match_mapped_under_transpose(const Expr& e) {
  auto t = util::match_prim(e, PrimId::Transpose, 1);
  auto m = t ? util::match_map(t->args[0]) : std::nullopt;
  auto p = m ? util::match_unary_fn(m->first) : std::nullopt;
  if (!p) return std::nullopt;
  return MappedUnderTranspose{*p, m->second};
}

// A movement rule: `match` returns the rewritten term or nullopt.
Strategy movement(const std::string& name, const std::string& form,
                  std::function<std::optional<Expr>(const Expr&)> match) {
  return rule(name, [name, form, match](const Expr& e, const Context&) -> Result {
    if (auto r = match(e)) return *r;
    return fail_at(name, e, "expected " + form);
  });
}

// `count` consecutive windows (step `stride` between the first of each group) of
// slide(k)(j)(x) are the windows of one slide((count-1)*j+k)(stride*j) window of x:
// slideOfSlide (a group is slide(a)(s)) and splitOfSlide (split(n): slide(n)(n)).
std::optional<Expr> windows_of_windows(const PrimCall& outer, const Nat& count, const Nat& stride) {
  auto inner = util::match_prim(outer.args[0], PrimId::Slide, 1);
  if (!inner) return std::nullopt;
  auto k = inner->dep_nat(0), j = inner->dep_nat(1);
  if (!k || !j) return std::nullopt;
  return mk_map(as_fn(*inner),
                call(PrimId::Slide, {(count - Nat(1)) * *j + *k, stride * *j}, {inner->args[0]}));
}

}  // namespace

void register_movement(Registry& r) {
  // **f >> T -> T >> **f
  r.rule({"mapMapFBeforeTranspose",
          RuleFamily::Movement,
          "transpose(map(map(f))(y)) -> map(map(f))(transpose(y))  (**f >> T -> T >> **f)",
          {},
          fixed(movement("mapMapFBeforeTranspose", "transpose(map(map(f))(y))",
                         [](const Expr& e) -> std::optional<Expr> {
                           auto t = util::match_prim(e, PrimId::Transpose, 1);
                           auto m = t ? util::match_map(t->args[0]) : std::nullopt;
                           auto g = m ? util::match_map_fn(m->first) : std::nullopt;
                           if (!g) return std::nullopt;
                           return mk_map(mk_map_fn(*g), call(PrimId::Transpose, {m->second}));
                         }))});
  // T >> **f -> **f >> T
  r.rule({"transposeBeforeMapMapF",
          RuleFamily::Movement,
          "map(map(f))(transpose(y)) -> transpose(map(map(f))(y))  (T >> **f -> **f >> T)",
          {},
          fixed(movement("transposeBeforeMapMapF", "map(map(f))(transpose(y))",
                         [](const Expr& e) -> std::optional<Expr> {
                           auto m = util::match_map(e);
                           auto g = m ? util::match_map_fn(m->first) : std::nullopt;
                           auto t =
                               g ? util::match_prim(m->second, PrimId::Transpose, 1) : std::nullopt;
                           if (!t) return std::nullopt;
                           return call(PrimId::Transpose, {mk_map(mk_map_fn(*g), t->args[0])});
                         }))});
  // S >> **f -> *f >> S
  r.rule({"slideBeforeMapMapF",
          RuleFamily::Movement,
          "map(map(f))(S(y)) -> S(map(f)(y)) for S = slide(sz)(sp) or split(n)  "
          "(S >> **f -> *f >> S)",
          {},
          fixed(movement("slideBeforeMapMapF",
                         "map(map(f))(slide(sz)(sp)(y)) or map(map(f))(split(n)(y))",
                         [](const Expr& e) -> std::optional<Expr> {
                           auto m = util::match_map(e);
                           auto g = m ? util::match_map_fn(m->first) : std::nullopt;
                           auto s = g ? match_split_or_slide(m->second) : std::nullopt;
                           if (!s) return std::nullopt;
                           return with_arg(*s, mk_map(*g, s->args[0]));
                         }))});
  // *f >> S -> S >> **f (slide)
  r.rule({"slideBeforeMap",
          RuleFamily::Movement,
          "slide(sz)(sp)(map(f)(y)) -> map(map(f))(slide(sz)(sp)(y))  (*f >> S -> S >> **f)",
          {},
          fixed(movement("slideBeforeMap", "slide(sz)(sp)(map(f)(y))",
                         [](const Expr& e) -> std::optional<Expr> {
                           auto s = util::match_prim(e, PrimId::Slide, 1);
                           auto m = s ? util::match_map(s->args[0]) : std::nullopt;
                           if (!m) return std::nullopt;
                           return mk_map(mk_map_fn(m->first), with_arg(*s, m->second));
                         }))});
  // *f >> S -> S >> **f (split)
  r.rule({"splitBeforeMap",
          RuleFamily::Movement,
          "split(n)(map(f)(y)) -> map(map(f))(split(n)(y))  (*f >> S -> S >> **f)",
          {},
          fixed(movement("splitBeforeMap", "split(n)(map(f)(y))",
                         [](const Expr& e) -> std::optional<Expr> {
                           auto s = util::match_prim(e, PrimId::Split, 1);
                           auto m = s ? util::match_map(s->args[0]) : std::nullopt;
                           if (!m) return std::nullopt;
                           return mk_map(mk_map_fn(m->first), with_arg(*s, m->second));
                         }))});
  // J >> *f -> **f >> J
  r.rule({"joinBeforeMapF",
          RuleFamily::Movement,
          "map(f)(join(y)) -> join(map(map(f))(y))  (J >> *f -> **f >> J)",
          {},
          fixed(movement("joinBeforeMapF", "map(f)(join(y))",
                         [](const Expr& e) -> std::optional<Expr> {
                           auto m = util::match_map(e);
                           auto j = m ? util::match_prim(m->second, PrimId::Join, 1) : std::nullopt;
                           if (!j) return std::nullopt;
                           return call(PrimId::Join, {mk_map(mk_map_fn(m->first), j->args[0])});
                         }))});
  // **f >> J -> J >> *f
  r.rule({"mapMapFBeforeJoin",
          RuleFamily::Movement,
          "join(map(map(f))(y)) -> map(f)(join(y))  (**f >> J -> J >> *f)",
          {},
          fixed(movement("mapMapFBeforeJoin", "join(map(map(f))(y))",
                         [](const Expr& e) -> std::optional<Expr> {
                           auto j = util::match_prim(e, PrimId::Join, 1);
                           auto m = j ? util::match_map(j->args[0]) : std::nullopt;
                           auto g = m ? util::match_map_fn(m->first) : std::nullopt;
                           if (!g) return std::nullopt;
                           return mk_map(*g, call(PrimId::Join, {m->second}));
                         }))});
  // *f >> drop n -> drop n >> *f ; *f >> take n -> take n >> *f
  for (PrimId prim : {PrimId::Drop, PrimId::Take}) {
    const std::string& p = rise::prim_name(prim);
    std::string name = p + "BeforeMap";
    r.rule(
        {name,
         RuleFamily::Movement,
         p + "(n)(map(f)(y)) -> map(f)(" + p + "(n)(y))  (*f >> " + p + " n -> " + p + " n >> *f)",
         {},
         fixed(movement(name, p + "(n)(map(f)(y))", [prim](const Expr& e) -> std::optional<Expr> {
           auto d = util::match_prim(e, prim, 1);
           auto m = d ? util::match_map(d->args[0]) : std::nullopt;
           if (!m) return std::nullopt;
           return mk_map(m->first, with_arg(*d, m->second));
         }))});
  }
  // T >> S -> *S >> T >> *T
  r.rule({"transposeBeforeSlide",
          RuleFamily::Movement,
          "S(transpose(y)) -> map(transpose)(transpose(map(S)(y))) for S = slide(sz)(sp) or "
          "split(n)  (T >> S -> *S >> T >> *T)",
          {},
          fixed(movement(
              "transposeBeforeSlide", "slide(sz)(sp)(transpose(y)) or split(n)(transpose(y))",
              [](const Expr& e) -> std::optional<Expr> {
                auto s = match_split_or_slide(e);
                auto t = s ? util::match_prim(s->args[0], PrimId::Transpose, 1) : std::nullopt;
                if (!t) return std::nullopt;
                return mk_map(transpose_fn(),
                              call(PrimId::Transpose, {mk_map(as_fn(*s), t->args[0])}));
              }))});
  // *S >> T -> T >> S >> *T
  r.rule({"mapSlideBeforeTranspose",
          RuleFamily::Movement,
          "transpose(map(S)(y)) -> map(transpose)(S(transpose(y))) for S = slide(sz)(sp) or "
          "split(n)  (*S >> T -> T >> S >> *T)",
          {},
          fixed(movement("mapSlideBeforeTranspose",
                         "transpose(map(slide(sz)(sp))(y)) or transpose(map(split(n))(y))",
                         [](const Expr& e) -> std::optional<Expr> {
                           auto m = match_mapped_under_transpose(e);
                           if (!m || (!m->p.is(PrimId::Slide) && !m->p.is(PrimId::Split)))
                             return std::nullopt;
                           return mk_map(transpose_fn(),
                                         with_arg(m->p, call(PrimId::Transpose, {m->y})));
                         }))});
  // S >> *T -> T >> *S >> T
  r.rule({"slideBeforeMapTranspose",
          RuleFamily::Movement,
          "map(transpose)(S(y)) -> transpose(map(S)(transpose(y))) for S = slide(sz)(sp) or "
          "split(n)  (S >> *T -> T >> *S >> T)",
          {},
          fixed(movement("slideBeforeMapTranspose",
                         "map(transpose)(slide(sz)(sp)(y)) or map(transpose)(split(n)(y))",
                         [](const Expr& e) -> std::optional<Expr> {
                           auto m = util::match_map(e);
                           auto t = m ? util::match_unary_fn(m->first) : std::nullopt;
                           if (!t || !t->is(PrimId::Transpose) || !t->deps.empty())
                             return std::nullopt;
                           auto s = match_split_or_slide(m->second);
                           if (!s) return std::nullopt;
                           return call(PrimId::Transpose,
                                       {mk_map(as_fn(*s), call(PrimId::Transpose, {s->args[0]}))});
                         }))});
  // *P >> T -> T >> P' (P pads each row; P' pads the rows dimension of the transpose)
  r.rule(
      {"mapPadBeforeTranspose",
       RuleFamily::Movement,
       "transpose(map(padCst(l)(r)(c))(y)) -> padCst(l)(r)(generate(fun(i => c)))(transpose(y)), "
       "transpose(map(padClamp(l)(r))(y)) -> padClamp(l)(r)(transpose(y))  (*P >> T -> T >> P: "
       "the padded columns become padded rows)",
       {},
       fixed(movement("mapPadBeforeTranspose",
                      "transpose(map(padCst(l)(r)(c))(y)) or transpose(map(padClamp(l)(r))(y))",
                      [](const Expr& e) -> std::optional<Expr> {
                        auto m = match_mapped_under_transpose(e);
                        if (!m || (!m->p.is(PrimId::PadCst) && !m->p.is(PrimId::PadClamp)))
                          return std::nullopt;
                        Expr ty = call(PrimId::Transpose, {m->y});
                        if (m->p.is(PrimId::PadClamp)) return with_arg(m->p, ty);
                        Expr c = m->p.args[0];
                        Expr row =
                            call(PrimId::Generate, {fun("i", [&](const Expr&) { return c; })});
                        return call(PrimId::PadCst, m->p.deps, {row, ty});
                      }))});
  // *f >> padClamp -> padClamp >> *f (the repeated edge element is f of the edge)
  r.rule({"padClampBeforeMap",
          RuleFamily::Movement,
          "padClamp(l)(r)(map(f)(y)) -> map(f)(padClamp(l)(r)(y))  (*f >> P -> P >> *f: "
          "the repeated edge result is f of the repeated edge)",
          {},
          fixed(movement("padClampBeforeMap", "padClamp(l)(r)(map(f)(y))",
                         [](const Expr& e) -> std::optional<Expr> {
                           auto p = util::match_prim(e, PrimId::PadClamp, 1);
                           auto m = p ? util::match_map(p->args[0]) : std::nullopt;
                           if (!m) return std::nullopt;
                           return mk_map(m->first, with_arg(*p, m->second));
                         }))});
  // *J >> T -> T >> *T >> J
  r.rule({"mapJoinBeforeTranspose",
          RuleFamily::Movement,
          "transpose(map(join)(y)) -> join(map(transpose)(transpose(y)))  "
          "(*J >> T -> T >> *T >> J)",
          {},
          fixed(movement("mapJoinBeforeTranspose", "transpose(map(join)(y))",
                         [](const Expr& e) -> std::optional<Expr> {
                           auto m = match_mapped_under_transpose(e);
                           if (!m || !m->p.is(PrimId::Join)) return std::nullopt;
                           return call(PrimId::Join,
                                       {mk_map(transpose_fn(), call(PrimId::Transpose, {m->y}))});
                         }))});
  // slide(a)(s) >> slide(k)(j) -> slide((a-1)*j+k)(s*j) >> *slide(k)(j): windows of
  // a consecutive windows are the windows of one larger window of the input.
  r.rule({"slideOfSlide",
          RuleFamily::Movement,
          "slide(a)(s)(slide(k)(j)(x)) -> map(slide(k)(j))(slide((a-1)*j+k)(s*j)(x)) "
          "(windows of windows read as windows of larger windows of x)",
          {},
          fixed(movement("slideOfSlide", "slide(a)(s)(slide(k)(j)(x))",
                         [](const Expr& e) -> std::optional<Expr> {
                           auto outer = util::match_prim(e, PrimId::Slide, 1);
                           if (!outer) return std::nullopt;
                           auto a = outer->dep_nat(0), s = outer->dep_nat(1);
                           if (!a || !s) return std::nullopt;
                           return windows_of_windows(*outer, *a, *s);
                         }))});
  // split(n) >> slide(k)(j) -> slide((n-1)*j+k)(n*j) >> *slide(k)(j): a block of n
  // consecutive windows is the windows of one larger window of the input (the
  // overlapped blocks of rows the autoscheduler's strips compute, schedule_strips.h).
  r.rule({"splitOfSlide",
          RuleFamily::Movement,
          "split(n)(slide(k)(j)(x)) -> map(slide(k)(j))(slide((n-1)*j+k)(n*j)(x)) "
          "(blocks of n windows read as the windows of overlapping blocks of x)",
          {},
          fixed(movement("splitOfSlide", "split(n)(slide(k)(j)(x))",
                         [](const Expr& e) -> std::optional<Expr> {
                           auto outer = util::match_prim(e, PrimId::Split, 1);
                           if (!outer) return std::nullopt;
                           auto n = outer->dep_nat(0);
                           if (!n) return std::nullopt;
                           return windows_of_windows(*outer, *n, *n);
                         }))});
  // J >> split(n) -> split(n/k) >> *J: blocks of n elements of a join of rows of k
  // elements (k dividing n) are the joins of blocks of n/k rows (the strips of an
  // upsampling stage, whose rows come in pairs, schedule_strips.h).
  r.rule({"splitOfJoin",
          RuleFamily::Movement,
          "split(n)(join(x)) -> map(join)(split(n/k)(x)) for rows of x of k elements, n and k "
          "constants, k dividing n  (J >> split(n) -> split(n/k) >> *J)",
          {},
          fixed(rule("splitOfJoin", [](const Expr& e, const Context&) -> Result {
            auto s = util::match_prim(e, PrimId::Split, 1);
            auto j = s ? util::match_prim(s->args[0], PrimId::Join, 1) : std::nullopt;
            auto n = s ? s->dep_nat(0) : std::nullopt;
            if (!j || !n) return fail_at("splitOfJoin", e, "expected split(n)(join(x))");
            auto row = util::array_size(util::array_elem(j->args[0]->type));
            int64_t k = 0, block = 0;  // 0: not a constant
            if (row && row->as_const()) k = *row->as_const();
            if (n->as_const()) block = *n->as_const();
            if (k <= 0 || block <= 0 || block % k != 0)
              return fail_at("splitOfJoin", e,
                             "split(" + n->to_string() + ") of rows of " +
                                 (row ? row->to_string() : std::string("unknown length")) +
                                 " elements: needs constants, the rows' length dividing the "
                                 "split's");
            return mk_map(fun("a", [](const Expr& a) { return call(PrimId::Join, {a}); }),
                          call(PrimId::Split, {Nat(block / k)}, {j->args[0]}));
          }))});
  // zip >> S -> (S, S) >> zip >> *zip: the blocks (or windows) of a zip are the zips
  // of the two arrays' blocks.
  r.rule({"splitBeforeZip",
          RuleFamily::Movement,
          "S(zip(a)(b)) -> map(fun(p => zip(p._1)(p._2)))(zip(S(a))(S(b))) for S = "
          "split(n) or slide(sz)(sp)  (zip >> S -> S on each array >> *zip)",
          {},
          fixed(movement(
              "splitBeforeZip", "split(n)(zip(a)(b)) or slide(sz)(sp)(zip(a)(b))",
              [](const Expr& e) -> std::optional<Expr> {
                auto s = match_split_or_slide(e);
                auto z = s ? util::match_prim(s->args[0], PrimId::Zip, 2) : std::nullopt;
                if (!z) return std::nullopt;
                Expr rezip = fun("p", [](const Expr& p) {
                  return call(PrimId::Zip, {call(PrimId::Fst, {p}), call(PrimId::Snd, {p})});
                });
                return call(PrimId::Map, {rezip, call(PrimId::Zip, {with_arg(*s, z->args[0]),
                                                                    with_arg(*s, z->args[1])})});
              }))});
}

}  // namespace risec::elevate
