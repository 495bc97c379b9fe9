// With-loops as RISE primitives; see withloop.h for the scheme.
#include "rise/withloop.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <utility>

#include "arith/nat.h"
#include "rise/primitives.h"

namespace risec::rise {

namespace {

// The binders of checked_body's redexes (element_check).
constexpr const char* kDefaultCheck = "with_default";
constexpr const char* kModifiedCheck = "with_modified";

// A size of the generator or shape: its term (for ordering and types) and the
// expression the user wrote (for take/drop and index values, so that inference
// resolves its names like any size expression).
struct Bound {
  Nat nat;
  Expr expr;
};

Nat to_nat(const Expr& e) {
  if (e->kind == ExprKind::Literal && e->lit.kind == LitKind::Int) return Nat(e->lit.i);
  if (e->kind == ExprKind::Ident) return Nat::size_var(e->name);
  Spine sp = spine(e);
  bool minmax =
      sp.head->kind == ExprKind::Ident && (sp.head->name == "min" || sp.head->name == "max");
  if ((sp.head->kind == ExprKind::Primitive || minmax) && sp.args.size() == 2 && !sp.args[0].dep &&
      !sp.args[1].dep) {
    Nat a = to_nat(sp.args[0].value), b = to_nat(sp.args[1].value);
    if (minmax) return sp.head->name == "min" ? arith::min(a, b) : arith::max(a, b);
    try {
      if (is_prim(sp.head, PrimId::Add)) return a + b;
      if (is_prim(sp.head, PrimId::Sub)) return a - b;
      if (is_prim(sp.head, PrimId::Mul)) return a * b;
      if (is_prim(sp.head, PrimId::Div)) return arith::exact_div(a, b);
      if (is_prim(sp.head, PrimId::Mod)) return arith::mod(a, b);
    } catch (const arith::ArithError& err) {
      user_error(std::string("in a with-loop size: ") + err.what(), e->span);
    }
  }
  user_error(
      "a with-loop bound, step, width or shape is a size: numbers, size names and + - * / % min "
      "max",
      e->span);
}

// Whether a <= b for large sizes, when it is not provable: a - b evaluated with every
// size at two large values (one odd, one even) has the same strict sign at both.
// nullopt when that does not decide.
std::optional<bool> le_for_large_sizes(const Nat& a, const Nat& b) {
  std::optional<bool> verdict;
  for (int64_t big : {1000003, 1 << 20}) {
    arith::Assignment env;
    for (const auto& [name, v] : arith::free_vars(a - b)) env[name] = big;
    int64_t d = 0;
    try {
      d = arith::evaluate(a - b, env);
    } catch (const arith::ArithError&) {
      return std::nullopt;
    }
    if (d == 0 || (verdict && *verdict != (d < 0))) return std::nullopt;
    verdict = d < 0;
  }
  return verdict;
}

class Desugar {
 public:
  explicit Desugar(const WithLoop& w) : w_(w), sp_(w.span) {}

  Expr run() {
    if (w_.parts.empty()) user_error("a with-loop needs at least one part", w_.span);
    rank_ = w_.parts[0].names.size();
    for (const WithPart& p : w_.parts) read_part(p);
    if (w_.op == WithLoop::Op::Genarray && w_.shape.size() != rank_)
      user_error("the shape has " + std::to_string(w_.shape.size()) +
                     " dimensions but the generators have " + std::to_string(rank_),
                 w_.op_span);
    if (w_.op == WithLoop::Op::Genarray)
      for (const Part& p : parts_)
        for (size_t d = 0; d < rank_; ++d)
          if (arith::provably_lt(to_nat(w_.shape[d]), p.ub[d].nat))
            user_error("the upper bound " + p.ub[d].nat.to_string() + " is outside the shape (" +
                           to_nat(w_.shape[d]).to_string() + " in dimension " + std::to_string(d) +
                           "): a generator lies within the shape",
                       p.ub[d].expr->span);
    constant_overlaps();
    gidx_.assign(parts_.size(), std::vector<Expr>(rank_));
    std::vector<size_t> all;
    for (size_t p = 0; p < parts_.size(); ++p) all.push_back(p);
    // Each part's extent ub - lb where it is not provably >= 0 ([n] <= [i] < [1]): an
    // order of the part's bounds assumed, checked like the others below, so that a
    // generator the sizes invert is refused, never read as empty.
    for (size_t p = 0; p < parts_.size(); ++p)
      for (size_t d = 0; d < rank_; ++d)
        assume_ordered(Point{parts_[p].lb[d], {{p, false}}}, Point{parts_[p].ub[d], {{p, true}}},
                       d);
    if (w_.op == WithLoop::Op::Fold) {
      region(0, all, nullptr, false);  // only the checks: order and overlap
      Expr acc = w_.neutral;
      for (const Part& p : parts_) acc = fold_part(p, acc);
      return with_lengths(acc);
    }
    Expr src = w_.array;
    if (w_.op == WithLoop::Op::Genarray) {
      src = w_.deflt;
      for (size_t d = rank_; d-- > 0;) {
        extent_.insert(extent_.begin(), bound(w_.shape[d]));
        src = generate(fresh_name("_"), extent_.front().nat, src);
      }
    }
    Expr r = region(0, all, src, true);
    // Parts that cover the whole shape read nothing of the default array (or the
    // modified one): where a body's type may be open (natAsScalar(i), a cast to the
    // type its context asks for), an empty slab of it, concatenated, gives the elements
    // its type (SaC: the default's).
    if (!src_read_ && cast_index_)
      r = A2(PrimId::Concat, r, take(Bound{Nat(0), int_lit(0, sp_)}, src));
    return with_lengths(r);
  }

