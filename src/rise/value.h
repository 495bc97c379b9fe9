// Run-time values of the reference interpreter (rise/interp.h), the oracle against
// which every rewrite and every generated program is checked.
//
// Representation
// --------------
// A Value is a small tagged record (40 bytes): scalars, indices and natType values are
// held inline, everything else points to an immutable, reference-counted heap object.
//
//   Scalar   every ScalarKind. Integers are stored in an int64, sign-extended for
//            signed kinds and zero-extended for unsigned ones (u64 as its bit
//            pattern); bool as 0/1; f32 as a float (all f32 arithmetic is done in
//            float, never in double); f64 as a double.
//   Index    idx[n]: the value i and the bound n, 0 <= i < n always holds.
//   Nat      natType: a non-negative int64.
//   Vector   vec[t, n]: n scalar lanes (VectorObj).
//   Pair     (a, b): a PairObj, or, for the elements of a zip, a reference to the
//            ZipArray and the element index (so iterating over a zip allocates
//            nothing; fst/snd read the component arrays directly).
//   Array    one of three array objects:
//            - DenseArray: a StridedArray (a view: shape, strides in elements,
//              offset, into a shared typed buffer; the fast path's array leaves are
//              the same type) for arrays whose elements are scalars or vectors (any
//              rank; with `vec_last` the innermost dimension holds vector lanes).
//              split, join (when the dimensions merge), transpose, slide, take, drop,
//              reverse, idx, row access, asVector and asScalar are views that copy
//              nothing. Ranks above kMaxDenseRank become boxed arrays of dense ones.
//            - ZipArray: a lazy zip of two arrays (unzip of a zip is free).
//            - BoxedArray: a vector of element Values, for everything else (arrays
//              of pairs, of indices, of natType values, ...).
//            Other data movement (concat, pad*, gather, scatter, reorder, ...)
//            materialises its result with an ArrayBuilder, which picks the dense
//            representation whenever the element type allows it.
//   Function closures of lambdas and dependent lambdas (flat closures: the captured
//            values are copied when the closure is made), partially applied
//            primitives collecting their arguments, foreign functions (which cannot
//            be run: applying one raises an error) and native C++ functions (for
//            tests and drivers).
//
// Scalar semantics (interp_prims.cpp)
// -----------------------------------
// Integer arithmetic is C's on the exact width, with one deviation that removes all
// undefined behaviour: signed overflow wraps around in two's complement (as unsigned
// arithmetic does in C). Integer division and modulo by zero, and the least value of
// a signed type divided (or taken modulo) by -1, are run-time errors of the program:
// risec::Error (External, exit 4) "integer division by zero in `v / 0`" at the
// primitive's span (generated code checks the same, see docs/codegen.md). Division truncates
// towards zero and `%` takes the sign of the dividend, as in C. On bool, arithmetic is C's on the
// promoted ints converted back to bool (add = or, mul = and, sub = xor). On floats `mod` is C's
// fmod/fmodf. Casts convert with C semantics (integer to integer modulo 2^bits, to bool by != 0);
// float to integer truncates towards zero and, where C is undefined, saturates to the
// target's range (NaN becomes 0). Built-in math on f32 uses the float functions
// (sqrtf, expf, ...); rsqrt(x) is 1/sqrt(x); on integers it goes through double and
// is cast back. All scalar operations apply lane-wise to vectors (comparisons give
// masks, vectors of bools); select on a bool picks a whole vector, on a mask it picks
// lane by lane. equal on other data compares two values structurally.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rise/expr.h"
#include "rise/primitives.h"
#include "rise/type.h"
#include "support/buffer.h"

namespace risec::rise {

class Interpreter;
struct Obj;

enum class ValueKind : uint8_t { None, Scalar, Index, Nat, Vector, Pair, Array, Function };

class Value {
 public:
  Value() = default;

  // ---- construction ----
  static Value boolean(bool b) { return make_scalar(ScalarKind::Bool, Bits{.i = b ? 1 : 0}); }
  static Value f32(float f) { return make_scalar(ScalarKind::F32, Bits{.f = f}); }
  static Value f64(double d) { return make_scalar(ScalarKind::F64, Bits{.d = d}); }
  // An integer (or bool) scalar; `v` is converted to `k` with C semantics (modulo
  // 2^bits). For f32/f64 kinds the value is converted to floating point.
  static Value integer(ScalarKind k, int64_t v);
  // An unsigned value given as its bits (u64 values above INT64_MAX).
  static Value from_u64(ScalarKind k, uint64_t v);
  static Value from_double(ScalarKind k, double v);  // C conversion (cast semantics)
  // idx[n] (risec::Error User when i is not in [0, n)).
  static Value index(int64_t i, int64_t n);
  static Value nat(int64_t v);
  static Value pair(Value a, Value b);
  static Value vector(ScalarKind k, std::vector<Value> lanes);
  // A host function (tests, drivers): applying it calls `fn`.
  static Value native(std::string name, std::function<Value(const Value&)> fn);

