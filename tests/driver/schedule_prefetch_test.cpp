// Prefetching register blocks of the autoscheduler (src/driver/schedule_blocked.h,
// "prefetch"): which points come prefetching (packed, register blocks, no kc), the
// model's distance and its ranking (a packed panel re-read from L2 is cheaper
// prefetched; a product that fits L1 only pays the prefetches), and the steps that
// ask for it. No timing; `lanes` and the caches are given, never the host's.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dense_nets.h"
#include "driver/schedule_blocked.h"

namespace risec::driver {
namespace {

BlockMachine prefetch_machine(int64_t lanes) {
  BlockMachine m;
  m.lanes = lanes;
  m.registers = lanes >= 16 ? 32 : 16;
  m.l1 = 32768;
  m.l2 = 2 * 1024 * 1024;
  return m;
}

// The point like `p` but for its prefetching, among `points`.
const BlockPoint* prefetch_twin(const std::vector<BlockPoint>& points, const BlockPoint& p,
                                bool prefetch) {
  for (const BlockPoint& q : points)
    if (q.ti == p.ti && q.tj == p.tj && q.kk == p.kk && q.width == p.width &&
        q.rows_outer == p.rows_outer && q.register_block == p.register_block && q.pack == p.pack &&
        q.panel == p.panel && q.kc == p.kc && (q.prefetch > 0) == prefetch)
      return &q;
  return nullptr;
}

TEST(SchedulePrefetch, OnlyPackedRegisterBlocksWithoutChunksPrefetch) {
  for (int64_t lanes : {4, 8, 16}) {
    for (int64_t n : {64, 510, 2048}) {
      const Contraction c{n, 2048, 2048, true};
      const std::vector<BlockPoint> points = rank_block_points(c, prefetch_machine(lanes), 1000000);
      size_t prefetching = 0;
      for (const BlockPoint& p : points) {
        if (!p.prefetch) {
          // Each packed register block without chunks has its prefetching twin.
          if (p.pack && p.register_block && !p.kc) {
            EXPECT_NE(prefetch_twin(points, p, true), nullptr) << p.reason;
          }
          continue;
        }
        ++prefetching;
        EXPECT_TRUE(p.pack && p.register_block && p.kc == 0) << p.reason;
        // Whole lines, at least one, about 100 cycles of the loop ahead.
        EXPECT_EQ(p.prefetch % 64, 0) << p.prefetch;
        EXPECT_GE(p.prefetch, 64);
        EXPECT_LE(p.prefetch, 64 * 1024) << p.reason;
        EXPECT_NE(p.reason.find("prefetched " + std::to_string(p.prefetch) + " bytes ahead"),
                  std::string::npos)
            << p.reason;
        const std::string text = block_steps_text(p, "openmp");
        EXPECT_NE(text.find("(prefetch(" + std::to_string(p.prefetch) +
                            ") @ outermost(isFullyApplied(isReduceSeq)))"),
                  std::string::npos)
            << text;
        // After the unroll (k.i), so that the outermost reduceSeq is k.o.
        EXPECT_LT(text.find("unroll @"), text.find("prefetch(")) << text;
        const BlockPoint* plain = prefetch_twin(points, p, false);
        ASSERT_NE(plain, nullptr);
        EXPECT_EQ(block_steps_text(*plain, "openmp").find("prefetch"), std::string::npos);
      }
      EXPECT_GT(prefetching, 0u);
    }
  }
  // An operand that is not packed gets no prefetching points.
  const Contraction unpacked{256, 256, 256, false};
  for (const BlockPoint& p : rank_block_points(unpacked, prefetch_machine(8), 1000000))
    EXPECT_EQ(p.prefetch, 0) << p.reason;
}

// mm 2048^3 with AVX2's registers: B's 2048 x 16 panel (128 KiB) is re-read from L2
// for every block of 6 rows; prefetched, the model ranks the block ahead of the same
// block without, at about the distance measured best by hand (1 KiB: 16 k of 16 floats),
// and the first whole-product 6 x 16 point measured is the prefetching one.
TEST(SchedulePrefetch, ModelPrefersPrefetchingAPanelFromL2) {
  const Contraction c{2048, 2048, 2048, true};
  const std::vector<BlockPoint> all = rank_block_points(c, prefetch_machine(8), 1000000);
  const BlockPoint* pf = nullptr;
  for (const BlockPoint& p : all)
    if (p.ti == 6 && p.tj == 16 && p.kk == 2 && p.width == 1 && !p.rows_outer && p.register_block &&
        p.pack && !p.panel && p.prefetch)
      pf = &p;
  ASSERT_NE(pf, nullptr);
  const BlockPoint* plain = prefetch_twin(all, *pf, false);
  ASSERT_NE(plain, nullptr);
  EXPECT_LT(pf->score, plain->score) << pf->reason << "\n" << plain->reason;
  EXPECT_GT(pf->score, 0.9 * plain->score) << "a few percent, not more";
  EXPECT_GE(pf->prefetch, 768) << pf->reason;
  EXPECT_LE(pf->prefetch, 1280) << pf->reason;
  for (const BlockPoint& p : rank_block_points(c, prefetch_machine(8), 64)) {
    if (p.ti == 6 && p.tj == 16 && !p.panel && !p.rows_outer && p.register_block) {
      EXPECT_GT(p.prefetch, 0) << p.reason;
      break;
    }
  }
}

// A product whose operands fit L1 gains nothing from prefetching: the prefetching
// twin costs its issue slots, so it ranks behind.
TEST(SchedulePrefetch, NothingToGainInL1) {
  const Contraction c{48, 64, 64, true};
  const std::vector<BlockPoint> all = rank_block_points(c, prefetch_machine(8), 1000000);
  size_t compared = 0;
  for (const BlockPoint& p : all) {
    if (!p.prefetch) continue;
    const BlockPoint* plain = prefetch_twin(all, p, false);
    ASSERT_NE(plain, nullptr);
    EXPECT_GT(p.score, plain->score) << p.reason;
    ++compared;
  }
  EXPECT_GT(compared, 0u);
}

}  // namespace
}  // namespace risec::driver