 private:
  // The lengths between bounds whose order was taken for large sizes (unproven_), as
  // natType values bound around `e` (unused): the checker requires them >= 0.
  Expr with_lengths(Expr e) const {
    for (size_t i = 0; i < unproven_.size(); ++i) {
      e = A(lambda(fresh_name("_"), e, nullptr, sp_),
            nat_literal(unproven_[i], why_[i].second, why_[i].first));
    }
    return e;
  }

  struct Part {
    const WithPart* src;
    std::vector<Bound> lb, ub;
    std::vector<std::optional<Bound>> step, width;
  };
  const WithLoop& w_;
  Span sp_;
  size_t rank_ = 0;
  std::vector<Part> parts_;              // the generators as written
  std::vector<Bound> extent_;            // genarray: the shape
  std::vector<std::vector<Expr>> gidx_;  // [part][dim]: the index value (natType)
  std::vector<Nat> at_;                  // region: the first index of the slabs being built
  std::vector<Nat> unproven_;            // lengths between bounds not provably >= 0
  std::vector<std::pair<std::string, Span>> why_;  // [unproven_]: the parts needing it
  bool src_read_ = false;    // whether a slab reads the default or modified array
  bool cast_index_ = false;  // whether a body casts an index (natAsScalar(i))

  static Bound bound(const Expr& e) { return Bound{to_nat(e), e}; }

  void read_part(const WithPart& wp) {
    if (wp.names.size() != rank_)
      user_error("this generator has " + std::to_string(wp.names.size()) +
                     " index names but the first has " + std::to_string(rank_),
                 wp.span);
    auto vec = [&](const std::vector<Expr>& v, const char* what) {
      if (!v.empty() && v.size() != rank_)
        user_error(std::string("the ") + what + " has " + std::to_string(v.size()) +
                       " components but the generator has " + std::to_string(rank_) +
                       " index names",
                   v[0]->span);
    };
    vec(wp.lb, "lower bound");
    vec(wp.ub, "upper bound");
    vec(wp.step, "step");
    vec(wp.width, "width");
    Part p{&wp, {}, {}, {}, {}};
    for (size_t d = 0; d < rank_; ++d) {
      p.lb.push_back(bound(wp.lb[d]));
      p.ub.push_back(bound(wp.ub[d]));
      std::optional<Bound> s, wd;
      if (!wp.step.empty()) s = bound(wp.step[d]);
      if (!wp.width.empty()) {
        if (!s) user_error("'width' needs a 'step'", wp.width_span);
        wd = bound(wp.width[d]);
      }
      // Without a width, a step takes one index per block (SaC's default).
      if (s && !wd) wd = Bound{Nat(1), int_lit(1, wp.step[d]->span)};
      if (s && s->nat.is_const(1) && wd->nat.is_const(1)) s.reset(), wd.reset();
      if (s) {
        if (!arith::provably_pos(s->nat)) user_error("a step must be positive", wp.step[d]->span);
        // A width and step of sizes (`step [s] width [2]`) that are ordered only for some
        // sizes: the block's rest after the width, s - 2, is a side condition (checked at
        // --size or on entry), as the desugared drop(width) of each block needs.
        if (!arith::provably_pos(wd->nat) || arith::provably_lt(s->nat, wd->nat))
          user_error("a width must be positive and at most the step (" + s->nat.to_string() + ")",
                     wd->expr->span);
      }
      if (arith::provably_lt(p.lb[d].nat, Nat(0)))
        user_error("the lower bound " + p.lb[d].nat.to_string() +
                       " is below 0: a generator's indices are natural numbers within the shape",
                   wp.lb[d]->span);
      if (arith::provably_lt(p.ub[d].nat, p.lb[d].nat))
        user_error("the upper bound " + p.ub[d].nat.to_string() + " is below the lower bound " +
                       p.lb[d].nat.to_string() + " (an empty generator has lb = ub)",
                   wp.ub[d]->span);
      p.step.push_back(s);
      p.width.push_back(wd);
    }
    parts_.push_back(std::move(p));
  }

