// Random with-loops (docs/language.md, "With-loops"): bounds that may be negative, beyond
// the shape, inverted or symbolic (n - 2), steps that need not divide the range, widths,
// and several parts that may overlap. Each is compiled to C and run at random sizes,
// specialised (--size) and generic (sizes checked on entry), and must either
//   - agree with the interpreter, and with the with-loop's meaning computed here
//     directly from the bounds (SaC: the indices lb + k*step + w < ub, w < width), or
//   - be refused with a located error (exit 1): specialised at check time, generic at
//     check time or by its precondition on entry.
// A with-loop whose parts leave the shape (or, for a fold, start below 0), have lb > ub,
// or overlap must be refused; a valid one may be refused only for a documented
// limitation (bounds that cannot be ordered, a stepped part sharing a slab).
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "e2e_util.h"
#include "support/random.h"

namespace risec::e2e {
namespace {

// A bound: c, or size + c (size "n" or "m"), as written and as a value.
struct Bound {
  std::string size;  // "" for a constant
  int c = 0;
  std::string text() const {
    if (size.empty()) return std::to_string(c);
    if (c == 0) return size;
    return size + (c < 0 ? " - " : " + ") + std::to_string(c < 0 ? -c : c);
  }
  int64_t at(int64_t n, int64_t m) const { return (size == "n" ? n : size == "m" ? m : 0) + c; }
};

struct Part {
  std::vector<Bound> lb, ub;
  std::vector<int> step, width;  // empty: none
};

enum class Op { Genarray, Modarray, Fold };

struct Case {
  int rank = 1;
  Op op = Op::Genarray;
  std::vector<Part> parts;
  bool reads_a = false;  // bodies add a[i][j] (modarray)
  int64_t n = 1, m = 1;

