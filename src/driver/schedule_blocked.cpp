// Register-blocked candidates of the autoscheduler's space (see schedule_blocked.h).
#include "driver/schedule_blocked.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <tuple>

#include "elevate/rule_util.h"
#include "rise/primitives.h"

namespace risec::driver {

namespace {

using rise::Expr;
using rise::ExprKind;

// Whether e is a map applied to zip(a)(b) where a reads the outer map's element and
// not the inner one's, and b the inner's and not the outer's (or the other way
// round): each product pairs an element of a row of one operand with one of a column
// of the other, a contraction. A window zipped with constant weights is not one.
bool reads_pairs(const Expr& e, const std::string& outer, const std::string& inner) {
  if (e->kind != ExprKind::App || outer.empty() || inner.empty()) return false;
  rise::Spine sp = rise::spine(e);
  if (sp.head->kind != ExprKind::Primitive || !sp.head->prim ||
      sp.head->prim->family != rise::Family::Map || sp.args.empty())
    return false;
  const Expr xs = sp.args.back().value;
  if (!xs || xs->kind != ExprKind::App) return false;
  rise::Spine z = rise::spine(xs);
  if (z.head->kind != ExprKind::Primitive || !z.head->prim ||
      !z.head->prim->is(rise::PrimId::Zip) || z.args.size() != 2 || !z.args[0].value ||
      !z.args[1].value)
    return false;
  auto reads = [](const Expr& x, const std::string& v) {
    const std::vector<std::string> fv = rise::free_vars(x);
    return std::find(fv.begin(), fv.end(), v) != fv.end();
  };
  const Expr& a = z.args[0].value;
  const Expr& b = z.args[1].value;
  const bool ao = reads(a, outer), ai = reads(a, inner), bo = reads(b, outer), bi = reads(b, inner);
  return (ao && !ai && bi && !bo) || (ai && !ao && bo && !bi);
}

struct Finder {
  std::optional<Contraction> found;
  bool transposed = false;
  std::vector<std::string> params;  // the enclosing maps' element names ("" not a lambda)
  // `maps`: the sizes of the maps whose function encloses e, outermost first.
  void visit(const Expr& e, std::vector<int64_t>& maps) {
    if (found) return;
    if (e->kind == ExprKind::App) {
      const std::optional<elevate::util::PrimCall> call = elevate::util::as_prim_call(e);
      const rise::PrimitiveInfo* p = call ? call->head->prim : nullptr;
      const std::vector<Expr> args = call ? call->args : std::vector<Expr>{};
      auto size_of = [](const Expr& x) -> int64_t {
        return x->type && x->type->kind == rise::TypeKind::Array
                   ? x->type->size.as_const().value_or(0)
                   : 0;
      };
      if (p && p->is(rise::PrimId::Transpose)) transposed = true;
      // A reduction of products of a row of one operand and a column of the other.
      if (p && p->family == rise::Family::Reduce && args.size() == 3 && maps.size() >= 2 &&
          reads_pairs(args[2], params[params.size() - 2], params.back())) {
        const int64_t depth = size_of(args[2]);
        if (depth > 0 && maps[maps.size() - 2] > 0 && maps.back() > 0) {
          found = Contraction{maps[maps.size() - 2], maps.back(), depth, false};
          return;
        }
      }
      if (p && p->family == rise::Family::Map && args.size() == 2) {
        for (size_t i = 1; i < args.size(); ++i) visit(args[i], maps);
        maps.push_back(size_of(args[1]));
        params.push_back(args[0]->kind == ExprKind::Lambda ? args[0]->name : std::string());
        visit(args[0], maps);
        maps.pop_back();
        params.pop_back();
        return;
      }
    }
    for (const Expr& k : rise::children(e)) visit(k, maps);
  }
};

// The model's estimate for one point, in cycles per multiply-add on one float, and
// its reason. An inner step (one k of the register block, or one k.o step of a row)
// issues multiply-adds and loads, two of each a cycle, and stores, one a cycle; an
// accumulator that does not fit the vector registers is spilled (loaded and stored
// at every multiply-add).
void estimate(BlockPoint& p, const Contraction& c, const BlockMachine& m) {
  const double L = static_cast<double>(m.lanes);
  const double vec_j = static_cast<double>(p.tj) / L;  // vectors across a row of the block
  const double ti = static_cast<double>(p.ti), kk = static_cast<double>(p.kk);
  double fma = 0, loads = 0, stores = 0;
  std::ostringstream why;
  if (p.register_block) {
    const double acc = ti * vec_j;
    fma = acc;
    loads = vec_j + ti;  // a row of the block of B, a broadcast of A per row
    const double need = acc + vec_j + 1;
    if (need > static_cast<double>(m.registers)) {
      loads += acc;
      stores += acc;
      why << "register block " << p.ti << " x " << p.tj << " needs " << need << " of "
          << m.registers << " vector registers (spilled)";
    } else {
      why << "register block " << p.ti << " x " << p.tj << " in " << need << " of " << m.registers
          << " vector registers";
    }
  } else {
    fma = kk * vec_j;
    loads = kk * vec_j + kk + vec_j;  // B, A broadcasts, the row of the accumulator
    stores = vec_j;
    why << "a row of " << p.tj << " accumulators loaded and stored every " << p.kk << " k";
  }
  double cycles = std::max({fma / 2, loads / 2, stores}) + 0.5;  // + the loop's overhead
  double score = cycles / (fma * L);
  // The block of the transposed operand (the k x tj panel one block of rows reads)
  // should stay in L2 while the row blocks run; packed, it is contiguous.
  const int64_t panel = c.depth * p.tj * 4;
  if (panel > m.l2) {
    score *= 1.3;
    why << "; the " << panel / 1024 << " KiB panel of B exceeds L2";
  } else {
    why << "; the " << panel / 1024 << " KiB panel of B fits " << (panel <= m.l1 ? "L1" : "L2");
  }
  // Among equal blocks, a smaller panel leaves more of L2 to A and C.
  score *= 1.0 + 0.1 * static_cast<double>(panel) / static_cast<double>(m.l2);
  // A vector of two registers gains no throughput and doubles the live registers of
  // each step (measured far slower with a register block on AVX-512).
  if (p.width == 2) score *= 1.1;
  if (c.transposed_operand && !p.pack) score *= 1.15;  // strided panel rows
  if (!p.register_block && p.ti * p.tj * 4 > m.l1) score *= 1.2;
  if (m.threads > 1) {
    const double blocks = static_cast<double>(p.rows_outer ? c.rows / p.ti : c.cols / p.tj);
    const double rounds = std::ceil(blocks / m.threads);
    score *= rounds * m.threads / std::max(1.0, blocks);
    if (blocks < m.threads) why << "; only " << blocks << " blocks for " << m.threads << " threads";
  }
  p.score = score;
  p.reason = why.str();
}

}  // namespace

std::optional<Contraction> find_contraction(const rise::Checked& high) {
  Finder f;
  std::vector<int64_t> maps;
  f.visit(high.expr, maps);
  if (f.found) f.found->transposed_operand = f.transposed;
  return f.found;
}

std::vector<BlockPoint> rank_block_points(const Contraction& c, const BlockMachine& m,
                                          size_t keep) {
  std::vector<BlockPoint> points;
  const int64_t L = std::max<int64_t>(1, m.lanes);
  for (int64_t ti : {2, 4, 8, 16, 32, 64, 128}) {
    if (ti > c.rows || c.rows % ti) continue;
    for (int64_t tj : {L, 2 * L, 4 * L, 8 * L}) {
      if (tj > c.cols || c.cols % tj) continue;
      for (int64_t kk : {2, 4, 8, 16}) {
        if (kk > c.depth || c.depth % kk) continue;
        for (int width : {1, 2}) {
          if (tj % (width * L)) continue;
          for (bool rows_outer : {true, false})
            for (bool reg : {true, false})
              for (bool pack : {true, false}) {
                if (pack && !c.transposed_operand) continue;
                BlockPoint p{ti, tj, kk, width, rows_outer, reg, pack, 0, {}};
                estimate(p, c, m);
                points.push_back(p);
              }
        }
      }
    }
  }
  std::stable_sort(points.begin(), points.end(),
                   [](const BlockPoint& a, const BlockPoint& b) { return a.score < b.score; });
  // Diverse first: the best point of each block shape and loop order, in the
  // model's order, then the best of each shape's remaining variants (k split,
  // vector width, outer loop, packing) round by round: the model ranks shapes, the
  // measurements decide among the variants it cannot tell apart.
  std::vector<BlockPoint> out;
  std::vector<bool> taken(points.size(), false);
  while (out.size() < std::min(keep, points.size())) {
    std::vector<std::tuple<int64_t, int64_t, bool>> seen;
    for (size_t i = 0; i < points.size() && out.size() < keep; ++i) {
      if (taken[i]) continue;
      const auto shape = std::make_tuple(points[i].ti, points[i].tj, points[i].register_block);
      if (std::find(seen.begin(), seen.end(), shape) != seen.end()) continue;
      seen.push_back(shape);
      taken[i] = true;
      out.push_back(points[i]);
    }
  }
  return out;
}

std::vector<BlockStep> block_steps(const BlockPoint& p, const std::string& target) {
  const std::string ti = std::to_string(p.ti), tj = std::to_string(p.tj), kk = std::to_string(p.kk);
  const std::string v = p.width == 1 ? "lanes" : "lanes * 2";
  const bool par = target == "openmp";
  std::vector<BlockStep> s;
  if (p.pack)
    s.push_back(
        {"pack",
         "(blockTranspose(" + tj +
             ") @ outermost(isApplied(isTranspose))) ; storeInMemory(isApplied(isTranspose), "
             "idAfter ; normalize(liftId) ; (vectorize(" +
             v + ") @ innermost(isFullyApplied(isMap)))" +
             (par ? " ; (parallel @ outermost(isApplied(isMap)))" : "") + " ; lowerToC)",
         "the transposed operand stored once in blocks of " + tj +
             " columns (TVM's packed B: the vector loop reads consecutive floats)"});
  s.push_back({"structure", "DFNF ; (fuseReduceMap @ topDown)",
               "data-flow normal form, each reduction fused with the map of products it reads"});
  s.push_back({"block", "tile(" + ti + ", " + tj + ") @ outermost(mapNest(2))",
               "the two maps around the reduction in " + ti + " x " + tj + " blocks"});
  s.push_back({"split",  // a decision's name, not a primitive
               "(reduceMapFission @ outermost(isApplied(isApplied(isReduceSeq)))) ; "
               "(splitStrategy(" +
                   kk + ") @ innermost(isFullyApplied(isReduce)))",
               "the reduction split into k.o and k.i = " + kk});
  const std::string o12 = p.rows_outer ? "1, 2" : "2, 1", o45 = p.register_block ? "6, 3" : "3, 6";
  s.push_back({"order", "reorder([" + o12 + ", 5, " + o45 + ", 4])",
               std::string(p.rows_outer ? "row blocks outermost" : "column blocks outermost") +
                   (p.register_block ? "; k.i outside the rows: the " + ti + " x " + tj +
                                           " accumulator is a register block"
                                     : "; k.i inside each row (TVM's order)")});
  s.push_back({"vectorize", "vectorize(" + v + ") @ innermost(isFullyApplied(isMap))",
               "the j.i loop on vectors of " + v + " floats"});
  if (par)
    s.push_back({"parallel", "parallel @ outermost(isApplied(isMap))",
                 "the outermost block loop an OpenMP parallel loop"});
  s.push_back({"unroll", "unroll @ innermost(isFullyApplied(isReduceSeq))", "k.i unrolled"});
  return s;
}

}  // namespace risec::driver
