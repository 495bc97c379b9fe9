// The reference interpreter's values and the runtime's arrays (see interp.h,
// "Conversions"): values from and to NdArrays (.npy files, compiled kernels'
// buffers), random inputs of a type, and the comparison of values with tolerances.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "rise/interp.h"
#include "rise/rounding_bound.h"
#include "support/diagnostics.h"
#include "support/random.h"

namespace risec::rise {

namespace {

runtime::DType dtype_of(ScalarKind k) {
  return static_cast<runtime::DType>(static_cast<int>(k));
}
ScalarKind kind_of(runtime::DType d) {
  return static_cast<ScalarKind>(static_cast<int>(d));
}

[[noreturn]] void conversion_error(const std::string& msg) {
  throw Error(ErrorKind::User, msg);
}

bool contains_pair(const Type& t) {
  if (t->kind == TypeKind::Pair) return true;
  if (t->kind == TypeKind::Array) return contains_pair(t->a);
  return false;
}

// Dimensions of nested arrays down to a non-array leaf.
Type array_dims(const Type& t, std::vector<int64_t>& dims) {
  Type cur = t;
  while (cur->kind == TypeKind::Array) {
    dims.push_back(const_size(cur->size));
    cur = cur->a;
  }
  return cur;
}

// Read integer element `i` of an integer NdArray.
int64_t nd_int(const runtime::NdArray& a, int64_t i) {
  ScalarKind k = kind_of(a.dtype);
  Value v = load_scalar(k, a.data.data() + static_cast<size_t>(i) * scalar_size(k));
  if (k == ScalarKind::U64 && v.raw_int() < 0) conversion_error("index value too large");
  return v.raw_int();
}

Value index_leaves(const runtime::NdArray& a, const Type& t, int64_t& pos) {
  if (t->kind == TypeKind::Array) {
    int64_t n = const_size(t->size);
    std::vector<Value> elems;
    elems.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) elems.push_back(index_leaves(a, t->a, pos));
    return boxed_array(std::move(elems));
  }
  int64_t v = nd_int(a, pos++);
  if (t->kind == TypeKind::NatData) {
    if (v < 0) conversion_error("natType input value " + std::to_string(v) + " is negative");
    return Value::nat(v);
  }
  int64_t n = const_size(t->size);
  if (v < 0 || v >= n)
    conversion_error("input value " + std::to_string(v) + " is out of range for idx[" +
                     std::to_string(n) + "]");
  return Value::index(v, n);
}

void int_leaves(const Value& v, const Type& t, int64_t*& out) {
  if (t->kind == TypeKind::Array) {
    for (int64_t i = 0; i < v.size(); ++i) int_leaves(v.at(i), t->a, out);
    return;
  }
  *out++ = v.raw_int();
}

// Arrays of pairs: the array of first (side 0) or second (side 1) components.
Type project_type(const Type& t, int side) {
  if (t->kind == TypeKind::Pair) return side ? t->b : t->a;
  return array(t->size, project_type(t->a, side));
}

Value project(const Value& v, const Type& t, int side) {
  if (t->kind == TypeKind::Pair) return side ? v.second() : v.first();
  if (v.obj()->tag == Obj::Tag::Zip && t->a->kind == TypeKind::Pair) {
    const auto& z = static_cast<const ZipArray&>(*v.obj());
    return side ? z.b : z.a;
  }
  ArrayBuilder b(project_type(t->a, side), v.size());
  for (int64_t i = 0; i < v.size(); ++i) b.push(project(v.at(i), t->a, side));
  return b.finish();
}

Value zip_at_depth(const Value& a, const Value& b, const Type& t) {
  if (t->a->kind == TypeKind::Pair) return zip_arrays(a, b);
  std::vector<Value> rows;
  for (int64_t i = 0; i < a.size(); ++i) rows.push_back(zip_at_depth(a.at(i), b.at(i), t->a));
  return boxed_array(std::move(rows));
}

Value random_leaves(const Type& t, runtime::Rng& rng) {
  switch (t->kind) {
    case TypeKind::Index:
      return Value::index(rng.below(const_size(t->size)), const_size(t->size));
    case TypeKind::NatData:
      return Value::nat(rng.below(100));
    case TypeKind::Array: {
      int64_t n = const_size(t->size);
      ArrayBuilder b(t->a, n);
      for (int64_t i = 0; i < n; ++i) b.push(random_leaves(t->a, rng));
      return b.finish();
    }
    default:
      internal_error("random_leaves of " + print(t));
  }
}

std::string format_number(const Value& v) {
  char buf[64];
  if (v.kind() == ValueKind::Scalar && v.scalar_kind() == ScalarKind::F32) {
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v.raw_f32()));
    return buf;
  }
  if (v.kind() == ValueKind::Scalar && v.scalar_kind() == ScalarKind::F64) {
    std::snprintf(buf, sizeof buf, "%.17g", v.raw_f64());
    return buf;
  }
  return v.to_string();
}