  std::string program() const {
    auto vec = [&](const std::vector<Bound>& b) {
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
      const Part& pt = parts[p];
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
    if (op == Op::Genarray) text += rank == 1 ? "genarray([n], -1.0f)" : "genarray([n, m], -1.0f)";
    if (op == Op::Modarray) text += "modarray(a)";
    if (op == Op::Fold) text += "fold(add, 0.0f)";
    return text + "))";
  }

  std::string sizes() const { return "n=" + std::to_string(n) + ",m=" + std::to_string(m); }

  // The parts' index sets at the sizes; false when a part leaves
  // the shape (or starts below 0), is inverted, or two parts share an index.
  bool index_sets(std::vector<std::vector<std::vector<int64_t>>>& sets) const {
    std::vector<int64_t> shape{n, m};
    std::set<std::vector<int64_t>> seen;
    bool valid = true;
    for (const Part& pt : parts) {
      std::vector<std::vector<int64_t>> per_dim(rank);
      for (int d = 0; d < rank; ++d) {
        int64_t lb = pt.lb[d].at(n, m), ub = pt.ub[d].at(n, m);
        if (lb < 0 || lb > ub) valid = false;
        if (op != Op::Fold && ub > shape[d]) valid = false;
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
    if (op == Op::Fold) {
      double acc = 0;
      for (size_t p = 0; p < sets.size(); ++p)
        for (const auto& x : sets[p]) acc += value(p, x);
      return {acc};
    }
    std::vector<double> r = op == Op::Modarray ? a : std::vector<double>(n * cols, -1.0);
    for (size_t p = 0; p < sets.size(); ++p)
      for (const auto& x : sets[p]) r[x[0] * cols + (rank == 2 ? x[1] : 0)] = value(p, x);
    return r;
  }
};

Bound random_bound(runtime::Rng& rng, const char* size) {
  switch (rng.below(3)) {
    case 0:
      return {"", static_cast<int>(rng.below(10)) - 1};  // -1 .. 8
    case 1:
      return {size, -static_cast<int>(rng.below(4))};  // size - 3 .. size
    default:
      return {size, static_cast<int>(rng.below(2)) - 2 + (rng.below(4) == 0 ? 3 : 0)};
  }
}

Case random_case(runtime::Rng& rng) {
  Case c;
  c.rank = 1 + static_cast<int>(rng.below(2));
  c.op = static_cast<Op>(rng.below(3));
  c.reads_a = c.op == Op::Modarray && rng.below(2) == 0;
  c.n = 1 + rng.below(9);
  c.m = 1 + rng.below(6);
  if (rng.below(2) == 0) {
    // Parts that tile dimension 0 between 0, 1 or 2, n - 1 or n - 2, and n (the
    // border rows of a matrix), in a random order: disjoint only for large enough n.
    std::vector<Bound> cuts{{"", 0},
                            {"", 1 + static_cast<int>(rng.below(2))},
                            {"n", -1 - static_cast<int>(rng.below(2))},
                            {"n", 0}};
    std::vector<int> order{0, 1, 2};
    for (int i = 2; i > 0; --i) std::swap(order[i], order[rng.below(i + 1)]);
    for (int k : order) {
      Part pt;
      pt.lb.push_back(cuts[k]);
      pt.ub.push_back(cuts[k + 1]);
      if (c.rank == 2) {
        pt.lb.push_back({"", static_cast<int>(rng.below(2))});
        pt.ub.push_back({"m", -static_cast<int>(rng.below(2))});
      }
      if (rng.below(3) == 0)
        for (int d = 0; d < c.rank; ++d) pt.step.push_back(2 + static_cast<int>(rng.below(2)));
      c.parts.push_back(pt);
    }
    return c;
  }
  int parts = 1 + static_cast<int>(rng.below(3));
  for (int p = 0; p < parts; ++p) {
    Part pt;
    bool stepped = rng.below(3) == 0, widths = rng.below(2) == 0;
    for (int d = 0; d < c.rank; ++d) {
      const char* size = d == 0 ? "n" : "m";
      pt.lb.push_back(rng.below(2) ? Bound{"", static_cast<int>(rng.below(4)) - (rng.below(5) == 0)}
                                   : random_bound(rng, size));
      pt.ub.push_back(random_bound(rng, size));
      if (stepped) {
        pt.step.push_back(2 + static_cast<int>(rng.below(3)));
        if (widths) pt.width.push_back(1 + static_cast<int>(rng.below(pt.step.back())));
      }
    }
    c.parts.push_back(pt);
  }
  return c;
}

bool located(const Error& e, const std::string& file) {
  return e.kind() == ErrorKind::User && e.span().known() && e.span().start().line > 0 &&
         e.span().file && e.span().file->name.find(file) != std::string::npos;
}

TEST(WithLoopFuzz, CompiledCodeAgreesWithTheMeaningOrIsRefusedLocated) {
  runtime::Rng rng(20261128);
  int accepted = 0, refused_valid = 0, refused_invalid = 0;
  const int kCases = 80;
  for (int k = 0; k < kCases; ++k) {
    Case c = random_case(rng);
    std::string name = "wl_fuzz_" + std::to_string(k) + ".rise";
    std::string text = c.program();
    std::string file = write_scratch(name, text);
    std::vector<std::vector<std::vector<int64_t>>> sets;
    bool valid = c.index_sets(sets);
    SCOPED_TRACE(text + "\nsizes " + c.sizes() + (valid ? " (valid)" : " (invalid)"));
    bool ok = false;
    try {
      CheckReport r = run_and_compare(file, "", c.sizes());
      ok = true;
      EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch;
      EXPECT_TRUE(valid) << "accepted a with-loop that leaves its shape or overlaps";
      if (valid) {
        std::vector<double> want = c.reference(sets, flat_values(r.inputs.at(0)));
        std::vector<double> got = flat_values(r.expected);
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-3) << i;
      }
      ++accepted;
    } catch (const Error& e) {
      EXPECT_TRUE(located(e, name)) << "not a located error: " << e.message();
      ++(valid ? refused_valid : refused_invalid);
    }
    if (k % 2) continue;
    // Generic code: the same verdict, the sizes' conditions checked on entry.
    CheckOptions generic;
    generic.generic = true;
    try {
      CheckReport r = run_and_compare(file, "", c.sizes(), generic);
      EXPECT_TRUE(ok) << "generic code ran where the specialised program was refused";
      EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch;
    } catch (const Error& e) {
      EXPECT_FALSE(ok) << "generic code failed where the specialised program ran: " << e.message();
      bool precondition =
          e.kind() == ErrorKind::Internal && e.message().find("precondition") != std::string::npos;
      EXPECT_TRUE(precondition || located(e, name)) << e.message();
    }
  }
  // Both outcomes are exercised.
  EXPECT_GE(accepted, kCases / 5);
  EXPECT_GE(refused_invalid, kCases / 10);
  std::printf("with-loop fuzz: %d accepted, %d refused (invalid), %d refused (valid)\n", accepted,
              refused_invalid, refused_valid);
}

}  // namespace
}  // namespace risec::e2e