  // ---- inspection ----
  ValueKind kind() const { return kind_; }
  bool is_none() const { return kind_ == ValueKind::None; }
  // Scalars and vectors: the (lane) scalar kind.
  ScalarKind scalar_kind() const { return sk_; }

  // Scalars (internal error on other kinds).
  bool as_bool() const;
  float as_f32() const;
  double as_f64() const;
  int64_t as_i64() const;   // integers and bools (u64: the bit pattern)
  uint64_t as_u64() const;  // integers and bools, as bits
  // Any scalar, index or natType value as a double.
  double to_double() const;

  int64_t index_value() const;
  int64_t index_bound() const;
  int64_t nat_value() const;

  // Pairs.
  Value first() const;
  Value second() const;

  // Vectors.
  int64_t lane_count() const;
  Value lane(int64_t i) const;

  // Arrays: length and element (range checked: internal error).
  int64_t size() const;
  Value at(int64_t i) const;  // inline fast path for dense vectors of scalars below

  const std::shared_ptr<const Obj>& obj() const { return obj_; }

  // A readable rendering: 1.5f, [1, 2, 3], (a, b), <1, 2> for vectors.
  std::string to_string() const;

  // ---- raw access (interpreter internals) ----
  int64_t raw_int() const { return bits_.i; }
  float raw_f32() const { return bits_.f; }
  double raw_f64() const { return bits_.d; }
  static Value make_object(ValueKind k, std::shared_ptr<const Obj> obj, int64_t aux = 0);
  int64_t aux() const { return aux_; }

 private:
  Value at_slow(int64_t i) const;

  ValueKind kind_ = ValueKind::None;
  ScalarKind sk_ = ScalarKind::I32;
  union Bits {
    int64_t i;
    double d;
    float f;
  };
  static Value make_scalar(ScalarKind k, Bits b) {
    Value v;
    v.kind_ = ValueKind::Scalar;
    v.sk_ = k;
    v.bits_ = b;
    return v;
  }
  Bits bits_{0};
  int64_t aux_ = 0;  // Index: the bound n; lazy zip pair: the element index
  std::shared_ptr<const Obj> obj_;
};

// ---- heap objects ----

struct Obj {
  enum class Tag : uint8_t {
    Dense,
    Boxed,
    Zip,
    Pair,
    Vector,
    Closure,      // lambda closure (interp.cpp)
    DepClosure,   // dependent lambda closure (interp.cpp)
    PrimPartial,  // partially applied primitive (interp.cpp)
    Foreign,      // foreign function (interp.cpp)
    Native,       // host function
    Thunk,        // memo cell of an invariant subterm, only in frames (interp.cpp)
  };
  explicit Obj(Tag t) : tag(t) {}
  virtual ~Obj() = default;
  Obj(const Obj&) = delete;
  Obj& operator=(const Obj&) = delete;
  const Tag tag;
};

// Bytes shared by dense array views.
struct Storage {
  explicit Storage(size_t bytes) : buf(bytes) {}
  std::byte* data() { return buf.data(); }
  const std::byte* data() const { return buf.data(); }
  runtime::AlignedBuffer buf;
};

inline constexpr int kMaxDenseRank = 10;

// Bytes per element in dense storage (bool: 1). Inline: the evaluators' element
// accesses use it.
inline size_t scalar_size(ScalarKind k) {
  switch (k) {
    case ScalarKind::Bool:
    case ScalarKind::I8:
    case ScalarKind::U8:
      return 1;
    case ScalarKind::I16:
    case ScalarKind::U16:
      return 2;
    case ScalarKind::I32:
    case ScalarKind::U32:
    case ScalarKind::F32:
      return 4;
    default:
      return 8;
  }
}

// A strided array of scalars: `rank` dimensions (shape, strides in elements) from
// element `offset` of a shared typed buffer. The one strided array type of both
// evaluators: the boxed evaluator holds it inside a Value as a DenseArray, the fast
// path (interp_fast*.cpp) holds it directly as an array leaf. A view (split, join of
// mergeable dimensions, transpose, slide, take, drop, row access) changes only the
// shape, strides and offset; the buffer is shared, never written through a view.
struct StridedArray {
  std::shared_ptr<Storage> store;
  ScalarKind sk = ScalarKind::F32;
  bool vec_last = false;  // the innermost dimension holds vector lanes
  int rank = 0;           // dimensions, lanes included
  int64_t offset = 0;     // in elements
  int64_t shape[kMaxDenseRank] = {};
  int64_t stride[kMaxDenseRank] = {};  // in elements