  // ---- expression builders ----
  // Operators are primitives (as the parser makes them), named primitives identifiers
  // (as the parser reads them), so that the printed program reads back the same.
  Expr P(PrimId id) const {
    if (id == PrimId::Add || id == PrimId::Sub || id == PrimId::Mul || id == PrimId::Mod ||
        id == PrimId::Idx)
      return prim_expr(id, sp_);
    return ident(prim_name(id), sp_);
  }
  Expr A(Expr f, Expr x) const { return app(std::move(f), std::move(x), sp_); }
  Expr A2(PrimId f, Expr x, Expr y) const { return A(A(P(f), std::move(x)), std::move(y)); }
  Expr generate(const std::string& k, const Nat& n, Expr body) const {
    return A(P(PrimId::Generate), lambda(k, std::move(body), index_type(n), sp_));
  }
  Bound diff(const Bound& hi, const Bound& lo) const {
    if (lo.nat.is_const(0)) return hi;
    return Bound{hi.nat - lo.nat, A2(PrimId::Sub, hi.expr, lo.expr)};
  }
  Expr take(const Bound& n, Expr x) const { return A(A(P(PrimId::Take), n.expr), std::move(x)); }
  Expr drop(const Bound& n, Expr x) const {
    if (n.nat.is_const(0)) return x;
    return A(A(P(PrimId::Drop), n.expr), std::move(x));
  }
  Expr as_nat(const std::string& k) const { return A(P(PrimId::IndexAsNat), ident(k, sp_)); }
  // lo + k, or lo + step*b + w (natType).
  // A lower bound that is not provably >= 0 (n - 3) is a natType literal of that size,
  // which the checker requires to be a natural number (n - 3 >= 0), instead of a
  // run-time subtraction.
  // So is the first index of a stepped generator's tail (`n - (n - 2) % 2`): a run-time
  // % of a dividend not provably >= 0 is no index arithmetic the checker can prove.
  Expr index_value(const Bound& lo, Expr off) const {
    if (lo.nat.is_const(0)) return off;
    if (arith::provably_nonneg(lo.nat) && !has_modulo(lo.expr))
      return A2(PrimId::Add, std::move(off), lo.expr);
    return A2(PrimId::Add, std::move(off), nat_literal(lo.nat, lo.expr->span));
  }
  static bool has_modulo(const Expr& e) {
    if (e->kind == ExprKind::Primitive) return is_prim(e, PrimId::Mod);
    if (e->kind != ExprKind::App) return false;
    return has_modulo(e->fn) || has_modulo(e->arg);
  }
  static Expr nat_literal(const Nat& n, const Span& span, std::string why = {}) {
    Literal l;
    l.kind = LitKind::NatVal;
    l.nat = n;
    l.why = std::move(why);
    return literal(l, span);
  }
  Expr stepped_offset(const std::string& b, const Bound& s, const std::string& w) const {
    return A2(PrimId::Add, A2(PrimId::Mul, as_nat(b), s.expr), as_nat(w));
  }

  // ---- ordering the bounds of one dimension ----
  struct Point {
    Bound b;
    std::vector<std::pair<size_t, bool>> of;  // (part, is upper bound)
  };

  // The generator of the part as written, `([1] <= [i] < [n - 1])`.
  std::string written(size_t p) const {
    const Span& s = parts_[p].src->span;
    return s.file->text.substr(s.begin, s.end - s.begin);
  }

  // x <= y (dimension d) where that is not provable: assumed (unproven_), so that the
  // checker requires y - x >= 0, saying which parts' bounds need it (why_), at the
  // later part.
  void assume_ordered(const Point& x, const Point& y, size_t d) {
    const Nat len = y.b.nat - x.b.nat;
    if (arith::provably_nonneg(len) ||
        std::find(unproven_.begin(), unproven_.end(), len) != unproven_.end())
      return;
    std::vector<size_t> owners;
    for (const Point* pt : {&x, &y})
      for (auto [p, upper] : pt->of)
        if (std::find(owners.begin(), owners.end(), p) == owners.end()) owners.push_back(p);
    std::sort(owners.begin(), owners.end(), [&](size_t a, size_t b) {
      return parts_[a].src->span.begin < parts_[b].src->span.begin;
    });
    owners.erase(std::unique(owners.begin(), owners.end(),
                             [&](size_t a, size_t b) { return parts_[a].src == parts_[b].src; }),
                 owners.end());
    std::string why = owners.size() == 1 ? "the part " : "the parts ";
    for (size_t i = 0; i < owners.size(); ++i) {
      if (i > 0) why += i + 1 == owners.size() ? " and " : ", ";
      why += written(owners[i]);
    }
    why = "in the with-loop, " + why + (owners.size() == 1 ? " needs " : " need ") +
          x.b.nat.to_string() + " <= " + y.b.nat.to_string() +
          (rank_ > 1 ? " in dimension " + std::to_string(d) : "");
    unproven_.push_back(len);
    why_.push_back({why, owners.empty() ? sp_ : parts_[owners.back()].src->span});
  }

  // Whether x comes before y. When that is not provable, the order that holds for
  // large sizes is taken (the border rows [0, 1), [n - 1, n), [1, n - 1) of an
  // n-array: 1 <= n - 1): every slab between consecutive bounds has a length that
  // the checker requires to be non-negative (a written idx[len], take(len)), so
  // the assumed order becomes a side condition (n - 2 >= 0), checked with the sizes
  // or on entry. 0 is first: a bound not provably negative is assumed >= 0, and a
  // part's lower bound at most its upper bound, the same way. A fold builds no slabs:
  // there the lengths are natType values bound around it (unproven_), and the
  // index values and loop ranges check 0 <= lb <= ub.
  bool known_le(const Point& x, const Point& y, size_t d) const {
    if (x.b.nat == y.b.nat || arith::provably_le(x.b.nat, y.b.nat)) return true;
    if (arith::provably_lt(y.b.nat, x.b.nat)) return false;
    if (x.b.nat.is_const(0)) return true;
    if (y.b.nat.is_const(0)) return false;
    // A part's lower bound is at most its upper bound, also where that upper bound
    // is not yet among the points but equals one (`[k + 1] <= [i] < [n]` beside
    // `[k] <= [i] < [n]`: k + 1 before n, though k = n makes k + 1 the larger).
    auto same = [](const Nat& a, const Nat& b) { return a == b || arith::provably_eq(a, b); };
    for (auto [p, upper] : x.of)
      if (!upper && same(parts_[p].ub[d].nat, y.b.nat)) return true;
    for (auto [p, upper] : y.of)
      if (!upper && same(parts_[p].ub[d].nat, x.b.nat)) return false;
    return le_for_large_sizes(x.b.nat, y.b.nat).value_or(false);
  }

