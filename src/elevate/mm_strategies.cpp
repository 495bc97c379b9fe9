// The ELEVATE paper's matrix-multiplication strategies as C++ (see mm_strategies.h).
// Every strategy is composed from library entries by name, mirroring the text of
// examples/mm/*.elv line by line; keep the two in step.
#include "elevate/mm_strategies.h"

#include "elevate/library.h"

namespace risec::elevate::mm {

namespace {

Strategy S(const std::string& name, const std::vector<Arg>& args = {}) {
  return make_strategy(name, args);
}
Strategy N(const std::string& name, int64_t n) {
  return S(name, {n});
}
Strategy list(const std::string& name, std::vector<int64_t> l) {
  return S(name, {std::move(l)});
}

// s @ outermost(p), s @ innermost(p), s @ topDown
Strategy at_outermost(const Strategy& s, const Strategy& p) {
  return S("outermost", {p, s});
}
Strategy at_innermost(const Strategy& s, const Strategy& p) {
  return S("innermost", {p, s});
}
Strategy applied(const Strategy& p) {
  return S("isApplied", {p});
}
Strategy fully_applied(const Strategy& p) {
  return S("isFullyApplied", {p});
}

Strategy seqs(const std::vector<Strategy>& ss) {
  Strategy out;
  for (const Strategy& s : ss) out = out.valid() ? seq(out, s) : s;
  return out;
}

// the steps shared by blocking and loopPermutation, before the reorder
Strategy tiled() {
  return seqs({baseline(), at_outermost(S("tile", {int64_t(32), int64_t(32)}), N("mapNest", 2)),
               at_outermost(S("reduceMapFission"), applied(applied(S("isReduceSeq")))),
               at_innermost(N("splitStrategy", 4), fully_applied(S("isReduce")))});
}

Strategy vectorize_innermost() {
  return at_innermost(N("vectorize", 32), fully_applied(S("isMap")));
}

// B^T stored once in memory in the blocked layout (m/32).k.32, with the 32-wide
// rows vectorised; the copy runs in parallel in the parallel step only (the steps
// before it are sequential, so that they compile for the C target).
Strategy pack_b(bool parallel_copy) {
  std::vector<Strategy> steps{S("idAfter"), S("normalize", {S("liftId")}), vectorize_innermost()};
  if (parallel_copy) steps.push_back(at_outermost(S("parallel"), applied(S("isMap"))));
  steps.push_back(S("lowerToC"));
  Strategy copy = seqs(steps);
  return seqs({at_outermost(N("blockTranspose", 32), applied(S("isTranspose"))),
               S("storeInMemory", {applied(S("isTranspose")), copy})});
}

Strategy unroll_innermost() {
  return at_innermost(S("unroll"), fully_applied(S("isReduceSeq")));
}

}  // namespace

Strategy baseline() {
  return seq(S("DFNF"), S("topDown", {S("fuseReduceMap")}));
}

Strategy blocking() {
  return seq(tiled(), list("reorder", {1, 2, 5, 6, 3, 4}));
}

Strategy vectorization() {
  return seq(blocking(), vectorize_innermost());
}

Strategy loop_permutation() {
  return seqs({tiled(), list("reorder", {1, 2, 5, 3, 6, 4}), vectorize_innermost()});
}

Strategy array_packing() {
  return seq(pack_b(false), loop_permutation());
}

Strategy cache_blocks() {
  return seq(array_packing(), unroll_innermost());
}

Strategy parallel() {
  return seqs({pack_b(true), loop_permutation(), at_outermost(S("parallel"), applied(S("isMap"))),
               unroll_innermost()});
}

Strategy lowered(const Strategy& s) {
  return seq(s, S("lowerToC"));
}

const std::vector<Step>& steps() {
  static const std::vector<Step> all = {
      {"baseline", "baseline.elv", baseline},
      {"blocking", "blocking.elv", blocking},
      {"vectorization", "vectorization.elv", vectorization},
      {"loopPermutation", "loop_permutation.elv", loop_permutation},
      {"arrayPacking", "array_packing.elv", array_packing},
      {"cacheBlocks", "cache_blocks.elv", cache_blocks},
      {"parallel", "parallel.elv", parallel},
  };
  return all;
}

}  // namespace risec::elevate::mm
