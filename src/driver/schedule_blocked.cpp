// Register-blocked candidates of the autoscheduler's space (see schedule_blocked.h).
#include "driver/schedule_blocked.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <tuple>

#include "elevate/rule_util.h"
#include "rise/primitives.h"
#include "support/diagnostics.h"

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

// Whether e applies transpose anywhere.
bool has_transpose(const Expr& e) {
  bool any = false;
  rise::for_each_subexpr(e, [&](const Expr& x) {
    if (x->kind == ExprKind::Primitive && x->prim && x->prim->is(rise::PrimId::Transpose))
      any = true;
    return !any;
  });
  return any;
}

struct Finder {
  std::optional<Contraction> found;
  bool transposed = false;
  std::vector<std::string> params;    // the enclosing maps' element names ("" not a lambda)
  std::vector<bool> data_transposed;  // whether each enclosing map's data applies transpose
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
          // The packable operand is the columns' (B read through transpose); A given
          // transposed (the rows' data) is read as ti consecutive floats per k already.
          const bool cols = data_transposed.back(), rows = data_transposed[maps.size() - 2];
          found =
              Contraction{maps[maps.size() - 2], maps.back(), depth, cols || (!rows && transposed)};
          return;
        }
      }
      if (p && p->family == rise::Family::Map && args.size() == 2) {
        for (size_t i = 1; i < args.size(); ++i) visit(args[i], maps);
        maps.push_back(size_of(args[1]));
        params.push_back(args[0]->kind == ExprKind::Lambda ? args[0]->name : std::string());
        data_transposed.push_back(has_transpose(args[1]));
        visit(args[0], maps);
        maps.pop_back();
        params.pop_back();
        data_transposed.pop_back();
        return;
      }
    }
    for (const Expr& k : rise::children(e)) visit(k, maps);
  }
};

// Bytes a core reads per cycle from L2, and from beyond it (L3 or memory): fitted
// to mm 1024^3 on an AVX-512 Xeon (Sapphire Rapids class), one thread, where the
// time of three register blocks with B re-read from L3 grew linearly in the bytes
// re-read per multiply-add (4 x 64: 3.0, 8 x 32: 1.6, 16 x 16: 1.3 x OpenBLAS).
constexpr double kL2Bandwidth = 48;
constexpr double kFarBandwidth = 10;
// Vector loads and broadcasts a cycle, sustained: two ports, but TVM's order (a load
// of B for every multiply-add, the accumulator row loaded and stored every kk) ran
// at 0.76-0.79x of the register blocks on mm 1024^3 (AVX-512), which this rate gives.
constexpr double kLoadsPerCycle = 1.5;
// Cycles from one multiply-add to the next on the same accumulator: 4, plus the
// slack a loop needs. With 4, blocks of 8 accumulators (2 x 32 and 4 x 16 with AVX2,
// 4 x 32 with AVX-512) were exactly at the two FMA ports' rate, but measured 0.54-0.85x
// of OpenBLAS against 0.86-0.9x for 6 x 16's 12 (mm 1024^3 and 2048^3, loaded CPU
// time: bench/results/journal/2026-11-28-mmavx2.md, 2026-11-28-mmkc.md).
constexpr double kLatency = 5;
// Software prefetching of the packed operand (BlockPoint::prefetch): the cycles ahead
// it asks for a line (L2's latency and more: about 1 KiB of packed B ahead for AVX2's
// 6 x 16 block, the distance measured best by hand), the share of the operand's
// stream cost from L2 that remains (prefetched 2048^3 ran 3-5% faster with
// AVX2 code, about a third of that term: bench/results/journal/2026-11-29-mmavx2.md),
// and the cycles each prefetch instruction takes from the loop's issue.
constexpr double kPrefetchCycles = 100;
constexpr double kPrefetchedShare = 0.65;
constexpr double kPrefetchIssue = 0.25;

