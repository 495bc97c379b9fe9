// The interpreter's fast path (see interp_fast.h): translation of a closed entry into
// nodes over leaves (scalar slots and strided array views), and their evaluation.
#include "rise/interp_fast.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "rise/interp.h"
#include "rise/interp_prims.h"
#include "support/diagnostics.h"

namespace risec::rise {

namespace {

// Thrown while translating when the fast path does not cover a construct.
struct Unsupported {};

// (__builtin_LINE, not std::source_location, which clang 14 lacks with libstdc++ 12.)
[[noreturn]] void unsupported(unsigned line = __builtin_LINE()) {
  if (std::getenv("RISEC_FAST_TRACE"))
    std::fprintf(stderr, "fast interpreter: not covered (interp_fast.cpp:%u)\n", line);
  throw Unsupported{};
}

int64_t const_nat(const Nat& n) {
  auto v = n.as_const();
  if (!v) unsupported();
  return *v;
}

// ---- leaves ----

union Sc {
  int64_t i;
  float f;
  double d;
};

inline constexpr int kMaxRank = 8;

// A strided view of scalars of kind sk (indices are stored as i64).
struct Arr {
  std::shared_ptr<Storage> st;
  ScalarKind sk = ScalarKind::F32;
  int rank = 0;
  int64_t off = 0;
  int64_t shape[kMaxRank] = {};
  int64_t stride[kMaxRank] = {};
  int64_t count() const {
    int64_t c = 1;
    for (int d = 0; d < rank; ++d) c *= shape[d];
    return c;
  }
};

// An integer of type T at p, widened to the slot.
template <typename T>
inline Sc load_int(const std::byte* p) {
  T x;
  std::memcpy(&x, p, sizeof x);
  Sc r{};
  r.i = static_cast<int64_t>(x);
  return r;
}

inline Sc load(ScalarKind k, const std::byte* p) {
  Sc r{};
  switch (k) {
    case ScalarKind::F32:
      std::memcpy(&r.f, p, 4);
      return r;
    case ScalarKind::F64:
      std::memcpy(&r.d, p, 8);
      return r;
    case ScalarKind::Bool:
      r.i = load_int<uint8_t>(p).i != 0;
      return r;
    case ScalarKind::I8:
      return load_int<int8_t>(p);
    case ScalarKind::U8:
      return load_int<uint8_t>(p);
    case ScalarKind::I16:
      return load_int<int16_t>(p);
    case ScalarKind::U16:
      return load_int<uint16_t>(p);
    case ScalarKind::I32:
      return load_int<int32_t>(p);
    case ScalarKind::U32:
      return load_int<uint32_t>(p);
    case ScalarKind::I64:
    case ScalarKind::U64:
      std::memcpy(&r.i, p, 8);
      return r;
  }
  return r;
}

inline void store(ScalarKind k, std::byte* p, Sc v) {
  switch (k) {
    case ScalarKind::F32:
      std::memcpy(p, &v.f, 4);
      return;
    case ScalarKind::F64:
      std::memcpy(p, &v.d, 8);
      return;
    default:
      std::memcpy(p, &v.i, scalar_size(k));  // little-endian: the low bytes
      return;
  }
}

inline const std::byte* at_ptr(const Arr& a, int64_t e) {
  return a.st->data() + e * static_cast<int64_t>(scalar_size(a.sk));
}

// Scalars as the boxed evaluator's Values and back.
Value to_value(Sc s, ScalarKind k) {
  if (k == ScalarKind::F32) return Value::f32(s.f);
  if (k == ScalarKind::F64) return Value::f64(s.d);
  if (k == ScalarKind::Bool) return Value::boolean(s.i != 0);
  return Value::integer(k, s.i);
}
Sc from_value(const Value& v) {
  Sc s;
  if (v.kind() != ValueKind::Scalar) internal_error("fast interpreter: a non-scalar result");
  if (v.scalar_kind() == ScalarKind::F32)
    s.f = v.raw_f32();
  else if (v.scalar_kind() == ScalarKind::F64)
    s.d = v.raw_f64();
  else
    s.i = v.raw_int();
  return s;
}

// One leaf of a data type's layout.
struct Leaf {
  bool arr = false;
  ScalarKind sk = ScalarKind::F32;
  int rank = 0;
  bool index = false;  // idx[n] (stored as i64)
  int64_t bound = 0;   // index: n
};

void layout(const Type& t, int depth, std::vector<Leaf>& out) {
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
      layout(t->a, depth + 1, out);
      return;
    case TypeKind::Pair:
      layout(t->a, depth, out);
      layout(t->b, depth, out);
      return;
    default:
      unsupported();
  }
}
std::vector<Leaf> layout(const Type& t) {
  std::vector<Leaf> l;
  layout(t, 0, l);
  return l;
}

// ---- nodes ----

struct Ctx {
  Sc* s;
  Arr* a;
};

struct Node {
  Type t;
  std::vector<Leaf> leaves;
  int ns = 0, na = 0;  // scalar and array leaves
  virtual ~Node() = default;
  // Write the value's scalar leaves to s[0..ns) and array leaves to a[0..na).
  virtual void run(Ctx& c, Sc* s, Arr* a) const = 0;
  // A scalar-typed node's value.
  virtual Sc scalar(Ctx& c) const {
    Sc r;
    run(c, &r, nullptr);
    return r;
  }
  // Copy a value of this node's type from the leaves at (ss, sa) to (ds, da).
  void copy_value(Sc* ds, Arr* da, const Sc* ss, const Arr* sa) const {
    for (int k = 0; k < ns; ++k) ds[k] = ss[k];
    for (int k = 0; k < na; ++k) da[k] = sa[k];
  }
};
using NodeP = std::unique_ptr<Node>;

void set_type(Node& n, const Type& t) {
  n.t = t;
  n.leaves = layout(t);
  for (const Leaf& l : n.leaves) (l.arr ? n.na : n.ns)++;
}

struct ScalarNode : Node {
  void run(Ctx& c, Sc* s, Arr*) const override { s[0] = scalar(c); }
};

struct Const final : ScalarNode {
  Sc v;
  Sc scalar(Ctx&) const override { return v; }
};

// A variable: leaves held in frame slots.
struct Var final : Node {
  std::vector<int> sslots, aslots;
  void run(Ctx& c, Sc* s, Arr* a) const override {
    for (size_t i = 0; i < sslots.size(); ++i) s[i] = c.s[sslots[i]];
    for (size_t i = 0; i < aslots.size(); ++i) a[i] = c.a[aslots[i]];
  }
  Sc scalar(Ctx& c) const override { return c.s[s0]; }
  int s0 = 0;  // sslots[0]
};

// Binary f32/f64 arithmetic and comparisons, as the boxed float_op computes them.
template <class T, PrimId Op>
struct FloatBin final : ScalarNode {
  NodeP x, y;
  static T get(Sc s) {
    if constexpr (std::is_same_v<T, float>)
      return s.f;
    else
      return s.d;
  }
  static Sc put(T v) {
    Sc s;
    if constexpr (std::is_same_v<T, float>)
      s.f = v;
    else
      s.d = v;
    return s;
  }
  Sc scalar(Ctx& c) const override {
    const T a = get(x->scalar(c));
    const T b = get(y->scalar(c));
    Sc r{};
    if constexpr (Op == PrimId::Add) return put(a + b);
    if constexpr (Op == PrimId::Sub) return put(a - b);
    if constexpr (Op == PrimId::Mul) return put(a * b);
    if constexpr (Op == PrimId::Div) return put(a / b);
    if constexpr (Op == PrimId::Gt) r.i = a > b;
    if constexpr (Op == PrimId::Lt) r.i = a < b;
    if constexpr (Op == PrimId::Equal) r.i = a == b;
    return r;
  }
};

// neg and the one-argument math builtins on f32/f64, as float_op computes them: neg
// in the operand's type, a builtin in double rounded to it.
template <class T>
struct FloatUnary final : ScalarNode {
  NodeP x;
  double (*math1)(double) = nullptr;  // null: neg
  bool abs = false;                   // math1 is abs: |x| in T directly (the same value, no call)
  Sc scalar(Ctx& c) const override {
    Sc a = x->scalar(c), r{};
    if (abs) {
      if constexpr (std::is_same_v<T, float>)
        r.f = std::fabs(a.f);
      else
        r.d = std::fabs(a.d);
      return r;
    }
    if constexpr (std::is_same_v<T, float>)
      r.f = math1 ? static_cast<float>(math1(static_cast<double>(a.f))) : -a.f;
    else
      r.d = math1 ? math1(a.d) : -a.d;
    return r;
  }
};

// Any other scalar operation: the boxed scalar_op on scalar Values.
struct BoxedOp final : ScalarNode {
  ScalarOp op = nullptr;
  ScalarKind k = ScalarKind::F32;
  NodeP x, y;  // y null when unary
  Span span;
  Sc scalar(Ctx& c) const override {
    Value a = to_value(x->scalar(c), k);
    Value b = y ? to_value(y->scalar(c), k) : Value();
    return from_value(scalar_op(op, a, b, span));
  }
};

struct Cast final : ScalarNode {
  NodeP x;
  ScalarKind from = ScalarKind::F32;
  Type to;
  Span span;
  Sc scalar(Ctx& c) const override {
    return from_value(cast_value(to_value(x->scalar(c), from), to, span));
  }
};

// select(c)(a)(b): only the branch it picks is evaluated.
struct Select final : Node {
  NodeP cond, a, b;
  void run(Ctx& c, Sc* s, Arr* ar) const override { (cond->scalar(c).i ? a : b)->run(c, s, ar); }
  Sc scalar(Ctx& c) const override { return (cond->scalar(c).i ? a : b)->scalar(c); }
};

// let-like binding: the value into frame slots, then the body.
struct Let final : Node {
  NodeP value, body;
  int s0 = 0, a0 = 0;  // the value's first slots (consecutive)
  void run(Ctx& c, Sc* s, Arr* a) const override {
    value->run(c, c.s + s0, c.a + a0);
    body->run(c, s, a);
  }
  Sc scalar(Ctx& c) const override {
    value->run(c, c.s + s0, c.a + a0);
    return body->scalar(c);
  }
};

// makePair: both components' leaves side by side.
struct MakePair final : Node {
  NodeP x, y;
  void run(Ctx& c, Sc* s, Arr* a) const override {
    x->run(c, s, a);
    y->run(c, s + x->ns, a + x->na);
  }
};

// The same leaves under another type (unzip).
struct Same final : Node {
  NodeP x;
  void run(Ctx& c, Sc* s, Arr* a) const override { x->run(c, s, a); }
};

// fst/snd: a part of the child's leaves (computed into temporaries).
struct Project final : Node {
  NodeP x;
  int s0 = 0, a0 = 0;          // temporaries for the child's leaves
  int skip_s = 0, skip_a = 0;  // leaves before the part
  void run(Ctx& c, Sc* s, Arr* a) const override {
    x->run(c, c.s + s0, c.a + a0);
    for (int i = 0; i < ns; ++i) s[i] = c.s[s0 + skip_s + i];
    for (int i = 0; i < na; ++i) a[i] = c.a[a0 + skip_a + i];
  }
};

// Element i of every array leaf: scalars are loaded, higher ranks become views.
inline void element(const Arr& x, int64_t i, Sc* s, Arr* a) {
  const int64_t e = x.off + i * x.stride[0];
  if (x.rank == 1) {
    *s = load(x.sk, at_ptr(x, e));
    return;
  }
  a->st = x.st;
  a->sk = x.sk;
  a->rank = x.rank - 1;
  a->off = e;
  for (int d = 1; d < x.rank; ++d) {
    a->shape[d - 1] = x.shape[d];
    a->stride[d - 1] = x.stride[d];
  }
}

// The elements i of all leaves of an array-typed value held in arrays[0..n).
inline void elements(const Arr* arrays, const std::vector<Leaf>& elem_leaves, int64_t i, Sc* s,
                     Arr* a) {
  int si = 0, ai = 0, k = 0;
  for (const Leaf& l : elem_leaves) {
    if (l.arr)
      element(arrays[k++], i, nullptr, a + ai++);
    else
      element(arrays[k++], i, s + si++, nullptr);
  }
}

// Loads of element i of arrays whose elements are scalars, straight into frame slots
// (the common case of a loop: no dispatch on the element's layout).
struct Cursors {
  struct One {
    const std::byte* p;
    int64_t step;  // bytes
    ScalarKind sk;
    Sc* dst;
  };
  One c[8];
  int n = 0;
  // Array elements: views set up once, only their offsets move.
  struct View1 {
    Arr* dst;
    int64_t off0, step;  // elements
  };
  View1 v[8];
  int nv = 0;
  // false when there are too many leaves
  bool init(const Arr* arrays, const std::vector<Leaf>& elem, Sc* dst, Arr* adst = nullptr) {
    if (elem.size() > 8) return false;
    n = nv = 0;
    int k = 0;
    for (const Leaf& l : elem) {
      const Arr& x = arrays[k++];
      if (l.arr) {
        if (!adst) return false;
        element(x, 0, nullptr, adst + nv);
        v[nv] = View1{adst + nv, x.off, x.stride[0]};
        ++nv;
        continue;
      }
      const auto es = static_cast<int64_t>(scalar_size(x.sk));
      c[n] = One{x.st->data() + x.off * es, x.stride[0] * es, x.sk, dst + n};
      ++n;
    }
    return true;
  }
  void load_at(int64_t i) const {
    for (int k = 0; k < n; ++k) {
      const One& o = c[k];
      if (o.sk == ScalarKind::F32)
        std::memcpy(&o.dst->f, o.p + i * o.step, 4);
      else
        *o.dst = load(o.sk, o.p + i * o.step);
    }
    for (int k = 0; k < nv; ++k) v[k].dst->off = v[k].off0 + i * v[k].step;
  }
};

// v[i]...[j] on a variable holding one array: the element's address is computed
// directly (a stencil's nbh[1][2]), without intermediate views.
struct VarIdx final : Node {
  int slot = 0;
  std::vector<NodeP> idx;
  std::vector<int64_t> cidx;  // constant indices (-1: idx[d] is computed)
  int64_t element_offset(Ctx& c, const Arr& v) const {
    int64_t e = v.off;
    for (size_t d = 0; d < idx.size(); ++d)
      e += (cidx[d] >= 0 ? cidx[d] : idx[d]->scalar(c).i) * v.stride[d];
    return e;
  }
  Sc scalar(Ctx& c) const override {
    const Arr& v = c.a[slot];
    return load(v.sk, at_ptr(v, element_offset(c, v)));
  }
  void run(Ctx& c, Sc* s, Arr* a) const override {
    if (ns) {
      s[0] = scalar(c);
      return;
    }
    const Arr& v = c.a[slot];
    const int k = static_cast<int>(idx.size());
    Arr& r = a[0];
    r.st = v.st;
    r.sk = v.sk;
    r.off = element_offset(c, v);
    r.rank = v.rank - k;
    for (int d = k; d < v.rank; ++d) {
      r.shape[d - k] = v.shape[d];
      r.stride[d - k] = v.stride[d];
    }
  }
};

// x[i]
struct Idx final : Node {
  NodeP i, x;
  int a0 = 0;
  int64_t n = 0;
  std::vector<Leaf> elem;
  Span span;
  void run(Ctx& c, Sc* s, Arr* a) const override {
    const int64_t k = i->scalar(c).i;
    if (k < 0 || k >= n) internal_error("fast interpreter: index out of range", span);
    x->run(c, nullptr, c.a + a0);
    elements(c.a + a0, elem, k, s, a);
  }
};

// A contiguous, freshly allocated array of kind sk and the given shape.
Arr alloc(ScalarKind sk, int rank, const int64_t* shape) {
  Arr r;
  r.sk = sk;
  r.rank = rank;
  int64_t n = 1;
  for (int d = rank; d-- > 0;) {
    r.shape[d] = shape[d];
    r.stride[d] = n;
    n *= shape[d];
  }
  r.st = std::make_shared<Storage>(static_cast<size_t>(n) * scalar_size(sk));
  return r;
}

// The same, reusing the buffer `old` holds when nothing else refers to it and its size
// fits (the previous result of the same node, already consumed: no allocation per
// iteration for a map nested in a map).
Arr alloc_reusing(const Arr& old, ScalarKind sk, int rank, const int64_t* shape) {
  int64_t n = 1;
  for (int d = 0; d < rank; ++d) n *= shape[d];
  if (!old.st || old.st.use_count() != 1 ||
      old.st->buf.size() != static_cast<size_t>(n) * scalar_size(sk))
    return alloc(sk, rank, shape);
  Arr r;
  r.st = old.st;
  r.sk = sk;
  r.rank = rank;
  n = 1;
  for (int d = rank; d-- > 0;) {
    r.shape[d] = shape[d];
    r.stride[d] = n;
    n *= shape[d];
  }
  return r;
}

// Copy a view in C order to dst (advanced past it).
void copy_out(const Arr& x, int d, int64_t e, std::byte*& dst) {
  const size_t es = scalar_size(x.sk);
  if (d == x.rank - 1) {
    const int64_t n = x.shape[d], st = x.stride[d];
    const std::byte* base = x.st->data();
    if (st == 1) {
      std::memcpy(dst, base + e * static_cast<int64_t>(es), static_cast<size_t>(n) * es);
      dst += static_cast<size_t>(n) * es;
      return;
    }
    for (int64_t i = 0; i < n; ++i, dst += es)
      std::memcpy(dst, base + (e + i * st) * static_cast<int64_t>(es), es);
    return;
  }
  for (int64_t i = 0; i < x.shape[d]; ++i) copy_out(x, d + 1, e + i * x.stride[d], dst);
}
Arr contiguous(const Arr& x) {
  Arr r = alloc(x.sk, x.rank, x.shape);
  std::byte* p = r.st->data();
  if (x.count() > 0) copy_out(x, 0, x.off, p);
  return r;
}

// The view primitives, applied to one array leaf.
enum class ViewOp { Split, Join, Transpose, Slide, Take, Drop, Reverse };
struct View final : Node {
  NodeP x;
  ViewOp op = ViewOp::Split;
  int64_t p1 = 0, p2 = 0;  // split: n; slide: sz, sp; take/drop: n
  int depth = 0;
  void run(Ctx& c, Sc* s, Arr* a) const override {
    x->run(c, s, a);
    for (int k = 0; k < na; ++k) apply(a[k]);
  }
  // The view on the dimensions from `depth` on (depth > 0: the view mapped over the
  // elements, `map(transpose)` as a transpose of dimensions 1 and 2).
  void apply(Arr& v) const {
    const int D = depth;
    auto insert_dim = [&](int at) {  // make room for a dimension at `at`
      for (int d = v.rank; d-- > at;) {
        v.shape[d + 1] = v.shape[d];
        v.stride[d + 1] = v.stride[d];
      }
      v.rank++;
    };
    switch (op) {
      case ViewOp::Split: {
        insert_dim(D + 1);
        const int64_t s0 = v.stride[D];
        v.shape[D + 1] = p1;
        v.stride[D + 1] = s0;
        v.shape[D] = v.shape[D] / p1;
        v.stride[D] = s0 * p1;
        return;
      }
      case ViewOp::Join: {
        if (v.stride[D] != v.shape[D + 1] * v.stride[D + 1]) v = contiguous(v);
        v.shape[D] *= v.shape[D + 1];
        v.stride[D] = v.stride[D + 1];
        for (int d = D + 1; d + 1 < v.rank; ++d) {
          v.shape[d] = v.shape[d + 1];
          v.stride[d] = v.stride[d + 1];
        }
        v.rank--;
        return;
      }
      case ViewOp::Transpose:
        std::swap(v.shape[D], v.shape[D + 1]);
        std::swap(v.stride[D], v.stride[D + 1]);
        return;
      case ViewOp::Slide: {
        insert_dim(D + 1);
        const int64_t s0 = v.stride[D];
        v.shape[D] = (v.shape[D] - p1) / p2 + 1;
        v.stride[D] = s0 * p2;
        v.shape[D + 1] = p1;
        v.stride[D + 1] = s0;
        return;
      }
      case ViewOp::Take:
        v.shape[D] = p1;
        return;
      case ViewOp::Drop:
        v.off += p1 * v.stride[D];
        v.shape[D] -= p1;
        return;
      case ViewOp::Reverse:
        v.off += (v.shape[D] - 1) * v.stride[D];
        v.stride[D] = -v.stride[D];
        return;
    }
  }
};

// Write the leaves of element i of an n-array (held as arrays `out`, contiguous) from
// the element's leaves (s, a).
inline void put_element(Arr* out, const std::vector<Leaf>& elem, int64_t i, const Sc* s,
                        const Arr* a) {
  int si = 0, ai = 0, k = 0;
  for (const Leaf& l : elem) {
    Arr& o = out[k++];
    const size_t es = scalar_size(o.sk);
    if (!l.arr) {
      store(o.sk, o.st->data() + (o.off + i * o.stride[0]) * static_cast<int64_t>(es), s[si++]);
    } else {
      std::byte* dst = o.st->data() + (o.off + i * o.stride[0]) * static_cast<int64_t>(es);
      const Arr& src = a[ai++];
      if (src.count() > 0) copy_out(src, 0, src.off, dst);
    }
  }
}

// Arrays for an n-array of the element layout `elem`, with the element shapes of
// `sample` (the leaves of one element).
void alloc_result(Arr* out, const std::vector<Leaf>& elem, int64_t n, const Arr* sample) {
  int ai = 0, k = 0;
  for (const Leaf& l : elem) {
    int64_t shape[kMaxRank];
    shape[0] = n;
    int rank = 1;
    if (l.arr) {
      const Arr& e = sample[ai++];
      for (int d = 0; d < e.rank; ++d) shape[rank++] = e.shape[d];
    }
    out[k] = alloc_reusing(out[k], l.sk, rank, shape);
    ++k;
  }
}

// The shapes of the element leaves of an array type (for results built before the
// first element is known: empty arrays).
void type_shapes(const Type& elem_t, Arr* a) {
  struct Walk {
    Arr* a;
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
            Arr& x = a[ai++];
            x.rank = static_cast<int>(dims.size());
            for (size_t d = 0; d < dims.size(); ++d) x.shape[d] = dims[d];
          }
      }
    }
  } w{a};
  std::vector<int64_t> dims;
  w.go(elem_t, dims);
}

