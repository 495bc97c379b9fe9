// Micro-benchmarks of Nat simplification on the index expressions that views
// produce (split, join, transpose, slide, tiling): building the index of an element
// read through a chain of views, through the canonicalising constructors, is what
// code generation does for every array access. "Cold" variants use fresh variable
// names on every iteration, so that no memoised range fact is reused; "warm" ones
// repeat the same question, as a compiler does for the many accesses of one kernel.
#include <benchmark/benchmark.h>

#include <string>

#include "arith/nat.h"

namespace {

using risec::arith::Nat;
namespace ar = risec::arith;

// Variable names, fresh per iteration when `cold`.
struct Names {
  bool cold;
  int64_t counter = 0;
  std::string operator()(const std::string& base) {
    return cold ? base + "_" + std::to_string(counter) : base;
  }
  void next() { ++counter; }
};

// join(split(4)) applied `depth` times to an array of n*4^depth elements: each level
// turns the flat index t into (t/4)*4 + t%4, which must collapse back to t.
Nat join_split_chain(Names& names, int depth) {
  Nat n = Nat::size_var(names("n"));
  Nat size = n;
  for (int d = 0; d < depth; ++d) size = size * 4;
  Nat t = Nat::var(names("t"), Nat(0), size);
  Nat idx = t;
  for (int d = 0; d < depth; ++d) idx = ar::floordiv(idx, 4) * 4 + ar::mod(idx, 4);
  return idx;
}

// split(m) of join of an n.m.p array, read through transpose: element [a][b][c] of
// split(m)(join(transpose(xs))) as a flat index into xs.
Nat transpose_chain(Names& names) {
  Nat n = Nat::size_var(names("n")), m = Nat::size_var(names("m"));
  Nat p = Nat::size_var(names("p"));
  Nat a = Nat::var(names("a"), Nat(0), n * p);
  Nat b = Nat::var(names("b"), Nat(0), m);
  Nat c = Nat::var(names("c"), Nat(0), n);
  // join index of the (m.n) transposed array: t = a*m + b over (n*p*m); then
  // transpose swaps the two inner indices, and split(p) unflattens a.
  Nat t = a * m + b;
  Nat row = ar::floordiv(t, m), col = ar::mod(t, m);
  Nat outer = ar::floordiv(row, p), inner = ar::mod(row, p);
  return ((outer * m + col) * p + inner) * n + c;
}

// slide(3, 1) then join then split(3): window w, offset o, flattened and recovered.
Nat slide_chain(Names& names) {
  Nat n = Nat::size_var(names("n"));
  Nat w = Nat::var(names("w"), Nat(0), n);
  Nat o = Nat::var(names("o"), Nat(0), Nat(3));
  Nat flat = w * 3 + o;  // join(slide(3,1)(xs))
  Nat ww = ar::floordiv(flat, 3), oo = ar::mod(flat, 3);
  Nat in = ww * 1 + oo;  // the element of xs
  // Bounds check a code generator would make: in < n + 2.
  benchmark::DoNotOptimize(ar::provably_lt(in, n + 2));
  return in;
}

// A 2D tiled matrix access: (n*T).(m*T) split into T*T tiles, read back row-major.
Nat tiling_chain(Names& names, int64_t tile) {
  Nat n = Nat::size_var(names("n")), m = Nat::size_var(names("m"));
  Nat ti = Nat::var(names("ti"), Nat(0), n), tj = Nat::var(names("tj"), Nat(0), m);
  Nat ii = Nat::var(names("ii"), Nat(0), Nat(tile));
  Nat jj = Nat::var(names("jj"), Nat(0), Nat(tile));
  Nat row = ti * tile + ii, col = tj * tile + jj;
  Nat flat = row * (m * tile) + col;
  // Untile: recover the tile coordinates and rebuild the flat index.
  Nat r = ar::floordiv(flat, m * tile), cc = ar::mod(flat, m * tile);
  Nat rebuilt = (ar::floordiv(r, tile) * tile + ar::mod(r, tile)) * (m * tile) +
                ar::floordiv(cc, tile) * tile + ar::mod(cc, tile);
  benchmark::DoNotOptimize(ar::provably_lt(rebuilt, n * m * tile * tile));
  return rebuilt;
}

template <class F>
void run(benchmark::State& state, bool cold, F&& build) {
  Names names{cold};
  for (auto _ : state) {
    Nat idx = build(names);
    benchmark::DoNotOptimize(idx);
    names.next();
  }
}

void BM_JoinSplit_Cold(benchmark::State& state) {
  int depth = static_cast<int>(state.range(0));
  run(state, true, [&](Names& nm) { return join_split_chain(nm, depth); });
}
BENCHMARK(BM_JoinSplit_Cold)->Arg(1)->Arg(2)->Arg(4)->Arg(8);

void BM_JoinSplit_Warm(benchmark::State& state) {
  int depth = static_cast<int>(state.range(0));
  run(state, false, [&](Names& nm) { return join_split_chain(nm, depth); });
}
BENCHMARK(BM_JoinSplit_Warm)->Arg(1)->Arg(4)->Arg(8);

void BM_Transpose_Cold(benchmark::State& state) {
  run(state, true, transpose_chain);
}
BENCHMARK(BM_Transpose_Cold);

void BM_Transpose_Warm(benchmark::State& state) {
  run(state, false, transpose_chain);
}
BENCHMARK(BM_Transpose_Warm);

void BM_Slide_Cold(benchmark::State& state) {
  run(state, true, slide_chain);
}
BENCHMARK(BM_Slide_Cold);

void BM_Tiling_Cold(benchmark::State& state) {
  int64_t tile = state.range(0);
  run(state, true, [&](Names& nm) { return tiling_chain(nm, tile); });
}
BENCHMARK(BM_Tiling_Cold)->Arg(4)->Arg(32);

void BM_Tiling_Warm(benchmark::State& state) {
  int64_t tile = state.range(0);
  run(state, false, [&](Names& nm) { return tiling_chain(nm, tile); });
}
BENCHMARK(BM_Tiling_Warm)->Arg(32);

// Printing the simplified index as C, as the code generator does for every access.
void BM_PrintC(benchmark::State& state) {
  Names names{false};
  Nat idx = tiling_chain(names, 8) + transpose_chain(names);
  for (auto _ : state) benchmark::DoNotOptimize(ar::print(idx, ar::Syntax::C));
}
BENCHMARK(BM_PrintC);

}  // namespace