  std::vector<Point> order(size_t d, const std::vector<size_t>& active) const {
    std::vector<Point> pts{Point{Bound{Nat(0), int_lit(0, sp_)}, {}}};
    for (size_t p : active) {
      for (bool upper : {false, true}) {
        const Bound& b = upper ? parts_[p].ub[d] : parts_[p].lb[d];
        bool merged = false;
        for (Point& q : pts)
          if (q.b.nat == b.nat || arith::provably_eq(q.b.nat, b.nat)) {
            q.of.push_back({p, upper});
            merged = true;
            break;
          }
        if (merged) continue;
        Point x{b, {{p, upper}}};
        size_t j = 0;
        while (j < pts.size() && !known_le(x, pts[j], d)) ++j;
        if (j > 0 && !known_le(pts[j - 1], x, d)) {
          const Point& y = j < pts.size() ? pts[j] : pts[j - 1];
          user_error("cannot order the with-loop bounds " + x.b.nat.to_string() + " and " +
                         y.b.nat.to_string() + " (dimension " + std::to_string(d) +
                         "); bounds of different parts must be ordered, provably or for large "
                         "sizes",
                     parts_[p].src->span);
        }
        pts.insert(pts.begin() + static_cast<std::ptrdiff_t>(j), x);
      }
    }
    return pts;
  }

  static size_t position(const std::vector<Point>& pts, size_t p, bool upper) {
    for (size_t i = 0; i < pts.size(); ++i)
      for (auto [q, u] : pts[i].of)
        if (q == p && u == upper) return i;
    return 0;
  }

  // Whether x < ub at every size the with-loop is valid at: provably, or, in a genarray,
  // ub is the shape's extent and some part's upper bound, at most the extent, is a
  // number above x.
  bool provably_below(int64_t x, const Nat& ub, size_t d) const {
    if (arith::provably_lt(Nat(x), ub)) return true;
    if (w_.op != WithLoop::Op::Genarray) return false;
    const Nat extent = to_nat(w_.shape[d]);
    if (!(ub == extent) && !arith::provably_eq(ub, extent)) return false;
    for (const Part& r : parts_)
      if (auto c = r.ub[d].nat.as_const(); c && *c > x) return true;
    return false;
  }

  // Parts whose lower bounds, steps and widths are numbers overlap when, in every
  // dimension, some index is in both (a generator covers a product of ranges): the
  // first such index, found by enumeration from the larger lower bound over lcm(steps)
  // rows, below both upper bounds (provably_below). Such parts are refused here as
  // overlapping, naming that index, before a limitation of the slabs (a stepped part's
  // range holding another part's bound at a distance with no known remainder by the
  // step, or steps that are sizes and differ) could refuse them otherwise.
  void constant_overlaps() {
    auto num = [](const std::optional<Bound>& b) -> std::optional<int64_t> {
      return b ? b->nat.as_const() : std::optional<int64_t>(1);
    };
    for (size_t q = 1; q < parts_.size(); ++q)
      for (size_t p = 0; p < q; ++p) {
        const Part &a = parts_[p], &b = parts_[q];
        std::vector<Nat> common;
        for (size_t d = 0; d < rank_; ++d) {
          auto lo_a = a.lb[d].nat.as_const(), lo_b = b.lb[d].nat.as_const();
          auto st_a = num(a.step[d]), st_b = num(b.step[d]);
          auto wd_a = num(a.width[d]), wd_b = num(b.width[d]);
          if (!lo_a || !lo_b || !st_a || !st_b || !wd_a || !wd_b) break;
          const int64_t from = std::max(*lo_a, *lo_b);
          int64_t to = from + std::lcm(*st_a, *st_b);
          for (const Part* pt : {&a, &b})
            if (auto hi = pt->ub[d].nat.as_const()) to = std::min(to, *hi);
          std::optional<int64_t> x;
          for (int64_t v = from; v < to && !x; ++v)
            if ((v - *lo_a) % *st_a < *wd_a && (v - *lo_b) % *st_b < *wd_b) x = v;
          auto below = [&](const Nat& ub) { return provably_below(*x, ub, d); };
          if (!x || !below(a.ub[d].nat) || !below(b.ub[d].nat)) break;
          common.push_back(Nat(*x));
        }
        if (common.size() != rank_) continue;
        at_ = common;
        overlap(a, b);
      }
    at_.clear();
  }