  const std::byte* base() const { return store->data(); }
  // The address of element e of the buffer (e in elements, as offset and strides).
  std::byte* ptr(int64_t e) const {
    return store->data() + e * static_cast<int64_t>(scalar_size(sk));
  }
  int64_t count() const {
    int64_t c = 1;
    for (int d = 0; d < rank; ++d) c *= shape[d];
    return c;
  }
  // Whether the view covers a contiguous C-order block.
  bool contiguous() const;
  // Row i (element i of dimension 0) of an array of rank > 1, as a view into `out`.
  void row(int64_t i, StridedArray& out) const {
    out.store = store;
    out.sk = sk;
    out.vec_last = vec_last;
    out.rank = rank - 1;
    out.offset = offset + i * stride[0];
    for (int d = 1; d < rank; ++d) {
      out.shape[d - 1] = shape[d];
      out.stride[d - 1] = stride[d];
    }
  }
  // The views, on dimension d (d > 0: the view mapped over the outer dimensions, as
  // `map(transpose)` transposes dimensions 1 and 2). Both evaluators use these; the
  // callers check the arguments (n divides the length, the windows fit, rank room).
  // slide(sz)(sp): `count` windows of sz elements every sp elements (one more dimension).
  void slide(int d, int64_t sz, int64_t sp, int64_t count) {
    for (int k = rank; k-- > d + 1;) {
      shape[k + 1] = shape[k];
      stride[k + 1] = stride[k];
    }
    ++rank;
    const int64_t s0 = stride[d];
    shape[d] = count;
    stride[d] = s0 * sp;
    shape[d + 1] = sz;
    stride[d + 1] = s0;
  }
  // split(n): rows of n consecutive elements, the windows of slide(n)(n).
  void split(int d, int64_t n) { slide(d, n, n, shape[d] / n); }
  // join: dimensions d and d + 1 merged. False, and nothing changed, when the rows are
  // not one after the other in the buffer (the caller copies first).
  bool join(int d) {
    if (stride[d] != shape[d + 1] * stride[d + 1] && shape[d] > 1) return false;
    shape[d] *= shape[d + 1];
    stride[d] = stride[d + 1];
    for (int k = d + 1; k + 1 < rank; ++k) {
      shape[k] = shape[k + 1];
      stride[k] = stride[k + 1];
    }
    --rank;
    return true;
  }
  void transpose(int d) {
    std::swap(shape[d], shape[d + 1]);
    std::swap(stride[d], stride[d + 1]);
  }
  void take(int d, int64_t n) { shape[d] = n; }
  void drop(int d, int64_t n) {
    offset += n * stride[d];
    shape[d] -= n;
  }
  void reverse(int d) {
    offset += (shape[d] - 1) * stride[d];
    stride[d] = -stride[d];
  }

