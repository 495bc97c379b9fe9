// A generator of random with-loops (docs/language.md, "With-loops"), shared by the suite
// (tests/e2e/with_loop_fuzz_test.cpp, seeded) and the libFuzzer target
// differential_fuzzer (driven by the fuzzer's bytes): bounds that may be negative,
// beyond the shape, inverted or symbolic (n - 2), steps that need not divide the
// range, widths, and several parts that may overlap, in a genarray, modarray or fold
// of rank 1 or 2 over sizes n and m. WithLoopCase also computes the with-loop's
// meaning directly from its bounds (SaC: the indices lb + k*step + w < ub, w < width),
// and says whether it is valid at its sizes.
//
// The draws go through `below(k)` (a number in [0, k)), so that any source of
// randomness drives it.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace risec::fuzz {

// A bound: c, or size + c (size "n" or "m"), as written and as a value.
struct WithLoopBound {
  std::string size;  // "" for a constant
  int c = 0;
  std::string text() const {
    if (size.empty()) return std::to_string(c);
    if (c == 0) return size;
    return size + (c < 0 ? " - " : " + ") + std::to_string(c < 0 ? -c : c);
  }
  int64_t at(int64_t n, int64_t m) const { return (size == "n" ? n : size == "m" ? m : 0) + c; }
};

struct WithLoopPart {
  std::vector<WithLoopBound> lb, ub;
  std::vector<int> step, width;  // empty: none
};

enum class WithLoopOp { Genarray, Modarray, Fold };

struct WithLoopCase {
  int rank = 1;
  WithLoopOp op = WithLoopOp::Genarray;
  std::vector<WithLoopPart> parts;
  bool reads_a = false;  // bodies add a[i][j] (modarray)
  int64_t n = 1, m = 1;

  // `def f = depFun((n: Nat, m: Nat) => fun(a: n.f32 (or n.m.f32) => with {...} : op))`
  std::string program() const {
    auto vec = [&](const std::vector<WithLoopBound>& b) {
      std::string s = "[";
      for (size_t d = 0; d < b.size(); ++d) s += (d ? ", " : "") + b[d].text();
      return s + "]";
    };
    auto ints = [&](const std::vector<int>& v) {
      std::string s = "[";
      for (size_t d = 0; d < v.size(); ++d) s += (d ? ", " : "") + std::to_string(v[d]);
      return s + "]";
    };
    std::string idx = rank == 1 ? "[i]" : "[i, j]";
    std::string type = rank == 1 ? "n.f32" : "n.m.f32";
    std::string text = "def f = depFun((n: Nat, m: Nat) => fun(a: " + type + " =>\n  with {\n";
    for (size_t p = 0; p < parts.size(); ++p) {
      const WithLoopPart& pt = parts[p];
      text += "    (" + vec(pt.lb) + " <= " + idx + " < " + vec(pt.ub);
      if (!pt.step.empty()) text += " step " + ints(pt.step);
      if (!pt.width.empty()) text += " width " + ints(pt.width);
      text += ") : natAsScalar(i) * 10.0f";
      if (rank == 2) text += " + natAsScalar(j)";
      text += " + " + std::to_string(100 * (p + 1)) + ".0f";
      if (reads_a) text += std::string(" + a[i]") + (rank == 2 ? "[j]" : "");
      text += ";\n";
    }
    text += "  } : ";
    if (op == WithLoopOp::Genarray)
      text += rank == 1 ? "genarray([n], -1.0f)" : "genarray([n, m], -1.0f)";
    if (op == WithLoopOp::Modarray) text += "modarray(a)";
    if (op == WithLoopOp::Fold) text += "fold(add, 0.0f)";
    return text + "))\n";
  }

  std::string sizes() const { return "n=" + std::to_string(n) + ",m=" + std::to_string(m); }

  // The parts' index sets at the sizes; false when a part leaves the shape (or starts
  // below 0), is inverted, or two parts share an index.
  bool index_sets(std::vector<std::vector<std::vector<int64_t>>>& sets) const {
    std::vector<int64_t> shape{n, m};
    std::set<std::vector<int64_t>> seen;
    bool valid = true;
    for (const WithLoopPart& pt : parts) {
      std::vector<std::vector<int64_t>> per_dim(rank);
      for (int d = 0; d < rank; ++d) {
        int64_t lb = pt.lb[d].at(n, m), ub = pt.ub[d].at(n, m);
        if (lb < 0 || lb > ub) valid = false;
        if (op != WithLoopOp::Fold && ub > shape[d]) valid = false;
        int s = pt.step.empty() ? 1 : pt.step[d];
        int w = pt.width.empty() ? 1 : pt.width[d];
        for (int64_t x = lb; x < ub; ++x)
          if ((x - lb) % s < w) per_dim[d].push_back(x);
      }
      std::vector<std::vector<int64_t>> set;
      for (int64_t x : per_dim[0]) {
        if (rank == 1) {
          set.push_back({x});
          continue;
        }
        for (int64_t y : per_dim[1]) set.push_back({x, y});
      }
      for (const auto& x : set)
        if (!seen.insert(x).second) valid = false;
      sets.push_back(set);
    }
    return valid;
  }