  // Parts p and q both cover the slabs at_ (dimensions 0 .. d): refused at the later
  // one, naming the other and a common index (the slabs' first index; in the
  // dimensions after d, the larger of the two lower bounds).
  [[noreturn]] void overlap(size_t p, size_t q) const { overlap(parts_[p], parts_[q]); }
  [[noreturn]] void overlap(const Part& a, const Part& b) const {
    const Part *p = &a, *q = &b;
    if (q->src->span.begin < p->src->span.begin) std::swap(p, q);
    std::string index;
    for (size_t d = 0; d < rank_; ++d) {
      Nat x = d < at_.size() ? at_[d] : arith::max(p->lb[d].nat, q->lb[d].nat);
      index += (d ? ", " : "") + x.to_string();
    }
    LineCol lc = p->src->span.start();
    user_error("with-loop parts overlap: this part and the part at line " +
                   std::to_string(lc.line) + ", column " + std::to_string(lc.col) +
                   " both cover the index [" + index + "] (parts must be disjoint)",
               q->src->span);
  }

  // The region of dimensions d.. for the parts `active` (all covering the enclosing
  // slabs), reading what no part covers from `src`. With build false, only checks.
  Expr region(size_t d, const std::vector<size_t>& active, const Expr& src, bool build) {
    std::vector<Point> pts = order(d, active);
    std::vector<Expr> slabs;
    for (size_t i = 0; i + 1 < pts.size(); ++i) {
      at_.resize(d);
      at_.push_back(pts[i].b.nat);
      std::vector<size_t> here;
      for (size_t p : active)
        if (position(pts, p, false) <= i && position(pts, p, true) >= i + 1) here.push_back(p);
      Bound len = diff(pts[i + 1].b, pts[i].b);
      Expr slab_src = build ? take(len, drop(pts[i].b, src)) : nullptr;
      assume_ordered(pts[i], pts[i + 1], d);
      if (here.empty()) {
        if (build) slabs.push_back(read(slab_src));
        continue;
      }
      std::optional<Rows> rows = stepped_rows(d, here, pts[i].b, pts[i + 1].b);
      if (!rows && d + 1 == rank_ && here.size() > 1) overlap(here[0], here[1]);
      if (!build) {
        if (!rows) {
          if (d + 1 < rank_) region(d + 1, here, nullptr, false);
          continue;
        }
        for (const Run& run : rows->runs) {
          if (run.parts.empty() || !rows->has(run)) continue;
          at_.resize(d);
          at_.push_back(pts[i].b.nat + run.first.nat);
          if (d + 1 < rank_) region(d + 1, run.parts, nullptr, false);
        }
        continue;
      }
      slabs.push_back(rows ? stepped_slab(d, *rows, pts[i].b, len, slab_src)
                           : plain_slab(d, here, pts[i].b, len, slab_src));
    }
    if (!build) return nullptr;
    // What follows the last bound (empty when it is the extent).
    const Bound& last = pts.back().b;
    bool at_end = d < extent_.size() &&
                  (last.nat == extent_[d].nat || arith::provably_eq(last.nat, extent_[d].nat));
    if (!at_end) {
      if (d < extent_.size()) assume_ordered(pts.back(), Point{extent_[d], {}}, d);
      slabs.push_back(read(drop(last, src)));
    }
    return concat(slabs);
  }

  // A slab of the default or modified array, read where no part covers it.
  Expr read(Expr slab) {
    src_read_ = true;
    return slab;
  }

  // Rows lo .. lo+len of dimension d, every one covered by the parts `here`.
  Expr plain_slab(size_t d, const std::vector<size_t>& here, const Bound& lo, const Bound& len,
                  const Expr& slab_src) {
    std::string k = fresh_name("i");
    for (size_t p : here) gidx_[p][d] = index_value(lo, as_nat(k));
    Expr inner = d + 1 == rank_
                     ? checked_body(here[0], A(A(P(PrimId::Idx), ident(k, sp_)), slab_src))
                     : region(d + 1, here, A(A(P(PrimId::Idx), ident(k, sp_)), slab_src), true);
    return generate(k, len.nat, inner);
  }

  // A slab of dimension d, rows lo .. hi, where some of the parts `here` are stepped:
  // blocks of rows, each cut into runs of rows covered by the same parts, and what is
  // left after the last whole block (the first rows of a block). A stepped part need
  // not start at the slab: it covers the slab's row r when (r + phase) % step < width,
  // its phase (lo - lb) % step, so parts whose index sets interleave from different
  // first rows (red/black: [0] <= [i] < [n] step [2] and [1] <= [i] < [n] step [2])
  // share the slab [1, n) with phases 1 and 0. When the steps and widths are numbers
  // (the phases must be), a block is lcm(steps) rows (at most kMaxBlock), and row r of
  // it is covered by the unstepped parts and each stepped part whose pattern takes it;
  // when they are sizes, the stepped parts must step alike (the same step and width)
  // and start a block at the slab (phase 0), and a block is the `width` rows every part
  // covers and the rest, which only the unstepped parts cover. Parts overlap in this
  // dimension only where a run that has rows has several: `[0, 0] <= [i, j] < [n, 1]
  // step [2, 1]` beside `[0, 1] <= [i, j] < [n, n]` shares rows 0, 2, .. with it, but
  // no column.
  struct Run {
    Bound first, len;           // rows first .. first + len of each block
    std::vector<size_t> parts;  // the parts covering them
  };
  struct Rows {
    Bound step;  // the block's length
    Nat len;     // the slab's length
    std::vector<Run> runs;
    // Whether the slab has the run's first row (not provably past its end).
    bool has(const Run& run) const { return !arith::provably_le(len, run.first.nat); }
  };