// m, k: the rounding bound's magnitude and count at the same place (None: no bound).
bool close_rec(const Value& a, const Value& b, const Value& m, const Value& k, double u,
               double rtol, double atol, std::string& path, std::string* where) {
  const bool bounded = !m.is_none() && !k.is_none();
  auto part = [&](const Value& v, auto get) { return bounded ? get(v) : Value(); };
  auto mismatch = [&](const std::string& what) {
    if (where) *where = (path.empty() ? std::string("value") : "element " + path) + ": " + what;
    return false;
  };
  if (a.kind() != b.kind()) return mismatch(a.to_string() + " vs " + b.to_string());
  switch (a.kind()) {
    case ValueKind::None:
      return true;
    case ValueKind::Scalar: {
      if (a.scalar_kind() != b.scalar_kind())
        return mismatch(std::string(scalar_name(a.scalar_kind())) + " vs " +
                        scalar_name(b.scalar_kind()));
      if (is_float(a.scalar_kind())) {
        double x = a.to_double(), y = b.to_double();
        bool ok;
        if (std::isnan(x) || std::isnan(y))
          ok = std::isnan(x) && std::isnan(y);
        else if (std::isinf(x) || std::isinf(y))
          ok = x == y;
        else
          ok = std::fabs(x - y) <=
               atol + rtol * std::max(std::fabs(x), std::fabs(y)) +
                   (bounded ? rounding_allowance(u, m.to_double(), k.to_double()) : 0.0);
        return ok ? true : mismatch(format_number(a) + " vs " + format_number(b));
      }
      return a.raw_int() == b.raw_int() ? true : mismatch(a.to_string() + " vs " + b.to_string());
    }
    case ValueKind::Index:
    case ValueKind::Nat:
      return a.raw_int() == b.raw_int() ? true : mismatch(a.to_string() + " vs " + b.to_string());
    case ValueKind::Vector: {
      if (a.lane_count() != b.lane_count())
        return mismatch(std::to_string(a.lane_count()) + " lanes vs " +
                        std::to_string(b.lane_count()));
      for (int64_t i = 0; i < a.lane_count(); ++i) {
        size_t len = path.size();
        path += "<" + std::to_string(i) + ">";
        auto lane = [i](const Value& v) { return v.lane(i); };
        if (!close_rec(a.lane(i), b.lane(i), part(m, lane), part(k, lane), u, rtol, atol, path,
                       where))
          return false;
        path.resize(len);
      }
      return true;
    }
    case ValueKind::Pair: {
      size_t len = path.size();
      path += "._1";
      auto first = [](const Value& v) { return v.first(); };
      auto second = [](const Value& v) { return v.second(); };
      if (!close_rec(a.first(), b.first(), part(m, first), part(k, first), u, rtol, atol, path,
                     where))
        return false;
      path.resize(len);
      path += "._2";
      if (!close_rec(a.second(), b.second(), part(m, second), part(k, second), u, rtol, atol, path,
                     where))
        return false;
      path.resize(len);
      return true;
    }
    case ValueKind::Array: {
      if (a.size() != b.size())
        return mismatch("length " + std::to_string(a.size()) + " vs " + std::to_string(b.size()));
      for (int64_t i = 0; i < a.size(); ++i) {
        size_t len = path.size();
        path += "[" + std::to_string(i) + "]";
        auto at = [i](const Value& v) { return v.at(i); };
        if (!close_rec(a.at(i), b.at(i), part(m, at), part(k, at), u, rtol, atol, path, where))
          return false;
        path.resize(len);
      }
      return true;
    }
    case ValueKind::Function:
      return mismatch("functions cannot be compared");
  }
  return false;
}

}  // namespace

Value from_ndarray(const runtime::NdArray& a, const Type& t) {
  std::vector<int64_t> dims;
  Type leaf = array_dims(t, dims);
  if (leaf->kind == TypeKind::Vector) dims.push_back(const_size(leaf->size));
  if (a.shape != dims)
    conversion_error("an input of type " + print(t) + " needs shape " +
                     runtime::shape_string(dims) + ", got " + runtime::shape_string(a.shape));
  if (leaf->kind == TypeKind::Index || leaf->kind == TypeKind::NatData) {
    if (runtime::dtype_is_float(a.dtype) || a.dtype == runtime::DType::Bool)
      conversion_error("an input of type " + print(t) + " needs integers, got " +
                       runtime::dtype_name(a.dtype));
    int64_t pos = 0;
    return index_leaves(a, t, pos);
  }
  if (leaf->kind != TypeKind::Scalar && leaf->kind != TypeKind::Vector)
    conversion_error("an input of type " + print(t) + " cannot be read from one array");
  const ScalarKind k = leaf->scalar;
  if (a.dtype != dtype_of(k))
    conversion_error("an input of type " + print(t) + " needs elements of type " + scalar_name(k) +
                     ", got " + runtime::dtype_name(a.dtype));
  const std::byte* src = a.data.data();
  if (t->kind == TypeKind::Scalar) return load_scalar(k, src);
  if (t->kind == TypeKind::Vector) {
    std::vector<Value> lanes;
    for (int64_t i = 0; i < dims[0]; ++i)
      lanes.push_back(load_scalar(k, src + static_cast<size_t>(i) * scalar_size(k)));
    return Value::vector(k, std::move(lanes));
  }
  auto store = std::make_shared<Storage>(a.nbytes());
  if (a.nbytes()) std::memcpy(store->data(), src, a.nbytes());
  const int rank = static_cast<int>(dims.size());
  std::vector<int64_t> stride(dims.size());
  int64_t s = 1;
  for (int i = rank - 1; i >= 0; --i) {
    stride[static_cast<size_t>(i)] = s;
    s *= dims[static_cast<size_t>(i)];
  }
  return dense_view(std::move(store), k, leaf->kind == TypeKind::Vector, rank, dims.data(),
                    stride.data(), 0);
}

