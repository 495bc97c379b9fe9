// The C layout of RISE data and conversions between interpreter values and C
// buffers (see layout.h).
#include "runtime/layout.h"

#include <bit>
#include <climits>
#include <cstring>
#include <limits>

#include "rise/interp.h"
#include "support/diagnostics.h"

namespace risec::runtime {

using rise::Type;
using rise::TypeKind;
using rise::Value;

namespace {

size_t round_up(size_t x, size_t a) {
  return (x + a - 1) / a * a;
}

size_t checked_mul(size_t a, size_t b, const Type& t) {
  if (a != 0 && b > std::numeric_limits<size_t>::max() / a)
    user_error("a value of type " + rise::print(t) + " does not fit in memory");
  return a * b;
}

rise::ScalarKind vector_lane_kind(const Type& t) {
  if (t->a && t->a->kind == TypeKind::Scalar) return t->a->scalar;
  if (!t->a) return t->scalar;
  internal_error("C layout: a vector of " + rise::print(t->a));
}

// Nested arrays down to a scalar or vector leaf: the layout of NdArrays and of the
// interpreter's dense arrays, which is also C's, except for vectors whose width is
// not a power of two (C pads them to the next one).
bool dense_c(const Type& t) {
  Type x = t;
  while (x->kind == TypeKind::Array) x = x->a;
  if (x->kind == TypeKind::Vector) {
    const auto lanes = static_cast<uint64_t>(rise::const_size(x->size));
    return std::has_single_bit(lanes);
  }
  return x->kind == TypeKind::Scalar;
}

DType dtype_of(rise::ScalarKind k) {
  return static_cast<DType>(static_cast<int>(k));
}

// Data whose elements are pairs holding arrays, stored one array per component (see
// layout.h): its components, in order, with their element type and count.
struct Part {
  Type leaf;
  size_t count;
};
void parts_of(const Type& t, size_t count, std::vector<Part>& out) {
  if (t->kind == TypeKind::Array)
    return parts_of(t->a, checked_mul(count, static_cast<size_t>(rise::const_size(t->size)), t),
                    out);
  if (t->kind == TypeKind::Pair) {
    parts_of(t->a, count, out);
    return parts_of(t->b, count, out);
  }
  out.push_back({t, count});
}
// The number of parts of t (an empty array's elements still skip theirs).
size_t part_count(const Type& t) {
  std::vector<Part> ps;
  parts_of(t, 1, ps);
  return ps.size();
}
// The parts and their byte offsets; the total size and alignment.
CLayout split_layout(const Type& t, std::vector<Part>* parts, std::vector<size_t>* offsets) {
  std::vector<Part> ps;
  parts_of(t, 1, ps);
  CLayout l{0, 1};
  for (const Part& p : ps) {
    CLayout e = c_layout(p.leaf);
    l.size = round_up(l.size, e.align);
    if (offsets) offsets->push_back(l.size);
    l.size += checked_mul(p.count, e.size, t);
    l.align = std::max(l.align, e.align);
  }
  l.size = round_up(l.size, l.align);
  if (parts) *parts = std::move(ps);
  return l;
}

// Writes (reads) the components of v: part k's next element at cursors[k].
void scatter(const Value& v, const Type& t, std::vector<std::byte*>& cursors, size_t& k) {
  if (t->kind == TypeKind::Array) {
    const size_t first = k;
    for (int64_t i = 0; i < rise::const_size(t->size); ++i) {
      k = first;
      scatter(v.at(i), t->a, cursors, k);
    }
    if (rise::const_size(t->size) == 0) k = first + part_count(t->a);
    return;
  }
  if (t->kind == TypeKind::Pair) {
    scatter(v.first(), t->a, cursors, k);
    return scatter(v.second(), t->b, cursors, k);
  }
  write_c(v, t, cursors[k]);
  cursors[k++] += c_layout(t).size;
}
Value gather(const Type& t, std::vector<const std::byte*>& cursors, size_t& k) {
  if (t->kind == TypeKind::Array) {
    const size_t first = k;
    const int64_t n = rise::const_size(t->size);
    rise::ArrayBuilder b(t->a, n);
    for (int64_t i = 0; i < n; ++i) {
      k = first;
      b.push(gather(t->a, cursors, k));
    }
    if (n == 0) k = first + part_count(t->a);
    return b.finish();
  }
  if (t->kind == TypeKind::Pair) {
    Value a = gather(t->a, cursors, k);
    return Value::pair(std::move(a), gather(t->b, cursors, k));
  }
  Value x = from_c_bytes(cursors[k], t);
  cursors[k++] += c_layout(t).size;
  return x;
}

}  // namespace

CLayout c_layout(const Type& t) {
  if (rise::stored_per_component(t)) return split_layout(t, nullptr, nullptr);
  switch (t->kind) {
    case TypeKind::Scalar: {
      size_t s = rise::scalar_size(t->scalar);
      return {s, s};
    }
    case TypeKind::Index:
      return {sizeof(int), alignof(int)};
    case TypeKind::NatData:  // int64_t, the interpreter's natType values
      return {sizeof(int64_t), alignof(int64_t)};
    case TypeKind::Vector: {
      size_t lanes = static_cast<size_t>(rise::const_size(t->size));
      // A width that is not a power of two is padded to the next one, as the C
      // targets' vector types (and OpenCL's 3-lane types) are; GCC aligns a
      // vector_size(N) type to N.
      size_t s = checked_mul(std::bit_ceil(lanes == 0 ? size_t{1} : lanes),
                             rise::scalar_size(vector_lane_kind(t)), t);
      return {s, s};
    }
    case TypeKind::Pair: {
      CLayout a = c_layout(t->a), b = c_layout(t->b);
      size_t off = round_up(a.size, b.align);
      size_t align = std::max(a.align, b.align);
      return {round_up(off + b.size, align), align};
    }
    case TypeKind::Array: {
      size_t n = static_cast<size_t>(rise::const_size(t->size));
      CLayout e = c_layout(t->a);
      return {checked_mul(n, e.size, t), e.align};
    }
    default:
      internal_error("C layout of the non-data type " + rise::print(t));
  }
}

size_t pair_second_offset(const Type& t) {
  if (t->kind != TypeKind::Pair) internal_error("pair_second_offset of " + rise::print(t));
  return round_up(c_layout(t->a).size, c_layout(t->b).align);
}

void write_c(const Value& v, const Type& t, std::byte* dst) {
  if (rise::stored_per_component(t)) {
    std::vector<size_t> offsets;
    split_layout(t, nullptr, &offsets);
    std::vector<std::byte*> cursors;
    for (size_t o : offsets) cursors.push_back(dst + o);
    size_t k = 0;
    return scatter(v, t, cursors, k);
  }
  switch (t->kind) {
    case TypeKind::Scalar:
      rise::store_scalar(t->scalar, dst, v);
      return;
    case TypeKind::Index: {
      int i = static_cast<int>(v.index_value());
      std::memcpy(dst, &i, sizeof i);
      return;
    }
    case TypeKind::NatData: {
      int64_t x = v.nat_value();
      std::memcpy(dst, &x, sizeof x);
      return;
    }
    case TypeKind::Vector: {
      rise::ScalarKind k = vector_lane_kind(t);
      std::byte* p = dst;
      rise::write_dense(v, k, p);
      return;
    }
    case TypeKind::Pair:
      write_c(v.first(), t->a, dst);
      write_c(v.second(), t->b, dst + pair_second_offset(t));
      return;
    case TypeKind::Array: {
      const int64_t n = rise::const_size(t->size);
      if (v.kind() != rise::ValueKind::Array || v.size() != n)
        internal_error("C layout: the value " + v.to_string().substr(0, 80) + " is not of type " +
                       rise::print(t));
      if (dense_c(t)) {
        Type leaf = t;
        while (leaf->kind == TypeKind::Array) leaf = leaf->a;
        rise::ScalarKind k = leaf->kind == TypeKind::Scalar ? leaf->scalar : vector_lane_kind(leaf);
        std::byte* p = dst;
        rise::write_dense(v, k, p);
        return;
      }
      const size_t es = c_layout(t->a).size;
      for (int64_t i = 0; i < n; ++i) write_c(v.at(i), t->a, dst + static_cast<size_t>(i) * es);
      return;
    }
    default:
      internal_error("C layout of the non-data type " + rise::print(t));
  }
}

AlignedBuffer to_c_buffer(const Value& v, const Type& t) {
  CLayout l = c_layout(t);
  if (l.align > AlignedBuffer::kAlignment)
    user_error("values of type " + rise::print(t) + " need " + std::to_string(l.align) +
               "-byte alignment; the runtime provides " +
               std::to_string(AlignedBuffer::kAlignment));
  AlignedBuffer buf(l.size);
  write_c(v, t, buf.data());
  return buf;
}

Value from_c_bytes(const std::byte* src, const Type& t) {
  if (rise::stored_per_component(t)) {
    std::vector<size_t> offsets;
    split_layout(t, nullptr, &offsets);
    std::vector<const std::byte*> cursors;
    for (size_t o : offsets) cursors.push_back(src + o);
    size_t k = 0;
    return gather(t, cursors, k);
  }
  switch (t->kind) {
    case TypeKind::Scalar:
      return rise::load_scalar(t->scalar, src);
    case TypeKind::Index: {
      int i;
      std::memcpy(&i, src, sizeof i);
      return Value::index(i, rise::const_size(t->size));
    }
    case TypeKind::NatData: {
      int64_t x;
      std::memcpy(&x, src, sizeof x);
      return Value::nat(x);
    }
    case TypeKind::Vector: {
      rise::ScalarKind k = vector_lane_kind(t);
      const int64_t n = rise::const_size(t->size);
      std::vector<Value> lanes;
      lanes.reserve(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i)
        lanes.push_back(rise::load_scalar(k, src + static_cast<size_t>(i) * rise::scalar_size(k)));
      return Value::vector(k, std::move(lanes));
    }
    case TypeKind::Pair:
      return Value::pair(from_c_bytes(src, t->a), from_c_bytes(src + pair_second_offset(t), t->b));
    case TypeKind::Array: {
      const int64_t n = rise::const_size(t->size);
      if (dense_c(t)) {
        // Nested arrays of scalars or vectors: the NdArray layout (vector lanes as the
        // innermost dimension), which the interpreter reads as a dense view.
        std::vector<int64_t> dims;
        Type leaf = t;
        for (; leaf->kind == TypeKind::Array; leaf = leaf->a)
          dims.push_back(rise::const_size(leaf->size));
        rise::ScalarKind k = leaf->scalar;
        if (leaf->kind == TypeKind::Vector) {
          k = vector_lane_kind(leaf);
          dims.push_back(rise::const_size(leaf->size));
        }
        NdArray a = make_array(dtype_of(k), dims);
        if (a.nbytes()) std::memcpy(a.data.data(), src, a.nbytes());
        return rise::from_ndarray(a, t);
      }
      const size_t es = c_layout(t->a).size;
      rise::ArrayBuilder b(t->a, n);
      for (int64_t i = 0; i < n; ++i) b.push(from_c_bytes(src + static_cast<size_t>(i) * es, t->a));
      return b.finish();
    }
    default:
      internal_error("C layout of the non-data type " + rise::print(t));
  }
}

}  // namespace risec::runtime
