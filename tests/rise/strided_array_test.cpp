// StridedArray (rise/value.h) is the one strided array type of both evaluators: the
// boxed evaluator's DenseArray and the fast path's array leaves. Its view operations
// (slide, split, join, transpose, take, drop, reverse, row) are checked here against a
// plain model, an array as its shape and its elements in C order: random arrays get
// random sequences of views applied to both, and the view's elements read in C order
// (copy_to), through c_order_copy, through row and as a Value (dense_view, at) must be
// the model's.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "rise/value.h"

namespace risec::rise {
namespace {

// The model: shape and elements in C order.
struct Model {
  std::vector<int64_t> shape;
  std::vector<int32_t> elems;
};

int64_t count_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

// The C-order position of index `idx` in `shape`.
int64_t flat(const std::vector<int64_t>& shape, const std::vector<int64_t>& idx) {
  int64_t p = 0;
  for (size_t d = 0; d < shape.size(); ++d) p = p * shape[d] + idx[d];
  return p;
}

// A new model of shape `shape` whose element at idx is old's at from(idx).
template <class F>
Model remap(const Model& old, std::vector<int64_t> shape, F from) {
  Model m;
  m.shape = std::move(shape);
  const int64_t n = count_of(m.shape);
  std::vector<int64_t> idx(m.shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t rest = k;
    for (size_t d = m.shape.size(); d-- > 0;) {
      idx[d] = rest % m.shape[d];
      rest /= m.shape[d];
    }
    m.elems.push_back(old.elems[static_cast<size_t>(flat(old.shape, from(idx)))]);
  }
  return m;
}

std::vector<int32_t> read_c_order(const StridedArray& a) {
  std::vector<int32_t> out(static_cast<size_t>(a.count()));
  std::byte* p = reinterpret_cast<std::byte*>(out.data());
  a.copy_to(p);
  return out;
}

std::string show(const std::vector<int64_t>& v) {
  std::string s;
  for (int64_t x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return "[" + s + "]";
}

TEST(StridedArray, ViewsAgreeWithTheModel) {
  std::mt19937 rng(2026);
  auto pick = [&](int64_t lo, int64_t hi) {  // in [lo, hi]
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  int joins_copied = 0, views = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    // A fresh C-order array of i32 holding 0, 1, 2, ...
    const int rank = static_cast<int>(pick(1, 3));
    std::vector<int64_t> shape;
    for (int d = 0; d < rank; ++d) shape.push_back(pick(1, 6));
    StridedArray a = StridedArray::alloc(ScalarKind::I32, rank, shape.data());
    Model m{shape, {}};
    for (int64_t k = 0; k < count_of(shape); ++k) {
      const auto v = static_cast<int32_t>(k);
      std::memcpy(a.ptr(k), &v, 4);
      m.elems.push_back(v);
    }
    ASSERT_TRUE(a.contiguous());
    std::string ops;
    for (int step = pick(1, 5); step-- > 0;) {
      const int d = static_cast<int>(pick(0, a.rank - 1));
      const int64_t n = a.shape[d];
      const int op = static_cast<int>(pick(0, 6));
      if (op == 0 && a.rank < kMaxDenseRank && n >= 1) {  // slide
        const int64_t sz = pick(1, n), sp = pick(1, 3), count = (n - sz) / sp + 1;
        a.slide(d, sz, sp, count);
        std::vector<int64_t> s = m.shape;
        s[static_cast<size_t>(d)] = count;
        s.insert(s.begin() + d + 1, sz);
        m = remap(m, s, [&](const std::vector<int64_t>& i) {
          std::vector<int64_t> o = i;
          o[static_cast<size_t>(d)] =
              i[static_cast<size_t>(d)] * sp + i[static_cast<size_t>(d) + 1];
          o.erase(o.begin() + d + 1);
          return o;
        });
        ops += " slide(" + std::to_string(d) + "," + std::to_string(sz) + "," + std::to_string(sp) +
               ")";
      } else if (op == 1 && a.rank < kMaxDenseRank && n >= 2 && n % 2 == 0) {  // split
        a.split(d, 2);
        std::vector<int64_t> s = m.shape;
        s[static_cast<size_t>(d)] = n / 2;
        s.insert(s.begin() + d + 1, 2);
        m = remap(m, s, [&](const std::vector<int64_t>& i) {
          std::vector<int64_t> o = i;
          o[static_cast<size_t>(d)] = i[static_cast<size_t>(d)] * 2 + i[static_cast<size_t>(d) + 1];
          o.erase(o.begin() + d + 1);
          return o;
        });
        ops += " split(" + std::to_string(d) + ",2)";
      } else if (op == 2 && d + 1 < a.rank) {  // join
        if (!a.join(d)) {
          a = a.c_order_copy();
          ASSERT_TRUE(a.contiguous());
          ASSERT_TRUE(a.join(d));
          ++joins_copied;
        }
        const int64_t inner = m.shape[static_cast<size_t>(d) + 1];
        std::vector<int64_t> s = m.shape;
        s[static_cast<size_t>(d)] *= inner;
        s.erase(s.begin() + d + 1);
        m = remap(m, s, [&](const std::vector<int64_t>& i) {
          std::vector<int64_t> o = i;
          o[static_cast<size_t>(d)] = i[static_cast<size_t>(d)] / inner;
          o.insert(o.begin() + d + 1, i[static_cast<size_t>(d)] % inner);
          return o;
        });
        ops += " join(" + std::to_string(d) + ")";
      } else if (op == 3 && d + 1 < a.rank) {  // transpose
        a.transpose(d);
        std::vector<int64_t> s = m.shape;
        std::swap(s[static_cast<size_t>(d)], s[static_cast<size_t>(d) + 1]);
        m = remap(m, s, [&](std::vector<int64_t> i) {
          std::swap(i[static_cast<size_t>(d)], i[static_cast<size_t>(d) + 1]);
          return i;
        });
        ops += " transpose(" + std::to_string(d) + ")";
      } else if (op == 4) {  // take
        const int64_t k = pick(0, n);
        a.take(d, k);
        std::vector<int64_t> s = m.shape;
        s[static_cast<size_t>(d)] = k;
        m = remap(m, s, [](const std::vector<int64_t>& i) { return i; });
        ops += " take(" + std::to_string(d) + "," + std::to_string(k) + ")";
      } else if (op == 5) {  // drop
        const int64_t k = pick(0, n);
        a.drop(d, k);
        std::vector<int64_t> s = m.shape;
        s[static_cast<size_t>(d)] = n - k;
        m = remap(m, s, [&](std::vector<int64_t> i) {
          i[static_cast<size_t>(d)] += k;
          return i;
        });
        ops += " drop(" + std::to_string(d) + "," + std::to_string(k) + ")";
      } else if (op == 6 && n >= 1) {  // reverse
        a.reverse(d);
        m = remap(m, m.shape, [&](std::vector<int64_t> i) {
          i[static_cast<size_t>(d)] = n - 1 - i[static_cast<size_t>(d)];
          return i;
        });
        ops += " reverse(" + std::to_string(d) + ")";
      } else {
        continue;
      }
      ++views;
    }
    SCOPED_TRACE("shape " + show(shape) + ", views" + ops);
    ASSERT_EQ(std::vector<int64_t>(a.shape, a.shape + a.rank), m.shape);
    ASSERT_EQ(a.count(), static_cast<int64_t>(m.elems.size()));
    EXPECT_EQ(read_c_order(a), m.elems);
    if (a.count() == 0) continue;
    const StridedArray c = a.c_order_copy();
    EXPECT_TRUE(c.contiguous());
    EXPECT_EQ(read_c_order(c), m.elems);
    // Rows: each row's elements are the model's slice.
    if (a.rank > 1) {
      const int64_t per = a.count() / a.shape[0];
      for (int64_t i = 0; i < a.shape[0]; ++i) {
        StridedArray r;
        a.row(i, r);
        ASSERT_EQ(r.rank, a.rank - 1);
        EXPECT_EQ(read_c_order(r),
                  std::vector<int32_t>(m.elems.begin() + i * per, m.elems.begin() + (i + 1) * per));
      }
    }
    // The same view as a Value: element access agrees.
    Value v = dense_view(a);
    Value leaf = v;
    std::vector<int64_t> first(static_cast<size_t>(a.rank), 0);
    for (int d = 0; d < a.rank; ++d) {
      first[static_cast<size_t>(d)] = a.shape[d] - 1;
      leaf = leaf.at(a.shape[d] - 1);
    }
    EXPECT_EQ(leaf.as_i64(), m.elems[static_cast<size_t>(flat(m.shape, first))]);
  }
  // The generator reaches the interesting cases.
  EXPECT_GT(views, 5000);
  EXPECT_GT(joins_copied, 50);
}

}  // namespace
}  // namespace risec::rise