  std::optional<Rows> stepped_rows(size_t d, const std::vector<size_t>& here, const Bound& lo,
                                   const Bound& hi) {
    std::vector<size_t> stepped, plain;
    for (size_t p : here) (parts_[p].step[d] ? stepped : plain).push_back(p);
    if (stepped.empty()) return std::nullopt;
    const Part& first = parts_[stepped[0]];
    bool numbers = true, alike = true;
    for (size_t p : stepped) {
      const Part& pt = parts_[p];
      numbers = numbers && pt.step[d]->nat.as_const() && pt.width[d]->nat.as_const();
      alike =
          alike && pt.step[d]->nat == first.step[d]->nat && pt.width[d]->nat == first.width[d]->nat;
    }
    if (!numbers && !alike)
      user_error(
          "stepped parts that share rows must step alike (the same step and width) unless "
          "their steps and widths are numbers",
          first.src->span);
    // The row of each stepped part's pattern that the slab starts at.
    std::map<size_t, int64_t> phase;
    for (size_t p : stepped) {
      const Nat off = lo.nat - parts_[p].lb[d].nat;
      const Nat ph = arith::mod(off, parts_[p].step[d]->nat);
      if (!ph.as_const() || (!numbers && !ph.is_const(0)))
        user_error(
            "a stepped generator's range may not contain another part's bounds where the "
            "distance from its lower bound (" +
                off.to_string() + ", to the bound " + lo.nat.to_string() + ") " +
                (numbers ? "has no known remainder by the step"
                         : "is not a multiple of the step (a size)"),
            parts_[p].src->span);
      phase[p] = *ph.as_const();
    }
    Span at = first.src->step[d]->span;
    Rows rows;
    rows.len = hi.nat - lo.nat;
    if (!numbers) {
      const Bound& wd = *first.width[d];
      rows.step = *first.step[d];
      rows.runs.push_back(Run{Bound{Nat(0), int_lit(0, at)}, wd, here});
      if (!(wd.nat == rows.step.nat)) rows.runs.push_back(Run{wd, diff(rows.step, wd), plain});
    } else {
      int64_t lcm = 1;
      for (size_t p : stepped) {
        lcm = std::lcm(lcm, *parts_[p].step[d]->nat.as_const());
        if (lcm > kMaxBlock)
          user_error(
              "stepped parts that share rows have steps whose least common multiple is "
              "over " +
                  std::to_string(kMaxBlock),
              parts_[p].src->span);
      }
      rows.step = Bound{Nat(lcm), int_lit(lcm, at)};
      for (int64_t r = 0; r < lcm; ++r) {
        std::vector<size_t> cover;
        for (size_t p : here)
          if (!parts_[p].step[d] || (r + phase[p]) % *parts_[p].step[d]->nat.as_const() <
                                        *parts_[p].width[d]->nat.as_const())
            cover.push_back(p);
        if (!rows.runs.empty() && rows.runs.back().parts == cover) {
          Run& last = rows.runs.back();
          last.len = Bound{last.len.nat + Nat(1), int_lit(r + 1 - *last.first.nat.as_const(), at)};
          continue;
        }
        rows.runs.push_back(
            Run{Bound{Nat(r), int_lit(r, at)}, Bound{Nat(1), int_lit(1, at)}, std::move(cover)});
      }
    }
    for (const Run& run : rows.runs)
      if (d + 1 == rank_ && run.parts.size() > 1 && rows.has(run)) {
        at_.resize(d);
        at_.push_back(lo.nat + run.first.nat);
        overlap(run.parts[0], run.parts[1]);
      }
    return rows;
  }
  static constexpr int64_t kMaxBlock = 64;

  // A size the desugaring computed: a number, or a natType literal (`natType(n - n % 2)`).
  Bound sized(const Nat& n) const {
    if (auto c = n.as_const()) return Bound{n, int_lit(*c, sp_)};
    return Bound{n, nat_literal(n, sp_)};
  }
  static bool zero(const Nat& n) { return n.is_const(0) || arith::provably_eq(n, Nat(0)); }

  // The run's `len` rows read from `run_src`, or, covered by parts, a generate of their
  // bodies, each part's index in dimension d `index(w)` (natType) for the generate's
  // index w; `at` is the first row, for overlap messages.
  Expr run_rows(size_t d, const Run& run, const Nat& len, const Expr& run_src, const Bound& at,
                const std::function<Expr(const std::string&)>& index) {
    if (run.parts.empty()) return read(run_src);
    std::string w = fresh_name("w");
    for (size_t q : run.parts) gidx_[q][d] = index(w);
    at_.resize(d);
    at_.push_back(at.nat);
    Expr inner = d + 1 == rank_
                     ? checked_body(run.parts[0], A(A(P(PrimId::Idx), ident(w, sp_)), run_src))
                     : region(d + 1, run.parts, A(A(P(PrimId::Idx), ident(w, sp_)), run_src), true);
    return generate(w, len, inner);
  }

