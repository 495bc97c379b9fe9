// The with-loop's overlap check (docs/language.md, "With-loops"; src/rise/withloop.cpp,
// stepped_rows) against brute force: random generators of rank 1 to 3 with random
// lower and upper bounds, steps and widths, at small sizes. The covered index sets are
// enumerated here (SaC: the indices lb + k*step + w < ub, w < width); then
//   - a with-loop accepted has disjoint parts, and the interpreter's result is the
//     with-loop's meaning computed from those sets;
//   - one refused as overlapping has two parts that share an index, and the index the
//     message names is covered by both parts it names;
//   - parts that share an index are never accepted, and are refused as overlapping
//     when written with numbers only; parts whose upper bounds are sizes are compared
//     for every size, so that disjoint ones may be refused as overlapping at an index
//     both cover at larger sizes (the test checks it there); a with-loop with disjoint parts may be
//     refused only for a documented limitation (bounds it cannot order, a stepped part whose range
//     holds another part's bound at a distance with no known remainder by the step), which the
//     generators here (numeric lower bounds and steps, upper bounds numbers or the dimension's
//     size) never meet: none is refused otherwise.
// Interleaved stepped parts (red/black: `[0] ... step [2]` beside `[1] ... step [2]`,
// a checkerboard's four colours, offsets 0, 1, 2 of `step [3]`) are drawn often: they
// were refused as a limitation ("a stepped generator's range may not contain another
// part's bounds"), and symbolic ones as "cannot order the with-loop bounds n - n%2 and
// n - (n - 1)%2", though disjoint.
// A held-out tester found `[0, 0] <= [i, j] < [n, 1] step [2, 1]` beside
// `[0, 1] <= [i, j] < [n, n]` refused as overlapping at [0, 1]: a step on the outer
// dimension made every other part sharing those rows an overlap, whatever the columns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "rise/check.h"
#include "rise/interp.h"
#include "rise/parser.h"
#include "support/random.h"

namespace risec::rise {
namespace {

const char* const kIndex[] = {"i", "j", "l"};
const char* const kSize[] = {"n", "m", "k"};

struct OverlapGen {
  std::vector<int64_t> lb, ub, step, width;  // step/width empty: none
  std::vector<bool> ub_is_size;              // ub written as the dimension's size
};

struct Case {
  int rank = 1;
  bool fold = false;
  std::vector<int64_t> shape;
  std::vector<OverlapGen> parts;

  std::string program() const {
    auto list = [](const std::vector<std::string>& v) {
      std::string s = "[";
      for (size_t d = 0; d < v.size(); ++d) s += (d ? ", " : "") + v[d];
      return s + "]";
    };
    auto nums = [&](const std::vector<int64_t>& v) {
      std::vector<std::string> t;
      for (int64_t x : v) t.push_back(std::to_string(x));
      return list(t);
    };
    std::vector<std::string> idx, sizes;
    std::string type, read = "a";
    for (int d = 0; d < rank; ++d) {
      idx.push_back(kIndex[d]);
      sizes.push_back(kSize[d]);
      type += std::string(kSize[d]) + ".";
      read += std::string("[") + kIndex[d] + "]";
    }
    std::string t = "def f = depFun((n: Nat, m: Nat, k: Nat) => fun(a: " + type + "f32 =>\n";
    t += "  with {\n";
    for (size_t p = 0; p < parts.size(); ++p) {
      const OverlapGen& g = parts[p];
      std::vector<std::string> ub;
      for (int d = 0; d < rank; ++d)
        ub.push_back(g.ub_is_size[d] ? kSize[d] : std::to_string(g.ub[d]));
      t += "    (" + nums(g.lb) + " <= " + list(idx) + " < " + list(ub);
      if (!g.step.empty()) t += " step " + nums(g.step);
      if (!g.width.empty()) t += " width " + nums(g.width);
      t += ") : " + read + " + " + std::to_string(1000 * (p + 1)) + ".0f";
      for (int d = 0; d < rank; ++d)
        t += std::string(" + natAsScalar(") + kIndex[d] + ") * " +
             std::to_string(d == 0   ? 100
                            : d == 1 ? 10
                                     : 1) +
             ".0f";
      t += ";\n";
    }
    t += "  } : ";
    t += fold ? "fold(add, 0.0f)" : "genarray(" + list(sizes) + ", -1.0f)";
    return t + "))\n";
  }

