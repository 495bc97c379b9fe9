// Two strided views share a byte when some element x of one and y of the other have
// addresses within an element of each other:
//   -bytes(a) < addr(x) - addr(y) < bytes(b),   addr(x) = base(a) + sum_d i_d * s_d.
// With every stride made non-negative (a negative one moves the base to the last
// element) and y's indices counted from the end, this asks whether a sum of terms
// c_k * t_k, t_k in [0, u_k], c_k > 0, falls in an interval [lo, hi]: a bounded
// linear Diophantine problem. It is solved by a depth-first search over the terms,
// largest coefficient first, that prunes with each remaining suffix's reach and the
// gcd of its coefficients (the interleaved halves of an array fail the gcd test at
// once; the blocks of a tiling fail the reach test after one or two choices per
// dimension). Terms of equal coefficient merge into one (c*t1 + c*t2 ranges over c
// times [0, u1 + u2]), so two views with the same strides cost one term per stride.
#include "driver/array_overlap.h"

#include <algorithm>
#include <numeric>

namespace risec::driver {

namespace {

__extension__ typedef __int128 Wide;  // sums of strides times extents never overflow it

struct Term {
  Wide c;  // > 0
  Wide u;  // >= 1
};

Wide floor_div(Wide a, Wide b) {  // b > 0
  Wide q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

Wide ceil_div(Wide a, Wide b) {  // b > 0
  return -floor_div(-a, b);
}

Wide wide_gcd(Wide a, Wide b) {
  while (b != 0) {
    const Wide t = a % b;
    a = b;
    b = t;
  }
  return a;
}

class Search {
 public:
  Search(std::vector<Term> terms, int64_t max_steps) : terms_(std::move(terms)), left_(max_steps) {
    reach_.assign(terms_.size() + 1, 0);
    gcd_.assign(terms_.size() + 1, 0);
    for (size_t k = terms_.size(); k-- > 0;) {
      reach_[k] = reach_[k + 1] + terms_[k].c * terms_[k].u;
      gcd_[k] = wide_gcd(terms_[k].c, gcd_[k + 1]);
    }
  }

  // Whether the terms from k on can sum to a value in [lo, hi].
  bool reachable(size_t k, Wide lo, Wide hi) {
    lo = std::max<Wide>(lo, 0);
    hi = std::min(hi, reach_[k]);
    if (lo > hi) return false;
    if (k == terms_.size()) return true;                     // lo <= 0 <= hi: the empty sum
    if (ceil_div(lo, gcd_[k]) * gcd_[k] > hi) return false;  // no multiple of the gcd
    const Term& t = terms_[k];
    const Wide first = std::max<Wide>(0, ceil_div(lo - reach_[k + 1], t.c));
    const Wide last = std::min(t.u, floor_div(hi, t.c));
    for (Wide v = first; v <= last; ++v) {
      if (--left_ < 0) gave_up_ = true;  // one step per value tried
      if (gave_up_ || reachable(k + 1, lo - t.c * v, hi - t.c * v)) return true;
    }
    return false;
  }

  bool gave_up() const { return gave_up_; }

 private:
  std::vector<Term> terms_;
  std::vector<Wide> reach_;  // reach_[k]: the largest sum of the terms from k on
  std::vector<Wide> gcd_;    // gcd_[k]: the gcd of their coefficients (0 for none)
  int64_t left_;
  bool gave_up_ = false;
};

// The view's lowest element address and its terms (|stride|, extent - 1), for the
// dimensions that move (extent > 1, stride != 0); false when it has no element.
bool normalise(const StridedView& v, Wide* base, std::vector<Term>* terms) {
  *base = static_cast<Wide>(v.base);
  for (size_t d = 0; d < v.extents.size(); ++d) {
    const Wide n = v.extents[d], s = d < v.strides.size() ? v.strides[d] : 0;
    if (n <= 0) return false;
    if (n == 1 || s == 0) continue;
    if (s < 0) *base += s * (n - 1);
    terms->push_back({s < 0 ? -s : s, n - 1});
  }
  return true;
}

Wide reach_of(const std::vector<Term>& terms) {
  Wide r = 0;
  for (const Term& t : terms) r += t.c * t.u;
  return r;
}

}  // namespace

Sharing shared_bytes(const StridedView& a, const StridedView& b, int64_t max_steps) {
  Wide base_a = 0, base_b = 0;
  std::vector<Term> ta, tb;
  if (!normalise(a, &base_a, &ta) || !normalise(b, &base_b, &tb)) return Sharing::None;
  const Wide ea = a.element_bytes, eb = b.element_bytes;
  const Wide reach_b = reach_of(tb);
  // Whole ranges apart: the common case of two allocations.
  if (base_a + reach_of(ta) + ea <= base_b || base_b + reach_b + eb <= base_a) return Sharing::None;
  // -ea < (base_a + X) - (base_b + Y) < eb with Y = reach_b - Y':
  // X + Y' in [base_b - base_a + reach_b - ea + 1, base_b - base_a + reach_b + eb - 1].
  std::vector<Term> terms = ta;
  terms.insert(terms.end(), tb.begin(), tb.end());
  std::sort(terms.begin(), terms.end(), [](const Term& x, const Term& y) { return x.c > y.c; });
  std::vector<Term> merged;
  for (const Term& t : terms) {
    if (!merged.empty() && merged.back().c == t.c)
      merged.back().u += t.u;
    else
      merged.push_back(t);
  }
  const Wide shift = base_b - base_a + reach_b;
  Search search(std::move(merged), max_steps);
  const bool found = search.reachable(0, shift - ea + 1, shift + eb - 1);
  if (search.gave_up()) return Sharing::Unknown;
  return found ? Sharing::Shared : Sharing::None;
}

}  // namespace risec::driver