// The model's estimate for one point, in cycles per multiply-add on one float, and
// its reason. An inner step (one k of the register block, or one k.o step of a row)
// issues multiply-adds, two a cycle, loads, kLoadsPerCycle, and stores, one a cycle; an
// accumulator that does not fit the vector registers is spilled (kept in memory);
// then the operands' re-reading by the block loops.
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
      // GCC keeps such an accumulator in memory: measured 2.7x slower than one that
      // fits (4 x 128 on AVX-512), more than one load and store per multiply-add give.
      loads += 2 * acc;
      stores += 2 * acc;
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
  // A multiply-add waits kLatency cycles for its accumulator: with fewer independent
  // accumulators than 2 * kLatency, their chains bound the step (TVM's order updates
  // only the tj / lanes vectors of one row, kk times each).
  const double chains = p.register_block ? fma : vec_j;
  const double latency = fma * kLatency / std::max(1.0, chains);
  // A prefetching k loop (register blocks only) issues a prefetch per line of the
  // packed operand's row of the block, each k.
  const double pf_lines =
      p.prefetch && p.register_block ? std::ceil(static_cast<double>(p.tj) * 4 / 64) : 0;
  double cycles = std::max({fma / 2, (loads + pf_lines) / kLoadsPerCycle, stores, latency}) + 0.5 +
                  kPrefetchIssue * pf_lines;  // + the loop's overhead
  double score = cycles / (fma * L);
  if (pf_lines > 0) {
    // The distance: the packed operand's bytes of the k steps that take kPrefetchCycles,
    // in whole lines.
    const double steps = std::ceil(kPrefetchCycles / cycles);
    p.prefetch = std::max<int64_t>(
        64, static_cast<int64_t>(std::ceil(steps * static_cast<double>(p.tj) * 4 / 64)) * 64);
  }
  // The operands' traffic from beyond the core, in cycles per multiply-add on one
  // float (the measure of `score`). The outer block loop walks one operand's blocks
  // and, inside it, the other loop walks all of the other operand: with the row
  // blocks outermost, all of B (depth x cols) is read again for every block of ti
  // rows (4 / ti bytes per multiply-add) and the row panel of A (ti x depth) for
  // every block of columns (4 / tj bytes); with the column blocks outermost, the
  // other way round. A stream that fits L1 costs nothing; one from L2 costs a byte
  // per kL2Bandwidth of a cycle, one larger than L2 a byte per kFarBandwidth (L3 or
  // memory). Measured on mm 1024^3 (AVX-512, one core): with B re-read from L3, the
  // 4 x 64 block with the row blocks outermost ran at 0.33x OpenBLAS, the same block
  // with the column blocks outermost at 1.0x: the loop order decides, not the block.
  const double whole_b = static_cast<double>(c.depth * c.cols * 4);
  const double whole_a = static_cast<double>(c.rows * c.depth * 4);
  const double panel_a = static_cast<double>(p.ti * c.depth * 4);
  const double panel_b = static_cast<double>(c.depth * p.tj * 4);
  // (the operand re-read whole by the outer loop, its bytes per multiply-add), and the
  // same for the panel of the other operand that the inner block loop re-reads.
  const double far = p.rows_outer ? whole_b : whole_a;
  const double far_bytes = 4.0 / static_cast<double>(p.rows_outer ? p.ti : p.tj);
  const double near = p.rows_outer ? panel_a : panel_b;
  const double near_bytes = 4.0 / static_cast<double>(p.rows_outer ? p.tj : p.ti);
  auto stream = [&](double bytes, double per_fma) {
    if (bytes <= static_cast<double>(m.l1)) return 0.0;
    return per_fma / (bytes <= static_cast<double>(m.l2) ? kL2Bandwidth : kFarBandwidth);
  };
  // The packed operand's stream re-read for each row block (B's panel or sliver),
  // prefetched or not: prefetching hides L2's latency; a stream from beyond L2 is
  // bound by bandwidth, which it does not add.
  auto b_stream = [&](double bytes, double per_fma) {
    const bool hidden = pf_lines > 0 && bytes <= static_cast<double>(m.l2);
    return (hidden ? kPrefetchedShare : 1.0) * stream(bytes, per_fma);
  };
  double traffic = 0;
  if (p.panel) {
    // Panels of P rows, the column blocks outermost in each: the P x k panel of A is
    // read again for each column block (4 / tj bytes), all of B once per panel
    // (4 / P), and B's k x tj column panel, or with kc its kc x tj sliver, for each
    // row block (4 / ti); with kc, the panel's P x tj accumulators are loaded and
    // stored once per chunk (8 / kc).
    const double pa = static_cast<double>(p.panel * c.depth * 4);
    const double sliver = static_cast<double>((p.kc ? p.kc : c.depth) * p.tj * 4);
    const double acc = static_cast<double>(p.panel * p.tj * 4);
    traffic = stream(pa, 4.0 / static_cast<double>(p.tj)) +
              stream(whole_b, 4.0 / static_cast<double>(p.panel)) +
              b_stream(sliver, 4.0 / static_cast<double>(p.ti)) +
              (p.kc ? stream(acc, 8.0 / static_cast<double>(p.kc)) : 0.0);
    score += traffic;
    // Each chunk loads and stores the register block's accumulators again: short
    // chunks cost their restarts (kc 64 against 512: measured no better, loaded).
    if (p.kc) score += 2 * fma / kLoadsPerCycle / (static_cast<double>(p.kc) * fma * L);
    why << "; panels of " << p.panel << " rows: the " << static_cast<int64_t>(pa) / 1024
        << " KiB panel of A read again for each column block, B ("
        << static_cast<int64_t>(whole_b) / 1024 << " KiB) once per panel, its "
        << static_cast<int64_t>(sliver) / 1024 << " KiB "
        << (p.kc ? "kc x tj sliver" : "k x tj panel") << " for each row block ("
        << static_cast<int>(100 * traffic / score + 0.5) << "% of the estimate)";
  } else {
    traffic = (p.rows_outer ? b_stream(far, far_bytes) : stream(far, far_bytes)) +
              (p.rows_outer ? stream(near, near_bytes) : b_stream(near, near_bytes));
    score += traffic;
    why << "; " << (p.rows_outer ? "B" : "A") << " (" << static_cast<int64_t>(far) / 1024
        << " KiB) read again for each " << (p.rows_outer ? "row" : "column") << " block, the "
        << static_cast<int64_t>(near) / 1024 << " KiB panel of " << (p.rows_outer ? "A" : "B")
        << " for each " << (p.rows_outer ? "column" : "row") << " block ("
        << static_cast<int>(100 * traffic / score + 0.5) << "% of the estimate)";
  }
  if (pf_lines > 0)
    why << "; the packed operand prefetched " << p.prefetch << " bytes ahead ("
        << static_cast<int64_t>(pf_lines) << " prefetch(es) a k; its stream from L2 costs "
        << static_cast<int>(100 * kPrefetchedShare + 0.5) << "%)";
  // A vector of two registers gains no throughput and doubles the live registers of
  // each step (measured far slower with a register block on AVX-512).
  if (p.width == 2) score *= 1.1;
  if (c.transposed_operand && !p.pack) score *= 1.15;  // strided panel rows
  // TVM's order re-reads B for every multiply-add and the accumulator row every kk:
  // measured 0.76-0.79x of the register blocks on mm 1024^3 (AVX-512, B packed)
  // whatever the block, where the counts above give about 0.9x.
  if (!p.register_block) score *= 1.3;
  if (m.threads > 1) {
    const double blocks = static_cast<double>(p.panel ? std::max<int64_t>(1, c.rows / p.panel)
                                              : p.rows_outer ? c.rows / p.ti
                                                             : c.cols / p.tj);
    const double rounds = std::ceil(blocks / m.threads);
    score *= rounds * m.threads / std::max(1.0, blocks);
    if (blocks < m.threads) why << "; only " << blocks << " blocks for " << m.threads << " threads";
  }
  // What a call pays besides the product, per multiply-add of a thread's share: the
  // packed operand's copy (its bytes read and written once per call: 8 / rows bytes
  // per multiply-add, from where B lives), and the fork and join of the product's
  // parallel loop and of the packing loop. Both vanish on a large product (mm 1024^3)
  // and decide a small one (the MLP's 64-row layers: the copy is an eighth of a
  // byte per multiply-add, a fork and join under OMP_WAIT_POLICY=passive tens of
  // microseconds, the time of a quarter of a layer).
  const double fmas =
      static_cast<double>(c.rows) * static_cast<double>(c.cols) * static_cast<double>(c.depth);
  if (p.pack) {
    const double copy = 8.0 / static_cast<double>(c.rows) /
                        (whole_b <= static_cast<double>(m.l2) ? kL2Bandwidth : kFarBandwidth);
    score += copy;
    why << "; B packed every call (" << static_cast<int>(100 * copy / score + 0.5)
        << "% of the estimate)";
  }
  if (m.threads > 1 && m.fork_join_cycles > 0 && fmas > 0) {
    const double regions = p.pack ? 2 : 1;
    const double fj = regions * m.fork_join_cycles * m.threads / fmas;
    score += fj;
    why << "; " << regions << " parallel loop(s) started per product ("
        << static_cast<int>(100 * fj / score + 0.5) << "% of the estimate)";
  }
  p.score = score;
  p.reason = why.str();
}

}  // namespace