  // The indices part p covers.
  std::set<std::vector<int64_t>> covered(size_t p) const {
    const OverlapGen& g = parts[p];
    std::vector<std::vector<int64_t>> per_dim(rank);
    for (int d = 0; d < rank; ++d) {
      int64_t s = g.step.empty() ? 1 : g.step[d], w = g.width.empty() ? 1 : g.width[d];
      for (int64_t x = g.lb[d]; x < g.ub[d]; ++x)
        if ((x - g.lb[d]) % s < w) per_dim[d].push_back(x);
    }
    std::set<std::vector<int64_t>> out{{}};
    for (int d = 0; d < rank; ++d) {
      std::set<std::vector<int64_t>> next;
      for (const auto& prefix : out)
        for (int64_t x : per_dim[d]) {
          auto v = prefix;
          v.push_back(x);
          next.insert(v);
        }
      out = next;
    }
    return out;
  }

  // The with-loop's meaning, `a` the input (row-major).
  std::vector<double> meaning(const std::vector<std::set<std::vector<int64_t>>>& sets,
                              const std::vector<double>& a) const {
    auto overlap_flat = [&](const std::vector<int64_t>& x) {
      int64_t f = 0;
      for (int d = 0; d < rank; ++d) f = f * shape[d] + x[d];
      return f;
    };
    auto value = [&](size_t p, const std::vector<int64_t>& x) {
      double v = a[overlap_flat(x)] + 1000.0 * (p + 1);
      for (int d = 0; d < rank; ++d) v += x[d] * (d == 0 ? 100.0 : d == 1 ? 10.0 : 1.0);
      return v;
    };
    if (fold) {
      double acc = 0;
      for (size_t p = 0; p < sets.size(); ++p)
        for (const auto& x : sets[p]) acc += value(p, x);
      return {acc};
    }
    int64_t total = 1;
    for (int d = 0; d < rank; ++d) total *= shape[d];
    std::vector<double> r(total, -1.0);
    for (size_t p = 0; p < sets.size(); ++p)
      for (const auto& x : sets[p]) r[overlap_flat(x)] = value(p, x);
    return r;
  }
};

std::vector<double> overlap_flat(const Value& v) {
  if (v.kind() != ValueKind::Array) return {v.to_double()};
  std::vector<double> out;
  for (int64_t i = 0; i < v.size(); ++i) {
    std::vector<double> x = overlap_flat(v.at(i));
    out.insert(out.end(), x.begin(), x.end());
  }
  return out;
}

// "... both cover the index [1, 2, 0] ..." -> {1, 2, 0}; and the line of the other part.
bool parse_overlap(const std::string& msg, std::vector<int64_t>& index, int& other_line) {
  size_t at = msg.find("both cover the index [");
  size_t line = msg.find("the part at line ");
  if (at == std::string::npos || line == std::string::npos) return false;
  other_line = std::stoi(msg.substr(line + 17));
  std::string rest = msg.substr(at + 22, msg.find(']', at) - at - 22);
  index.clear();
  size_t pos = 0;
  while (pos < rest.size()) {
    size_t comma = rest.find(',', pos);
    if (comma == std::string::npos) comma = rest.size();
    index.push_back(std::stoll(rest.substr(pos, comma - pos)));
    pos = comma + 1;
  }
  return true;
}

enum class Verdict { Accepted, Overlap, Limitation };

// Checks c against brute force (the header's three rules); returns the verdict.
Verdict check_case(const Case& c, const std::string& name) {
  const std::string text = c.program();
  SizeMap sizes;
  for (int d = 0; d < 3; ++d) sizes[kSize[d]] = d < c.rank ? c.shape[d] : 1;
  std::vector<std::set<std::vector<int64_t>>> sets;
  for (size_t p = 0; p < c.parts.size(); ++p) sets.push_back(c.covered(p));
  std::optional<std::vector<int64_t>> shared;
  for (size_t p = 0; p < sets.size() && !shared; ++p)
    for (size_t q = p + 1; q < sets.size() && !shared; ++q)
      for (const auto& x : sets[p])
        if (sets[q].count(x)) {
          shared = x;
          break;
        }
  SCOPED_TRACE(text + (shared ? "(parts overlap)" : "(parts disjoint)"));
  try {
    auto src = std::make_shared<SourceFile>(SourceFile{name, text});
    Checked checked = check_program(parse_program(src), "", &sizes);
    EXPECT_FALSE(shared) << "accepted parts that share an index";
    EntrySignature sig = entry_signature(checked.type);
    std::vector<Value> inputs{random_input(sig.params.at(0), 7)};
    Interpreter interp;
    std::vector<double> got = overlap_flat(interp.run(checked.expr, inputs));
    std::vector<double> want = c.meaning(sets, overlap_flat(inputs[0]));
    EXPECT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size() && i < want.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 1e-3 + 1e-6 * std::abs(want[i])) << "element " << i;
    return Verdict::Accepted;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User) << e.message();
    EXPECT_TRUE(e.span().known()) << e.message();
    std::vector<int64_t> index;
    int other_line = 0;
    bool numbers_only = true;
    for (const OverlapGen& g : c.parts)
      for (bool b : g.ub_is_size) numbers_only = numbers_only && !b;
    if (e.message().find("parts overlap") != std::string::npos) {
      // Bounds that are sizes are compared for every size (docs/language.md): parts
      // disjoint at these sizes may be refused where they overlap at larger ones, naming
      // an index both cover there; parts written with numbers only, never.
      Case big = c;
      for (int d = 0; d < c.rank; ++d) big.shape[d] += 16;
      for (OverlapGen& g : big.parts)
        for (int d = 0; d < c.rank; ++d)
          if (g.ub_is_size[d]) g.ub[d] = big.shape[d];
      std::vector<std::set<std::vector<int64_t>>> cover = sets;
      if (!shared) {
        EXPECT_FALSE(numbers_only) << "refused disjoint parts as overlapping: " << e.message();
        for (size_t p = 0; p < cover.size(); ++p) cover[p] = big.covered(p);
      }
      EXPECT_TRUE(parse_overlap(e.message(), index, other_line)) << e.message();
      // The parts are on lines 3, 4, ..: the one refused and the one named.
      size_t p = static_cast<size_t>(e.span().start().line - 3);
      size_t q = static_cast<size_t>(other_line - 3);
      EXPECT_LT(p, cover.size());
      EXPECT_LT(q, cover.size());
      EXPECT_NE(p, q);
      if (p < cover.size() && q < cover.size()) {
        EXPECT_TRUE(cover[p].count(index)) << "the index named is not the refused part's";
        EXPECT_TRUE(cover[q].count(index)) << "the index named is not the other part's";
      }
      return Verdict::Overlap;
    }
    // Parts written with numbers only are compared exactly: overlapping ones are refused
    // as such, never for a limitation of the desugaring.
    EXPECT_FALSE(shared && numbers_only) << "overlapping parts refused otherwise: " << e.message();
    ADD_FAILURE() << "refused for another reason: " << e.message();
    return Verdict::Limitation;
  }
}