runtime::NdArray to_ndarray(const Value& v, const Type& t) {
  if (contains_pair(t))
    conversion_error("a value of type " + print(t) +
                     " holds pairs and is not one array (to_ndarrays gives its components)");
  std::vector<int64_t> dims;
  Type leaf = array_dims(t, dims);
  if (leaf->kind == TypeKind::Index || leaf->kind == TypeKind::NatData) {
    runtime::NdArray out = runtime::make_array(runtime::DType::I64, dims);
    int64_t* p = out.as<int64_t>();
    int_leaves(v, t, p);
    return out;
  }
  if (leaf->kind == TypeKind::Vector) dims.push_back(const_size(leaf->size));
  if (leaf->kind != TypeKind::Scalar && leaf->kind != TypeKind::Vector)
    conversion_error("a value of type " + print(t) + " is not an array of scalars");
  runtime::NdArray out = runtime::make_array(dtype_of(leaf->scalar), dims);
  std::byte* dst = out.data.data();
  write_dense(v, leaf->scalar, dst);
  if (static_cast<size_t>(dst - out.data.data()) != out.nbytes())
    internal_error("to_ndarray: the value does not have the shape of " + print(t));
  return out;
}

std::vector<runtime::NdArray> to_ndarrays(const Value& v, const Type& t) {
  std::vector<runtime::NdArray> out;
  if (!contains_pair(t)) {
    out.push_back(to_ndarray(v, t));
    return out;
  }
  for (int side = 0; side < 2; ++side) {
    auto part = to_ndarrays(project(v, t, side), project_type(t, side));
    for (auto& a : part) out.push_back(std::move(a));
  }
  return out;
}

std::vector<Type> leaf_types(const Type& t) {
  if (!contains_pair(t)) return {t};
  std::vector<Type> out;
  for (int side = 0; side < 2; ++side)
    for (auto& l : leaf_types(project_type(t, side))) out.push_back(l);
  return out;
}

Value run_on_random_inputs(const Expr& entry, uint64_t seed) {
  EntrySignature sig = entry_signature(entry->type);
  std::vector<Value> inputs;
  for (size_t i = 0; i < sig.params.size(); ++i)
    inputs.push_back(random_input(sig.params[i], runtime::derive_seed(seed, i)));
  Interpreter interp;
  return interp.run(entry, inputs);
}

Value random_input(const Type& t, uint64_t seed) {
  if (contains_pair(t)) {
    Value a = random_input(project_type(t, 0), runtime::derive_seed(seed, 1));
    Value b = random_input(project_type(t, 1), runtime::derive_seed(seed, 2));
    if (t->kind == TypeKind::Pair) return Value::pair(a, b);
    return zip_at_depth(a, b, t);
  }
  std::vector<int64_t> dims;
  Type leaf = array_dims(t, dims);
  if (leaf->kind == TypeKind::Index || leaf->kind == TypeKind::NatData) {
    runtime::Rng rng(seed);
    return random_leaves(t, rng);
  }
  if (leaf->kind == TypeKind::Vector) dims.push_back(const_size(leaf->size));
  if (leaf->kind != TypeKind::Scalar && leaf->kind != TypeKind::Vector)
    conversion_error("no random input of type " + print(t));
  runtime::NdArray a = runtime::make_array(dtype_of(leaf->scalar), dims);
  runtime::fill_random(a, seed);
  return from_ndarray(a, t);
}

bool values_close(const Value& a, const Value& b, double rtol, double atol, std::string* where,
                  const RoundingBound* bound) {
  std::string path;
  if (rtol == 0 && atol == 0) bound = nullptr;  // bit-identical results demanded
  return close_rec(a, b, bound ? bound->magnitude : Value(), bound ? bound->count : Value(),
                   bound ? bound->unit_roundoff : 0.0, rtol, atol, path, where);
}

}  // namespace risec::rise