  // The rows of a slab cut into blocks (stepped_rows): split(step) of its whole blocks,
  // each block its runs, then the r = len % step rows left after them (a number or a
  // size), cut where the runs are (run [f, f + l) takes rows min(f, r) .. min(f + l, r)
  // of them).
  Expr stepped_slab(size_t d, const Rows& rows, const Bound& lo, const Bound& len,
                    const Expr& slab_src) {
    const Nat& step = rows.step.nat;
    const Nat rest = arith::mod(len.nat, step);
    const Bound whole = zero(rest) ? len : sized(len.nat - rest);
    const Nat blocks = arith::exact_div(whole.nat, step);
    std::vector<Expr> pieces;
    if (!zero(blocks)) {
      Expr src = zero(rest) ? slab_src : take(whole, slab_src);
      std::string b = fresh_name("b");
      Expr blk = A(A(P(PrimId::Idx), ident(b, sp_)), A(A(P(PrimId::Split), rows.step.expr), src));
      std::vector<Expr> runs;
      for (const Run& run : rows.runs) {
        Expr run_src = run.first.nat + run.len.nat == step ? drop(run.first, blk)
                                                           : take(run.len, drop(run.first, blk));
        runs.push_back(run_rows(d, run, run.len.nat, run_src, Bound{lo.nat + run.first.nat, {}},
                                [&](const std::string& w) {
                                  Expr off = stepped_offset(b, rows.step, w);
                                  if (!run.first.nat.is_const(0))
                                    off = A2(PrimId::Add, off, run.first.expr);
                                  return index_value(lo, off);
                                }));
      }
      pieces.push_back(A(P(PrimId::Join), generate(b, blocks, concat(runs))));
    }
    if (!zero(rest)) {
      Expr tail = drop(whole, slab_src);
      for (const Run& run : rows.runs) {
        // The rows of the tail from the run's first on, and from the row after it on
        // (none after the last run: r < step), written with max so that the run's last
        // index, lo + len - after - 1, is provably below the slab's end, and the runs'
        // lengths add up to r.
        const Nat end = run.first.nat + run.len.nat;
        const Nat rows_from = arith::max(Nat(0), rest - run.first.nat);
        const Nat after = end == step ? Nat(0) : arith::max(Nat(0), rest - end);
        const Bound from = sized(rest - rows_from), n = sized(rows_from - after);
        if (zero(n.nat)) continue;
        const Bound start = sized(lo.nat + len.nat - rows_from);
        pieces.push_back(
            run_rows(d, run, n.nat, take(n, drop(from, tail)), start,
                     [&](const std::string& w) { return index_value(start, as_nat(w)); }));
      }
    }
    if (pieces.empty()) return read(slab_src);
    return concat(pieces);
  }

  Expr concat(const std::vector<Expr>& pieces) const {
    Expr r = pieces.back();
    for (size_t i = pieces.size() - 1; i-- > 0;) r = A2(PrimId::Concat, pieces[i], r);
    return r;
  }

  // A fold's part as written: its values in row-major order (docs/language.md, "Fold
  // order"), reduced onto `acc`.
  Expr fold_part(const Part& pt, Expr acc) {
    std::vector<Expr> gidx(rank_);
    Expr x = fold_rows(pt, 0, gidx);
    for (size_t d = 1; d < rank_; ++d) x = A(P(PrimId::Join), x);
    return A(A(A(P(PrimId::Reduce), w_.fold_op), acc), x);
  }

  // The part's values over dimensions d.., an array of rank rank_ - d, each index's
  // value in gidx. A stepped dimension is its whole blocks' rows (join of a generate of
  // blocks of `width` rows) and, where the step may not divide the range, then the
  // tail's (its first min(width, r) rows, r = (ub - lb) % step), concatenated here,
  // inside the loops of the dimensions before d: each row's tail comes before the next
  // row.
  Expr fold_rows(const Part& pt, size_t d, std::vector<Expr>& gidx) {
    if (d == rank_) return body(pt, gidx);
    const Bound len = diff(pt.ub[d], pt.lb[d]);
    if (!pt.step[d]) {
      std::string k = fresh_name("i");
      gidx[d] = index_value(pt.lb[d], as_nat(k));
      return generate(k, len.nat, fold_rows(pt, d + 1, gidx));
    }
    const Bound &s = *pt.step[d], &wd = *pt.width[d];
    const Nat r = arith::mod(len.nat, s.nat);
    const bool divides = r.is_const(0) || arith::provably_divides(s.nat, len.nat);
    const Span at = pt.src->step[d]->span;
    const Expr r_expr =
        r.as_const() ? int_lit(*r.as_const(), at) : A2(PrimId::Mod, len.expr, s.expr);
    const Bound whole_ub =
        divides ? pt.ub[d] : Bound{pt.ub[d].nat - r, A2(PrimId::Sub, pt.ub[d].expr, r_expr)};
    std::string b = fresh_name("b"), w = fresh_name("w");
    gidx[d] = index_value(pt.lb[d], stepped_offset(b, s, w));
    Expr rows = generate(w, wd.nat, fold_rows(pt, d + 1, gidx));
    rows = A(P(PrimId::Join),
             generate(b, arith::exact_div(diff(whole_ub, pt.lb[d]).nat, s.nat), rows));
    if (divides) return rows;
    // The tail: rows ub - r .. ub - max(0, r - width).
    const Nat tail_len = r - arith::max(Nat(0), r - wd.nat);
    std::string k = fresh_name("i");
    gidx[d] = index_value(whole_ub, as_nat(k));
    return A2(PrimId::Concat, rows, generate(k, tail_len, fold_rows(pt, d + 1, gidx)));
  }