// A random part within the shape; with probability 1/3 it takes another part's bounds
// in one dimension and steps only there, or everywhere but there, so that parts that
// share rows but no columns (or differ only by their steps) are frequent.
OverlapGen random_gen(runtime::Rng& rng, const Case& c) {
  OverlapGen g;
  const bool stepped = rng.below(3) != 0;
  const bool widths = stepped && rng.below(2) == 0;
  for (int d = 0; d < c.rank; ++d) {
    const int64_t n = c.shape[d];
    int64_t lb = rng.below(n), ub = lb + 1 + rng.below(n - lb);
    if (rng.below(3) == 0) lb = 0;
    if (rng.below(3) == 0) ub = n;
    g.lb.push_back(lb);
    g.ub.push_back(ub);
    g.ub_is_size.push_back(ub == n && rng.below(2) == 0);
    int64_t s = 1 + rng.below(4);
    g.step.push_back(s);
    g.width.push_back(1 + rng.below(s));
  }
  if (!c.parts.empty() && rng.below(3) == 0) {
    const OverlapGen& o = c.parts[rng.below(static_cast<int64_t>(c.parts.size()))];
    int d = static_cast<int>(rng.below(c.rank));
    g.lb[d] = o.lb[d];
    g.ub[d] = o.ub[d];
    g.ub_is_size[d] = o.ub_is_size[d];
  }
  if (!stepped) g.step.clear();
  if (!widths) g.width.clear();
  return g;
}