std::optional<Contraction> find_contraction(const rise::Checked& high) {
  // Definitions applied to their arguments (a `dense` layer called with W1, the
  // prelude's `dot` with a row and a column) read their parameters, not the maps'
  // elements: the search runs on the beta normal form, typed again.
  Expr e = high.expr;
  if (Expr n = elevate::util::beta_eta_normalize(e, false); n != e) {
    try {
      e = rise::infer_expr(n).expr;
    } catch (const Error&) {
      // keep the program as checked: no contraction is found through a definition
    }
  }
  Finder f;
  std::vector<int64_t> maps;
  f.visit(e, maps);
  return f.found;
}

std::vector<BlockPoint> rank_block_points(const Contraction& c, const BlockMachine& m,
                                          size_t keep) {
  std::vector<BlockPoint> points;
  const int64_t L = std::max<int64_t>(1, m.lanes);
  // The model's estimate of p with its peeled rows (p.rest) in proportion: the last
  // rows % ti of a product blocked whole run as a block of that height, the rows
  // outside the panels as the same point without panels.
  auto score = [&](BlockPoint& p) {
    estimate(p, c, m);
    if (!p.rest) return;
    BlockPoint r = p;
    if (p.panel) {
      r.panel = 0;
    } else {
      r.ti = p.rest;
    }
    r.rest = 0;
    estimate(r, c, m);
    const double share = static_cast<double>(p.rest) / static_cast<double>(c.rows);
    p.score = (1 - share) * p.score + share * r.score;
    p.reason += "; the last " + std::to_string(p.rest) + " rows " +
                (p.panel ? "outside the panels blocked " + std::to_string(p.ti) + " x " +
                               std::to_string(p.tj) + " without panels"
                         : "a block of " + std::to_string(p.rest) + " x " + std::to_string(p.tj));
  };
  // Rows in powers of two, and 6 and 12: 12 accumulators of 2 vectors (6 x 2 lanes
  // columns, in 15 of AVX2's 16 registers with a row of B and a broadcast) or 24 (12 x
  // 2, or 6 x 4 of AVX-512's 32), which no power of two gives. A block that does not
  // divide the rows has its last rows % ti peeled off and blocked on their own.
  for (int64_t ti : {2, 4, 6, 8, 12, 16, 32, 64, 128}) {
    if (ti > c.rows) continue;
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
                BlockPoint p{ti, tj, kk, width, rows_outer, reg, pack, 0, {}, c.rows % ti};
                score(p);
                points.push_back(p);
                // The same with the packed operand prefetched in the k loop (estimate
                // sets the distance).
                auto prefetching = [&](BlockPoint q) {
                  if (!reg || !pack || q.kc) return;
                  q.prefetch = 1;
                  score(q);
                  points.push_back(q);
                };
                prefetching(p);
                if (!reg || rows_outer) continue;
                // Panels of rows (a multiple of ti near 32 .. 256 rows; the rows
                // outside the last whole panel peeled off and blocked as above), the
                // reduction split in chunks of kc or not.
                for (int64_t near : {32, 64, 128, 256}) {
                  const int64_t panel = ti * std::max<int64_t>(1, (near + ti / 2) / ti);
                  if (panel < 4 * ti || 2 * panel > c.rows) continue;
                  for (int64_t kc : {0, 64, 128, 256, 512}) {
                    if (kc && (kc >= c.depth || c.depth % kc || kc % kk)) continue;
                    BlockPoint q = p;
                    q.panel = panel;
                    q.kc = kc;
                    q.rest = c.rows % panel;
                    score(q);
                    points.push_back(q);
                    prefetching(q);
                  }
                }
              }
        }
      }
    }
  }
  std::stable_sort(points.begin(), points.end(),
                   [](const BlockPoint& a, const BlockPoint& b) { return a.score < b.score; });
  // Diverse first: the best point of each block shape, loop order and outer block
  // loop, in the model's order, then the best of each shape's remaining variants (k
  // split, vector width, packing, panel and kc) round by round: the model ranks
  // shapes, the measurements decide among the variants it cannot tell apart. The
  // points blocked whole and those in panels are ordered so each on its own and then
  // taken in turn, so that both forms of the best shapes are measured first (the
  // model's traffic terms favour panels where A exceeds L2 by more than loaded
  // measurements showed: docs/tuning.md).
  auto diverse = [&](bool panels) {
    std::vector<BlockPoint> out;
    std::vector<bool> taken(points.size(), false);
    for (bool more = true; more && out.size() < keep;) {
      more = false;
      std::vector<std::tuple<int64_t, int64_t, bool, bool>> seen;
      for (size_t i = 0; i < points.size() && out.size() < keep; ++i) {
        if (taken[i] || (points[i].panel > 0) != panels) continue;
        const auto shape = std::make_tuple(points[i].ti, points[i].tj, points[i].register_block,
                                           points[i].rows_outer);
        if (std::find(seen.begin(), seen.end(), shape) != seen.end()) continue;
        seen.push_back(shape);
        taken[i] = true;
        more = true;
        out.push_back(points[i]);
      }
    }
    return out;
  };
  const std::vector<BlockPoint> whole = diverse(false), panelled = diverse(true);
  std::vector<BlockPoint> out;
  for (size_t i = 0; out.size() < keep && (i < whole.size() || i < panelled.size()); ++i) {
    if (i < whole.size()) out.push_back(whole[i]);
    if (i < panelled.size() && out.size() < keep) out.push_back(panelled[i]);
  }
  return out;
}