  // The part's body beside `elem`, the element of the default array (genarray) or the
  // modified one (modarray) at the same index, as (fun(x => body))(elem) with a binder
  // that element_check recognises: type inference unifies the two types, reports a
  // mismatch at the body, and keeps only the body (infer.cpp, infer_app). So a body
  // whose type the parts alone leave open (natAsScalar(i)) takes the default's, and one
  // that differs from it is refused even where the parts cover the whole shape.
  Expr checked_body(size_t p, Expr elem) {
    const Span& at = parts_[p].src->body->span;
    std::string x = fresh_name(w_.op == WithLoop::Op::Genarray ? kDefaultCheck : kModifiedCheck);
    return app(lambda(x, body(p), nullptr, sp_), std::move(elem), at);
  }

  // The part's body applied to its index values: (fun(i => body))(value), so that the
  // printed program stays readable; inference sees through such redexes when it
  // proves index arithmetic in bounds.
  Expr body(size_t p) { return body(parts_[p], gidx_[p]); }
  Expr body(const Part& pt, const std::vector<Expr>& gidx) {
    std::map<std::string, Expr> renamed;
    std::vector<std::string> fresh;
    for (size_t d = 0; d < rank_; ++d) {
      fresh.push_back(fresh_name(pt.src->names[d]));
      renamed[pt.src->names[d]] = ident(fresh.back(), sp_);
    }
    IndexNames names(renamed);
    Expr r = names.mutate(pt.src->body);
    cast_index_ = cast_index_ || names.cast;
    for (size_t d = rank_; d-- > 0;) r = A(lambda(fresh[d], r, nullptr, sp_), gidx[d]);
    return r;
  }

  // The part's body with its index names renamed (to the redex's binders);
  // natAsScalar(i) becomes a cast of the index.
  class IndexNames : public ExprMutator {
   public:
    explicit IndexNames(std::map<std::string, Expr> values) : values_(std::move(values)) {}
    bool cast = false;  // whether natAsScalar of an index was met

   protected:
    Expr visit_ident(const Expr& e) override {
      auto it = values_.find(e->name);
      if (it == values_.end()) return e;
      auto n = std::make_shared<ExprNode>(*it->second);
      n->span = e->span;  // errors about the index point at the name
      return n;
    }
    Expr visit_lambda(const Expr& e) override {
      auto it = values_.find(e->name);
      if (it == values_.end()) return mutate_children(e);
      Expr v = it->second;
      values_.erase(it);
      Expr r = mutate_children(e);
      values_[e->name] = v;
      return r;
    }
    // natAsScalar(x), x an index name or an expression that uses one (`i / 2`, as
    // `a[i / 2]` may): a cast of the index value (natType arithmetic), not the size
    // natAsScalar expects.
    Expr visit_app(const Expr& e) override {
      if (e->fn->kind == ExprKind::Ident && e->fn->name == "natAsScalar" &&
          !values_.count("natAsScalar") && uses_index(e->arg)) {
        Expr v = mutate(e->arg);
        cast = true;
        Expr as_i64 = annotation(app(ident(prim_name(PrimId::Cast), e->span), v, e->span),
                                 scalar(ScalarKind::I64), e->span);
        return app(ident(prim_name(PrimId::Cast), e->span), as_i64, e->span);
      }
      return mutate_children(e);
    }

   private:
    std::map<std::string, Expr> values_;

    // Whether e reads an index name (not one a lambda inside e rebinds).
    bool uses_index(const Expr& e) const {
      if (!e) return false;
      switch (e->kind) {
        case ExprKind::Ident:
          return values_.count(e->name) > 0;
        case ExprKind::App:
          return uses_index(e->fn) || uses_index(e->arg);
        case ExprKind::Annotation:
          return uses_index(e->fn);
        default:
          return false;
      }
    }
  };
};

}  // namespace

Expr desugar_with_loop(const WithLoop& w) {
  return Desugar(w).run();
}

std::optional<WithLoop::Op> element_check(const Expr& f) {
  if (f->kind != ExprKind::Lambda || !written_by_with_loop(f->span)) return std::nullopt;
  const std::string base = f->name.substr(0, f->name.rfind("__"));
  if (base == kDefaultCheck) return WithLoop::Op::Genarray;
  if (base == kModifiedCheck) return WithLoop::Op::Modarray;
  return std::nullopt;
}

bool written_by_with_loop(const Span& s) {
  if (!s.known() || s.end < s.begin + 5 || s.end > s.file->text.size()) return false;
  const std::string& t = s.file->text;
  return t.compare(s.begin, 4, "with") == 0 &&
         (std::isspace(static_cast<unsigned char>(t[s.begin + 4])) || t[s.begin + 4] == '{');
}

}  // namespace risec::rise
