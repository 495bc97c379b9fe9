// A with-loop fold reduces its parts in source order, each in row-major
// (lexicographic) order of its indices (docs/language.md, "Fold order"), also where a
// stepped dimension's step does not divide its range: the tail of each row comes
// before the next row. A held-out tester found `[0, 0] <= [i, j] < [n, m] step [1, 2]`
// at m = 5 folded as (0,0),(0,2),(1,0),(1,2),(0,4),(1,4): the tail column after all
// rows. Random stepped generators (1-D and 2-D, one part or two that split the rows)
// are folded with a non-commutative operator over their encoded indices; the
// interpreter and the generated code must both give the brute-force row-major fold.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "e2e_util.h"
#include "support/random.h"

namespace risec::e2e {
namespace {

constexpr int64_t kMod = 1000003;

// One generator: per dimension lb, ub (ub_size: the size minus ub_off, else ub_num),
// step, width.
struct Dim {
  int64_t lb = 0, ub_num = 0, ub_off = 0, step = 1, width = 1;
  bool ub_size = false;
  bool stepped = false;
  int64_t ub(int64_t size) const { return ub_size ? size - ub_off : ub_num; }
};
struct Gen {
  std::vector<Dim> dims;
};

std::string vec(const std::vector<std::string>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s + "]";
}

std::string generator(const Gen& g) {
  const char* sizes[] = {"n", "m"};
  std::vector<std::string> lb, ub, step, width, names;
  bool stepped = false;
  for (size_t d = 0; d < g.dims.size(); ++d) {
    const Dim& x = g.dims[d];
    lb.push_back(std::to_string(x.lb));
    ub.push_back(x.ub_size ? std::string(sizes[d]) +
                                 (x.ub_off ? " - " + std::to_string(x.ub_off) : std::string())
                           : std::to_string(x.ub_num));
    step.push_back(std::to_string(x.step));
    width.push_back(std::to_string(x.width));
    names.push_back(d == 0 ? "i" : "j");
    stepped = stepped || x.stepped;
  }
  std::string s = "(" + vec(lb) + " <= " + vec(names) + " < " + vec(ub);
  if (stepped) s += " step " + vec(step) + " width " + vec(width);
  return s + ")";
}

// The indices of dimension d in increasing order.
std::vector<int64_t> indices(const Dim& x, int64_t size) {
  std::vector<int64_t> r;
  for (int64_t v = x.lb; v < x.ub(size); ++v)
    if ((v - x.lb) % x.step < x.width) r.push_back(v);
  return r;
}

TEST(WithLoopFoldOrder, SteppedPartsFoldInRowMajorOrder) {
  runtime::Rng rng(20261129);
  const int kCases = 24;
  for (int k = 0; k < kCases; ++k) {
    const int rank = 1 + static_cast<int>(rng.below(2));
    const int64_t n = 1 + static_cast<int64_t>(rng.below(8));
    const int64_t m = 1 + static_cast<int64_t>(rng.below(9));
    const int64_t size[] = {n, m};
    // A random stepped dimension within [0, size): lb <= ub, the step often not
    // dividing ub - lb.
    auto dim = [&](int64_t lo, int64_t hi, bool at_size_end) {
      Dim x;
      x.lb = lo + static_cast<int64_t>(rng.below(static_cast<uint64_t>(hi - lo + 1)));
      x.ub_size = at_size_end;
      x.ub_num = x.lb + static_cast<int64_t>(rng.below(static_cast<uint64_t>(hi - x.lb + 1)));
      x.stepped = rng.below(4) != 0;
      x.step = x.stepped ? 1 + static_cast<int64_t>(rng.below(4)) : 1;
      x.width = 1 + static_cast<int64_t>(rng.below(static_cast<uint64_t>(x.step)));
      return x;
    };
    std::vector<Gen> parts;
    // Two parts split the rows at `cut` (the second first, so that the order of the
    // parts is the source's, not the rows'), or one part ending at the size.
    if (n >= 2 && rng.below(2) == 0) {
      const int64_t cut = 1 + static_cast<int64_t>(rng.below(static_cast<uint64_t>(n - 1)));
      Gen lower, upper;
      Dim r0 = dim(cut, cut, true), r1 = dim(0, 0, false);
      r1.ub_num = cut;
      upper.dims.push_back(r0);
      lower.dims.push_back(r1);
      if (rank == 2) {
        upper.dims.push_back(dim(0, m, true));
        lower.dims.push_back(dim(0, m, true));
      }
      parts = {upper, lower};
    } else {
      Gen g;
      for (int d = 0; d < rank; ++d) g.dims.push_back(dim(0, size[d], rng.below(2) == 0));
      parts = {g};
    }
    std::string text = std::string("def f = depFun((n: Nat, m: Nat) => fun(a: ") +
                       (rank == 1 ? "n" : "n.m") + ".f32 =>\n  with {\n";
    int64_t want = 1;
    for (const Gen& g : parts) {
      text += "    " + generator(g) + " : natAsScalar(" +
              (rank == 1 ? std::string("i") : std::string("i * 10 + j")) + ") : i64;\n";
      std::vector<int64_t> rows = indices(g.dims[0], n), cols{0};
      if (rank == 2) cols = indices(g.dims[1], m);
      if (rank == 2 && cols.empty()) rows.clear();
      for (int64_t i : rows)
        for (int64_t j : cols) want = (want * 7 + (rank == 1 ? i : i * 10 + j)) % kMod;
    }
    text += "  } : fold(fun(acc => fun(v => (acc * 7i64 + v) % " + std::to_string(kMod) +
            "i64)), 1i64)))\n";
    const std::string sizes = "n=" + std::to_string(n) + ",m=" + std::to_string(m);
    SCOPED_TRACE(text + "sizes " + sizes);
    const std::string file = write_scratch("wl_fold_order_" + std::to_string(k) + ".rise", text);
    for (const char* target : {"c", "openmp"}) {
      if (k % 4 && std::string(target) == "openmp") continue;
      CheckOptions options;
      options.target = target;
      try {
        CheckReport r = run_and_compare(file, "", sizes, options);
        EXPECT_TRUE(r.comparison.ok) << target << ": " << r.comparison.first_mismatch;
        std::vector<double> got = flat_values(r.expected);
        ASSERT_EQ(got.size(), 1u);
        EXPECT_EQ(static_cast<int64_t>(got[0]), want) << "the interpreter's fold";
      } catch (const Error& e) {
        ADD_FAILURE() << target << " refused: " << e.message();
      }
    }
  }
}

// The tester's case through the command line: eval prints the row-major fold.
TEST(WithLoopFoldOrder, TesterCase) {
  const std::string file = write_scratch(
      "wl_fold_order_tester.rise",
      "def f = depFun((n: Nat, m: Nat) => fun(a: n.m.f32 =>\n"
      "  with { ([0, 0] <= [i, j] < [n, m] step [1, 2]) : natAsScalar(i * 10 + j) : i64; }\n"
      "  : fold(fun(acc => fun(v => acc * 100i64 + v)), 0i64)))\n");
  CliResult r = run_risec({"eval", file, "--size", "n=2,m=5"});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  // (0,0) (0,2) (0,4) (1,0) (1,2) (1,4), two digits each.
  int64_t want = 0;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 5; j += 2) want = want * 100 + i * 10 + j;
  EXPECT_NE(r.out.find(std::to_string(want)), std::string::npos) << show(r);
}

}  // namespace
}  // namespace risec::e2e
