// The fast path's nodes evaluated (see interp_fast_internal.h): leaves, loops, views,
// copies and the outermost map's threads.
#include <algorithm>
#include <exception>
#include <thread>

#include "rise/interp_fast_internal.h"

namespace risec::rise::fast {

// ---- leaves ----

namespace {

void layout_into(const Type& t, int depth, std::vector<Leaf>& out) {
  switch (t->kind) {
    case TypeKind::Scalar:
      out.push_back(Leaf{depth > 0, t->scalar, depth});
      return;
    case TypeKind::Index:
      out.push_back(Leaf{depth > 0, ScalarKind::I64, depth, true, const_nat(t->size)});
      return;
    case TypeKind::Array:
      if (depth + 1 >= kMaxRank) unsupported();
      const_nat(t->size);
      layout_into(t->a, depth + 1, out);
      return;
    case TypeKind::Pair:
      layout_into(t->a, depth, out);
      layout_into(t->b, depth, out);
      return;
    default:
      unsupported();
  }
}

}  // namespace

std::vector<Leaf> layout(const Type& t) {
  std::vector<Leaf> l;
  layout_into(t, 0, l);
  return l;
}

void set_type(Node& n, const Type& t) {
  n.t = t;
  n.leaves = layout(t);
  for (const Leaf& l : n.leaves) (l.arr ? n.na : n.ns)++;
}

void alloc_result(StridedArray* out, const std::vector<Leaf>& elem, int64_t n,
                  const StridedArray* sample) {
  int ai = 0, k = 0;
  for (const Leaf& l : elem) {
    int64_t shape[kMaxRank];
    shape[0] = n;
    int rank = 1;
    if (l.arr) {
      const StridedArray& e = sample[ai++];
      for (int d = 0; d < e.rank; ++d) shape[rank++] = e.shape[d];
    }
    out[k] = StridedArray::alloc(l.sk, rank, shape, false, &out[k]);
    ++k;
  }
}

void type_shapes(const Type& elem_t, StridedArray* a) {
  struct Walk {
    StridedArray* a;
    int ai = 0;
    void go(const Type& t, std::vector<int64_t>& dims) {
      switch (t->kind) {
        case TypeKind::Array:
          dims.push_back(const_nat(t->size));
          go(t->a, dims);
          dims.pop_back();
          return;
        case TypeKind::Pair:
          go(t->a, dims);
          go(t->b, dims);
          return;
        default:
          if (!dims.empty()) {
            StridedArray& x = a[ai++];
            x.rank = static_cast<int>(dims.size());
            for (size_t d = 0; d < dims.size(); ++d) x.shape[d] = dims[d];
          }
      }
    }
  } w{a};
  std::vector<int64_t> dims;
  w.go(elem_t, dims);
}

namespace {

// Copy the arrays `in` (element layout `elem`) to positions [at, at + n) of the
// contiguous arrays `out`.
void put_range(StridedArray* out, const std::vector<Leaf>& elem, int64_t at,
               const StridedArray* in) {
  for (size_t k = 0; k < elem.size(); ++k) {
    StridedArray& o = out[k];
    const auto es = static_cast<int64_t>(scalar_size(o.sk));
    std::byte* p = o.store->data() + (o.offset + at * o.stride[0]) * es;
    in[k].copy_to(p);
  }
}

}  // namespace

// ---- nodes ----

void Idx::run(Ctx& c, Sc* s, StridedArray* a) const {
  const int64_t k = i->scalar(c).i;
  if (k < 0 || k >= n) internal_error("fast interpreter: index out of range", span);
  x->run(c, nullptr, c.a + a0);
  elements(c.a + a0, elem, k, s, a);
}

void View::apply(StridedArray& v) const {
  switch (op) {
    case ViewOp::Split:
      v.split(depth, p1);
      return;
    case ViewOp::Join:
      if (!v.join(depth)) {
        v = v.c_order_copy();
        v.join(depth);
      }
      return;
    case ViewOp::Transpose:
      v.transpose(depth);
      return;
    case ViewOp::Slide:
      v.slide(depth, p1, p2, (v.shape[depth] - p1) / p2 + 1);
      return;
    case ViewOp::Take:
      v.take(depth, p1);
      return;
    case ViewOp::Drop:
      v.drop(depth, p1);
      return;
    case ViewOp::Reverse:
      v.reverse(depth);
      return;
  }
}

void Map::run(Ctx& c, Sc* s, StridedArray* a) const {
  (void)s;
  if (xs) xs->run(c, nullptr, c.a + x_a0);
  std::vector<StridedArray> shapes(static_cast<size_t>(body->na));
  type_shapes(elem_type(), shapes.data());
  alloc_result(a, out_elem, n, shapes.data());
  if (threads > 1 && n > 1) {
    run_parallel(c, a);
    return;
  }
  Cursors cur;
  const bool fast = xs && n > 0 && cur.init(c.a + x_a0, x_elem, c.s + p_s0, c.a + p_a0);
  if (fast && batch) {
    batch->run(c, cur, a, 0, n);
    return;
  }
  if (fast && out_elem.size() == 1 && !out_elem[0].arr) {
    // one scalar per element: stored straight into the result
    const ScalarKind sk = a[0].sk;
    const auto es = static_cast<int64_t>(scalar_size(sk));
    std::byte* out = a[0].store->data();
    for (int64_t i = 0; i < n; ++i) {
      cur.load_at(i);
      const Sc v = body->scalar(c);
      if (sk == ScalarKind::F32)
        std::memcpy(out + i * 4, &v.f, 4);
      else
        store(sk, out + i * es, v);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (fast)
      cur.load_at(i);
    else
      bind(c, i);
    body->run(c, c.s + b_s0, c.a + b_a0);
    put_element(a, out_elem, i, c.s + b_s0, c.a + b_a0);
  }
}

// Each thread works on its own copy of the frame and a contiguous block of indices;
// every element is computed exactly as in the sequential loop.
void Map::run_parallel(Ctx& c, StridedArray* a) const {
  const int T = static_cast<int>(std::min<int64_t>(threads, n));
  const int ns_frame = (*frame_sizes)[0], na_frame = (*frame_sizes)[1];
  std::vector<std::exception_ptr> errors(static_cast<size_t>(T));
  auto work = [&](int t) {
    try {
      std::vector<Sc> fs(c.s, c.s + ns_frame);
      std::vector<StridedArray> fa(c.a, c.a + na_frame);
      Ctx mine{fs.data(), fa.data()};
      const int64_t lo = n * t / T, hi = n * (t + 1) / T;
      Cursors cur;
      const bool fast =
          xs && hi > lo && cur.init(mine.a + x_a0, x_elem, mine.s + p_s0, mine.a + p_a0);
      if (fast && batch) {
        batch->run(mine, cur, a, lo, hi);
        return;
      }
      for (int64_t i = lo; i < hi; ++i) {
        if (fast)
          cur.load_at(i);
        else
          bind(mine, i);
        body->run(mine, mine.s + b_s0, mine.a + b_a0);
        put_element(a, out_elem, i, mine.s + b_s0, mine.a + b_a0);
      }
    } catch (...) {
      errors[static_cast<size_t>(t)] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < T; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  // The error of the lowest index block: the one the sequential loop meets first.
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

template <class T>
T Reduce::kernel_loop(const Cursors& cur, T acc) const {
  const std::byte* pa = cur.c[ki].p;
  const std::byte* pb = cur.c[kj].p;
  const int64_t sa = cur.c[ki].step, sb = cur.c[kj].step;
  if (kernel == Kernel::Sum) {
    for (int64_t i = 0; i < n; ++i) {
      T x;
      std::memcpy(&x, pa + i * sa, sizeof x);
      acc = apply_op<PrimId::Add>(acc, x);
    }
    return acc;
  }
  if (kernel == Kernel::SumAbs) {
    // acc + abs(x[i])
    for (int64_t i = 0; i < n; ++i) {
      T x;
      std::memcpy(&x, pa + i * sa, sizeof x);
      acc = apply_op<PrimId::Add>(acc, apply_op<PrimId::Abs>(x, x));
    }
    return acc;
  }
  if (kernel == Kernel::SumMath) {
    for (int64_t i = 0; i < n; ++i) {
      T x;
      std::memcpy(&x, pa + i * sa, sizeof x);
      acc = apply_op<PrimId::Add>(acc, static_cast<T>(math1(static_cast<double>(x))));
    }
    return acc;
  }
  for (int64_t i = 0; i < n; ++i) {
    T x, y;
    std::memcpy(&x, pa + i * sa, sizeof x);
    std::memcpy(&y, pb + i * sb, sizeof y);
    acc = apply_op<PrimId::Add>(acc, apply_op<PrimId::Mul>(x, y));
  }
  return acc;
}

void Reduce::run(Ctx& c, Sc* s, StridedArray* a) const {
  init->run(c, c.s + acc_s0, c.a + acc_a0);
  xs->run(c, nullptr, c.a + x_a0);
  Cursors cur;
  const bool fast = n > 0 && cur.init(c.a + x_a0, x_elem, c.s + e_s0, c.a + e_a0);
  if (fast && kernel != Kernel::None) {
    if (kernel_f64)
      s[0].d = kernel_loop<double>(cur, c.s[acc_s0].d);
    else
      s[0].f = kernel_loop<float>(cur, c.s[acc_s0].f);
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (fast)
      cur.load_at(i);
    else
      elements(c.a + x_a0, x_elem, i, c.s + e_s0, c.a + e_a0);
    if (g) g->run(c, c.s + y_s0, c.a + y_a0);
    if (scalar_acc) {
      c.s[acc_s0] = f->scalar(c);
    } else {
      f->run(c, c.s + r_s0, c.a + r_a0);
      copy_value(c.s + acc_s0, c.a + acc_a0, c.s + r_s0, c.a + r_a0);
    }
  }
  copy_value(s, a, c.s + acc_s0, c.a + acc_a0);
}

void IterateWhile::run(Ctx& c, Sc* s, StridedArray* a) const {
  init->run(c, c.s + st_s0, c.a + st_a0);
  for (int64_t i = 0; i < k && cond->scalar(c).i; ++i) {
    step->run(c, c.s + r_s0, c.a + r_a0);
    copy_value(c.s + st_s0, c.a + st_a0, c.s + r_s0, c.a + r_a0);
  }
  copy_value(s, a, c.s + st_s0, c.a + st_a0);
}

void Cached::run(Ctx& c, Sc* s, StridedArray* a) const {
  if (!c.s[flag].i) {
    x->run(c, c.s + s0, c.a + a0);
    for (int i = 0; i < na; ++i) {
      StridedArray& v = c.a[a0 + i];
      const int64_t n = v.count();
      if (n > 0 && static_cast<size_t>(n) * scalar_size(v.sk) <= v.store->buf.size() &&
          !v.contiguous())
        v = v.c_order_copy();
    }
    c.s[flag].i = 1;
  }
  for (int i = 0; i < ns; ++i) s[i] = c.s[s0 + i];
  for (int i = 0; i < na; ++i) a[i] = c.a[a0 + i];
}

void Pad::run(Ctx& c, Sc*, StridedArray* a) const {
  if (cst) cst->run(c, c.s + c_s0, c.a + c_a0);  // arguments in the boxed evaluator's order
  x->run(c, nullptr, c.a + x_a0);
  const StridedArray* in = c.a + x_a0;
  const int64_t n = in[0].shape[0];
  std::vector<StridedArray> shapes;
  for (int k = 0; k < na; ++k) {
    StridedArray e;
    e.rank = in[k].rank - 1;
    for (int d = 1; d < in[k].rank; ++d) e.shape[d - 1] = in[k].shape[d];
    if (elem[static_cast<size_t>(k)].arr) shapes.push_back(e);
  }
  alloc_result(a, elem, l + n + r, shapes.data());
  put_range(a, elem, l, in);
  std::vector<Sc> es(elem.size());
  std::vector<StridedArray> ea(elem.size());
  for (int side = 0; side < 2; ++side) {
    const int64_t from = side ? l + n : 0, to = side ? l + n + r : l;
    if (from == to) continue;
    if (!cst) elements(in, elem, side ? n - 1 : 0, es.data(), ea.data());
    for (int64_t i = from; i < to; ++i) {
      if (cst)
        put_element(a, elem, i, c.s + c_s0, c.a + c_a0);
      else
        put_element(a, elem, i, es.data(), ea.data());
    }
  }
}

void Concat::run(Ctx& c, Sc*, StridedArray* a) const {
  x->run(c, nullptr, c.a + x_a0);
  y->run(c, nullptr, c.a + y_a0);
  const StridedArray* xa = c.a + x_a0;
  const StridedArray* ya = c.a + y_a0;
  const int64_t n = xa[0].shape[0], m = ya[0].shape[0];
  std::vector<StridedArray> shapes(elem.size());
  type_shapes(t->a, shapes.data());
  alloc_result(a, elem, n + m, shapes.data());
  put_range(a, elem, 0, xa);
  put_range(a, elem, n, ya);
}

void Iterate::run(Ctx& c, Sc* s, StridedArray* a) const {
  if (steps.empty()) {
    x->run(c, s, a);
    return;
  }
  x->run(c, c.s + steps[0].s0, c.a + steps[0].a0);
  for (size_t j = 0; j + 1 < steps.size(); ++j)
    steps[j].body->run(c, c.s + steps[j + 1].s0, c.a + steps[j + 1].a0);
  steps.back().body->run(c, s, a);
}

void MakeArray::run(Ctx& c, Sc*, StridedArray* a) const {
  std::vector<StridedArray> shapes(elem.size());
  type_shapes(t->a, shapes.data());
  alloc_result(a, elem, static_cast<int64_t>(xs.size()), shapes.data());
  for (size_t i = 0; i < xs.size(); ++i) {
    xs[i]->run(c, c.s + e_s0, c.a + e_a0);
    put_element(a, elem, static_cast<int64_t>(i), c.s + e_s0, c.a + e_a0);
  }
}

}  // namespace risec::rise::fast
