// With-loops as RISE primitives; see withloop.h for the scheme.
#include "rise/withloop.h"

#include <map>
#include <optional>
#include <utility>

#include "arith/nat.h"
#include "rise/primitives.h"

namespace risec::rise {

namespace {

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
  if (sp.head->kind == ExprKind::Primitive && sp.args.size() == 2 && !sp.args[0].dep &&
      !sp.args[1].dep) {
    Nat a = to_nat(sp.args[0].value), b = to_nat(sp.args[1].value);
    try {
      if (is_prim(sp.head, "add")) return a + b;
      if (is_prim(sp.head, "sub")) return a - b;
      if (is_prim(sp.head, "mul")) return a * b;
      if (is_prim(sp.head, "div")) return arith::exact_div(a, b);
      if (is_prim(sp.head, "mod")) return arith::mod(a, b);
    } catch (const arith::ArithError& err) {
      user_error(std::string("in a with-loop size: ") + err.what(), e->span);
    }
  }
  user_error("a with-loop bound, step, width or shape is a size: numbers, size names and + - * / %",
             e->span);
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
    gidx_.assign(parts_.size(), std::vector<Expr>(rank_));
    std::vector<size_t> all;
    for (size_t p = 0; p < parts_.size(); ++p) all.push_back(p);
    if (w_.op == WithLoop::Op::Fold) {
      region(0, all, nullptr, false);  // only the checks: order and overlap
      Expr acc = w_.neutral;
      for (size_t p = 0; p < parts_.size(); ++p) acc = fold_part(p, acc);
      return acc;
    }
    Expr src = w_.array;
    if (w_.op == WithLoop::Op::Genarray) {
      src = w_.deflt;
      for (size_t d = rank_; d-- > 0;) {
        extent_.insert(extent_.begin(), bound(w_.shape[d]));
        src = generate(fresh_name("_"), extent_.front().nat, src);
      }
    }
    return region(0, all, src, true);
  }