// ---- blocks: a map's scalar body over many elements at once ----
//
// A map over scalars or views whose body is f32/f64 arithmetic (+ - * /, neg, the
// one-argument math builtins, `let`, pairs of results) on the element's scalars,
// constant-index reads of the element's views (a stencil's nbh[1][2]), short sums and
// dot products of a window (conv1d's zip with the weights), constants and values bound
// outside the map is evaluated a block of elements at a time: each operation is one
// loop over the block instead of a node call per element. Each element still gets the
// same operations in the same order (the operations are elementwise and never fail),
// so the results are the same bits.

inline constexpr int kBlock = 128;

// An array leaf that a reduction in the body reads: the map element's view (`view`,
// the cursor's view index), or an array in a slot the loop does not write (`slot`).
struct BSource {
  int view = -1;
  int slot = -1;
};

struct BIns {
  enum class K : uint8_t { Elem, View, Bcast, Bin, Un, Reduce } k = K::Bcast;
  bool f64 = false;
  int dst = 0, x = -1, y = -1;        // registers
  PrimId op = PrimId::Add;            // Bin
  double (*math1)(double) = nullptr;  // Un: null means neg (or abs)
  bool abs = false;
  int leaf = 0;                // Elem: the cursor's scalar; View: the cursor's view
  std::vector<int64_t> cidx;   // View: constant indices
  const Node* node = nullptr;  // Bcast: evaluated once per run (a constant, an outer value)
  BSource a, b;                // Reduce: dst = x (init), then dst + a[j] (* b[j]), j < n
  bool prod = false;
  int64_t n = 0;
};

