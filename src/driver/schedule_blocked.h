// Register-blocked candidates of the autoscheduler's space (docs/tuning.md, "Without a
// template"), for programs whose structure is a reduction nested in two maps (a
// matrix product and its batched or transposed forms): the decisions of the mm
// ladder's template (examples/mm/tune.elv) made from the program's sizes and the
// host's vector registers instead of written by hand:
//   block      the two maps tiled into ti x tj blocks (tile(ti, tj)); a ti that does
//              not divide the rows (6 or 12 rows: 12 or 24 accumulators, which no
//              power of two gives) has the last rows % ti rows peeled off
//              (peelRemainder(ti)) and blocked on their own;
//   split      the reduction split by kk (reduceMapFission, splitStrategy(kk));
//   order      reorder([o1, o2, 5, o4, o5, 4]): which block loop is outermost, and
//              (o4, o5) = (6, 3), the ti x tj accumulator a register block updated
//              across the whole reduction, or (3, 6), TVM's order (a row of the
//              accumulator loaded and stored once per k.o step);
//   vectorize  the j.i loop on vectors of lanes or 2 * lanes floats;
//   pack       the transposed operand stored once in blocks of tj (blockTranspose:
//              TVM's packed B), when the program reads one through transpose;
//   parallel   (openmp) the outermost block loop, and the packing loop;
//   panel      (register blocks with the column blocks outermost) the rows first
//              split into panels of P rows (splitJoin(P), P a multiple of ti; the
//              rows outside the last whole panel peeled off, peelRemainder(P), and
//              blocked without panels), each blocked on its own, the panel loop the
//              parallel one: the P x k panel of A is re-read from L2 by the column
//              blocks instead of all of A from beyond it;
//   prefetch   (register blocks of a packed operand, without kc) the k loop prefetches
//              the packed operand's lines a distance ahead (prefetch(bytes)): its k x tj
//              panel, re-read from L2 for every row block, arrives before the loads
//              need it (measured 3-5% on mm 2048^3 with AVX2 code, none where a kc x
//              tj sliver stays in L1);
//   kc         (with a panel) the reduction also split into chunks of kc
//              (splitStrategy(kc) before splitStrategy(kk)) and the chunk loop put
//              between the column and the row blocks, reorder([2, 5, 1, 6, 7, 3, 4]):
//              a kc x tj sliver of B stays in L1 while the panel's row blocks use
//              it, each block's accumulator added to the panel's per chunk (BLIS's kc).
// The steps run after DFNF and block every product of the program, with or without
// an epilogue (everywhere(isLayerNest ; ..)): both layers of an MLP. A layer's
// epilogue (its bias, and an activation written inside the layer or as a map after
// it, productEpilogueFusion) is applied where each register block's accumulator is
// stored: after tile, each block's epilogue is split off its product
// (productEpilogueFission at the block) and the block's product alone is split,
// reordered and vectorised; DPIA keeps such an accumulator in a temporary of its own
// (dpia/register_block.h), which the C compiler keeps in registers, and
// writes it out once through the epilogue. With chunks of kc (a block's accumulator a
// partial sum) the epilogue is moved out of the whole product instead, a map over its
// stored result.
// Every point is ranked by a small analytical model (the accumulator's vector
// registers against the host's, loads per multiply-add, the accumulators' latency
// chains, the operands' re-reading by the block loops from L2 or beyond, blocks per
// thread), and only the best few become candidates.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rise/check.h"

namespace risec::driver {

// The sizes of the first reduction nested in (at least) two maps: rows (the outer
// map), cols (the inner map), depth (the reduction). Found from the program's
// structure, not its name; nullopt when it has none or a size is not constant.
struct Contraction {
  int64_t rows = 0, cols = 0, depth = 0;
  // B (the columns' operand) read through transpose: packable. A read through
  // transpose alone is not (its ti rows are ti consecutive floats per k already).
  bool transposed_operand = false;
};
std::optional<Contraction> find_contraction(const rise::Checked& high);

struct BlockPoint {
  int64_t ti = 0, tj = 0, kk = 0;
  int width = 1;               // vector width in lanes: 1 (lanes) or 2 (2 * lanes)
  bool rows_outer = true;      // (o1, o2) = (1, 2), else (2, 1)
  bool register_block = true;  // (o4, o5) = (6, 3), else (3, 6)
  bool pack = false;
  double score = 0;    // the model's estimate, lower is better
  std::string reason;  // the model's reason, in words
  // Rows left when ti does not divide them (rows % ti): peeled off the product
  // (peelRemainder(ti)) and blocked on their own as rest x tj; 0 when ti divides.
  int64_t rest = 0;
  // Rows per panel (splitJoin(panel), a multiple of ti), each panel blocked on its own
  // with the column blocks outermost; `rest` is then rows % panel, the rows outside
  // the panels (peelRemainder(panel)), blocked without panels. 0: the product is
  // blocked whole. Only with register_block and !rows_outer.
  int64_t panel = 0;
  // With a panel: the reduction split into chunks of kc, the chunk loop between the
  // column and the row blocks of the panel; 0: not split.
  int64_t kc = 0;
  // Bytes ahead at which the register block's k loop prefetches the packed operand
  // (the rule prefetch; the model's distance, about kPrefetchCycles of the loop's
  // time); 0: none. Only with register_block, pack and no kc.
  int64_t prefetch = 0;
};

struct BlockMachine {
  int64_t lanes = 8;
  int64_t registers = 16;  // vector registers (32 with AVX-512)
  int64_t l1 = 32768, l2 = 524288;
  int threads = 1;
  // Cycles a parallel loop's fork and join cost (cost_model.h, fork_join_cycles): each
  // blocked product's parallel loop, and its packing loop, pays it once per call.
  double fork_join_cycles = 0;
};

// The points of the space for `c` (every ti, tj, kk, width, order, pack, and for
// register blocks with the column blocks outermost every panel and kc, that fits
// the sizes), in the measuring order: ranked by the model, the best of each shape
// first, the points blocked whole and those in panels taken in turn; at most `keep`.
std::vector<BlockPoint> rank_block_points(const Contraction& c, const BlockMachine& m, size_t keep);

// A point's strategy steps (before lowerToC), one string each with its comment:
// pairs of (decision, strategy, comment).
struct BlockStep {
  std::string decision, strategy, comment;
};
std::vector<BlockStep> block_steps(const BlockPoint& p, const std::string& target);

}  // namespace risec::driver
