// Run-time values of the reference interpreter: construction, element access on the
// three array representations, builders and structural helpers (see value.h).
#include "rise/value.h"

#include <cmath>
#include <cstring>
#include <sstream>

#include "rise/primitives.h"
#include "support/diagnostics.h"
#include "support/words.h"

namespace risec::rise {

// ---------------------------------------------------------------------------------
// Scalars
// ---------------------------------------------------------------------------------

int64_t wrap_int(ScalarKind k, uint64_t bits) {
  switch (k) {
    case ScalarKind::Bool:
      return bits != 0 ? 1 : 0;
    case ScalarKind::I8:
      return static_cast<int8_t>(bits);
    case ScalarKind::I16:
      return static_cast<int16_t>(bits);
    case ScalarKind::I32:
      return static_cast<int32_t>(bits);
    case ScalarKind::I64:
      return static_cast<int64_t>(bits);
    case ScalarKind::U8:
      return static_cast<uint8_t>(bits);
    case ScalarKind::U16:
      return static_cast<uint16_t>(bits);
    case ScalarKind::U32:
      return static_cast<uint32_t>(bits);
    case ScalarKind::U64:
      return static_cast<int64_t>(bits);
    default:
      internal_error("wrap_int on a floating-point kind");
  }
}

Value Value::integer(ScalarKind k, int64_t x) {
  if (k == ScalarKind::F32) return f32(static_cast<float>(x));
  if (k == ScalarKind::F64) return f64(static_cast<double>(x));
  Value v;
  v.kind_ = ValueKind::Scalar;
  v.sk_ = k;
  v.bits_.i = wrap_int(k, static_cast<uint64_t>(x));
  return v;
}

Value Value::from_u64(ScalarKind k, uint64_t x) {
  if (k == ScalarKind::F32) return f32(static_cast<float>(x));
  if (k == ScalarKind::F64) return f64(static_cast<double>(x));
  Value v;
  v.kind_ = ValueKind::Scalar;
  v.sk_ = k;
  v.bits_.i = wrap_int(k, x);
  return v;
}

Value Value::from_double(ScalarKind k, double d) {
  switch (k) {
    case ScalarKind::F32:
      return f32(static_cast<float>(d));
    case ScalarKind::F64:
      return f64(d);
    case ScalarKind::Bool:
      return boolean(d != 0.0);
    default:
      break;
  }
  if (std::isnan(d)) return integer(k, 0);
  double t = std::trunc(d);
  if (is_unsigned_int(k)) {
    uint64_t maxv = k == ScalarKind::U64 ? UINT64_MAX : (uint64_t{1} << scalar_bits(k)) - 1;
    if (t <= 0) return integer(k, 0);
    if (t >= 18446744073709551616.0) return from_u64(k, maxv);
    uint64_t u = static_cast<uint64_t>(t);
    return from_u64(k, u > maxv ? maxv : u);
  }
  int bits = scalar_bits(k);
  int64_t maxv = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
  int64_t minv = -maxv - 1;
  if (t >= 9223372036854775808.0) return integer(k, maxv);
  if (t < -9223372036854775808.0) return integer(k, minv);
  int64_t s = static_cast<int64_t>(t);
  if (s > maxv) s = maxv;
  if (s < minv) s = minv;
  return integer(k, s);
}

Value Value::index(int64_t i, int64_t n) {
  if (i < 0 || i >= n)
    user_error("index " + std::to_string(i) + " is out of range for idx[" + std::to_string(n) +
               "]");
  Value v;
  v.kind_ = ValueKind::Index;
  v.sk_ = ScalarKind::I64;
  v.bits_.i = i;
  v.aux_ = n;
  return v;
}

Value Value::nat(int64_t x) {
  if (x < 0) user_error("natType value " + std::to_string(x) + " is negative");
  Value v;
  v.kind_ = ValueKind::Nat;
  v.sk_ = ScalarKind::I64;
  v.bits_.i = x;
  return v;
}

Value Value::pair(Value a, Value b) {
  return make_object(ValueKind::Pair, std::make_shared<PairObj>(std::move(a), std::move(b)));
}

Value Value::vector(ScalarKind k, std::vector<Value> lanes) {
  auto o = std::make_shared<VectorObj>();
  o->sk = k;
  o->lanes = std::move(lanes);
  Value v = make_object(ValueKind::Vector, std::move(o));
  v.sk_ = k;
  return v;
}

Value Value::native(std::string name, std::function<Value(const Value&)> fn) {
  auto o = std::make_shared<NativeObj>();
  o->name = std::move(name);
  o->fn = std::move(fn);
  return make_object(ValueKind::Function, std::move(o));
}

Value Value::make_object(ValueKind k, std::shared_ptr<const Obj> obj, int64_t aux) {
  Value v;
  v.kind_ = k;
  v.obj_ = std::move(obj);
  v.aux_ = aux;
  return v;
}

static const char* kind_text(ValueKind k) {
  switch (k) {
    case ValueKind::None:
      return "nothing";
    case ValueKind::Scalar:
      return "a scalar";
    case ValueKind::Index:
      return "an index";
    case ValueKind::Nat:
      return "a natType value";
    case ValueKind::Vector:
      return "a vector";
    case ValueKind::Pair:
      return "a pair";
    case ValueKind::Array:
      return "an array";
    case ValueKind::Function:
      return "a function";
  }
  return "?";
}

[[noreturn]] static void wrong_kind(const char* want, ValueKind got) {
  internal_error(std::string("interpreter: expected ") + want + ", got " + kind_text(got));
}

bool Value::as_bool() const {
  if (kind_ != ValueKind::Scalar) wrong_kind("a scalar", kind_);
  if (sk_ == ScalarKind::F32) return bits_.f != 0.0f;
  if (sk_ == ScalarKind::F64) return bits_.d != 0.0;
  return bits_.i != 0;
}

float Value::as_f32() const {
  if (kind_ != ValueKind::Scalar || sk_ != ScalarKind::F32) wrong_kind("an f32 scalar", kind_);
  return bits_.f;
}

double Value::as_f64() const {
  if (kind_ != ValueKind::Scalar || sk_ != ScalarKind::F64) wrong_kind("an f64 scalar", kind_);
  return bits_.d;
}

int64_t Value::as_i64() const {
  if (kind_ != ValueKind::Scalar || is_float(sk_)) wrong_kind("an integer scalar", kind_);
  return bits_.i;
}

uint64_t Value::as_u64() const {
  return static_cast<uint64_t>(as_i64());
}

double Value::to_double() const {
  switch (kind_) {
    case ValueKind::Scalar:
      if (sk_ == ScalarKind::F32) return bits_.f;
      if (sk_ == ScalarKind::F64) return bits_.d;
      if (sk_ == ScalarKind::U64) return static_cast<double>(static_cast<uint64_t>(bits_.i));
      return static_cast<double>(bits_.i);
    case ValueKind::Index:
    case ValueKind::Nat:
      return static_cast<double>(bits_.i);
    default:
      wrong_kind("a scalar", kind_);
  }
}

int64_t Value::index_value() const {
  if (kind_ != ValueKind::Index) wrong_kind("an index", kind_);
  return bits_.i;
}

int64_t Value::index_bound() const {
  if (kind_ != ValueKind::Index) wrong_kind("an index", kind_);
  return aux_;
}

int64_t Value::nat_value() const {
  if (kind_ != ValueKind::Nat) wrong_kind("a natType value", kind_);
  return bits_.i;
}

Value Value::first() const {
  if (kind_ != ValueKind::Pair) wrong_kind("a pair", kind_);
  if (obj_->tag == Obj::Tag::Pair) return static_cast<const PairObj&>(*obj_).a;
  return static_cast<const ZipArray&>(*obj_).a.at(aux_);
}

Value Value::second() const {
  if (kind_ != ValueKind::Pair) wrong_kind("a pair", kind_);
  if (obj_->tag == Obj::Tag::Pair) return static_cast<const PairObj&>(*obj_).b;
  return static_cast<const ZipArray&>(*obj_).b.at(aux_);
}

int64_t Value::lane_count() const {
  if (kind_ != ValueKind::Vector) wrong_kind("a vector", kind_);
  return static_cast<int64_t>(static_cast<const VectorObj&>(*obj_).lanes.size());
}

Value Value::lane(int64_t i) const {
  if (kind_ != ValueKind::Vector) wrong_kind("a vector", kind_);
  return static_cast<const VectorObj&>(*obj_).lanes.at(static_cast<size_t>(i));
}

int64_t Value::size() const {
  if (kind_ != ValueKind::Array) wrong_kind("an array", kind_);
  switch (obj_->tag) {
    case Obj::Tag::Dense:
      return static_cast<const DenseArray&>(*obj_).shape[0];
    case Obj::Tag::Boxed:
      return static_cast<int64_t>(static_cast<const BoxedArray&>(*obj_).elems.size());
    case Obj::Tag::Zip:
      return static_cast<const ZipArray&>(*obj_).n;
    default:
      internal_error("interpreter: malformed array value");
  }
}

Value load_scalar(ScalarKind k, const std::byte* p) {
  switch (k) {
    case ScalarKind::Bool: {
      uint8_t b;
      std::memcpy(&b, p, 1);
      return Value::boolean(b != 0);
    }
    case ScalarKind::I8: {
      int8_t x;
      std::memcpy(&x, p, 1);
      return Value::integer(k, x);
    }
    case ScalarKind::U8: {
      uint8_t x;
      std::memcpy(&x, p, 1);
      return Value::integer(k, x);
    }
    case ScalarKind::I16: {
      int16_t x;
      std::memcpy(&x, p, 2);
      return Value::integer(k, x);
    }
    case ScalarKind::U16: {
      uint16_t x;
      std::memcpy(&x, p, 2);
      return Value::integer(k, x);
    }
    case ScalarKind::I32: {
      int32_t x;
      std::memcpy(&x, p, 4);
      return Value::integer(k, x);
    }
    case ScalarKind::U32: {
      uint32_t x;
      std::memcpy(&x, p, 4);
      return Value::integer(k, x);
    }
    case ScalarKind::I64:
    case ScalarKind::U64: {
      int64_t x;
      std::memcpy(&x, p, 8);
      return Value::integer(k, x);
    }
    case ScalarKind::F32: {
      float x;
      std::memcpy(&x, p, 4);
      return Value::f32(x);
    }
    case ScalarKind::F64: {
      double x;
      std::memcpy(&x, p, 8);
      return Value::f64(x);
    }
  }
  internal_error("load_scalar: bad kind");
}

void store_scalar(ScalarKind k, std::byte* p, const Value& v) {
  if (v.kind() != ValueKind::Scalar || v.scalar_kind() != k)
    internal_error(std::string("interpreter: storing ") + v.to_string() + " into an array of " +
                   scalar_name(k));
  switch (k) {
    case ScalarKind::F32: {
      float f = v.raw_f32();
      std::memcpy(p, &f, 4);
      return;
    }
    case ScalarKind::F64: {
      double d = v.raw_f64();
      std::memcpy(p, &d, 8);
      return;
    }
    default: {
      // Little-endian: the low bytes of the int64 are the value at the narrow width.
      int64_t x = v.raw_int();
      std::memcpy(p, &x, scalar_size(k));
      return;
    }
  }
}

static Value dense_at(const DenseArray& d, int64_t i) {
  const int64_t off = d.offset + i * d.stride[0];
  if (d.rank == 1) return load_scalar(d.sk, d.ptr(off));
  if (d.rank == 2 && d.vec_last) {
    std::vector<Value> lanes;
    lanes.reserve(static_cast<size_t>(d.shape[1]));
    for (int64_t l = 0; l < d.shape[1]; ++l)
      lanes.push_back(load_scalar(d.sk, d.ptr(off + l * d.stride[1])));
    return Value::vector(d.sk, std::move(lanes));
  }
  auto v = std::make_shared<DenseArray>();
  d.row(i, *v);
  return Value::make_object(ValueKind::Array, std::move(v));
}

Value Value::at_slow(int64_t i) const {
  if (kind_ != ValueKind::Array) wrong_kind("an array", kind_);
  if (i < 0 || i >= size())
    internal_error("interpreter: element " + std::to_string(i) + " of an array of " +
                   std::to_string(size()));
  switch (obj_->tag) {
    case Obj::Tag::Dense:
      return dense_at(static_cast<const DenseArray&>(*obj_), i);
    case Obj::Tag::Boxed:
      return static_cast<const BoxedArray&>(*obj_).elems[static_cast<size_t>(i)];
    case Obj::Tag::Zip:
      return make_object(ValueKind::Pair, obj_, i);
    default:
      internal_error("interpreter: malformed array value");
  }
}

static std::string format_scalar(const Value& v) {
  char buf[64];
  switch (v.scalar_kind()) {
    case ScalarKind::Bool:
      return v.raw_int() ? "true" : "false";
    case ScalarKind::F32:
      std::snprintf(buf, sizeof buf, "%.9gf", static_cast<double>(v.raw_f32()));
      return buf;
    case ScalarKind::F64:
      std::snprintf(buf, sizeof buf, "%.17g", v.raw_f64());
      return buf;
    case ScalarKind::U64:
      return std::to_string(static_cast<uint64_t>(v.raw_int()));
    case ScalarKind::I32:
      return std::to_string(v.raw_int());
    default:
      return std::to_string(v.raw_int()) + scalar_name(v.scalar_kind());
  }
}

std::string Value::to_string() const {
  switch (kind_) {
    case ValueKind::None:
      return "<none>";
    case ValueKind::Scalar:
      return format_scalar(*this);
    case ValueKind::Index:
      return "lidx(" + std::to_string(bits_.i) + ", " + std::to_string(aux_) + ")";
    case ValueKind::Nat:
      return std::to_string(bits_.i) + "n";
    case ValueKind::Vector: {
      std::string s = "<";
      for (int64_t i = 0; i < lane_count(); ++i) s += (i ? ", " : "") + lane(i).to_string();
      return s + ">";
    }
    case ValueKind::Pair:
      return "(" + first().to_string() + ", " + second().to_string() + ")";
    case ValueKind::Array: {
      std::string s = "[";
      int64_t n = size();
      for (int64_t i = 0; i < n; ++i) {
        if (i) s += ", ";
        if (i == 64 && n > 80) {
          s += "... (" + std::to_string(n - 64) + " more)";
          break;
        }
        s += at(i).to_string();
      }
      return s + "]";
    }
    case ValueKind::Function:
      return "<function>";
  }
  return "?";
}

// ---------------------------------------------------------------------------------
// Arrays
// ---------------------------------------------------------------------------------

bool StridedArray::contiguous() const {
  int64_t expect = 1;
  for (int k = rank - 1; k >= 0; --k) {
    if (shape[k] != 1 && stride[k] != expect) return false;
    expect *= shape[k];
  }
  return true;
}

int64_t StridedArray::set_c_order() {
  int64_t n = 1;
  for (int d = rank; d-- > 0;) {
    stride[d] = n;
    n *= shape[d];
  }
  return n;
}

StridedArray StridedArray::alloc(ScalarKind sk, int rank, const int64_t* shape, bool vec_last,
                                 const StridedArray* reuse) {
  StridedArray r;
  r.sk = sk;
  r.vec_last = vec_last;
  r.rank = rank;
  for (int d = 0; d < rank; ++d) r.shape[d] = shape[d];
  const size_t bytes = static_cast<size_t>(r.set_c_order()) * scalar_size(sk);
  if (reuse && reuse->store && reuse->store.use_count() == 1 && reuse->store->buf.size() == bytes)
    r.store = reuse->store;
  else
    r.store = std::make_shared<Storage>(bytes);
  return r;
}

// Copy the elements of dimensions dim.. from element `off`, in C order, to dst.
static void copy_strided(const StridedArray& d, int dim, int64_t off, std::byte*& dst) {
  const size_t es = scalar_size(d.sk);
  const int64_t n = d.shape[dim];
  const int64_t s = d.stride[dim];
  if (dim == d.rank - 1) {
    const std::byte* src = d.ptr(off);
    if (s == 1) {
      std::memcpy(dst, src, static_cast<size_t>(n) * es);
      dst += static_cast<size_t>(n) * es;
      return;
    }
    const int64_t step = s * static_cast<int64_t>(es);
    switch (es) {
      case 4:
        for (int64_t i = 0; i < n; ++i, dst += 4) std::memcpy(dst, src + i * step, 4);
        return;
      case 8:
        for (int64_t i = 0; i < n; ++i, dst += 8) std::memcpy(dst, src + i * step, 8);
        return;
      default:
        for (int64_t i = 0; i < n; ++i, dst += es) std::memcpy(dst, src + i * step, es);
        return;
    }
  }
  for (int64_t i = 0; i < n; ++i) copy_strided(d, dim + 1, off + i * s, dst);
}

void StridedArray::copy_to(std::byte*& dst) const {
  if (count() > 0) copy_strided(*this, 0, offset, dst);
}

StridedArray StridedArray::c_order_copy() const {
  StridedArray r = alloc(sk, rank, shape, vec_last);
  std::byte* p = r.store->data();
  copy_to(p);
  return r;
}

std::optional<DenseLayout> dense_layout(const Type& t) {
  DenseLayout l;
  Type cur = t;
  while (cur->kind == TypeKind::Array) {
    auto n = cur->size.as_const();
    if (!n) return std::nullopt;
    l.dims.push_back(*n);
    l.count *= *n;
    cur = cur->a;
  }
  if (cur->kind == TypeKind::Scalar) {
    l.sk = cur->scalar;
    return l;
  }
  if (cur->kind == TypeKind::Vector) {
    auto n = cur->size.as_const();
    if (!n) return std::nullopt;
    l.sk = cur->scalar;
    l.vec = true;
    l.dims.push_back(*n);
    l.count *= *n;
    return l;
  }
  return std::nullopt;
}

Value dense_view(std::shared_ptr<Storage> store, ScalarKind sk, bool vec_last, int rank,
                 const int64_t* shape, const int64_t* stride, int64_t offset) {
  if (rank > kMaxDenseRank) {
    std::vector<Value> elems;
    elems.reserve(static_cast<size_t>(shape[0]));
    for (int64_t i = 0; i < shape[0]; ++i)
      elems.push_back(
          dense_view(store, sk, vec_last, rank - 1, shape + 1, stride + 1, offset + i * stride[0]));
    return boxed_array(std::move(elems));
  }
  StridedArray a;
  a.store = std::move(store);
  a.sk = sk;
  a.vec_last = vec_last;
  a.rank = rank;
  a.offset = offset;
  for (int k = 0; k < rank; ++k) {
    a.shape[k] = shape[k];
    a.stride[k] = stride[k];
  }
  return dense_view(std::move(a));
}

Value dense_view(StridedArray a) {
  if (a.rank < 1) internal_error("dense_view of rank 0");
  return Value::make_object(ValueKind::Array, std::make_shared<DenseArray>(std::move(a)));
}

Value boxed_array(std::vector<Value> elems) {
  auto b = std::make_shared<BoxedArray>();
  b->elems = std::move(elems);
  return Value::make_object(ValueKind::Array, std::move(b));
}

Value zip_arrays(Value a, Value b) {
  if (a.size() != b.size())
    internal_error("zip of arrays of lengths " + std::to_string(a.size()) + " and " +
                   std::to_string(b.size()));
  auto z = std::make_shared<ZipArray>();
  z->n = a.size();
  z->a = std::move(a);
  z->b = std::move(b);
  return Value::make_object(ValueKind::Array, std::move(z));
}

// Write a data value of a dense type in C order to dst (advanced past it).
void write_dense(const Value& v, ScalarKind sk, std::byte*& dst) {
  switch (v.kind()) {
    case ValueKind::Scalar:
      store_scalar(sk, dst, v);
      dst += scalar_size(sk);
      return;
    case ValueKind::Vector: {
      const auto& vo = static_cast<const VectorObj&>(*v.obj());
      for (const Value& l : vo.lanes) {
        store_scalar(sk, dst, l);
        dst += scalar_size(sk);
      }
      return;
    }
    case ValueKind::Array: {
      if (v.obj()->tag == Obj::Tag::Dense) {
        const auto& d = static_cast<const DenseArray&>(*v.obj());
        if (d.sk != sk)
          internal_error(std::string("interpreter: array of ") + scalar_name(d.sk) + " where " +
                         scalar_name(sk) + " was expected");
        d.copy_to(dst);
        return;
      }
      int64_t n = v.size();
      for (int64_t i = 0; i < n; ++i) write_dense(v.at(i), sk, dst);
      return;
    }
    default:
      internal_error(std::string("interpreter: ") + kind_text(v.kind()) +
                     " in an array of scalars");
  }
}

ArrayBuilder::ArrayBuilder(const Type& elem, int64_t n) : n_(n) {
  layout_ = dense_layout(elem);
  if (layout_ && static_cast<int>(layout_->dims.size()) + 1 > kMaxDenseRank) layout_.reset();
  if (layout_) {
    elem_bytes_ = static_cast<size_t>(layout_->count) * scalar_size(layout_->sk);
    store_ = std::make_shared<Storage>(elem_bytes_ * static_cast<size_t>(n));
    cur_ = store_->data();
  } else {
    boxed_.reserve(static_cast<size_t>(n));
  }
}

void ArrayBuilder::push(const Value& v) {
  if (pushed_ >= n_) internal_error("ArrayBuilder: too many elements");
  ++pushed_;
  if (!layout_) {
    boxed_.push_back(v);
    return;
  }
  std::byte* before = cur_;
  write_dense(v, layout_->sk, cur_);
  if (static_cast<size_t>(cur_ - before) != elem_bytes_)
    internal_error("interpreter: an array element of the wrong shape (" + v.to_string() + ")");
}

void ArrayBuilder::push_all(const Value& arr) {
  int64_t n = arr.size();
  if (layout_ && arr.obj()->tag == Obj::Tag::Dense) {
    if (pushed_ + n > n_) internal_error("ArrayBuilder: too many elements");
    std::byte* before = cur_;
    write_dense(arr, layout_->sk, cur_);
    if (static_cast<size_t>(cur_ - before) != elem_bytes_ * static_cast<size_t>(n))
      internal_error("interpreter: array elements of the wrong shape");
    pushed_ += n;
    return;
  }
  for (int64_t i = 0; i < n; ++i) push(arr.at(i));
}

Value ArrayBuilder::finish() {
  if (pushed_ != n_)
    internal_error("ArrayBuilder: " + std::to_string(pushed_) + " of " + std::to_string(n_) +
                   " elements");
  if (!layout_) return boxed_array(std::move(boxed_));
  StridedArray a;
  a.store = std::move(store_);
  a.sk = layout_->sk;
  a.vec_last = layout_->vec;
  a.rank = 1 + static_cast<int>(layout_->dims.size());
  a.shape[0] = n_;
  for (size_t k = 0; k < layout_->dims.size(); ++k) a.shape[k + 1] = layout_->dims[k];
  a.set_c_order();
  return dense_view(std::move(a));
}

Value array_of(const Type& elem, const std::vector<Value>& elems) {
  ArrayBuilder b(elem, static_cast<int64_t>(elems.size()));
  for (const Value& v : elems) b.push(v);
  return b.finish();
}

Value array_slice(const Value& arr, int64_t start, int64_t len) {
  int64_t n = arr.size();
  if (start < 0 || len < 0 || start + len > n)
    internal_error("interpreter: slice [" + std::to_string(start) + ", " +
                   std::to_string(start + len) + ") of an array of " + std::to_string(n));
  switch (arr.obj()->tag) {
    case Obj::Tag::Dense: {
      StridedArray a = static_cast<const DenseArray&>(*arr.obj());
      a.drop(0, start);
      a.take(0, len);
      return dense_view(std::move(a));
    }
    case Obj::Tag::Zip: {
      const auto& z = static_cast<const ZipArray&>(*arr.obj());
      return zip_arrays(array_slice(z.a, start, len), array_slice(z.b, start, len));
    }
    default: {
      const auto& b = static_cast<const BoxedArray&>(*arr.obj());
      return boxed_array(
          std::vector<Value>(b.elems.begin() + start, b.elems.begin() + start + len));
    }
  }
}

Value make_contiguous(const Value& arr, const Type& type) {
  if (arr.obj()->tag == Obj::Tag::Dense) {
    const auto& d = static_cast<const DenseArray&>(*arr.obj());
    if (d.contiguous()) return arr;
  }
  if (type->kind != TypeKind::Array) internal_error("make_contiguous of a non-array type");
  ArrayBuilder b(type->a, arr.size());
  b.push_all(arr);
  return b.finish();
}

Value zero_value(const Type& t) {
  switch (t->kind) {
    case TypeKind::Scalar:
      if (t->scalar == ScalarKind::F32) return Value::f32(0.0f);
      if (t->scalar == ScalarKind::F64) return Value::f64(0.0);
      return Value::integer(t->scalar, 0);
    case TypeKind::Index:
      return Value::index(0, const_size(t->size));
    case TypeKind::NatData:
      return Value::nat(0);
    case TypeKind::Vector: {
      int64_t n = const_size(t->size);
      return Value::vector(
          t->scalar, std::vector<Value>(static_cast<size_t>(n), zero_value(scalar(t->scalar))));
    }
    case TypeKind::Pair:
      return Value::pair(zero_value(t->a), zero_value(t->b));
    case TypeKind::Array: {
      int64_t n = const_size(t->size);
      auto layout = dense_layout(t->a);
      if (layout && static_cast<int>(layout->dims.size()) + 1 <= kMaxDenseRank) {
        // AlignedBuffer is zero-initialised, and all-zero bytes are 0 of every kind.
        int64_t shape[kMaxDenseRank];
        shape[0] = n;
        for (size_t k = 0; k < layout->dims.size(); ++k) shape[k + 1] = layout->dims[k];
        return dense_view(StridedArray::alloc(layout->sk, 1 + static_cast<int>(layout->dims.size()),
                                              shape, layout->vec));
      }
      Value z = zero_value(t->a);
      return boxed_array(std::vector<Value>(static_cast<size_t>(n), z));
    }
    default:
      internal_error("zero_value of the non-data type " + print(t));
  }
}

namespace {
// Structural equality; floats compared with == or, when `bits`, by their bits.
bool equal_values(const Value& a, const Value& b, bool bits) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case ValueKind::None:
      return true;
    case ValueKind::Scalar:
      if (a.scalar_kind() != b.scalar_kind()) return false;
      if (a.scalar_kind() == ScalarKind::F32) {
        float x = a.raw_f32(), y = b.raw_f32();
        return bits ? std::memcmp(&x, &y, sizeof x) == 0 : x == y;
      }
      if (a.scalar_kind() == ScalarKind::F64) {
        double x = a.raw_f64(), y = b.raw_f64();
        return bits ? std::memcmp(&x, &y, sizeof x) == 0 : x == y;
      }
      return a.raw_int() == b.raw_int();
    case ValueKind::Index:
    case ValueKind::Nat:
      return a.raw_int() == b.raw_int();
    case ValueKind::Vector:
      if (a.lane_count() != b.lane_count()) return false;
      for (int64_t i = 0; i < a.lane_count(); ++i)
        if (!equal_values(a.lane(i), b.lane(i), bits)) return false;
      return true;
    case ValueKind::Pair:
      return equal_values(a.first(), b.first(), bits) && equal_values(a.second(), b.second(), bits);
    case ValueKind::Array:
      if (a.size() != b.size()) return false;
      for (int64_t i = 0; i < a.size(); ++i)
        if (!equal_values(a.at(i), b.at(i), bits)) return false;
      return true;
    case ValueKind::Function:
      return a.obj() == b.obj();
  }
  return false;
}
}  // namespace