  // The result by the with-loop's meaning; `a` the input (row-major).
  std::vector<double> reference(const std::vector<std::vector<std::vector<int64_t>>>& sets,
                                const std::vector<double>& a) const {
    int64_t cols = rank == 2 ? m : 1;
    auto value = [&](size_t p, const std::vector<int64_t>& x) {
      double v = 10.0 * x[0] + (rank == 2 ? x[1] : 0) + 100.0 * (p + 1);
      if (reads_a) v += a[x[0] * cols + (rank == 2 ? x[1] : 0)];
      return v;
    };
    if (op == WithLoopOp::Fold) {
      double acc = 0;
      for (size_t p = 0; p < sets.size(); ++p)
        for (const auto& x : sets[p]) acc += value(p, x);
      return {acc};
    }
    std::vector<double> r = op == WithLoopOp::Modarray ? a : std::vector<double>(n * cols, -1.0);
    for (size_t p = 0; p < sets.size(); ++p)
      for (const auto& x : sets[p]) r[x[0] * cols + (rank == 2 ? x[1] : 0)] = value(p, x);
    return r;
  }
};

namespace detail {
template <class Below>
WithLoopBound random_bound(Below& below, const char* size) {
  switch (below(3)) {
    case 0:
      return {"", static_cast<int>(below(10)) - 1};  // -1 .. 8
    case 1:
      return {size, -static_cast<int>(below(4))};  // size - 3 .. size
    default: {
      int c = static_cast<int>(below(2)) - 2;
      return {size, c + (below(4) == 0 ? 3 : 0)};
    }
  }
}
}  // namespace detail

// A random with-loop at random sizes (n in 1..9, m in 1..6).
template <class Below>
WithLoopCase random_with_loop(Below&& below) {
  WithLoopCase c;
  c.rank = 1 + static_cast<int>(below(2));
  c.op = static_cast<WithLoopOp>(below(3));
  c.reads_a = c.op == WithLoopOp::Modarray && below(2) == 0;
  c.n = 1 + static_cast<int64_t>(below(9));
  c.m = 1 + static_cast<int64_t>(below(6));
  if (below(2) == 0) {
    // Parts that tile dimension 0 between 0, 1 or 2, n - 1 or n - 2, and n (the
    // border rows of a matrix), in a random order: disjoint only for large enough n.
    std::vector<WithLoopBound> cuts{{"", 0}, {"", 1}, {"n", -1}, {"n", 0}};
    cuts[1].c += static_cast<int>(below(2));
    cuts[2].c -= static_cast<int>(below(2));
    std::vector<int> order{0, 1, 2};
    for (int i = 2; i > 0; --i) std::swap(order[i], order[below(i + 1)]);
    for (int k : order) {
      WithLoopPart pt;
      pt.lb.push_back(cuts[k]);
      pt.ub.push_back(cuts[k + 1]);
      if (c.rank == 2) {
        pt.lb.push_back({"", static_cast<int>(below(2))});
        pt.ub.push_back({"m", -static_cast<int>(below(2))});
      }
      if (below(3) == 0)
        for (int d = 0; d < c.rank; ++d) pt.step.push_back(2 + static_cast<int>(below(2)));
      c.parts.push_back(pt);
    }
    return c;
  }
  int parts = 1 + static_cast<int>(below(3));
  for (int p = 0; p < parts; ++p) {
    WithLoopPart pt;
    bool stepped = below(3) == 0, widths = below(2) == 0;
    for (int d = 0; d < c.rank; ++d) {
      const char* size = d == 0 ? "n" : "m";
      if (below(2)) {
        int lb = static_cast<int>(below(4));
        pt.lb.push_back({"", lb - (below(5) == 0 ? 1 : 0)});
      } else {
        pt.lb.push_back(detail::random_bound(below, size));
      }
      pt.ub.push_back(detail::random_bound(below, size));
      if (stepped) {
        pt.step.push_back(2 + static_cast<int>(below(3)));
        if (widths) pt.width.push_back(1 + static_cast<int>(below(pt.step.back())));
      }
    }
    c.parts.push_back(pt);
  }
  return c;
}

}  // namespace risec::fuzz