struct BatchProgram {
  std::vector<BIns> ins;
  std::vector<int> out;  // the registers of the result's scalar leaves
  int nregs = 0;

  // Where an instruction reads, for one run: a byte pointer for element 0 and the step
  // per element (and per reduction index j).
  struct Prep {
    const std::byte* p = nullptr;
    int64_t step = 0, jstep = 0;
    const std::byte* pb = nullptr;
    int64_t stepb = 0, jstepb = 0;
    Sc v{};
  };

  void run(Ctx& c, const Cursors& cur, Arr* res, int64_t lo, int64_t hi) const {
    if (hi <= lo) return;
    std::vector<Prep> prep(ins.size());
    auto source = [&](const BSource& s, const std::byte*& p, int64_t& step, int64_t& jstep) {
      if (s.view >= 0) {
        const Arr& v = *cur.v[s.view].dst;
        const auto es = static_cast<int64_t>(scalar_size(v.sk));
        p = v.st->data() + cur.v[s.view].off0 * es;
        step = cur.v[s.view].step * es;
        jstep = v.stride[0] * es;
      } else {
        const Arr& v = c.a[s.slot];
        const auto es = static_cast<int64_t>(scalar_size(v.sk));
        p = v.st->data() + v.off * es;
        step = 0;
        jstep = v.stride[0] * es;
      }
    };
    for (size_t k = 0; k < ins.size(); ++k) {
      const BIns& in = ins[k];
      Prep& pr = prep[k];
      switch (in.k) {
        case BIns::K::Elem:
          pr.p = cur.c[in.leaf].p;
          pr.step = cur.c[in.leaf].step;
          break;
        case BIns::K::View: {
          const Arr& v = *cur.v[in.leaf].dst;
          const auto es = static_cast<int64_t>(scalar_size(v.sk));
          int64_t e = cur.v[in.leaf].off0;
          for (size_t d = 0; d < in.cidx.size(); ++d) e += in.cidx[d] * v.stride[d];
          pr.p = v.st->data() + e * es;
          pr.step = cur.v[in.leaf].step * es;
          break;
        }
        case BIns::K::Bcast:
          pr.v = in.node->scalar(c);
          break;
        case BIns::K::Reduce:
          source(in.a, pr.p, pr.step, pr.jstep);
          if (in.prod) source(in.b, pr.pb, pr.stepb, pr.jstepb);
          break;
        default:
          break;
      }
    }
    std::vector<std::byte> regs(static_cast<size_t>(nregs) * kRegBytes);
    for (int64_t i0 = lo; i0 < hi; i0 += kBlock) {
      const int cnt = static_cast<int>(std::min<int64_t>(kBlock, hi - i0));
      for (size_t k = 0; k < ins.size(); ++k) {
        if (ins[k].f64)
          exec<double>(ins[k], prep[k], regs.data(), i0, cnt);
        else
          exec<float>(ins[k], prep[k], regs.data(), i0, cnt);
      }
      for (size_t o = 0; o < out.size(); ++o) {
        const Arr& r = res[o];
        const auto es = static_cast<int64_t>(scalar_size(r.sk));
        std::memcpy(r.st->data() + (r.off + i0) * es, reg(regs.data(), out[o]),
                    static_cast<size_t>(cnt * es));
      }
    }
  }

  static constexpr size_t kRegBytes = kBlock * sizeof(double);
  static std::byte* reg(std::byte* regs, int r) {
    return regs + static_cast<size_t>(r) * kRegBytes;
  }

  template <class T>
  static void exec(const BIns& in, const Prep& pr, std::byte* regs, int64_t i0, int cnt) {
    // a register holds kBlock values of T
    T* d = reinterpret_cast<T*>(reg(regs, in.dst));
    auto src = [&](int r) { return reinterpret_cast<const T*>(reg(regs, r)); };
    switch (in.k) {
      case BIns::K::Elem:
      case BIns::K::View: {
        const std::byte* p = pr.p + i0 * pr.step;
        if (pr.step == sizeof(T))
          std::memcpy(d, p, cnt * sizeof(T));
        else
          for (int t = 0; t < cnt; ++t) std::memcpy(d + t, p + t * pr.step, sizeof(T));
        return;
      }
      case BIns::K::Bcast: {
        T v;
        if constexpr (std::is_same_v<T, float>)
          v = pr.v.f;
        else
          v = pr.v.d;
        for (int t = 0; t < cnt; ++t) d[t] = v;
        return;
      }
      case BIns::K::Bin: {
        const T* x = src(in.x);
        const T* y = src(in.y);
        switch (in.op) {
          case PrimId::Add:
            for (int t = 0; t < cnt; ++t) d[t] = x[t] + y[t];
            return;
          case PrimId::Sub:
            for (int t = 0; t < cnt; ++t) d[t] = x[t] - y[t];
            return;
          case PrimId::Mul:
            for (int t = 0; t < cnt; ++t) d[t] = x[t] * y[t];
            return;
          default:
            for (int t = 0; t < cnt; ++t) d[t] = x[t] / y[t];
            return;
        }
      }
      case BIns::K::Un: {
        const T* x = src(in.x);
        if (in.abs)
          for (int t = 0; t < cnt; ++t) d[t] = std::fabs(x[t]);
        else if (in.math1)
          for (int t = 0; t < cnt; ++t) d[t] = static_cast<T>(in.math1(static_cast<double>(x[t])));
        else
          for (int t = 0; t < cnt; ++t) d[t] = -x[t];
        return;
      }
      case BIns::K::Reduce: {
        const T* init = src(in.x);
        for (int t = 0; t < cnt; ++t) d[t] = init[t];
        const std::byte* pa = pr.p + i0 * pr.step;
        const std::byte* pb = in.prod ? pr.pb + i0 * pr.stepb : nullptr;
        for (int64_t j = 0; j < in.n; ++j) {
          for (int t = 0; t < cnt; ++t) {
            T a;
            std::memcpy(&a, pa + t * pr.step + j * pr.jstep, sizeof a);
            if (in.prod) {
              T b;
              std::memcpy(&b, pb + t * pr.stepb + j * pr.jstepb, sizeof b);
              d[t] = d[t] + a * b;
            } else {
              d[t] = d[t] + a;
            }
          }
        }
        return;
      }
    }
  }
};

// map(f)(xs) (and generate(f), with the index as the element): the loop with f's body
// inlined, its parameter in frame slots.
struct Map final : Node {
  NodeP xs;  // null for generate
  int64_t n = 0;
  int x_a0 = 0;              // the input's array leaves
  std::vector<Leaf> x_elem;  // leaves of one input element
  int p_s0 = 0, p_a0 = 0;    // the parameter's slots
  NodeP body;
  int b_s0 = 0, b_a0 = 0;      // the body's result
  std::vector<Leaf> out_elem;  // leaves of one result element
  int threads = 1;             // > 1: the outermost map, spread over threads
  const std::vector<int>* frame_sizes = nullptr;