std::vector<BlockStep> block_steps(const BlockPoint& p, const std::string& target) {
  const std::string ti = std::to_string(p.ti), tj = std::to_string(p.tj), kk = std::to_string(p.kk),
                    kc = std::to_string(p.kc);
  const std::string v = p.width == 1 ? "lanes" : "lanes * 2";
  const bool par = target == "openmp";
  std::vector<BlockStep> s;
  // The epilogue (a layer's bias and activation) is applied at each register block's
  // store, where the block's accumulator is written out, unless the reduction is cut
  // into chunks of kc (a block's accumulator is then a partial sum of the panel's).
  const bool fused = p.kc == 0;
  // Definitions inlined and every reduction fused first: a layer's operand read
  // through transpose is then no longer under the layer's lambda (storeInMemory
  // refuses it there). Fused: an elementwise map over a product (an activation
  // written after the layer) joins the product's epilogue; else each product's
  // epilogue is moved out of it into a map over its result.
  if (fused)
    s.push_back({"structure", "DFNF ; normalize(fuseReduceMap) ; normalize(productEpilogueFusion)",
                 "data-flow normal form, each reduction fused with the map of products it reads, "
                 "each activation after a product fused into its epilogue"});
  else
    s.push_back({"structure", "DFNF ; normalize(fuseReduceMap) ; tryAll(productEpilogueFission)",
                 "data-flow normal form, each reduction fused with the map of products it reads, "
                 "each product's epilogue an elementwise map over its result"});
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
  // The blocking of one product, applied at each product of the program
  // (everywhere(isLayerNest ; ..)): its steps aim at the product's own loops. With a
  // remainder, the product is first split into the rows ti divides and the rest
  // (concat(a)(b): function(argument(..)) reaches a, argument(..) b), each blocked.
  const std::string o12 = p.rows_outer ? "1, 2" : "2, 1", o45 = p.register_block ? "6, 3" : "3, 6";
  auto blocking = [&](const std::string& rows, bool in_panel) {
    const std::string split =
        "(reduceMapFission @ outermost(isApplied(isApplied(isReduceSeq)))) ; " +
        (p.kc ? "(splitStrategy(" + kc + ") @ innermost(isFullyApplied(isReduce))) ; " : "") +
        "(splitStrategy(" + kk + ") @ innermost(isFullyApplied(isReduce)))";
    const std::string split_comment =
        p.kc ? "the reduction split into chunks of kc = " + kc + ", each into k.o and k.i = " + kk
             : "the reduction split into k.o and k.i = " + kk;
    const std::string order_comment =
        std::string(p.rows_outer ? "row blocks outermost" : "column blocks outermost") +
        (p.register_block ? "; k.i outside the rows: the " + rows + " x " + tj +
                                " accumulator is a register block"
                          : "; k.i inside each row (TVM's order)");
    const BlockStep vectorize{"vectorize",
                              "(vectorize(" + v + ") @ innermost(isFullyApplied(isMap)))",
                              "the j.i loop on vectors of " + v + " floats"};
    BlockStep unroll{"unroll", "(unroll @ innermost(isFullyApplied(isReduceSeq)))", "k.i unrolled"};
    // The k.o loop (the one reduceSeq left once k.i is unrolled) prefetching the
    // packed operand.
    if (p.prefetch) {
      unroll.strategy += " ; (prefetch(" + std::to_string(p.prefetch) +
                         ") @ outermost(isFullyApplied(isReduceSeq)))";
      unroll.comment += "; the k.o loop prefetches the packed operand " +
                        std::to_string(p.prefetch) + " bytes ahead";
    }
    auto joined = [](const std::vector<BlockStep>& per) {
      BlockStep b;
      for (size_t i = 0; i < per.size(); ++i) {
        b.strategy += (i ? " ; " : "") + per[i].strategy;
        b.comment += (i ? "; " : "") + per[i].comment;
      }
      return b;
    };
    // A bare product (no epilogue): its six loops reordered at once, as examples/mm's
    // template does.
    std::vector<BlockStep> bare = {
        {"block", "tile(" + rows + ", " + tj + ")",
         "the two maps around the reduction in " + rows + " x " + tj + " blocks"},
        {"split", split, split_comment},  // a decision's name, not a primitive
        p.kc ? BlockStep{"order", "reorder([2, 5, 1, 6, 7, 3, 4])",
                         "column blocks outermost, then the chunks of k, then the row blocks: a " +
                             kc + " x " + tj +
                             " sliver of B is used by all the row blocks; k.i outside the rows: "
                             "the " +
                             rows + " x " + tj + " accumulator is a register block"}
             : BlockStep{"order", "reorder([" + o12 + ", 5, " + o45 + ", 4])", order_comment},
        vectorize};
    if (par && !in_panel)
      bare.push_back({"parallel",
                      "(parallel @ outermost(isApplied(isMap))) ; (toMemAfter @ "
                      "outermost(isFullyApplied(isPrimitive(mapPar))))",
                      "the outermost block loop an OpenMP parallel loop, its blocks stored"});
    bare.push_back(unroll);
    if (!fused) return joined(bare);
    // A layer with an epilogue: the block loops first (the column blocks outermost or
    // not), then each ti x tj block's epilogue split off its product, which is split,
    // reordered, vectorised and unrolled on its own (at the block:
    // outermost(isProductNest)); the block's accumulator is written out through the
    // epilogue, and nothing is stored for it.
    std::vector<BlockStep> layer = {
        {"block",
         "tile(" + rows + ", " + tj + ")" + (p.rows_outer ? "" : " ; reorder([2, 1])") +
             " ; tryAll(productEpilogueFission)",
         "the two maps around the reduction in " + rows + " x " + tj + " blocks" +
             (p.rows_outer ? "" : ", the column blocks outermost") +
             ", each block's epilogue split off its product"},
        {"split",  // a decision's name, not a primitive
         "(" + split + " ; reorder([" + (p.register_block ? "3, 4, 1, 2" : "3, 1, 4, 2") + "]) ; " +
             vectorize.strategy + " ; " + unroll.strategy + ") @ outermost(isProductNest)",
         "at each block's product: " + split_comment + "; " + order_comment + "; " +
             vectorize.comment + "; " + unroll.comment +
             "; the epilogue applied where the block's accumulator is stored"}};
    if (par && !in_panel)
      layer.push_back({"parallel", "(parallel @ outermost(isApplied(isMap)))",
                       "the outermost block loop an OpenMP parallel loop"});
    const BlockStep b = joined(bare), l = joined(layer);
    return BlockStep{"block", "(isProductNest ; " + b.strategy + ") <+ (" + l.strategy + ")",
                     "a bare product: " + b.comment + "; a layer with an epilogue: " + l.comment};
  };
  // The blocking of `rows` rows in blocks of ti, the last rows % ti peeled off and
  // blocked on their own height.
  auto peeled = [&](int64_t rows) {
    const int64_t rest = rows % p.ti;
    if (rows < p.ti) return blocking(std::to_string(rows), false);
    const BlockStep main = blocking(ti, false);
    if (!rest) return main;
    const BlockStep last = blocking(std::to_string(rest), false);
    return BlockStep{"block",
                     "peelRemainder(" + ti + ") ; function(argument(" + main.strategy +
                         ")) ; argument(" + last.strategy + ")",
                     "the last " + std::to_string(rest) + " rows peeled off; the first rows: " +
                         main.comment + "; the last: " + last.comment};
  };
  // Each product's rows, when a map computes them (an earlier layer and its
  // epilogue), computed once into memory before the product (hoist: a let around it),
  // so that the block loops, the column blocks outermost included, read them instead
  // of computing them again for each block of columns (a row panel's first layer was
  // computed once per column block of the second).
  BlockStep each{
      "block",
      "try(everywhere(isLayerNest ; hoist(isFullyApplied(isMap) ; containsComputation, id))) ; "
      "everywhere(isLayerNest ; ",
      "each product's rows stored first where an earlier layer computes them; at "
      "each product: "};
  if (p.panel) {
    // The rows in panels of P (a multiple of ti), each panel's product blocked; the
    // panel loop parallel. Rows outside the last whole panel are peeled off first
    // and blocked without panels.
    const std::string P = std::to_string(p.panel);
    const BlockStep in = blocking(ti, true);
    std::string panels = "splitJoin(" + P + ") ; ((" + in.strategy + ") @ outermost(isLayerNest))";
    std::string comment = "the rows in panels of " + P + " (splitJoin), each panel: " + in.comment;
    if (par) {
      panels +=
          " ; (parallel @ outermost(isApplied(isMap))) ; (toMemAfter @ "
          "outermost(isFullyApplied(isPrimitive(mapPar))))";
      comment += "; the panel loop an OpenMP parallel loop, its panels stored";
    }
    if (p.rest) {
      const BlockStep last = peeled(p.rest);
      each.strategy += "peelRemainder(" + P + ") ; function(argument(" + panels + ")) ; argument(" +
                       last.strategy + ")";
      each.comment += "the last " + std::to_string(p.rest) +
                      " rows peeled off; the first: " + comment + "; the last: " + last.comment;
    } else {
      each.strategy += panels;
      each.comment += comment;
    }
  } else {
    // (rows: any count with the point's remainder, at least ti)
    const BlockStep whole = peeled(p.ti + p.rest);
    each.strategy += whole.strategy;
    each.comment += whole.comment;
  }
  each.strategy += ")";
  s.push_back(each);
  return s;
}

}  // namespace risec::driver
