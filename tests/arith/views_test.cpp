// The index patterns that views produce and code generation relies on: chains of
// split, join, transpose, slide, pad and concat must simplify back to the plain
// row-major index (`i + j*m`), with no division or modulo left, and print as such.
#include <gtest/gtest.h>

#include "arith/nat.h"

namespace risec::arith {
namespace {

struct Views : ::testing::Test {
  Nat n = Nat::size_var("n");
  Nat m = Nat::size_var("m");
  Nat p = Nat::size_var("p");
  Nat i = Nat::var("i", Nat(0), n);
  Nat j = Nat::var("j", Nat(0), m);
  Nat k = Nat::var("k", Nat(0), p);

  static bool plain(const Nat& t) {
    std::string c = print(t, Syntax::C);
    return c.find('/') == std::string::npos && c.find('%') == std::string::npos;
  }
};

TEST_F(Views, SplitThenIndex) {
  // split(m) of an (n*m) array: element [i][j] reads i*m + j; join reads it back.
  Nat flat = i * m + j;
  EXPECT_EQ(floordiv(flat, m), i);
  EXPECT_EQ(mod(flat, m), j);
  EXPECT_EQ(print(flat, Syntax::C), "j + i*m");
  EXPECT_EQ(print(i + m * j, Syntax::C), "i + j*m");
  EXPECT_EQ(print(flat, Syntax::Rise), "j + i*m");
}

TEST_F(Views, JoinOfSplitIsIdentity) {
  // join(split(4)(xs)) with k in [0, n*4): (k/4)*4 + k%4 == k.
  Nat kk = Nat::var("k", Nat(0), n * 4);
  Nat back = floordiv(kk, 4) * 4 + mod(kk, 4);
  EXPECT_EQ(back, kk);
  EXPECT_EQ(print(back, Syntax::C), "k");
  // The same with a symbolic chunk size.
  Nat w = Nat::var("w", Nat(0), n * m);
  EXPECT_EQ(floordiv(w, m) * m + mod(w, m), w);
  EXPECT_EQ(mod(w, m) + m * floordiv(w, m), w);
}

TEST_F(Views, SplitOfJoinIsIdentity) {
  // split(m)(join(xs)) where xs: n.m: [i][j] -> join index i*m + j -> [(i*m+j)/m][(i*m+j)%m].
  Nat flat = i * m + j;
  Nat row = floordiv(flat, m), col = mod(flat, m);
  EXPECT_EQ(row, i);
  EXPECT_EQ(col, j);
  // The input's own row-major index of that element.
  Nat in = row * m + col;
  EXPECT_EQ(in, i * m + j);
  EXPECT_TRUE(plain(in));
}

TEST_F(Views, ThreeLevelFlattenAndUnflatten) {
  // xs: n.m.p, flattened (i*m + j)*p + k.
  Nat flat = (i * m + j) * p + k;
  EXPECT_EQ(flat, i * m * p + j * p + k);
  EXPECT_EQ(floordiv(flat, p), i * m + j);
  EXPECT_EQ(mod(flat, p), k);
  EXPECT_EQ(floordiv(floordiv(flat, p), m), i);
  EXPECT_EQ(mod(floordiv(flat, p), m), j);
  EXPECT_EQ(floordiv(flat, m * p), i);
  EXPECT_EQ(mod(flat, m * p), j * p + k);
  EXPECT_TRUE(provably_lt(flat, n * m * p));
  EXPECT_TRUE(provably_nonneg(flat));
  // join(join(xs)) then split(p) then split(m): back to [i][j][k].
  Nat w = Nat::var("w", Nat(0), n * m * p);
  EXPECT_EQ(floordiv(w, m * p) * (m * p) + mod(floordiv(w, p), m) * p + mod(w, p), w);
}

TEST_F(Views, TransposeFlattenAndUnflatten) {
  // xs: n.m stored row-major; transpose(xs): m.n; element [j][i] reads i*m + j.
  Nat read = i * m + j;
  // join(transpose(xs)) with t in [0, m*n): [t/n][t%n] of the transposed array.
  Nat t = Nat::var("t", Nat(0), m * n);
  Nat jj = floordiv(t, n), ii = mod(t, n);
  Nat via_join = ii * m + jj;
  EXPECT_EQ(print(via_join, Syntax::C), "m*(t%n) + t/n");
  // split(n)(join(transpose(xs))): [a][b] with a in [0, m), b in [0, n): t = a*n + b.
  Nat a = Nat::var("a", Nat(0), m), b = Nat::var("b", Nat(0), n);
  Nat split_back = substitute(via_join, {{"t", a * n + b}});
  EXPECT_EQ(split_back, b * m + a);
  EXPECT_TRUE(plain(split_back));
  // transpose(transpose(xs)) reads the original index.
  EXPECT_EQ(substitute(read, {}), i * m + j);
}

TEST_F(Views, SlideWindows) {
  // slide(sz, sp): window w in [0, n), offset o in [0, sz): w*sp + o.
  Nat w = Nat::var("w", Nat(0), n);
  Nat o = Nat::var("o", Nat(0), Nat(3));
  EXPECT_EQ(w * 1 + o, w + o);
  EXPECT_EQ(print(w * 1 + o, Syntax::C), "o + w");
  EXPECT_TRUE(provably_lt(w + o, n + 2));  // in bounds of the (n + 2) input
  EXPECT_FALSE(provably_lt(w + o, n + 1));
  Nat sp = Nat::size_var("sp");
  Nat sz = Nat::size_var("sz");
  Nat off = Nat::var("o2", Nat(0), sz);
  Nat idx = w * sp + off;
  EXPECT_TRUE(provably_le(idx, (n - 1) * sp + sz - 1));
  // join(slide(3, 1)): t in [0, n*3): window t/3, offset t%3.
  Nat t = Nat::var("t", Nat(0), n * 3);
  EXPECT_EQ(print(floordiv(t, 3) + mod(t, 3), Syntax::C), "t/3 + t%3");
  // slide(4, 4) is split(4): (t/4)*4 + t%4 == t.
  Nat t4 = Nat::var("t", Nat(0), n * 4);
  EXPECT_EQ(floordiv(t4, 4) * 4 + mod(t4, 4), t4);
}

TEST_F(Views, TiledMatrix) {
  // A: (n*4).(m*4), tiles [ti][tj][ii][jj]: row ti*4 + ii, column tj*4 + jj.
  Nat ti = Nat::var("ti", Nat(0), n), tj = Nat::var("tj", Nat(0), m);
  Nat ii = Nat::var("ii", Nat(0), Nat(4)), jj = Nat::var("jj", Nat(0), Nat(4));
  Nat row = ti * 4 + ii, col = tj * 4 + jj;
  Nat flat = row * (m * 4) + col;
  EXPECT_EQ(floordiv(flat, m * 4), row);
  EXPECT_EQ(mod(flat, m * 4), col);
  EXPECT_EQ(floordiv(row, 4), ti);
  EXPECT_EQ(mod(row, 4), ii);
  EXPECT_EQ(floordiv(col, 4), tj);
  EXPECT_EQ(mod(col, 4), jj);
  EXPECT_TRUE(plain(flat));
  EXPECT_EQ(print(flat, Syntax::C), "jj + 4*tj + 4*ii*m + 16*m*ti");
  EXPECT_TRUE(provably_lt(flat, n * m * 16));
}

TEST_F(Views, UntilingRebuildsTheIndex) {
  // Reading a tiled result back row-major: recover the tile coordinates from the
  // flat index and rebuild it; everything cancels.
  Nat ti = Nat::var("ti", Nat(0), n), tj = Nat::var("tj", Nat(0), m);
  Nat ii = Nat::var("ii", Nat(0), Nat(32)), jj = Nat::var("jj", Nat(0), Nat(32));
  Nat flat = (ti * 32 + ii) * (m * 32) + tj * 32 + jj;
  Nat r = floordiv(flat, m * 32), cc = mod(flat, m * 32);
  Nat rebuilt =
      (floordiv(r, 32) * 32 + mod(r, 32)) * (m * 32) + floordiv(cc, 32) * 32 + mod(cc, 32);
  EXPECT_EQ(rebuilt, flat);
  EXPECT_TRUE(plain(rebuilt));
}

TEST_F(Views, RepeatedSplitsRecombine) {
  // split(4) three times over t in [0, n*64), then joined back: t.
  Nat t = Nat::var("t", Nat(0), n * 64);
  Nat l0 = mod(t, 4), l1 = mod(floordiv(t, 4), 4), l2 = mod(floordiv(t, 16), 4);
  Nat l3 = floordiv(t, 64);
  EXPECT_EQ(((l3 * 4 + l2) * 4 + l1) * 4 + l0, t);
  Nat idx = t;
  for (int d = 0; d < 4; ++d) idx = floordiv(idx, 4) * 4 + mod(idx, 4);
  EXPECT_EQ(idx, t);
}

TEST_F(Views, TransposeInsideSplitJoin) {
  // split(p)(join(transpose(...))) over n.p.m: the genuinely shuffled index keeps its
  // division and modulo, but in their simplest form.
  Nat a = Nat::var("a", Nat(0), n * p), b = Nat::var("b", Nat(0), m);
  Nat c = Nat::var("c", Nat(0), n);
  Nat t = a * m + b;
  Nat row = floordiv(t, m), col = mod(t, m);
  EXPECT_EQ(row, a);
  EXPECT_EQ(col, b);
  Nat idx = ((floordiv(row, p) * m + col) * p + mod(row, p)) * n + c;
  EXPECT_EQ(print(idx, Syntax::C), "c + b*n*p + m*n*p*(a/p) + n*(a%p)");
  EXPECT_TRUE(provably_lt(idx, n * m * p * n));
}

TEST_F(Views, VectorLanes) {
  // asVector(4): element [v][l] of the vector view reads v*4 + l.
  Nat v = Nat::var("v", Nat(0), n), l = Nat::var("l", Nat(0), Nat(4));
  EXPECT_EQ(floordiv(v * 4 + l, 4), v);
  EXPECT_EQ(mod(v * 4 + l, 4), l);
  EXPECT_EQ(floordiv(4 * v + 3, 4), v);
  EXPECT_EQ(mod(4 * v + 3, 4), Nat(3));
}

TEST_F(Views, PadAndConcatConditions) {
  // concat(a: n, b: m): index t in [0, n+m) reads a[t] when t < n, else b[t - n].
  Nat t = Nat::var("t", Nat(0), n + m);
  Nat ta = Nat::var("t", Nat(0), n);  // inside the a part the loop only covers [0, n)
  EXPECT_EQ(lt(ta, n), Cond::truth(true));
  EXPECT_EQ(lt(t, n).kind(), CondKind::Lt);
  EXPECT_EQ(lt(i + n, n), Cond::truth(false));  // the b part written in place at i + n
  // padClamp(1, 1) of n: index t in [0, n+2) reads clamp(t - 1, 0, n - 1).
  Nat tp = Nat::var("t", Nat(0), n + 2);
  Nat clamped = min(max(tp - 1, Nat(0)), n - 1);
  EXPECT_EQ(clamped.kind(), Kind::Min);
  // For the interior loop t in [1, n+1) the clamp disappears.
  Nat ti = Nat::var("t", Nat(1), n + 1);
  EXPECT_EQ(min(max(ti - 1, Nat(0)), n - 1), ti - 1);
  // padCst(l, r): interior test l <= t && t < l + n.
  Nat l = Nat::size_var("l");
  Nat tin = Nat::var("t", l, l + n);
  EXPECT_EQ(le(l, tin) && lt(tin, l + n), Cond::truth(true));
}

TEST_F(Views, DropAndTake) {
  // drop(d) then take(n): t in [0, n) reads t + d; in bounds of (d + n + r).
  Nat d = Nat::size_var("d"), r = Nat::size_var("r");
  Nat t = Nat::var("t", Nat(0), n);
  EXPECT_TRUE(provably_lt(t + d, d + n + r));
  EXPECT_TRUE(provably_le(t + d, d + n - 1));
  EXPECT_FALSE(provably_lt(t + d, n));
}

TEST_F(Views, ExactSizesFromTypes) {
  // split(4) of an n array gives (n/4).4; [a][b] reads a*4 + b.
  Nat q = exact_div(n, 4);
  Nat a = Nat::var("a", Nat(0), q), b = Nat::var("b", Nat(0), Nat(4));
  EXPECT_EQ(floordiv(a * 4 + b, 4), a);
  EXPECT_EQ(mod(a * 4 + b, 4), b);
  EXPECT_TRUE(provably_lt(a * 4 + b, n));
  EXPECT_EQ(q * 4, n);
  EXPECT_EQ(print(q, Syntax::C), "n/4");
  // One exact division by the common denominator (a*n/4 alone need not be an integer
  // in general, the whole sum is).
  EXPECT_EQ(print(a * q + b, Syntax::C), "(4*b + a*n)/4");
}

}  // namespace
}  // namespace risec::arith