  void bind(Ctx& c, int64_t i) const {
    if (xs)
      elements(c.a + x_a0, x_elem, i, c.s + p_s0, c.a + p_a0);
    else
      c.s[p_s0].i = i;
  }
  void run(Ctx& c, Sc* s, Arr* a) const override {
    (void)s;
    if (xs) xs->run(c, nullptr, c.a + x_a0);
    std::vector<Arr> shapes(static_cast<size_t>(body->na));
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
      std::byte* out = a[0].st->data();
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
  Type elem_type() const { return t->a; }
  void run_parallel(Ctx& c, Arr* a) const;
  std::unique_ptr<BatchProgram> batch;  // the body a block at a time (null: not of that form)
};

// Each thread works on its own copy of the frame and a contiguous block of indices;
// every element is computed exactly as in the sequential loop.
void Map::run_parallel(Ctx& c, Arr* a) const {
  const int T = static_cast<int>(std::min<int64_t>(threads, n));
  const int ns_frame = (*frame_sizes)[0], na_frame = (*frame_sizes)[1];
  std::vector<std::exception_ptr> errors(static_cast<size_t>(T));
  auto work = [&](int t) {
    try {
      std::vector<Sc> fs(c.s, c.s + ns_frame);
      std::vector<Arr> fa(c.a, c.a + na_frame);
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

// reduce(f)(init)(xs), and reduce(f)(init)(map(g)(xs)) without the mapped array.
struct Reduce final : Node {
  NodeP init, xs;
  int64_t n = 0;
  int x_a0 = 0;
  std::vector<Leaf> x_elem;
  int e_s0 = 0, e_a0 = 0;      // the element (g's parameter when fused, else f's second)
  NodeP g;                     // fused map body (null: none)
  int y_s0 = 0, y_a0 = 0;      // f's second parameter when fused (g's result)
  int acc_s0 = 0, acc_a0 = 0;  // f's first parameter: the accumulator
  NodeP f;
  // f's body result, when f is not a scalar node with a scalar accumulator
  int r_s0 = 0, r_a0 = 0;
  bool scalar_acc = false;
  // Sums (acc + x[i]) and sums of products (acc + x[i] * y[i]) of f32 or f64 leaves
  // run as tight loops: the same operations in the same order.
  enum class Kernel : uint8_t { None, Sum, SumProd, SumMath, SumAbs } kernel = Kernel::None;
  double (*math1)(double) = nullptr;  // SumMath: acc + math1(x[i]) (rounded to T)
  bool kernel_f64 = false;
  int ki = 0, kj = 0;  // the element leaves it reads

  template <class T>
  T kernel_loop(const Cursors& cur, T acc) const {
    const std::byte* pa = cur.c[ki].p;
    const std::byte* pb = cur.c[kj].p;
    const int64_t sa = cur.c[ki].step, sb = cur.c[kj].step;
    if (kernel == Kernel::Sum) {
      for (int64_t i = 0; i < n; ++i) {
        T x;
        std::memcpy(&x, pa + i * sa, sizeof x);
        acc = acc + x;
      }
      return acc;
    }
    if (kernel == Kernel::SumAbs) {
      // acc + abs(x[i]): abs in double rounded to T is |x| exactly
      for (int64_t i = 0; i < n; ++i) {
        T x;
        std::memcpy(&x, pa + i * sa, sizeof x);
        acc = acc + std::fabs(x);
      }
      return acc;
    }
    if (kernel == Kernel::SumMath) {
      for (int64_t i = 0; i < n; ++i) {
        T x;
        std::memcpy(&x, pa + i * sa, sizeof x);
        acc = acc + static_cast<T>(math1(static_cast<double>(x)));
      }
      return acc;
    }
    for (int64_t i = 0; i < n; ++i) {
      T x, y;
      std::memcpy(&x, pa + i * sa, sizeof x);
      std::memcpy(&y, pb + i * sb, sizeof y);
      acc = acc + x * y;
    }
    return acc;
  }

  void run(Ctx& c, Sc* s, Arr* a) const override {
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
};

// iterateWhile(k)(cond)(step)(init): the state in frame slots (both functions'
// parameter); at most k times, while cond of it holds, step of it replaces it.
struct IterateWhile final : Node {
  NodeP init, cond, step;
  int64_t k = 0;
  int st_s0 = 0, st_a0 = 0;  // the state
  int r_s0 = 0, r_a0 = 0;    // step's result
  void run(Ctx& c, Sc* s, Arr* a) const override {
    init->run(c, c.s + st_s0, c.a + st_a0);
    for (int64_t i = 0; i < k && cond->scalar(c).i; ++i) {
      step->run(c, c.s + r_s0, c.a + r_a0);
      copy_value(c.s + st_s0, c.a + st_a0, c.s + r_s0, c.a + r_a0);
    }
    copy_value(s, a, c.s + st_s0, c.a + st_a0);
  }
};

// An array-valued subexpression whose free variables are the entry's inputs (a
// constant weight table, transpose(B) in a matrix product): evaluated once per run
// and kept in frame slots (`flag` says whether it is there). A strided view that
// does not repeat elements is copied into C order, so loops over it read memory
// contiguously.
struct Cached final : Node {
  NodeP x;
  int flag = 0, s0 = 0, a0 = 0;
  void run(Ctx& c, Sc* s, Arr* a) const override {
    if (!c.s[flag].i) {
      x->run(c, c.s + s0, c.a + a0);
      for (int i = 0; i < na; ++i) {
        Arr& v = c.a[a0 + i];
        const int64_t n = v.count();
        if (n > 0 && static_cast<size_t>(n) * scalar_size(v.sk) <= v.st->buf.size() && !dense(v))
          v = contiguous(v);
      }
      c.s[flag].i = 1;
    }
    for (int i = 0; i < ns; ++i) s[i] = c.s[s0 + i];
    for (int i = 0; i < na; ++i) a[i] = c.a[a0 + i];
  }
  static bool dense(const Arr& v) {
    int64_t want = 1;
    for (int d = v.rank; d-- > 0;) {
      if (v.shape[d] != 1 && v.stride[d] != want) return false;
      want *= v.shape[d];
    }
    return true;
  }
};

// padCst / padClamp / concat / makeArray: a new contiguous array per leaf.

// Copy the arrays `in` (element layout `elem`) to positions [at, at + n) of the
// contiguous arrays `out`.
void put_range(Arr* out, const std::vector<Leaf>& elem, int64_t at, const Arr* in) {
  for (size_t k = 0; k < elem.size(); ++k) {
    Arr& o = out[k];
    const auto es = static_cast<int64_t>(scalar_size(o.sk));
    std::byte* p = o.st->data() + (o.off + at * o.stride[0]) * es;
    if (in[k].count() > 0) copy_out(in[k], 0, in[k].off, p);
  }
}

struct Pad final : Node {
  NodeP x, cst;  // cst: padCst's value (null for padClamp)
  int64_t l = 0, r = 0;
  int x_a0 = 0, c_s0 = 0, c_a0 = 0;
  std::vector<Leaf> elem;
  void run(Ctx& c, Sc*, Arr* a) const override {
    if (cst) cst->run(c, c.s + c_s0, c.a + c_a0);  // arguments in the boxed evaluator's order
    x->run(c, nullptr, c.a + x_a0);
    const Arr* in = c.a + x_a0;
    const int64_t n = in[0].shape[0];
    std::vector<Arr> shapes;
    for (int k = 0; k < na; ++k) {
      Arr e;
      e.rank = in[k].rank - 1;
      for (int d = 1; d < in[k].rank; ++d) e.shape[d - 1] = in[k].shape[d];
      if (elem[static_cast<size_t>(k)].arr) shapes.push_back(e);
    }
    alloc_result(a, elem, l + n + r, shapes.data());
    put_range(a, elem, l, in);
    std::vector<Sc> es(elem.size());
    std::vector<Arr> ea(elem.size());
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
};

struct Concat final : Node {
  NodeP x, y;
  int x_a0 = 0, y_a0 = 0;
  std::vector<Leaf> elem;
  void run(Ctx& c, Sc*, Arr* a) const override {
    x->run(c, nullptr, c.a + x_a0);
    y->run(c, nullptr, c.a + y_a0);
    const Arr* xa = c.a + x_a0;
    const Arr* ya = c.a + y_a0;
    const int64_t n = xa[0].shape[0], m = ya[0].shape[0];
    std::vector<Arr> shapes(elem.size());
    type_shapes(t->a, shapes.data());
    alloc_result(a, elem, n + m, shapes.data());
    put_range(a, elem, 0, xa);
    put_range(a, elem, n, ya);
  }
};

// iterate: each step's body reads the previous step's result from its input slots.
struct Iterate final : Node {
  NodeP x;
  struct Step {
    int s0 = 0, a0 = 0;  // the step's input
    NodeP body;
  };
  std::vector<Step> steps;
  void run(Ctx& c, Sc* s, Arr* a) const override {
    if (steps.empty()) {
      x->run(c, s, a);
      return;
    }
    x->run(c, c.s + steps[0].s0, c.a + steps[0].a0);
    for (size_t j = 0; j + 1 < steps.size(); ++j)
      steps[j].body->run(c, c.s + steps[j + 1].s0, c.a + steps[j + 1].a0);
    steps.back().body->run(c, s, a);
  }
};

struct MakeArray final : Node {
  std::vector<NodeP> xs;
  int e_s0 = 0, e_a0 = 0;
  std::vector<Leaf> elem;
  void run(Ctx& c, Sc*, Arr* a) const override {
    std::vector<Arr> shapes(elem.size());
    type_shapes(t->a, shapes.data());
    alloc_result(a, elem, static_cast<int64_t>(xs.size()), shapes.data());
    for (size_t i = 0; i < xs.size(); ++i) {
      xs[i]->run(c, c.s + e_s0, c.a + e_a0);
      put_element(a, elem, static_cast<int64_t>(i), c.s + e_s0, c.a + e_a0);
    }
  }
};

// ---- translation ----

struct CEnv;

// A function known while translating: a lambda or a primitive with the arguments
// applied to it so far (each with the environment it is to be translated in).
struct CArg {
  bool dep = false;
  TypeArg targ;
  Expr e;
  const CEnv* env = nullptr;
  Type type;  // data arguments bound by the translator (e null): the binding's type
};
struct StaticFn {
  Expr head;
  const CEnv* env = nullptr;
  std::vector<CArg> args;
  // A primitive's errors are reported where the boxed evaluator reports them: at the
  // last application written directly on the primitive (`syntactic` while the
  // arguments come from such applications, not through a variable).
  Span span;
  bool syntactic = false;
};

struct CEnv {
  std::string name;
  const CEnv* parent = nullptr;
  bool is_fn = false;
  StaticFn fn;
  Type type;  // data: its type and slots
  std::vector<int> sslots, aslots;
};

class Translator {
 public:
  std::vector<std::unique_ptr<CEnv>> envs;
  int nslots_s = 0, nslots_a = 0;

  int new_s(int k) {
    int r = nslots_s;
    nslots_s += k;
    return r;
  }
  int new_a(int k) {
    int r = nslots_a;
    nslots_a += k;
    return r;
  }

  // A data binding of type t in fresh consecutive slots.
  const CEnv* bind_data(const std::string& name, const Type& t, const CEnv* parent,
                        int* s0 = nullptr, int* a0 = nullptr) {
    auto e = std::make_unique<CEnv>();
    e->name = name;
    e->parent = parent;
    e->type = t;
    std::vector<Leaf> ls = layout(t);
    int ns = 0, na = 0;
    for (const Leaf& l : ls) (l.arr ? na : ns)++;
    int bs = new_s(ns), ba = new_a(na);
    for (int i = 0; i < ns; ++i) e->sslots.push_back(bs + i);
    for (int i = 0; i < na; ++i) e->aslots.push_back(ba + i);
    if (s0) *s0 = bs;
    if (a0) *a0 = ba;
    envs.push_back(std::move(e));
    return envs.back().get();
  }
  const CEnv* bind_fn(const std::string& name, StaticFn f, const CEnv* parent) {
    auto e = std::make_unique<CEnv>();
    e->name = name;
    e->parent = parent;
    e->is_fn = true;
    e->fn = std::move(f);
    envs.push_back(std::move(e));
    return envs.back().get();
  }
  static const CEnv* lookup(const CEnv* env, const std::string& name) {
    for (; env; env = env->parent)
      if (env->name == name) return env;
    unsupported();
  }

  NodeP var_node(const CEnv* b) {
    auto v = std::make_unique<Var>();
    set_type(*v, b->type);
    v->sslots = b->sslots;
    v->aslots = b->aslots;
    if (!v->sslots.empty()) v->s0 = v->sslots[0];
    return v;
  }

  // A function-typed expression as a StaticFn.
  StaticFn fn_of(const Expr& e, const CEnv* env) {
    switch (e->kind) {
      case ExprKind::Lambda:
      case ExprKind::DepLambda:  // (iterate's step function)
        return StaticFn{e, env, {}, e->span, false};
      case ExprKind::Primitive:
        return StaticFn{e, env, {}, e->span, true};
      case ExprKind::Ident: {
        const CEnv* b = lookup(env, e->name);
        if (!b->is_fn) unsupported();
        StaticFn f = b->fn;
        f.syntactic = false;
        return f;
      }
      case ExprKind::App:
      case ExprKind::DepApp: {
        StaticFn f = fn_of(e->fn, env);
        if (e->kind == ExprKind::App)
          f.args.push_back(CArg{false, {}, e->arg, env, nullptr});
        else
          f.args.push_back(CArg{true, ty(e->type_arg), nullptr, env, nullptr});
        if (f.syntactic && e->span.known()) f.span = e->span;
        return f;
      }
      default:
        unsupported();
    }
  }

  // A data-typed expression.
  NodeP data(const Expr& e, const CEnv* env) {
    // Deeply nested programs are left to the boxed evaluator: translation and
    // evaluation here recurse along the nesting.
    if (++depth > kMaxDepth) unsupported();
    struct Leave {
      int& d;
      ~Leave() { --d; }
    } leave{depth};
    if (e->kind == ExprKind::Ident) {  // (loop parameters are untyped identifiers)
      const CEnv* b = lookup(env, e->name);
      if (b->is_fn) unsupported();
      return var_node(b);
    }
    const Type et = ty(e->type);
    if (!et || !is_data(et)) unsupported();
    switch (e->kind) {
      case ExprKind::Literal:
        return literal(e, et);
      case ExprKind::App:
      case ExprKind::DepApp: {
        NodeP n = call(fn_of(e, env), {}, et);
        if (et->kind != TypeKind::Array || !invariant(e, env)) return n;
        auto c = std::make_unique<Cached>();
        set_type(*c, n->t);
        c->x = std::move(n);
        c->flag = new_s(1);
        c->s0 = new_s(c->ns);
        c->a0 = new_a(c->na);
        flags.push_back(c->flag);
        return c;
      }
      default:
        unsupported();
    }
  }

  // Whether e's value is the same wherever it is evaluated during a run: its free
  // variables are the entry's inputs.
  bool invariant(const Expr& e, const CEnv* env) {
    for (const std::string& v : free_vars(e)) {
      const CEnv* b = lookup(env, v);
      if (std::find(inputs.begin(), inputs.end(), b) == inputs.end()) return false;
    }
    return true;
  }
  std::vector<const CEnv*> inputs;  // the entry's parameters
  int depth = 0;
  // Sizes bound while translating one step of iterate (its function's size parameter):
  // applied to every type read from the expression.
  TypeSubst sub;
  Type ty(const Type& t) const { return t && !sub.empty() ? substitute(t, sub) : t; }
  TypeArg ty(const TypeArg& a) const { return sub.empty() ? a : substitute(a, sub); }
  static constexpr int kMaxDepth = 400;
  std::vector<int> flags;  // Cached nodes' flags

  NodeP literal(const Expr& e, const Type& et) {
    if (et->kind != TypeKind::Scalar && et->kind != TypeKind::Index) unsupported();
    std::optional<Value> v = literal_value(*e, et);
    if (!v) unsupported();
    auto c = std::make_unique<Const>();
    set_type(*c, et);
    if (v->kind() == ValueKind::Index)
      c->v.i = v->index_value();
    else if (v->kind() == ValueKind::Scalar)
      c->v = from_value(*v);
    else
      unsupported();
    return c;
  }

  // A data argument of a call as a node.
  NodeP arg_node(const CArg& a) {
    if (a.dep) internal_error("fast interpreter: a type-level argument where data is expected");
    return data(a.e, a.env);
  }

  // f applied to its collected arguments plus `more`, with result type `rt`.
  NodeP call(const StaticFn& f0, std::vector<CArg> more, const Type& rt) {
    std::vector<CArg> args = f0.args;
    for (auto& m : more) args.push_back(std::move(m));
    Expr head = f0.head;
    const CEnv* env = f0.env;
    size_t k = 0;
    // beta: bind lambda parameters one by one
    while (head->kind == ExprKind::Lambda) {
      if (k == args.size()) unsupported();  // a function-typed result
      const CArg& a = args[k++];
      if (a.dep) unsupported();
      const Type pt = head->type ? ty(head->type->a) : nullptr;
      if (!pt) unsupported();
      if (!is_data(pt)) {
        env = bind_fn(head->name, a.e ? fn_of(a.e, a.env) : unsupported_fn(), env);
        head = head->fn;
        continue;
      }
      if (a.e->kind == ExprKind::Ident) {  // a variable: the parameter shares its slots
        const CEnv* src = lookup(a.env, a.e->name);
        if (!src->is_fn) {
          auto alias = std::make_unique<CEnv>(*src);
          alias->name = head->name;
          alias->parent = env;
          envs.push_back(std::move(alias));
          env = envs.back().get();
          head = head->fn;
          continue;
        }
      }
      NodeP value = arg_node(a);
      int s0 = 0, a0 = 0;
      const CEnv* b = bind_data(head->name, value->t, env, &s0, &a0);
      NodeP body;
      if (k == args.size()) {
        body = data(head->fn, b);
      } else {
        StaticFn rest = fn_of(head->fn, b);
        std::vector<CArg> remaining(args.begin() + static_cast<long>(k), args.end());
        body = call(rest, std::move(remaining), rt);
      }
      auto let = std::make_unique<Let>();
      set_type(*let, body->t);
      let->value = std::move(value);
      let->body = std::move(body);
      let->s0 = s0;
      let->a0 = a0;
      return let;
    }
    std::vector<CArg> rest(args.begin() + static_cast<long>(k), args.end());
    if (head != f0.head) {  // after beta: the body, where the parameters are bound
      if (rest.empty()) return data(head, env);
      return call(fn_of(head, env), std::move(rest), rt);
    }
    if (head->kind != ExprKind::Primitive) unsupported();
    return prim(head, std::move(rest), rt, f0.span);
  }
  static StaticFn unsupported_fn() { unsupported(); }

  // Apply a function to data values held in bound variables (loop parameters).
  NodeP apply_bound(const StaticFn& f, const std::vector<const CEnv*>& bound, const Type& rt) {
    std::vector<CArg> more;
    for (const CEnv* b : bound) more.push_back(CArg{false, {}, ident(b->name), b, b->type});
    return call(f, std::move(more), rt);
  }

  std::string fresh() { return "$" + std::to_string(counter++); }
  int counter = 0;

  // The function type of a function-valued argument, peeled `k` arrows: its result.
  static Type fn_result(const Type& fn_t, int k) {
    Type t = fn_t;
    for (int i = 0; i < k; ++i) {
      if (!t || t->kind != TypeKind::Fun) unsupported();
      t = t->b;
    }
    return t;
  }

  NodeP prim(const Expr& head, std::vector<CArg> args, const Type& rt, const Span& span) {
    const PrimitiveInfo* p = head->prim;
    if (!p || !rt || !is_data(rt)) unsupported();
    std::vector<TypeArg> deps;
    std::vector<CArg> vals;
    for (auto& a : args) (a.dep ? deps.push_back(a.targ) : vals.push_back(a));
    const int arity = p->is(PrimId::MakeArray) ? head->count : p->arity;
    if (static_cast<int>(vals.size()) != arity) unsupported();
    auto nat_dep = [&](size_t i) -> int64_t {
      if (i >= deps.size() || !std::holds_alternative<Nat>(deps[i])) unsupported();
      return const_nat(std::get<Nat>(deps[i]));
    };
    if (const ScalarOp sop = scalar_op_of(p)) return scalar_prim(sop, vals, rt, span);
    switch (p->id) {
      case PrimId::Id:
      case PrimId::ToMem:
        return arg_node(vals[0]);
      case PrimId::Select: {
        auto n = std::make_unique<Select>();
        n->cond = arg_node(vals[0]);
        n->a = arg_node(vals[1]);
        n->b = arg_node(vals[2]);
        set_type(*n, n->a->t);
        return n;
      }
      case PrimId::Cast: {
        NodeP x = arg_node(vals[0]);
        if (x->t->kind != TypeKind::Scalar || rt->kind != TypeKind::Scalar) unsupported();
        if (equal(x->t, rt)) return x;
        auto n = std::make_unique<Cast>();
        n->from = x->t->scalar;
        n->x = std::move(x);
        n->to = rt;
        n->span = span;
        set_type(*n, rt);
        return n;
      }
      case PrimId::Let: {
        // let(value)(fun(x => body))
        StaticFn f = fn_of(vals[1].e, vals[1].env);
        std::vector<CArg> one{vals[0]};
        return call(f, std::move(one), rt);
      }
      case PrimId::MakePair: {
        auto n = std::make_unique<MakePair>();
        n->x = arg_node(vals[0]);
        n->y = arg_node(vals[1]);
        set_type(*n, pair(n->x->t, n->y->t));
        return n;
      }
      case PrimId::Fst:
      case PrimId::Snd: {
        NodeP x = arg_node(vals[0]);
        if (x->t->kind != TypeKind::Pair) unsupported();
        auto n = std::make_unique<Project>();
        const Type part = p->is(PrimId::Fst) ? x->t->a : x->t->b;
        set_type(*n, part);
        if (p->is(PrimId::Snd)) {
          std::vector<Leaf> first = layout(x->t->a);
          for (const Leaf& l : first) (l.arr ? n->skip_a : n->skip_s)++;
        }
        // a variable: pick its slots directly
        if (auto* v = dynamic_cast<Var*>(x.get())) {
          auto w = std::make_unique<Var>();
          set_type(*w, part);
          w->sslots.assign(v->sslots.begin() + n->skip_s, v->sslots.begin() + n->skip_s + w->ns);
          w->aslots.assign(v->aslots.begin() + n->skip_a, v->aslots.begin() + n->skip_a + w->na);
          if (!w->sslots.empty()) w->s0 = w->sslots[0];
          return w;
        }
        n->s0 = new_s(x->ns);
        n->a0 = new_a(x->na);
        n->x = std::move(x);
        return n;
      }
      case PrimId::Idx: {
        auto n = std::make_unique<Idx>();
        n->i = arg_node(vals[0]);
        n->x = arg_node(vals[1]);
        if (n->x->t->kind != TypeKind::Array || n->i->t->kind != TypeKind::Index) unsupported();
        n->n = const_nat(n->x->t->size);
        n->elem = layout(n->x->t->a);
        n->a0 = new_a(n->x->na);
        n->span = span;
        set_type(*n, n->x->t->a);
        if (n->x->na == 1 && n->x->ns == 0 && (n->ns + n->na) == 1) {
          if (auto* v = dynamic_cast<Var*>(n->x.get())) {
            auto w = std::make_unique<VarIdx>();
            w->slot = v->aslots[0];
            w->cidx.push_back(const_index(n->i.get()));
            w->idx.push_back(std::move(n->i));
            set_type(*w, n->t);
            return w;
          }
          if (auto* v = dynamic_cast<VarIdx*>(n->x.get())) {
            auto w = std::make_unique<VarIdx>();
            w->slot = v->slot;
            w->idx = std::move(v->idx);
            w->cidx = std::move(v->cidx);
            w->cidx.push_back(const_index(n->i.get()));
            w->idx.push_back(std::move(n->i));
            set_type(*w, n->t);
            return w;
          }
        }
        return n;
      }
      case PrimId::Zip: {
        auto n = std::make_unique<MakePair>();
        n->x = arg_node(vals[0]);
        n->y = arg_node(vals[1]);
        set_type(*n, rt);
        return n;
      }
      case PrimId::Unzip: {
        auto n = std::make_unique<Same>();  // n.(s, t) and (n.s, n.t) have the same leaves
        n->x = arg_node(vals[0]);
        set_type(*n, rt);
        return n;
      }
      case PrimId::Split:
      case PrimId::Join:
      case PrimId::Transpose:
      case PrimId::Slide:
      case PrimId::Take:
      case PrimId::Drop:
      case PrimId::Reverse: {
        auto n = view_node(p, deps, 0);
        n->x = arg_node(vals[0]);
        set_type(*n, rt);
        if (n->ns) unsupported();
        return n;
      }
      case PrimId::PadCst:
      case PrimId::PadClamp: {
        auto n = std::make_unique<Pad>();
        n->l = nat_dep(0);
        n->r = nat_dep(1);
        const bool cst = p->is(PrimId::PadCst);
        if (cst) n->cst = arg_node(vals[0]);
        n->x = arg_node(vals[cst ? 1 : 0]);
        set_type(*n, rt);
        if (!cst && const_nat(n->x->t->size) == 0) unsupported();
        n->elem = layout(rt->a);
        n->x_a0 = new_a(n->x->na);
        if (cst) {
          n->c_s0 = new_s(n->cst->ns);
          n->c_a0 = new_a(n->cst->na);
        }
        return n;
      }
      case PrimId::Concat: {
        auto n = std::make_unique<Concat>();
        n->x = arg_node(vals[0]);
        n->y = arg_node(vals[1]);
        set_type(*n, rt);
        n->elem = layout(rt->a);
        n->x_a0 = new_a(n->x->na);
        n->y_a0 = new_a(n->y->na);
        return n;
      }
      case PrimId::MakeArray: {
        auto n = std::make_unique<MakeArray>();
        set_type(*n, rt);
        for (auto& v : vals) n->xs.push_back(arg_node(v));
        n->elem = layout(rt->a);
        int es = 0, ea = 0;
        for (const Leaf& l : n->elem) (l.arr ? ea : es)++;
        n->e_s0 = new_s(es);
        n->e_a0 = new_a(ea);
        return n;
      }
      case PrimId::Map:
      case PrimId::MapSeq:
      case PrimId::MapSeqUnroll:
      case PrimId::MapPar:
      case PrimId::Generate:
        return map(p->is(PrimId::Generate), vals, rt);
      case PrimId::Reduce:
      case PrimId::ReduceSeq:
      case PrimId::ReduceSeqUnroll:
      case PrimId::ReducePar:
        return reduce(vals, rt);
      case PrimId::Iterate:
        return iterate(deps, vals, rt);
      case PrimId::IterateWhile:
        return iterate_while(deps, vals, rt);
      default:
        unsupported();
    }
  }

  // iterateWhile(k)(cond)(step)(init): both functions read the state's slots.
  NodeP iterate_while(const std::vector<TypeArg>& deps, std::vector<CArg>& vals, const Type& rt) {
    int64_t k = -1;
    for (size_t i = 0; i < deps.size() && k < 0; ++i)
      if (std::holds_alternative<Nat>(deps[i])) k = const_nat(std::get<Nat>(deps[i]));
    if (k < 0 || !vals[0].e || !vals[1].e) unsupported();
    auto n = std::make_unique<IterateWhile>();
    set_type(*n, rt);
    n->k = k;
    n->init = arg_node(vals[2]);
    if (!equal(n->init->t, rt)) unsupported();
    const CEnv* st = bind_data(fresh(), rt, nullptr, &n->st_s0, &n->st_a0);
    n->cond = apply_bound(fn_of(vals[0].e, vals[0].env), {st}, rise::scalar(ScalarKind::Bool));
    if (n->cond->ns != 1 || n->cond->na != 0) unsupported();
    n->step = apply_bound(fn_of(vals[1].e, vals[1].env), {st}, rt);
    if (!equal(n->step->t, rt)) unsupported();
    n->r_s0 = new_s(n->ns);
    n->r_a0 = new_a(n->na);
    return n;
  }

  // iterate(k)(f)(x): k steps, each f's body translated with its size parameter bound
  // to the step's length divided by f's factor (as the boxed evaluator instantiates f).
  NodeP iterate(const std::vector<TypeArg>& deps, std::vector<CArg>& vals, const Type& rt) {
    if (!sub.empty()) unsupported();  // (one iterate inside another: left to the boxed one)
    int64_t k = -1;
    for (size_t i = deps.size(); i-- > 0 && k < 0;)
      if (std::holds_alternative<Nat>(deps[i])) k = const_nat(std::get<Nat>(deps[i]));
    if (k < 0 || k > kMaxIterate || !vals[0].e) unsupported();
    StaticFn f = fn_of(vals[0].e, vals[0].env);
    const Type ft = vals[0].e->type;
    if (f.head->kind != ExprKind::DepLambda || f.head->binder_kind != Kind::Nat ||
        !f.args.empty() || !ft || ft->kind != TypeKind::DepFun)
      unsupported();
    const Type step = instantiate(ft, Nat(1));
    if (step->kind != TypeKind::Fun || step->a->kind != TypeKind::Array) unsupported();
    const int64_t factor = const_nat(step->a->size);
    auto it = std::make_unique<Iterate>();
    it->x = arg_node(vals[1]);
    if (it->x->t->kind != TypeKind::Array || factor <= 0) unsupported();
    set_type(*it, rt);
    const Type elem = it->x->t->a;
    int64_t len = const_nat(it->x->t->size);
    for (int64_t j = 0; j < k; ++j) {
      if (len % factor != 0) unsupported();  // (the boxed evaluator reports it)
      Iterate::Step st;
      const CEnv* in = bind_data(fresh(), array(Nat(len), elem), nullptr, &st.s0, &st.a0);
      len /= factor;
      const Type out = array(Nat(len), elem);
      sub.nats[f.head->name] = Nat(len);
      struct Reset {
        TypeSubst& s;
        ~Reset() { s = TypeSubst{}; }
      } reset{sub};
      st.body = apply_bound(fn_of(f.head->fn, f.env), {in}, out);
      if (!equal(st.body->t, out)) unsupported();
      it->steps.push_back(std::move(st));
    }
    if (!equal(rt, array(Nat(len), elem))) unsupported();
    return it;
  }
  static constexpr int64_t kMaxIterate = 64;

  // An index literal's value (-1 for a computed index).
  static int64_t const_index(const Node* i) {
    auto* k = dynamic_cast<const Const*>(i);
    return k ? k->v.i : -1;
  }

  // A view primitive with its type-level arguments, applied at `depth`.
  static std::unique_ptr<View> view_node(const PrimitiveInfo* p, const std::vector<TypeArg>& deps,
                                         int depth) {
    auto nat_dep = [&](size_t i) -> int64_t {
      if (i >= deps.size() || !std::holds_alternative<Nat>(deps[i])) unsupported();
      return const_nat(std::get<Nat>(deps[i]));
    };
    auto n = std::make_unique<View>();
    n->depth = depth;
    switch (p->id) {
      case PrimId::Split:
        n->op = ViewOp::Split;
        n->p1 = nat_dep(0);
        break;
      case PrimId::Join:
        n->op = ViewOp::Join;
        break;
      case PrimId::Transpose:
        n->op = ViewOp::Transpose;
        break;
      case PrimId::Slide:
        n->op = ViewOp::Slide;
        n->p1 = nat_dep(0);
        n->p2 = nat_dep(1);
        if (n->p2 <= 0) unsupported();
        break;
      case PrimId::Take:
        n->op = ViewOp::Take;
        n->p1 = nat_dep(0);
        break;
      case PrimId::Drop:
        n->op = ViewOp::Drop;
        n->p1 = nat_dep(0);
        break;
      case PrimId::Reverse:
        n->op = ViewOp::Reverse;
        break;
      default:
        return nullptr;
    }
    return n;
  }

  // map(f) where f is a view primitive waiting for its array (or map of such, at any
  // depth): the view applied below the outer dimensions, with no loop and no copy.
  std::unique_ptr<View> mapped_view(const StaticFn& f, int depth) {
    if (f.head->kind != ExprKind::Primitive || !f.head->prim) return nullptr;
    const PrimitiveInfo* p = f.head->prim;
    std::vector<TypeArg> deps;
    std::vector<const CArg*> vals;
    for (const CArg& a : f.args) (a.dep ? deps.push_back(a.targ) : vals.push_back(&a));
    if (vals.empty() && static_cast<int>(deps.size()) == p->dep_arity) {
      switch (p->id) {
        case PrimId::Split:
        case PrimId::Join:
        case PrimId::Transpose:
        case PrimId::Slide:
        case PrimId::Take:
        case PrimId::Drop:
        case PrimId::Reverse:
          return view_node(p, deps, depth);
        default:
          return nullptr;
      }
    }
    if (vals.size() == 1 && (p->is(PrimId::Map) || p->is(PrimId::MapSeq)) && vals[0]->e)
      return mapped_view(fn_of(vals[0]->e, vals[0]->env), depth + 1);
    return nullptr;
  }

  NodeP scalar_prim(ScalarOp op, std::vector<CArg>& vals, const Type& rt, const Span& span) {
    NodeP x = arg_node(vals[0]);
    NodeP y = is_unary(op) ? nullptr : arg_node(vals[1]);
    if (x->t->kind != TypeKind::Scalar || (y && !equal(x->t, y->t))) unsupported();
    const ScalarKind k = x->t->scalar;
    auto fb = [&]<class T>(T*) -> NodeP {
      auto make = [&]<PrimId Op>() -> NodeP {
        auto n = std::make_unique<FloatBin<T, Op>>();
        n->x = std::move(x);
        n->y = std::move(y);
        set_type(*n, rt);
        return n;
      };
      switch (op->id) {
        case PrimId::Add:
          return make.template operator()<PrimId::Add>();
        case PrimId::Sub:
          return make.template operator()<PrimId::Sub>();
        case PrimId::Mul:
          return make.template operator()<PrimId::Mul>();
        case PrimId::Div:
          return make.template operator()<PrimId::Div>();
        case PrimId::Gt:
          return make.template operator()<PrimId::Gt>();
        case PrimId::Lt:
          return make.template operator()<PrimId::Lt>();
        case PrimId::Equal:
          return make.template operator()<PrimId::Equal>();
        default:
          return nullptr;
      }
    };
    if (!y && is_float(k) && (op->is(PrimId::Neg) || op->math1)) {
      auto un = [&]<class T>(T*) -> NodeP {
        auto n = std::make_unique<FloatUnary<T>>();
        n->x = std::move(x);
        n->math1 = op->is(PrimId::Neg) ? nullptr : op->math1;
        n->abs = op->is(PrimId::Abs);
        set_type(*n, rt);
        return n;
      };
      return k == ScalarKind::F32 ? un(static_cast<float*>(nullptr))
                                  : un(static_cast<double*>(nullptr));
    }
    if (y && k == ScalarKind::F32)
      if (NodeP n = fb(static_cast<float*>(nullptr))) return n;
    if (y && k == ScalarKind::F64)
      if (NodeP n = fb(static_cast<double*>(nullptr))) return n;
    auto n = std::make_unique<BoxedOp>();
    n->op = op;
    n->k = k;
    n->x = std::move(x);
    n->y = std::move(y);
    n->span = span;
    set_type(*n, rt);
    if (n->ns != 1 || n->na != 0) unsupported();
    return n;
  }

  NodeP map(bool generate, std::vector<CArg>& vals, const Type& rt) {
    if (!generate) {
      if (auto v = mapped_view(fn_of(vals[0].e, vals[0].env), 1)) {
        v->x = arg_node(vals[1]);
        set_type(*v, rt);
        if (v->ns) unsupported();
        return v;
      }
    }
    auto n = std::make_unique<Map>();
    set_type(*n, rt);
    n->n = const_nat(rt->size);
    Type elem_in;
    const CEnv* pb;
    if (generate) {
      elem_in = index_type(Nat(n->n));
      pb = bind_data(fresh(), elem_in, nullptr, &n->p_s0, &n->p_a0);
    } else {
      n->xs = arg_node(vals[1]);
      if (n->xs->t->kind != TypeKind::Array) unsupported();
      elem_in = n->xs->t->a;
      n->x_elem = layout(elem_in);
      n->x_a0 = new_a(n->xs->na);
      pb = bind_data(fresh(), elem_in, nullptr, &n->p_s0, &n->p_a0);
    }
    StaticFn f = fn_of(vals[0].e, vals[0].env);
    n->body = apply_bound(f, {pb}, rt->a);
    n->out_elem = layout(rt->a);
    n->b_s0 = new_s(n->body->ns);
    n->b_a0 = new_a(n->body->na);
    n->batch = batch_of(*n);
    maps.push_back(n.get());
    return n;
  }
  std::vector<Map*> maps;

  // The block form of a map's body (see BatchProgram), or null when the body is not
  // of that form.
  static std::unique_ptr<BatchProgram> batch_of(const Map& m) {
    if (!m.xs || m.x_elem.size() > 8) return nullptr;
    for (const Leaf& l : m.out_elem)
      if (l.arr || !is_float(l.sk)) return nullptr;
    BatchBuilder b{m};
    for (const Leaf& l : m.x_elem) (l.arr ? b.nview : b.nscalar)++;
    try {
      b.results(m.body.get());
    } catch (const BatchBuilder::No&) {
      return nullptr;
    }
    if (b.prog.out.size() != m.out_elem.size()) return nullptr;
    return std::make_unique<BatchProgram>(std::move(b.prog));
  }
  struct BatchBuilder {
    struct No {};
    const Map& m;
    BatchProgram prog;
    std::vector<std::pair<int, int>> lets;  // a let's slot and its register
    int nscalar = 0, nview = 0;             // the element's leaves

    int emit(BIns in) {
      in.dst = prog.nregs++;
      prog.ins.push_back(std::move(in));
      return prog.ins.back().dst;
    }
    int elem_scalar(int slot) const {
      return slot >= m.p_s0 && slot < m.p_s0 + nscalar ? slot - m.p_s0 : -1;
    }
    int elem_view(int slot) const {
      return slot >= m.p_a0 && slot < m.p_a0 + nview ? slot - m.p_a0 : -1;
    }
    void results(const Node* x) {
      if (auto* p = dynamic_cast<const MakePair*>(x)) {
        results(p->x.get());
        results(p->y.get());
        return;
      }
      if (auto* l = dynamic_cast<const Let*>(x)) {  // lets around a pair
        bind(*l);
        results(l->body.get());
        return;
      }
      prog.out.push_back(expr(x));
    }
    void bind(const Let& l) {
      if (l.value->ns != 1 || l.value->na != 0) throw No{};
      lets.emplace_back(l.s0, expr(l.value.get()));
    }
    template <class T>
    bool bin(const Node* x, BIns& in) {
      auto one = [&]<PrimId Op>() {
        auto* b = dynamic_cast<const FloatBin<T, Op>*>(x);
        if (!b) return false;
        in.k = BIns::K::Bin;
        in.op = Op;
        in.x = expr(b->x.get());
        in.y = expr(b->y.get());
        return true;
      };
      return one.template operator()<PrimId::Add>() || one.template operator()<PrimId::Sub>() ||
             one.template operator()<PrimId::Mul>() || one.template operator()<PrimId::Div>();
    }
    template <class T>
    bool unary(const Node* x, BIns& in) {
      auto* u = dynamic_cast<const FloatUnary<T>*>(x);
      if (!u) return false;
      in.k = BIns::K::Un;
      in.math1 = u->math1;
      in.abs = u->abs;
      in.x = expr(u->x.get());
      return true;
    }
    // The array slots of a reduction's input (variables and zips of them).
    static void array_slots(const Node* x, std::vector<int>& out) {
      if (auto* v = dynamic_cast<const Var*>(x); v && v->ns == 0) {
        out.insert(out.end(), v->aslots.begin(), v->aslots.end());
      } else if (auto* p = dynamic_cast<const MakePair*>(x)) {
        array_slots(p->x.get(), out);
        array_slots(p->y.get(), out);
      } else if (auto* s = dynamic_cast<const Same*>(x)) {
        array_slots(s->x.get(), out);
      } else {
        throw No{};
      }
    }
    BSource source(int slot) const {
      BSource s;
      if ((s.view = elem_view(slot)) < 0) s.slot = slot;
      return s;
    }
    // Whether x has the same value for every element: arithmetic on constants and
    // values bound outside the map (`sqrt(2.0f)`, `0.5f * vol * vol`). It is computed
    // once per run, with the same operations (they cannot fail).
    bool invariant(const Node* x) const {
      if (dynamic_cast<const Const*>(x)) return true;
      if (auto* v = dynamic_cast<const Var*>(x)) {
        if (v->ns != 1 || v->na != 0 || elem_scalar(v->s0) >= 0) return false;
        for (const auto& l : lets)
          if (l.first == v->s0) return false;
        return true;
      }
      if (auto* vi = dynamic_cast<const VarIdx*>(x)) {
        for (int64_t i : vi->cidx)
          if (i < 0) return false;
        return elem_view(vi->slot) < 0;
      }
      auto bin = [&]<class T>(T*) {
        auto one = [&]<PrimId Op>() {
          auto* b = dynamic_cast<const FloatBin<T, Op>*>(x);
          return b && invariant(b->x.get()) && invariant(b->y.get());
        };
        if (auto* u = dynamic_cast<const FloatUnary<T>*>(x)) return invariant(u->x.get());
        return one.template operator()<PrimId::Add>() || one.template operator()<PrimId::Sub>() ||
               one.template operator()<PrimId::Mul>() || one.template operator()<PrimId::Div>();
      };
      return bin(static_cast<float*>(nullptr)) || bin(static_cast<double*>(nullptr));
    }
    int expr(const Node* x) {
      if (x->t->kind != TypeKind::Scalar || !is_float(x->t->scalar)) throw No{};
      BIns in;
      in.f64 = x->t->scalar == ScalarKind::F64;
      if (invariant(x)) {
        in.node = x;  // Bcast
      } else if (auto* v = dynamic_cast<const Var*>(x)) {
        for (const auto& [slot, r] : lets)
          if (slot == v->s0) return r;
        if ((in.leaf = elem_scalar(v->s0)) < 0) throw No{};
        in.k = BIns::K::Elem;
      } else if (auto* vi = dynamic_cast<const VarIdx*>(x)) {
        for (int64_t i : vi->cidx)
          if (i < 0) throw No{};
        if ((in.leaf = elem_view(vi->slot)) < 0) throw No{};
        in.k = BIns::K::View;
        in.cidx = vi->cidx;
      } else if (auto* l = dynamic_cast<const Let*>(x)) {
        bind(*l);
        return expr(l->body.get());
      } else if (auto* r = dynamic_cast<const Reduce*>(x)) {
        using RK = Reduce::Kernel;
        if (!r->scalar_acc || (r->kernel != RK::Sum && r->kernel != RK::SumProd)) throw No{};
        std::vector<int> slots;
        array_slots(r->xs.get(), slots);
        if (slots.size() != r->x_elem.size()) throw No{};
        in.k = BIns::K::Reduce;
        in.x = expr(r->init.get());
        in.a = source(slots[static_cast<size_t>(r->ki)]);
        in.prod = r->kernel == RK::SumProd;
        if (in.prod) in.b = source(slots[static_cast<size_t>(r->kj)]);
        in.n = r->n;
      } else if (!(in.f64 ? bin<double>(x, in) || unary<double>(x, in)
                          : bin<float>(x, in) || unary<float>(x, in))) {
        throw No{};
      }
      return emit(std::move(in));
    }
  };

  // The slot a scalar variable node reads (-1 for any other node).
  static int var_slot(const Node* x) {
    auto* v = dynamic_cast<const Var*>(x);
    return v && v->ns == 1 && v->na == 0 ? v->s0 : -1;
  }
  template <class T>
  static bool find_kernel(Reduce& r, ScalarKind k) {
    if (!r.scalar_acc || r.t->kind != TypeKind::Scalar || r.t->scalar != k) return false;
    for (const Leaf& l : r.x_elem)
      if (l.arr || l.sk != k) return false;
    auto* add = dynamic_cast<const FloatBin<T, PrimId::Add>*>(r.f.get());
    if (!add || var_slot(add->x.get()) != r.acc_s0) return false;
    const int y = var_slot(add->y.get());
    const int ne = static_cast<int>(r.x_elem.size());
    auto elem_leaf = [&](int slot) {
      return slot >= r.e_s0 && slot < r.e_s0 + ne ? slot - r.e_s0 : -1;
    };
    using K = Reduce::Kernel;
    if (!r.g) {
      if (elem_leaf(y) < 0) return false;
      r.kernel = K::Sum;
      r.ki = r.kj = elem_leaf(y);
    } else {
      if (y != r.y_s0) return false;
      if (elem_leaf(var_slot(r.g.get())) >= 0) {
        r.kernel = K::Sum;
        r.ki = r.kj = elem_leaf(var_slot(r.g.get()));
      } else if (auto* un = dynamic_cast<const FloatUnary<T>*>(r.g.get());
                 un && un->math1 && elem_leaf(var_slot(un->x.get())) >= 0) {
        r.kernel = un->abs ? K::SumAbs : K::SumMath;
        r.math1 = un->math1;
        r.ki = r.kj = elem_leaf(var_slot(un->x.get()));
      } else if (auto* mul = dynamic_cast<const FloatBin<T, PrimId::Mul>*>(r.g.get())) {
        const int i = elem_leaf(var_slot(mul->x.get())), j = elem_leaf(var_slot(mul->y.get()));
        if (i < 0 || j < 0) return false;
        r.kernel = K::SumProd;
        r.ki = i;
        r.kj = j;
      } else {
        return false;
      }
    }
    r.kernel_f64 = std::is_same_v<T, double>;
    return true;
  }

  NodeP reduce(std::vector<CArg>& vals, const Type& rt) {
    auto n = std::make_unique<Reduce>();
    set_type(*n, rt);
    n->init = arg_node(vals[1]);
    // the array: map(g)(xs) is fused
    const Expr& arr = vals[2].e;
    Spine sp = spine(arr);
    const CEnv* eb;
    const CEnv* yb;
    bool fused = sp.head->kind == ExprKind::Primitive && sp.head->prim &&
                 (sp.head->prim->is(PrimId::Map) || sp.head->prim->is(PrimId::MapSeq)) &&
                 sp.args.size() == 2 && !sp.args[0].dep && !sp.args[1].dep;
    if (fused) {
      n->xs = data(sp.args[1].value, vals[2].env);
      if (n->xs->t->kind != TypeKind::Array) unsupported();
      n->x_elem = layout(n->xs->t->a);
      eb = bind_data(fresh(), n->xs->t->a, nullptr, &n->e_s0, &n->e_a0);
      StaticFn g = fn_of(sp.args[0].value, vals[2].env);
      n->g = apply_bound(g, {eb}, ty(arr->type)->a);
      yb = bind_data(fresh(), n->g->t, nullptr, &n->y_s0, &n->y_a0);
      if (n->g->ns != static_cast<int>(yb->sslots.size())) unsupported();
    } else {
      n->xs = arg_node(vals[2]);
      if (n->xs->t->kind != TypeKind::Array) unsupported();
      n->x_elem = layout(n->xs->t->a);
      yb = eb = bind_data(fresh(), n->xs->t->a, nullptr, &n->e_s0, &n->e_a0);
    }
    n->n = const_nat(n->xs->t->size);
    n->x_a0 = new_a(n->xs->na);
    const CEnv* accb = bind_data(fresh(), n->init->t, nullptr, &n->acc_s0, &n->acc_a0);
    StaticFn f = fn_of(vals[0].e, vals[0].env);
    n->f = apply_bound(f, {accb, yb}, rt);
    if (!equal(n->f->t, n->init->t)) unsupported();
    n->scalar_acc = n->ns == 1 && n->na == 0;
    n->r_s0 = new_s(n->ns);
    n->r_a0 = new_a(n->na);
    find_kernel<float>(*n, ScalarKind::F32) || find_kernel<double>(*n, ScalarKind::F64);
    return n;
  }
};

}  // namespace

// ---------------------------------------------------------------------------------
// Programs
// ---------------------------------------------------------------------------------

class FastProgram {
 public:
  std::unique_ptr<Translator> tr;
  std::vector<Type> params;
  std::vector<const CEnv*> inputs;
  NodeP root;
  Map* outer = nullptr;  // the map that may run on several threads
  std::vector<int> frame_sizes;
};

std::shared_ptr<FastProgram> fast_compile(const Expr& e) {
  if (!e || !e->type) return nullptr;
  auto p = std::make_shared<FastProgram>();
  p->tr = std::make_unique<Translator>();
  try {
    Expr cur = e;
    const CEnv* env = nullptr;
    while (cur->kind == ExprKind::Lambda) {
      if (!cur->type || cur->type->kind != TypeKind::Fun || !is_data(cur->type->a)) return nullptr;
      env = p->tr->bind_data(cur->name, cur->type->a, env);
      p->inputs.push_back(env);
      p->tr->inputs.push_back(env);
      p->params.push_back(cur->type->a);
      cur = cur->fn;
    }
    p->root = p->tr->data(cur, env);
    for (const Leaf& l : p->root->leaves)
      if (l.index) unsupported();
    for (const Type& t : p->params)
      for (const Leaf& l : layout(t))
        if (l.index) unsupported();
  } catch (const Unsupported&) {
    return nullptr;
  }
  p->frame_sizes = {p->tr->nslots_s, p->tr->nslots_a};
  if (auto* m = dynamic_cast<Map*>(p->root.get())) p->outer = m;
  return p;
}

namespace {

// An input value as leaves (scalars, or contiguous dense arrays shared, not copied).
bool input_leaves(const Value& v, const Type& t, std::vector<Sc>& s, std::vector<Arr>& a) {
  switch (t->kind) {
    case TypeKind::Scalar:
      if (v.kind() != ValueKind::Scalar) return false;
      s.push_back(from_value(v));
      return true;
    case TypeKind::Pair:
      if (v.kind() != ValueKind::Pair) return false;
      return input_leaves(v.first(), t->a, s, a) && input_leaves(v.second(), t->b, s, a);
    case TypeKind::Array: {
      Type el = t;
      while (el->kind == TypeKind::Array) el = el->a;
      if (el->kind != TypeKind::Scalar || v.kind() != ValueKind::Array) return false;
      Value c = make_contiguous(v, t);
      if (c.obj()->tag != Obj::Tag::Dense) return false;
      const auto& d = static_cast<const DenseArray&>(*c.obj());
      if (d.vec_last || d.rank > kMaxRank || d.sk != el->scalar) return false;
      Arr r;
      r.st = d.store;
      r.sk = d.sk;
      r.rank = d.rank;
      r.off = d.offset;
      for (int i = 0; i < d.rank; ++i) {
        r.shape[i] = d.shape[i];
        r.stride[i] = d.stride[i];
      }
      a.push_back(std::move(r));
      return true;
    }
    default:
      return false;
  }
}

// Leaves back to a Value of type t.
Value output_value(const Type& t, const Sc*& s, const Arr*& a) {
  switch (t->kind) {
    case TypeKind::Scalar:
      return to_value(*s++, t->scalar);
    case TypeKind::Pair: {
      Value x = output_value(t->a, s, a);
      Value y = output_value(t->b, s, a);
      return Value::pair(std::move(x), std::move(y));
    }
    case TypeKind::Array: {
      Type el = t;
      while (el->kind == TypeKind::Array) el = el->a;
      if (el->kind == TypeKind::Scalar) {
        const Arr& r = *a++;
        return dense_view(r.st, r.sk, false, r.rank, r.shape, r.stride, r.off);
      }
      if (t->a->kind == TypeKind::Pair) {  // n.(a, b): a zip of n.a and n.b
        Value x = output_value(array(t->size, t->a->a), s, a);
        Value y = output_value(array(t->size, t->a->b), s, a);
        return zip_arrays(std::move(x), std::move(y));
      }
      // deeper arrays of pairs: the elements one by one
      std::vector<Leaf> ls = layout(t->a);
      const Arr* base = a;
      a += ls.size();
      const int64_t n = base[0].shape[0];
      ArrayBuilder b(t->a, n);
      std::vector<Sc> es(ls.size());
      std::vector<Arr> ea(ls.size());
      for (int64_t i = 0; i < n; ++i) {
        elements(base, ls, i, es.data(), ea.data());
        const Sc* ps = es.data();
        const Arr* pa = ea.data();
        b.push(output_value(t->a, ps, pa));
      }
      return b.finish();
    }
    default:
      internal_error("fast interpreter: result type " + print(t));
  }
}

}  // namespace

Value fast_run(const FastProgram& p, const std::vector<Value>& inputs, int threads) {
  if (inputs.size() != p.inputs.size()) internal_error("fast interpreter: input count");
  std::vector<Sc> fs(static_cast<size_t>(p.frame_sizes[0]) + 1);
  std::vector<Arr> fa(static_cast<size_t>(p.frame_sizes[1]) + 1);
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::vector<Sc> s;
    std::vector<Arr> a;
    if (!input_leaves(inputs[i], p.params[i], s, a)) return Value();
    const CEnv* b = p.inputs[i];
    for (size_t k = 0; k < s.size(); ++k) fs[static_cast<size_t>(b->sslots[k])] = s[k];
    for (size_t k = 0; k < a.size(); ++k) fa[static_cast<size_t>(b->aslots[k])] = std::move(a[k]);
  }
  if (p.outer) {
    p.outer->threads = threads;
    p.outer->frame_sizes = &p.frame_sizes;
  }
  Ctx c{fs.data(), fa.data()};
  std::vector<Sc> rs(static_cast<size_t>(p.root->ns) + 1);
  std::vector<Arr> ra(static_cast<size_t>(p.root->na) + 1);
  p.root->run(c, rs.data(), ra.data());
  const Sc* ps = rs.data();
  const Arr* pa = ra.data();
  return output_value(p.root->t, ps, pa);
}

int fast_block_maps(const FastProgram& p) {
  int k = 0;
  for (const Map* m : p.tr->maps) k += m->batch != nullptr;
  return k;
}

}  // namespace risec::rise