 private:
  struct Part {
    const WithPart* src;
    std::vector<Bound> lb, ub;
    std::vector<std::optional<Bound>> step, width;
  };
  const WithLoop& w_;
  Span sp_;
  size_t rank_ = 0;
  std::vector<Part> parts_;
  std::vector<Bound> extent_;            // genarray: the shape
  std::vector<std::vector<Expr>> gidx_;  // [part][dim]: the index value (natType)

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
        if (!arith::provably_pos(wd->nat) || !arith::provably_le(wd->nat, s->nat))
          user_error("a width must be positive and at most the step (" + s->nat.to_string() + ")",
                     wd->expr->span);
      }
      if (s) {
        auto len = (p.ub[d].nat - p.lb[d].nat).as_const(), st = s->nat.as_const();
        if (len && st && *len % *st != 0)
          user_error("the step " + std::to_string(*st) +
                         " does not divide the generator's extent " + std::to_string(*len) +
                         " (upper minus lower bound) in dimension " + std::to_string(d) +
                         "; stepped generators cover whole blocks",
                     wp.step[d]->span);
      }
      p.step.push_back(s);
      p.width.push_back(wd);
    }
    parts_.push_back(std::move(p));
  }

  // ---- expression builders ----
  // Operators are primitives (as the parser makes them), named primitives identifiers
  // (as the parser reads them), so that the printed program reads back the same.
  Expr P(const char* name) const {
    std::string n = name;
    if (n == "add" || n == "sub" || n == "mul" || n == "idx") return primitive(name, sp_);
    return ident(name, sp_);
  }
  Expr A(Expr f, Expr x) const { return app(std::move(f), std::move(x), sp_); }
  Expr A2(const char* f, Expr x, Expr y) const { return A(A(P(f), std::move(x)), std::move(y)); }
  Expr generate(const std::string& k, const Nat& n, Expr body) const {
    return A(P("generate"), lambda(k, std::move(body), index_type(n), sp_));
  }
  Bound diff(const Bound& hi, const Bound& lo) const {
    if (lo.nat.is_const(0)) return hi;
    return Bound{hi.nat - lo.nat, A2("sub", hi.expr, lo.expr)};
  }
  Expr take(const Bound& n, Expr x) const { return A(A(P("take"), n.expr), std::move(x)); }
  Expr drop(const Bound& n, Expr x) const {
    if (n.nat.is_const(0)) return x;
    return A(A(P("drop"), n.expr), std::move(x));
  }
  Expr as_nat(const std::string& k) const { return A(P("indexAsNat"), ident(k, sp_)); }
  // lo + k, or lo + step*b + w (natType).
  Expr index_value(const Bound& lo, Expr off) const {
    if (lo.nat.is_const(0)) return off;
    return A2("add", std::move(off), lo.expr);
  }
  Expr stepped_offset(const std::string& b, const Bound& s, const std::string& w) const {
    return A2("add", A2("mul", as_nat(b), s.expr), as_nat(w));
  }

  // ---- ordering the bounds of one dimension ----
  struct Point {
    Bound b;
    std::vector<std::pair<size_t, bool>> of;  // (part, is upper bound)
  };

  bool known_le(const Point& x, const Point& y, size_t d) const {
    if (x.b.nat == y.b.nat || arith::provably_le(x.b.nat, y.b.nat)) return true;
    if (x.b.nat.is_const(0)) return true;
    if (d < extent_.size() && y.b.nat == extent_[d].nat) return true;
    // A generator's lower bound is at most its upper bound.
    for (auto [p, upper] : x.of)
      if (!upper)
        for (auto [q, up2] : y.of)
          if (q == p && up2) return true;
    return false;
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
                         "); bounds of different parts must be provably ordered",
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

  [[noreturn]] void overlap(size_t p, size_t q) const {
    LineCol lc = parts_[p].src->span.start();
    user_error("with-loop parts overlap: this part and the part at line " +
                   std::to_string(lc.line) + ", column " + std::to_string(lc.col) +
                   " cover common indices (parts must be disjoint)",
               parts_[q].src->span);
  }

  // The region of dimensions d.. for the parts `active` (all covering the enclosing
  // slabs), reading what no part covers from `src`. With build false, only checks.
  Expr region(size_t d, const std::vector<size_t>& active, const Expr& src, bool build) {
    std::vector<Point> pts = order(d, active);
    std::vector<Expr> slabs;
    for (size_t i = 0; i + 1 < pts.size(); ++i) {
      std::vector<size_t> here;
      for (size_t p : active)
        if (position(pts, p, false) <= i && position(pts, p, true) >= i + 1) here.push_back(p);
      Bound len = diff(pts[i + 1].b, pts[i].b);
      Expr slab_src = build ? take(len, drop(pts[i].b, src)) : nullptr;
      if (here.empty()) {
        if (build) slabs.push_back(slab_src);
        continue;
      }
      if (d + 1 == rank_ && here.size() > 1) overlap(here[0], here[1]);
      std::optional<size_t> stepped;
      for (size_t p : here)
        if (parts_[p].step[d]) stepped = p;
      if (stepped) {
        const Part& sp = parts_[*stepped];
        if (here.size() > 1) overlap(here[0], here[1]);
        if (!(sp.lb[d].nat == pts[i].b.nat) || !(sp.ub[d].nat == pts[i + 1].b.nat))
          user_error("a stepped generator's range may not contain another part's bounds",
                     sp.src->span);
      }
      if (!build) {
        if (d + 1 < rank_) region(d + 1, here, nullptr, false);
        continue;
      }
      slabs.push_back(stepped ? stepped_slab(d, *stepped, pts[i].b, len, slab_src)
                              : plain_slab(d, here, pts[i].b, len, slab_src));
    }
    if (!build) return nullptr;
    // What follows the last bound (empty when it is the extent).
    const Bound& last = pts.back().b;
    bool at_end = d < extent_.size() &&
                  (last.nat == extent_[d].nat || arith::provably_eq(last.nat, extent_[d].nat));
    if (!at_end) slabs.push_back(drop(last, src));
    Expr r = slabs.back();
    for (size_t i = slabs.size() - 1; i-- > 0;) r = A2("concat", slabs[i], r);
    return r;
  }

  // Rows lo .. lo+len of dimension d, every one covered by the parts `here`.
  Expr plain_slab(size_t d, const std::vector<size_t>& here, const Bound& lo, const Bound& len,
                  const Expr& slab_src) {
    std::string k = fresh_name("i");
    for (size_t p : here) gidx_[p][d] = index_value(lo, as_nat(k));
    Expr inner = d + 1 == rank_
                     ? body(here[0])
                     : region(d + 1, here, A(A(P("idx"), ident(k, sp_)), slab_src), true);
    return generate(k, len.nat, inner);
  }

  // Rows of a stepped part: blocks of `step` rows whose first `width` are the part's.
  Expr stepped_slab(size_t d, size_t p, const Bound& lo, const Bound& len, const Expr& slab_src) {
    const Bound& s = *parts_[p].step[d];
    const Bound& wd = *parts_[p].width[d];
    std::string b = fresh_name("b"), w = fresh_name("w");
    Nat blocks = arith::exact_div(len.nat, s.nat);
    Expr blk = A(A(P("idx"), ident(b, sp_)), A(A(P("split"), s.expr), slab_src));
    gidx_[p][d] = index_value(lo, stepped_offset(b, s, w));
    Expr inner = d + 1 == rank_
                     ? body(p)
                     : region(d + 1, {p}, A(A(P("idx"), ident(w, sp_)), take(wd, blk)), true);
    Expr covered = generate(w, wd.nat, inner);
    Expr block = wd.nat == s.nat ? covered : A2("concat", covered, drop(wd, blk));
    return A(P("join"), generate(b, blocks, block));
  }

  // A fold's part: its values in row-major order, reduced onto `acc`.
  Expr fold_part(size_t p, Expr acc) {
    const Part& pt = parts_[p];
    std::vector<std::pair<std::string, Nat>> loops;  // outermost first
    for (size_t d = 0; d < rank_; ++d) {
      Bound len = diff(pt.ub[d], pt.lb[d]);
      if (pt.step[d]) {
        std::string b = fresh_name("b"), w = fresh_name("w");
        loops.push_back({b, arith::exact_div(len.nat, pt.step[d]->nat)});
        loops.push_back({w, pt.width[d]->nat});
        gidx_[p][d] = index_value(pt.lb[d], stepped_offset(b, *pt.step[d], w));
      } else {
        std::string k = fresh_name("i");
        loops.push_back({k, len.nat});
        gidx_[p][d] = index_value(pt.lb[d], as_nat(k));
      }
    }
    Expr x = body(p);
    for (size_t l = loops.size(); l-- > 0;) x = generate(loops[l].first, loops[l].second, x);
    for (size_t l = 1; l < loops.size(); ++l) x = A(P("join"), x);
    return A(A(A(P("reduce"), w_.fold_op), acc), x);
  }

  // The part's body applied to its index values: (fun(i => body))(value), so that the
  // printed program stays readable; inference sees through such redexes when it
  // proves index arithmetic in bounds.
  Expr body(size_t p) {
    std::map<std::string, Expr> renamed;
    std::vector<std::string> fresh;
    for (size_t d = 0; d < rank_; ++d) {
      fresh.push_back(fresh_name(parts_[p].src->names[d]));
      renamed[parts_[p].src->names[d]] = ident(fresh.back(), sp_);
    }
    Expr r = IndexNames(renamed).mutate(parts_[p].src->body);
    for (size_t d = rank_; d-- > 0;) r = A(lambda(fresh[d], r, nullptr, sp_), gidx_[p][d]);
    return r;
  }

  // The part's body with its index names renamed (to the redex's binders);
  // natAsScalar(i) becomes a cast of the index.
  class IndexNames : public ExprMutator {
   public:
    explicit IndexNames(std::map<std::string, Expr> values) : values_(std::move(values)) {}

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
    Expr visit_app(const Expr& e) override {
      if (e->fn->kind == ExprKind::Ident && e->fn->name == "natAsScalar" &&
          !values_.count("natAsScalar") && e->arg->kind == ExprKind::Ident &&
          values_.count(e->arg->name)) {
        Expr v = values_[e->arg->name];
        Expr as_i64 =
            annotation(app(ident("cast", e->span), v, e->span), scalar(ScalarKind::I64), e->span);
        return app(ident("cast", e->span), as_i64, e->span);
      }
      return mutate_children(e);
    }

   private:
    std::map<std::string, Expr> values_;
  };
};

}  // namespace

Expr desugar_with_loop(const WithLoop& w) {
  return Desugar(w).run();
}

}  // namespace risec::rise