bool values_equal(const Value& a, const Value& b) {
  return equal_values(a, b, false);
}

bool values_identical(const Value& a, const Value& b) {
  return equal_values(a, b, true);
}

// ---------------------------------------------------------------------------------
// Primitive calls
// ---------------------------------------------------------------------------------

int64_t const_size(const Nat& n, const Span& span) {
  if (auto c = n.as_const()) return *c;
  auto vars = arith::free_vars(n);
  std::string name = vars.empty() ? arith::print(n) : vars.begin()->first;
  throw Error(ErrorKind::User, "size " + name + " has no value; " + how_to_give_size(name), span);
}

Type PrimCall::result_type() const {
  const int arity = (!prim || prim->is(PrimId::MakeArray)) ? count : prim->arity;
  Type t = fn_type;
  for (int i = 0; i < arity; ++i) {
    if (!t || t->kind != TypeKind::Fun)
      internal_error("interpreter: the type of '" + name() + "' is not a function of " +
                     std::to_string(arity) + " arguments: " + (fn_type ? print(fn_type) : "null"));
    t = t->b;
  }
  return t;
}

Type PrimCall::arg_type(int i) const {
  Type t = fn_type;
  for (int k = 0; k < i; ++k) {
    if (!t || t->kind != TypeKind::Fun) internal_error("PrimCall::arg_type");
    t = t->b;
  }
  if (!t || t->kind != TypeKind::Fun) internal_error("PrimCall::arg_type");
  return t->a;
}

int64_t PrimCall::dep_nat(int i) const {
  if (i < 0 || static_cast<size_t>(i) >= dep_args.size())
    internal_error("interpreter: '" + name() + "' is missing its type-level argument " +
                   std::to_string(i + 1));
  const Nat* n = std::get_if<Nat>(&dep_args[static_cast<size_t>(i)]);
  if (!n) internal_error("interpreter: type-level argument of '" + name() + "' is not a Nat");
  return const_size(*n, span);
}

const std::string& PrimCall::name() const {
  return prim ? prim->name : prim_name(PrimId::MakeArray);
}

}  // namespace risec::rise