// Parts that step alike and interleave: in each dimension a step s (1 to 3) and a first
// row b, each part starting at b + an offset below s (distinct offsets, or, one case in
// four, a repeated one, which overlaps), with a width that keeps it within its offset's
// rows or, rarely, reaches into the next offset's; upper bounds shared (the size or a
// number) or not. Random other parts join one case in three.
Case random_interleaved(runtime::Rng& rng, int rank, bool fold) {
  Case c;
  c.rank = rank;
  c.fold = fold;
  for (int d = 0; d < rank; ++d) c.shape.push_back(1 + rng.below(rank == 1 ? 9 : 6));
  std::vector<int64_t> step, base, ub;
  std::vector<bool> ub_size;
  for (int d = 0; d < rank; ++d) {
    step.push_back(1 + rng.below(3));
    base.push_back(std::min<int64_t>(rng.below(2), c.shape[d]));
    const bool to_size = rng.below(3) != 0;
    ub.push_back(to_size ? c.shape[d] : base[d] + rng.below(c.shape[d] - base[d] + 1));
    ub_size.push_back(to_size && rng.below(4) != 0);
  }
  int64_t colours = 1;
  for (int64_t s : step) colours *= s;
  const int parts = static_cast<int>(std::min<int64_t>(colours, 2 + rng.below(3)));
  std::set<std::vector<int64_t>> used;
  for (int p = 0; p < parts; ++p) {
    OverlapGen g;
    std::vector<int64_t> off;
    for (int attempt = 0; attempt < 8; ++attempt) {
      off.clear();
      for (int d = 0; d < rank; ++d) off.push_back(rng.below(step[d]));
      if (!used.count(off) || rng.below(4) == 0) break;
    }
    used.insert(off);
    bool empty = false;
    for (int d = 0; d < rank; ++d) {
      g.lb.push_back(base[d] + off[d]);
      g.ub.push_back(ub[d]);
      g.ub_is_size.push_back(ub_size[d]);
      g.step.push_back(step[d]);
      g.width.push_back(rng.below(6) == 0 ? 1 + rng.below(step[d]) : 1);
      empty = empty || g.lb[d] >= ub[d];
    }
    // An empty part (lb = ub at these sizes) is compared by its bounds as written,
    // for every size (docs/language.md): not this test's matter.
    if (empty) continue;
    if (rng.below(4) == 0) {  // its own upper bound in one dimension
      int d = static_cast<int>(rng.below(rank));
      g.ub[d] = g.lb[d] + 1 + rng.below(c.shape[d] - g.lb[d]);
      g.ub_is_size[d] = g.ub[d] == c.shape[d] && rng.below(2) == 0;
    }
    c.parts.push_back(g);
  }
  if (c.parts.empty() || rng.below(3) == 0) c.parts.push_back(random_gen(rng, c));
  return c;
}

TEST(WithLoopOverlap, InterleavedSteppedPartsMatchBruteForce) {
  runtime::Rng rng(20261130);
  std::map<Verdict, int> seen;
  const int kCases = 300;
  for (int k = 0; k < kCases; ++k) {
    Case c = random_interleaved(rng, 1 + static_cast<int>(rng.below(2)), rng.below(3) == 0);
    ++seen[check_case(c, "wl_interleaved_" + std::to_string(k) + ".rise")];
  }
  std::printf("interleaved with-loops: %d accepted, %d refused as overlapping\n",
              seen[Verdict::Accepted], seen[Verdict::Overlap]);
  EXPECT_GE(seen[Verdict::Accepted], kCases / 3);
  EXPECT_GE(seen[Verdict::Overlap], kCases / 20);
  EXPECT_EQ(seen[Verdict::Limitation], 0);
}