  // Copy the elements in C order to dst (advanced past them).
  void copy_to(std::byte*& dst) const;
  // A C-order copy in a new buffer.
  StridedArray c_order_copy() const;
  // A new C-order array, zero-filled. `reuse`: an array whose buffer is taken instead
  // (as it is, not zeroed) when nothing else refers to it and its size is the same
  // (a loop's previous result, already consumed).
  static StridedArray alloc(ScalarKind sk, int rank, const int64_t* shape, bool vec_last = false,
                            const StridedArray* reuse = nullptr);
  // Sets C-order strides for the shape; returns the element count.
  int64_t set_c_order();
};

// A StridedArray held by a Value.
struct DenseArray final : Obj, StridedArray {
  DenseArray() : Obj(Tag::Dense) {}
  explicit DenseArray(StridedArray a) : Obj(Tag::Dense), StridedArray(std::move(a)) {}
};

struct BoxedArray final : Obj {
  BoxedArray() : Obj(Tag::Boxed) {}
  std::vector<Value> elems;
};

struct ZipArray final : Obj {
  ZipArray() : Obj(Tag::Zip) {}
  Value a, b;
  int64_t n = 0;
};

struct PairObj final : Obj {
  PairObj(Value x, Value y) : Obj(Tag::Pair), a(std::move(x)), b(std::move(y)) {}
  Value a, b;
};

struct VectorObj final : Obj {
  VectorObj() : Obj(Tag::Vector) {}
  ScalarKind sk = ScalarKind::F32;
  std::vector<Value> lanes;  // scalars of kind sk
};

struct NativeObj final : Obj {
  NativeObj() : Obj(Tag::Native) {}
  std::string name;
  std::function<Value(const Value&)> fn;
};

// An integer kind's value from arbitrary bits with C conversion semantics (the low
// scalar_bits(k) bits, sign- or zero-extended); bool: bits != 0.
int64_t wrap_int(ScalarKind k, uint64_t bits);

// Read one scalar of kind k from dense storage / write one.
Value load_scalar(ScalarKind k, const std::byte* p);
void store_scalar(ScalarKind k, std::byte* p, const Value& v);

inline Value Value::at(int64_t i) const {
  if (kind_ == ValueKind::Array && obj_->tag == Obj::Tag::Dense) {
    const auto& d = static_cast<const DenseArray&>(*obj_);
    if (d.rank == 1 && i >= 0 && i < d.shape[0]) {
      const int64_t e = d.offset + i * d.stride[0];
      if (d.sk == ScalarKind::F32) {
        float x;
        std::memcpy(&x, d.base() + e * 4, sizeof x);
        return f32(x);
      }
      return load_scalar(d.sk, d.base() + e * static_cast<int64_t>(scalar_size(d.sk)));
    }
  }
  return at_slow(i);
}

// ---- arrays ----

// Write a data value of a dense type (a scalar, a vector, or an array of those) in
// C order to dst, which is advanced past it.
void write_dense(const Value& v, ScalarKind sk, std::byte*& dst);

// The dense layout of a data type: nested arrays ending in a scalar or a vector.
// `dims` are the element's dimensions (vector lanes last); empty for a scalar.
struct DenseLayout {
  ScalarKind sk = ScalarKind::F32;
  bool vec = false;
  std::vector<int64_t> dims;
  int64_t count = 1;  // product of dims
};
// nullopt when the type is not dense (pairs, indices, natType inside) or not concrete.
std::optional<DenseLayout> dense_layout(const Type& t);

// A view into `store` (a boxed array of dense views when rank > kMaxDenseRank).
Value dense_view(std::shared_ptr<Storage> store, ScalarKind sk, bool vec_last, int rank,
                 const int64_t* shape, const int64_t* stride, int64_t offset);
// The same for a strided array (rank at least 1).
Value dense_view(StridedArray a);
Value boxed_array(std::vector<Value> elems);
Value zip_arrays(Value a, Value b);  // lengths must agree (internal error otherwise)

// Builds an array of `n` elements of type `elem` (a concrete data type), dense when
// the type allows it. Elements must have that type.
class ArrayBuilder {
 public:
  ArrayBuilder(const Type& elem, int64_t n);
  void push(const Value& v);
  // Push every element of the array `arr`.
  void push_all(const Value& arr);
  Value finish();
  int64_t pushed() const { return pushed_; }

 private:
  int64_t n_;
  int64_t pushed_ = 0;
  std::optional<DenseLayout> layout_;
  std::shared_ptr<Storage> store_;
  std::byte* cur_ = nullptr;
  size_t elem_bytes_ = 0;
  std::vector<Value> boxed_;
};

// All elements of `elems` (of type `elem`) as one array.
Value array_of(const Type& elem, const std::vector<Value>& elems);

// A sub-array [start, start+len) (a view where possible).
Value array_slice(const Value& arr, int64_t start, int64_t len);

// A C-order contiguous copy of a dense-representable array value, as a DenseArray
// (the same object when it is already contiguous and starts at 0).
Value make_contiguous(const Value& arr, const Type& type);

// The zero of a data type: 0, false, idx 0, natType 0, arrays and pairs of zeros.
Value zero_value(const Type& t);

// Structural equality of data values (floats compared with ==).
bool values_equal(const Value& a, const Value& b);
// The same with floats compared by their bits (-0.0 differs from 0.0, a NaN equals
// the same NaN): the same value in every use.
bool values_identical(const Value& a, const Value& b);

// ---- primitive calls ----

// A saturated use of a primitive: what its interpreter semantics (eval_<name> in
// rise/interp_prims.h) receives.
struct PrimCall {
  const PrimitiveInfo* prim = nullptr;  // the row (makeArray: its row, or null in tests)
  int count = 0;                        // makeArray: number of elements (its arity)
  Type fn_type;                         // the primitive's instantiated function type
  std::vector<TypeArg> dep_args;        // explicit type-level arguments, in order
  std::vector<Value> args;              // value arguments, in order
  Span span;
  Interpreter* interp = nullptr;  // to apply closures

  // fn_type with the value arguments' arrows removed.
  Type result_type() const;
  // The type of value argument i.
  Type arg_type(int i) const;
  // Explicit dependent argument i as a constant Nat (internal error otherwise).
  int64_t dep_nat(int i) const;
  const std::string& name() const;
};

// A concrete size (risec::Error User "size n has no value; pass --size" when it has
// free variables).
int64_t const_size(const Nat& n, const Span& span = {});

}  // namespace risec::rise
