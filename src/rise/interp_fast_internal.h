// The fast path's internals (see interp_fast.h), shared by its files:
//   interp_fast_internal.h     leaves (scalar slots, StridedArray views) and the nodes
//   interp_fast_nodes.cpp      the nodes' evaluation (loops, views, copies, threads)
//   interp_fast_blocks.cpp     a map's body a block of elements at a time, and the
//                              reduction kernels: recognition and evaluation
//   interp_fast_translate.cpp  translation of a closed entry into nodes
//   interp_fast.cpp            programs: inputs in, the result out
// Nothing here has a meaning of its own: every node computes what the boxed evaluator
// (interp.cpp) computes for the same construct, and tests/rise compares the two.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "rise/interp_fast.h"
#include "rise/interp_prims.h"
#include "rise/scalar_ops.h"
#include "rise/value.h"
#include "support/diagnostics.h"

namespace risec::rise::fast {

// Thrown while translating when the fast path does not cover a construct.
struct Unsupported {};

// (__builtin_LINE, not std::source_location, which clang 14 lacks with libstdc++ 12.)
[[noreturn]] inline void unsupported(const char* file = __builtin_FILE(),
                                     unsigned line = __builtin_LINE()) {
  if (std::getenv("RISEC_FAST_TRACE")) {
    const char* base = std::strrchr(file, '/');
    std::fprintf(stderr, "fast interpreter: not covered (%s:%u)\n", base ? base + 1 : file, line);
  }
  throw Unsupported{};
}

inline int64_t const_nat(const Nat& n) {
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

// An array leaf is a StridedArray (rise/value.h, the boxed evaluator's DenseArray
// without the Value around it) of the leaf's scalars; an index leaf's array holds
// them as i64. The fast path covers ranks below kMaxRank (a StridedArray holds up to
// kMaxDenseRank).
inline constexpr int kMaxRank = 8;

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

// Scalars as the boxed evaluator's Values and back.
inline Value to_value(Sc s, ScalarKind k) {
  if (k == ScalarKind::F32) return Value::f32(s.f);
  if (k == ScalarKind::F64) return Value::f64(s.d);
  if (k == ScalarKind::Bool) return Value::boolean(s.i != 0);
  return Value::integer(k, s.i);
}
inline Sc from_value(const Value& v) {
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

// The leaves of a data type, in order (Unsupported for what the fast path does not
// cover: functions, vectors, natType, symbolic sizes, ranks from kMaxRank on).
std::vector<Leaf> layout(const Type& t);

// ---- nodes ----

struct Ctx {
  Sc* s;
  StridedArray* a;
};

struct Node {
  Type t;
  std::vector<Leaf> leaves;
  int ns = 0, na = 0;  // scalar and array leaves
  virtual ~Node() = default;
  // Write the value's scalar leaves to s[0..ns) and array leaves to a[0..na).
  virtual void run(Ctx& c, Sc* s, StridedArray* a) const = 0;
  // A scalar-typed node's value.
  virtual Sc scalar(Ctx& c) const {
    Sc r;
    run(c, &r, nullptr);
    return r;
  }
  // Copy a value of this node's type from the leaves at (ss, sa) to (ds, da).
  void copy_value(Sc* ds, StridedArray* da, const Sc* ss, const StridedArray* sa) const {
    for (int k = 0; k < ns; ++k) ds[k] = ss[k];
    for (int k = 0; k < na; ++k) da[k] = sa[k];
  }
};
using NodeP = std::unique_ptr<Node>;

// Sets a node's type and its leaves.
void set_type(Node& n, const Type& t);

struct ScalarNode : Node {
  void run(Ctx& c, Sc* s, StridedArray*) const override { s[0] = scalar(c); }
};

struct Const final : ScalarNode {
  Sc v;
  Sc scalar(Ctx&) const override { return v; }
};

// A variable: leaves held in frame slots.
struct Var final : Node {
  std::vector<int> sslots, aslots;
  void run(Ctx& c, Sc* s, StridedArray* a) const override {
    for (size_t i = 0; i < sslots.size(); ++i) s[i] = c.s[sslots[i]];
    for (size_t i = 0; i < aslots.size(); ++i) a[i] = c.a[aslots[i]];
  }
  Sc scalar(Ctx& c) const override { return c.s[s0]; }
  int s0 = 0;  // sslots[0]
};

// The binary f32/f64 operators that get an unboxed node (FloatBin), and those of them
// a block program runs (BatchProgram).
using FloatBinOps = OpList<PrimId::Add, PrimId::Sub, PrimId::Mul, PrimId::Div, PrimId::Mod,
                           PrimId::Gt, PrimId::Lt, PrimId::Equal>;
using BlockOps = OpList<PrimId::Add, PrimId::Sub, PrimId::Mul, PrimId::Div>;

template <class T>
T lane(Sc s) {
  if constexpr (std::is_same_v<T, float>)
    return s.f;
  else
    return s.d;
}
template <class T>
Sc lane_sc(T v) {
  Sc s{};
  if constexpr (std::is_same_v<T, float>)
    s.f = v;
  else
    s.d = v;
  return s;
}

// A binary f32/f64 operator: the operator functor (rise/scalar_ops.h) on unboxed lanes.
template <class T, PrimId Op>
struct FloatBin final : ScalarNode {
  NodeP x, y;
  Sc scalar(Ctx& c) const override {
    const T a = lane<T>(x->scalar(c));
    const T b = lane<T>(y->scalar(c));
    if constexpr (std::is_same_v<OpResult<Op, T>, bool>) {
      Sc r{};
      r.i = apply_op<Op>(a, b);
      return r;
    } else {
      return lane_sc<T>(apply_op<Op>(a, b));
    }
  }
};

// neg, abs and the other one-argument math builtins on f32/f64, as the reference
// computes them: neg and abs by the operator functor in the operand's type, a builtin
// in double rounded to it.
template <class T>
struct FloatUnary final : ScalarNode {
  NodeP x;
  double (*math1)(double) = nullptr;  // null: neg
  bool abs = false;                   // abs (math1 is its table function, not used)
  Sc scalar(Ctx& c) const override {
    const T a = lane<T>(x->scalar(c));
    if (abs) return lane_sc<T>(apply_op<PrimId::Abs>(a, a));
    if (!math1) return lane_sc<T>(apply_op<PrimId::Neg>(a, a));
    return lane_sc<T>(static_cast<T>(math1(static_cast<double>(a))));
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
  void run(Ctx& c, Sc* s, StridedArray* ar) const override {
    (cond->scalar(c).i ? a : b)->run(c, s, ar);
  }
  Sc scalar(Ctx& c) const override { return (cond->scalar(c).i ? a : b)->scalar(c); }
};

// let-like binding: the value into frame slots, then the body.
struct Let final : Node {
  NodeP value, body;
  int s0 = 0, a0 = 0;  // the value's first slots (consecutive)
  void run(Ctx& c, Sc* s, StridedArray* a) const override {
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
  void run(Ctx& c, Sc* s, StridedArray* a) const override {
    x->run(c, s, a);
    y->run(c, s + x->ns, a + x->na);
  }
};

// The same leaves under another type (unzip).
struct Same final : Node {
  NodeP x;
  void run(Ctx& c, Sc* s, StridedArray* a) const override { x->run(c, s, a); }
};

// fst/snd: a part of the child's leaves (computed into temporaries).
struct Project final : Node {
  NodeP x;
  int s0 = 0, a0 = 0;          // temporaries for the child's leaves
  int skip_s = 0, skip_a = 0;  // leaves before the part
  void run(Ctx& c, Sc* s, StridedArray* a) const override {
    x->run(c, c.s + s0, c.a + a0);
    for (int i = 0; i < ns; ++i) s[i] = c.s[s0 + skip_s + i];
    for (int i = 0; i < na; ++i) a[i] = c.a[a0 + skip_a + i];
  }
};

// Element i of every array leaf: scalars are loaded, higher ranks become views.
inline void element(const StridedArray& x, int64_t i, Sc* s, StridedArray* a) {
  const int64_t e = x.offset + i * x.stride[0];
  if (x.rank == 1)
    *s = load(x.sk, x.ptr(e));
  else
    x.row(i, *a);
}

// The elements i of all leaves of an array-typed value held in arrays[0..n).
inline void elements(const StridedArray* arrays, const std::vector<Leaf>& elem_leaves, int64_t i,
                     Sc* s, StridedArray* a) {
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
    StridedArray* dst;
    int64_t off0, step;  // elements
  };
  View1 v[8];
  int nv = 0;
  // false when there are too many leaves
  bool init(const StridedArray* arrays, const std::vector<Leaf>& elem, Sc* dst,
            StridedArray* adst = nullptr) {
    if (elem.size() > 8) return false;
    n = nv = 0;
    int k = 0;
    for (const Leaf& l : elem) {
      const StridedArray& x = arrays[k++];
      if (l.arr) {
        if (!adst) return false;
        element(x, 0, nullptr, adst + nv);
        v[nv] = View1{adst + nv, x.offset, x.stride[0]};
        ++nv;
        continue;
      }
      const auto es = static_cast<int64_t>(scalar_size(x.sk));
      c[n] = One{x.store->data() + x.offset * es, x.stride[0] * es, x.sk, dst + n};
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
    for (int k = 0; k < nv; ++k) v[k].dst->offset = v[k].off0 + i * v[k].step;
  }
};

// v[i]...[j] on a variable holding one array: the element's address is computed
// directly (a stencil's nbh[1][2]), without intermediate views.
struct VarIdx final : Node {
  int slot = 0;
  std::vector<NodeP> idx;
  std::vector<int64_t> cidx;  // constant indices (-1: idx[d] is computed)
  int64_t element_offset(Ctx& c, const StridedArray& v) const {
    int64_t e = v.offset;
    for (size_t d = 0; d < idx.size(); ++d)
      e += (cidx[d] >= 0 ? cidx[d] : idx[d]->scalar(c).i) * v.stride[d];
    return e;
  }
  Sc scalar(Ctx& c) const override {
    const StridedArray& v = c.a[slot];
    return load(v.sk, v.ptr(element_offset(c, v)));
  }
  void run(Ctx& c, Sc* s, StridedArray* a) const override {
    if (ns) {
      s[0] = scalar(c);
      return;
    }
    const StridedArray& v = c.a[slot];
    const int k = static_cast<int>(idx.size());
    StridedArray& r = a[0];
    r.store = v.store;
    r.sk = v.sk;
    r.offset = element_offset(c, v);
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
  void run(Ctx& c, Sc* s, StridedArray* a) const override;
};

// The view primitives, applied to one array leaf.
enum class ViewOp { Split, Join, Transpose, Slide, Take, Drop, Reverse };
struct View final : Node {
  NodeP x;
  ViewOp op = ViewOp::Split;
  int64_t p1 = 0, p2 = 0;  // split: n; slide: sz, sp; take/drop: n
  int depth = 0;
  void run(Ctx& c, Sc* s, StridedArray* a) const override {
    x->run(c, s, a);
    for (int k = 0; k < na; ++k) apply(a[k]);
  }
  // The view on the dimensions from `depth` on (depth > 0: the view mapped over the
  // elements, `map(transpose)` as a transpose of dimensions 1 and 2).
  void apply(StridedArray& v) const;
};

// Write the leaves of element i of an n-array (held as arrays `out`, contiguous) from
// the element's leaves (s, a).
inline void put_element(StridedArray* out, const std::vector<Leaf>& elem, int64_t i, const Sc* s,
                        const StridedArray* a) {
  int si = 0, ai = 0, k = 0;
  for (const Leaf& l : elem) {
    StridedArray& o = out[k++];
    const size_t es = scalar_size(o.sk);
    if (!l.arr) {
      store(o.sk, o.store->data() + (o.offset + i * o.stride[0]) * static_cast<int64_t>(es),
            s[si++]);
    } else {
      std::byte* dst = o.store->data() + (o.offset + i * o.stride[0]) * static_cast<int64_t>(es);
      a[ai++].copy_to(dst);
    }
  }
}

// Arrays for an n-array of the element layout `elem`, with the element shapes of
// `sample` (the leaves of one element); each reuses the buffer out[k] holds when it
// can (the previous result of the same node, already consumed: no allocation per
// iteration for a map nested in a map).
void alloc_result(StridedArray* out, const std::vector<Leaf>& elem, int64_t n,
                  const StridedArray* sample);

// The shapes of the element leaves of an array type (for results built before the
// first element is known: empty arrays).
void type_shapes(const Type& elem_t, StridedArray* a);

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

  void run(Ctx& c, const Cursors& cur, StridedArray* res, int64_t lo, int64_t hi) const;

  static constexpr size_t kRegBytes = kBlock * sizeof(double);
  static std::byte* reg(std::byte* regs, int r) {
    return regs + static_cast<size_t>(r) * kRegBytes;
  }

  template <class T>
  static void exec(const BIns& in, const Prep& pr, std::byte* regs, int64_t i0, int cnt);
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
  void run(Ctx& c, Sc* s, StridedArray* a) const override;
  Type elem_type() const { return t->a; }
  void run_parallel(Ctx& c, StridedArray* a) const;
  std::unique_ptr<BatchProgram> batch;  // the body a block at a time (null: not of that form)
};

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
  T kernel_loop(const Cursors& cur, T acc) const;

  void run(Ctx& c, Sc* s, StridedArray* a) const override;
};

// iterateWhile(k)(cond)(step)(init): the state in frame slots (both functions'
// parameter); at most k times, while cond of it holds, step of it replaces it.
struct IterateWhile final : Node {
  NodeP init, cond, step;
  int64_t k = 0;
  int st_s0 = 0, st_a0 = 0;  // the state
  int r_s0 = 0, r_a0 = 0;    // step's result
  void run(Ctx& c, Sc* s, StridedArray* a) const override;
};

// An array-valued subexpression whose free variables are the entry's inputs (a
// constant weight table, transpose(B) in a matrix product): evaluated once per run
// and kept in frame slots (`flag` says whether it is there). A strided view that
// does not repeat elements is copied into C order, so loops over it read memory
// contiguously.
struct Cached final : Node {
  NodeP x;
  int flag = 0, s0 = 0, a0 = 0;
  void run(Ctx& c, Sc* s, StridedArray* a) const override;
};

// padCst / padClamp / concat / makeArray: a new contiguous array per leaf.

struct Pad final : Node {
  NodeP x, cst;  // cst: padCst's value (null for padClamp)
  int64_t l = 0, r = 0;
  int x_a0 = 0, c_s0 = 0, c_a0 = 0;
  std::vector<Leaf> elem;
  void run(Ctx& c, Sc*, StridedArray* a) const override;
};

struct Concat final : Node {
  NodeP x, y;
  int x_a0 = 0, y_a0 = 0;
  std::vector<Leaf> elem;
  void run(Ctx& c, Sc*, StridedArray* a) const override;
};

// iterate: each step's body reads the previous step's result from its input slots.
struct Iterate final : Node {
  NodeP x;
  struct Step {
    int s0 = 0, a0 = 0;  // the step's input
    NodeP body;
  };
  std::vector<Step> steps;
  void run(Ctx& c, Sc* s, StridedArray* a) const override;
};

struct MakeArray final : Node {
  std::vector<NodeP> xs;
  int e_s0 = 0, e_a0 = 0;
  std::vector<Leaf> elem;
  void run(Ctx& c, Sc*, StridedArray* a) const override;
};

// ---- recognition of the block form and of reduction kernels (interp_fast_blocks.cpp) ----

// The block form of a map's body (see BatchProgram), or null when the body is not of
// that form.
std::unique_ptr<BatchProgram> batch_of(const Map& m);

// Sets r.kernel (and its leaves) when r's function and fused map are one of the
// Reduce::Kernel forms on f32 or f64; leaves Kernel::None otherwise.
void find_kernel(Reduce& r);

// ---- translation (interp_fast_translate.cpp) ----

// A closed entry translated into nodes.
struct Translation {
  std::vector<Type> params;                  // the entry's parameter types
  std::vector<std::vector<int>> in_s, in_a;  // their leaves' frame slots
  NodeP root;                                // the body
  std::vector<int> frame_sizes;              // scalar and array frame slots
  std::vector<Map*> maps;                    // every map node (for tests)
};

// Null when the fast path does not cover the entry.
std::unique_ptr<Translation> translate(const Expr& closed_typed_entry);

}  // namespace risec::rise::fast