// Red/black in 1-D and 2-D, a checkerboard's four colours, offsets 0, 1, 2 of
// step [3], a checkerboard's two colours with the rest the default, and a colour
// repeated (overlapping), at sizes 1 to 6 (odd and even), in a genarray and a fold.
TEST(WithLoopOverlap, RedBlackAndCheckerboards) {
  struct Named {
    int rank;
    std::vector<std::vector<int64_t>> lbs;
    std::vector<int64_t> step;
    bool overlap;
  };
  const std::vector<Named> cases = {
      {1, {{0}, {1}}, {2}, false},
      {1, {{0}, {1}, {2}}, {3}, false},
      {1, {{2}, {0}, {1}}, {3}, false},
      {2, {{0, 0}, {1, 1}}, {2, 2}, false},
      {2, {{0, 0}, {1, 1}, {0, 1}, {1, 0}}, {2, 2}, false},
      {2, {{0, 1}, {1, 0}}, {2, 2}, false},
      {2, {{0, 0}, {1, 0}, {2, 0}}, {3, 1}, false},
      {1, {{0}, {1}, {2}}, {2}, true},
      {2, {{0, 0}, {1, 1}, {0, 0}}, {2, 2}, true},
  };
  int k = 0;
  for (const Named& nc : cases)
    for (bool fold : {false, true})
      for (int64_t n = 1; n <= 6; ++n) {
        Case c;
        c.rank = nc.rank;
        c.fold = fold;
        c.shape.assign(nc.rank, n);
        if (nc.rank == 2) c.shape[1] = 7 - n;
        bool fits = true;
        for (const auto& lb : nc.lbs) {
          OverlapGen g;
          g.lb = lb;
          for (int d = 0; d < nc.rank; ++d) fits = fits && lb[d] < c.shape[d];
          g.ub = c.shape;
          g.ub_is_size.assign(nc.rank, true);
          g.step = nc.step;
          c.parts.push_back(g);
        }
        if (!fits) continue;  // an empty part: see random_interleaved
        Verdict v = check_case(c, "wl_redblack_" + std::to_string(k++) + ".rise");
        if (!nc.overlap) {
          EXPECT_EQ(v, Verdict::Accepted) << c.program();
        }
      }
}

TEST(WithLoopOverlap, VerdictMatchesBruteForceAndResultsTheInterpreter) {
  runtime::Rng rng(20261129);
  std::map<Verdict, int> seen;
  int stepped_beside_other = 0;  // accepted: a stepped part sharing rows with another
  const int kCases = 400;
  for (int k = 0; k < kCases; ++k) {
    Case c;
    c.rank = 1 + static_cast<int>(rng.below(3));
    c.fold = rng.below(3) == 0;
    for (int d = 0; d < c.rank; ++d) c.shape.push_back(3 + rng.below(c.rank == 3 ? 3 : 5));
    const int parts = 2 + static_cast<int>(rng.below(2));
    for (int p = 0; p < parts; ++p) c.parts.push_back(random_gen(rng, c));
    Verdict v = check_case(c, "wl_overlap_" + std::to_string(k) + ".rise");
    ++seen[v];
    if (v == Verdict::Accepted) {
      for (size_t p = 0; p < c.parts.size(); ++p)
        for (size_t q = 0; q < c.parts.size(); ++q)
          if (p != q && !c.parts[p].step.empty() && c.parts[p].lb[0] == c.parts[q].lb[0] &&
              c.parts[p].ub[0] == c.parts[q].ub[0] && c.parts[p].step[0] > 1)
            ++stepped_beside_other;
    }
  }
  std::printf("with-loop overlap: %d accepted, %d refused as overlapping, %d limitations\n",
              seen[Verdict::Accepted], seen[Verdict::Overlap], seen[Verdict::Limitation]);
  EXPECT_GE(seen[Verdict::Accepted], kCases / 10);
  EXPECT_GE(seen[Verdict::Overlap], kCases / 10);
  EXPECT_EQ(seen[Verdict::Limitation], 0);
  EXPECT_GE(stepped_beside_other, 5);
}

// The tester's with-loops (wl_t6.rise and its neighbours): a step on the outer
// dimension beside a part with the same rows and other columns.
TEST(WithLoopOverlap, SteppedRowsBesideOtherColumnsAreDisjoint) {
  const std::vector<std::vector<int64_t>> steps = {{2, 1}, {2, 2}, {3, 1}, {2, 1}, {1, 2}};
  const std::vector<std::vector<int64_t>> widths = {{}, {}, {2, 1}, {1, 1}, {}};
  int k = 0;
  for (bool fold : {false, true})
    for (size_t s = 0; s < steps.size(); ++s) {
      Case c;
      c.rank = 2;
      c.fold = fold;
      c.shape = {4 + static_cast<int64_t>(s), 5};
      OverlapGen left{{0, 0}, {c.shape[0], 1}, steps[s], widths[s], {true, false}};
      OverlapGen right{{0, 1}, {c.shape[0], 5}, {}, {}, {true, true}};
      c.parts = {left, right};
      EXPECT_EQ(check_case(c, "wl_t6_" + std::to_string(k++) + ".rise"), Verdict::Accepted);
      // The same rows, with the other part's columns reaching into the first's.
      c.parts[1].lb[1] = 0;
      EXPECT_EQ(check_case(c, "wl_t6_" + std::to_string(k++) + ".rise"), Verdict::Overlap);
    }
}

}  // namespace
}  // namespace risec::rise
