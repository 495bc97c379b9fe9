// The meaning of every primitive: the interpreter semantics column of the primitive
// table (rise/primitives.cpp). Scalar semantics are summarised in rise/value.h; the
// array primitives are documented at their definitions below.
#include "rise/interp_prims.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>

#include "rise/interp.h"
#include "rise/scalar_ops.h"
#include "rise/views.h"
#include "support/diagnostics.h"

namespace risec::rise {

namespace {

[[noreturn]] void prim_fail(const std::string& msg, const Span& span) {
  throw Error(ErrorKind::User, msg, span);
}

// A run-time error of the program (exit 4, as a fault of compiled code is): the
// operation, and the source text when the span has it.
[[noreturn]] void arith_fault(const std::string& what, const Span& span) {
  std::string text;
  if (span.known() && span.end > span.begin && span.end <= span.file->text.size() &&
      span.end - span.begin <= 60) {
    text = span.file->text.substr(span.begin, span.end - span.begin);
    if (text.find('\n') != std::string::npos) text.clear();
  }
  throw Error(ErrorKind::External, what + (text.empty() ? "" : " in `" + text + "`"), span);
}

// An index made from data that is out of range: a run-time error of the program (exit
// 4), as the checks of compiled code report it (docs/guarantees.md), in its words.
[[noreturn]] void index_fault(const std::string& what, const Span& span) {
  throw Error(ErrorKind::External, what, span);
}

// A lane of kind k (a bool: a comparison's result, or a lane of kind bool).
template <class T>
Value make_lane(ScalarKind k, T x) {
  if constexpr (std::is_same_v<T, bool>)
    return Value::boolean(x);
  else if constexpr (std::is_same_v<T, float>)
    return Value::f32(x);
  else if constexpr (std::is_same_v<T, double>)
    return Value::f64(x);
  else
    return Value::from_u64(k, static_cast<uint64_t>(x));
}

// The lane of a scalar value as T (its kind's lane type).
template <class T>
T lane_of(const Value& v) {
  if constexpr (std::is_same_v<T, float>)
    return v.raw_f32();
  else if constexpr (std::is_same_v<T, double>)
    return v.raw_f64();
  else
    return static_cast<T>(v.raw_int());
}

// The error of an operation without a result (integer division or modulo,
// rise/scalar_ops.h), in the words generated code uses: `%` is a modulo.
void raise_fault(OpFault f, ScalarKind k, bool modulo, const Span& span) {
  if (f == OpFault::DivByZero)
    arith_fault(std::string("integer ") + (modulo ? "modulo" : "division") + " by zero", span);
  if (f == OpFault::DivOverflow)
    arith_fault("integer overflow: the least " + std::string(scalar_name(k)) +
                    (modulo ? " modulo" : " divided by") + " -1 has no result",
                span);
}

// op on lanes x and y of type T through the operator functor (rise/scalar_ops.h),
// its fault raised at `span`; nullopt when the functor does not define it on T.
template <class T>
std::optional<Value> functor_op(ScalarOp op, ScalarKind k, T x, T y, const Span& span) {
  std::optional<Value> r;
  with_op(ScalarOperators{}, op->id, [&]<PrimId Op>() {
    if constexpr (op_defined<Op, T>()) {
      raise_fault(op_fault<Op>(x, y), k, Op == PrimId::Mod, span);
      r = make_lane(k, apply_op<Op>(x, y));
    }
  });
  return r;
}

// Scalars of kind k: the operator functor; other math builtins evaluate their table
// function in double and convert the result to k (floats: rounded to the operand's
// precision; integers: as a cast does).
Value lane_op(ScalarOp op, ScalarKind k, const Value& a, const Value& b, bool unary,
              const Span& span) {
  return with_lane_type(k, [&]<class T>() -> Value {
    const T x = lane_of<T>(a), y = unary ? T{} : lane_of<T>(b);
    if (std::optional<Value> r = functor_op(op, k, x, y, span)) return *r;
    const auto fp = static_cast<double>(x), fq = static_cast<double>(y);
    if constexpr (std::is_floating_point_v<T>) {
      if (op->math1) return make_lane(k, static_cast<T>(op->math1(fp)));
      if (op->math2) return make_lane(k, static_cast<T>(op->math2(fp, fq)));
      prim_fail(op->name + " is not defined on floating-point values", span);
    } else {
      if (op->math1) return Value::from_double(k, op->math1(fp));
      if (op->math2) return Value::from_double(k, op->math2(fp, fq));
      prim_fail(op->name + " is not defined on " + scalar_name(k), span);
    }
  });
}

// Arithmetic on idx[n] (results must stay in [0, n)) and natType (results >= 0): the
// operator functor on int64_t.
Value index_op(ScalarOp op, const Value& a, const Value& b, const Span& span) {
  const bool is_index = a.kind() == ValueKind::Index;
  const int64_t x = a.raw_int(), y = b.raw_int();
  std::optional<int64_t> result;
  bool comparison = false;
  with_op(ScalarOperators{}, op->id, [&]<PrimId Op>() {
    if constexpr (op_defined<Op, int64_t>()) {
      raise_fault(op_fault<Op>(x, y), ScalarKind::I64, Op == PrimId::Mod,
                  span);  // (only by zero: x, y >= 0)
      comparison = std::is_same_v<OpResult<Op, int64_t>, bool>;
      result = static_cast<int64_t>(apply_op<Op>(x, y));
    }
  });
  if (!result)
    prim_fail(op->name + " is not defined on " + (is_index ? "indices" : "natType values"), span);
  const int64_t r = *result;
  if (comparison) return Value::boolean(r != 0);
  if (is_index) {
    int64_t n = a.index_bound();
    if (r < 0 || r >= n)
      index_fault("index arithmetic: " + op->name + " gives " + std::to_string(r) +
                      ", out of range for idx[" + std::to_string(n) + "]",
                  span);
    return Value::index(r, n);
  }
  if (r < 0)
    prim_fail("natType arithmetic: " + op->name + " gives the negative value " + std::to_string(r),
              span);
  return Value::nat(r);
}

const char* kind_word(ValueKind k) {
  switch (k) {
    case ValueKind::Pair:
      return "pairs";
    case ValueKind::Array:
      return "arrays";
    case ValueKind::Function:
      return "functions";
    default:
      return "these values";
  }
}

// The interpreter of a call (a local one when the call was built without one, as
// tests do: interpretation keeps no state outside the values).
Interpreter& interp_ref(const PrimCall& c, Interpreter& local) {
  return c.interp ? *c.interp : local;
}

int64_t last_dep_nat(const PrimCall& call) {
  for (size_t i = call.dep_args.size(); i-- > 0;)
    if (std::holds_alternative<Nat>(call.dep_args[i])) return call.dep_nat(static_cast<int>(i));
  internal_error("interpreter: '" + call.name() + "' has no size argument");
}

Type prim_elem_of(const Type& array_type) {
  if (!array_type || array_type->kind != TypeKind::Array)
    internal_error("interpreter: expected an array type, got " +
                   (array_type ? print(array_type) : std::string("null")));
  return array_type->a;
}

Value map_array(Interpreter& interp, const Value& f, const Value& xs, const Type& elem) {
  const int64_t n = xs.size();
  Applier ap(interp, f);
  ArrayBuilder b(elem, n);
  for (int64_t i = 0; i < n; ++i) b.push(ap(xs.at(i)));
  return b.finish();
}

}  // namespace

// ---------------------------------------------------------------------------------
// Shared scalar helpers
// ---------------------------------------------------------------------------------

ScalarOp scalar_op_of(const PrimitiveInfo* p) {
  return p && p->eval == eval_scalar_op ? p : nullptr;
}

Value scalar_op(ScalarOp op, const Value& a, const Value& b, const Span& span) {
  const bool unary = is_unary(op);
  if (a.kind() == ValueKind::Scalar && (unary || b.kind() == ValueKind::Scalar)) {
    const ScalarKind k = a.scalar_kind();
    if (!unary && b.scalar_kind() != k)
      internal_error(std::string("interpreter: ") + op->name + " on " + scalar_name(k) + " and " +
                     scalar_name(b.scalar_kind()));
    return lane_op(op, k, a, b, unary, span);
  }
  if (op->is(PrimId::Equal) && a.kind() != ValueKind::Vector) {
    if (a.kind() == ValueKind::Index || a.kind() == ValueKind::Nat)
      return Value::boolean(a.raw_int() == b.raw_int());
    return Value::boolean(values_equal(a, b));
  }
  if ((a.kind() == ValueKind::Index || a.kind() == ValueKind::Nat) &&
      (unary || b.kind() == a.kind())) {
    if (op->is(PrimId::Neg)) prim_fail("neg is not defined on indices and natType values", span);
    return index_op(op, a, unary ? a : b, span);
  }
  if (a.kind() == ValueKind::Vector) {
    const int64_t n = a.lane_count();
    if (!unary && (b.kind() != ValueKind::Vector || b.lane_count() != n))
      internal_error(std::string("interpreter: ") + op->name + " on vectors of different shapes");
    std::vector<Value> lanes;
    lanes.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      lanes.push_back(scalar_op(op, a.lane(i), unary ? Value() : b.lane(i), span));
    ScalarKind k = lanes.empty() ? a.scalar_kind() : lanes[0].scalar_kind();
    return Value::vector(k, std::move(lanes));
  }
  prim_fail(op->name + " is not defined on " + kind_word(a.kind()), span);
}

Value cast_value(const Value& v, const Type& to, const Span& span) {
  switch (to->kind) {
    case TypeKind::Vector: {
      if (v.kind() != ValueKind::Vector) prim_fail("cast of a non-vector to " + print(to), span);
      Type lane = scalar(to->scalar);
      std::vector<Value> lanes;
      for (int64_t i = 0; i < v.lane_count(); ++i)
        lanes.push_back(cast_value(v.lane(i), lane, span));
      return Value::vector(to->scalar, std::move(lanes));
    }
    case TypeKind::Scalar: {
      const ScalarKind k = to->scalar;
      if (v.kind() == ValueKind::Index || v.kind() == ValueKind::Nat)
        return Value::integer(k, v.raw_int());
      if (v.kind() != ValueKind::Scalar)
        prim_fail("cast of " + v.to_string() + " to " + print(to), span);
      const ScalarKind s = v.scalar_kind();
      if (s == k) return v;
      if (s == ScalarKind::F32) return Value::from_double(k, static_cast<double>(v.raw_f32()));
      if (s == ScalarKind::F64) return Value::from_double(k, v.raw_f64());
      // From an integer or bool: the stored int64 is the value (u64: its bits).
      if (s == ScalarKind::U64) return Value::from_u64(k, static_cast<uint64_t>(v.raw_int()));
      return Value::integer(k, v.raw_int());
    }
    case TypeKind::Index:
    case TypeKind::NatData: {
      int64_t x;
      if (v.kind() == ValueKind::Index || v.kind() == ValueKind::Nat) {
        x = v.raw_int();
      } else if (v.kind() == ValueKind::Scalar && !is_float(v.scalar_kind())) {
        x = v.raw_int();
        if (v.scalar_kind() == ScalarKind::U64 && x < 0)
          prim_fail("cast: " + v.to_string() + " does not fit in " + print(to), span);
      } else {
        prim_fail("cast of " + v.to_string() + " to " + print(to), span);
      }
      if (to->kind == TypeKind::NatData) {
        if (x < 0)
          index_fault("cast: the negative value " + std::to_string(x) + " to natType", span);
        return Value::nat(x);
      }
      int64_t n = const_size(to->size, span);
      if (x < 0 || x >= n)
        index_fault(
            "cast: " + std::to_string(x) + " is out of range for idx[" + std::to_string(n) + "]",
            span);
      return Value::index(x, n);
    }
    default:
      prim_fail("cast to " + print(to) + " is not supported", span);
  }
}

Value index_array(const Value& arr, const Value& i, const Span& span) {
  int64_t k;
  if (i.kind() == ValueKind::Index || i.kind() == ValueKind::Nat)
    k = i.raw_int();
  else if (i.kind() == ValueKind::Scalar && !is_float(i.scalar_kind()))
    k = i.raw_int();
  else
    internal_error("interpreter: idx with a non-index " + i.to_string());
  int64_t n = arr.size();
  if (k < 0 || k >= n)
    index_fault("index " + std::to_string(k) + " is out of range for an array of " +
                    std::to_string(n) + " elements",
                span);
  return arr.at(k);
}

// ---------------------------------------------------------------------------------
// Scalar primitives
// ---------------------------------------------------------------------------------

// id, toMem, oclToMem: the value itself (memory placement has no meaning here).
Value eval_id(const PrimCall& call) {
  return call.args.at(0);
}

// The scalar operations (arithmetic, comparisons, math builtins): the operation of
// the call's own row, on scalars, indices and natType values, lane-wise on vectors.
Value eval_scalar_op(const PrimCall& call) {
  ScalarOp op = call.prim;
  return scalar_op(op, call.args.at(0), is_unary(op) ? Value() : call.args.at(1), call.span);
}

// select(c)(a)(b) = c ? a : b (a whole vector when a and b are vectors). The
// interpreter's inline path evaluates only the branch it picks.
Value eval_select(const PrimCall& call) {
  const Value& c = call.args.at(0);
  if (c.kind() == ValueKind::Vector) return blend(c, call.args.at(1), call.args.at(2));
  if (c.kind() != ValueKind::Scalar || c.scalar_kind() != ScalarKind::Bool)
    internal_error("interpreter: select on a non-bool condition " + c.to_string());
  return c.raw_int() ? call.args.at(1) : call.args.at(2);
}

Value blend(const Value& mask, const Value& a, const Value& b) {
  if (a.kind() == ValueKind::Pair)
    return Value::pair(blend(mask, a.first(), b.first()), blend(mask, a.second(), b.second()));
  const int64_t n = mask.lane_count();
  if (a.kind() != ValueKind::Vector || b.kind() != ValueKind::Vector || a.lane_count() != n ||
      b.lane_count() != n)
    internal_error("interpreter: select on a mask of " + std::to_string(n) + " lanes between " +
                   a.to_string() + " and " + b.to_string());
  std::vector<Value> lanes;
  lanes.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) lanes.push_back(mask.lane(i).raw_int() ? a.lane(i) : b.lane(i));
  return Value::vector(a.scalar_kind(), std::move(lanes));
}

namespace {
Value any_all(const PrimCall& call, bool all) {
  const Value& m = call.args.at(0);
  if (m.kind() != ValueKind::Vector) internal_error("interpreter: any/all of " + m.to_string());
  for (int64_t i = 0; i < m.lane_count(); ++i)
    if ((m.lane(i).raw_int() != 0) != all) return Value::boolean(!all);
  return Value::boolean(all);
}
}  // namespace

// any(m): some lane of the mask is true; all(m): every lane is.
Value eval_any(const PrimCall& call) {
  return any_all(call, false);
}
Value eval_all(const PrimCall& call) {
  return any_all(call, true);
}

// cast: C conversions between scalar kinds (see value.h), lane-wise on vectors, and
// between integers, indices and natType values (range checked). A cast to the same
// type is the identity (for any data type).
Value eval_cast(const PrimCall& call) {
  Type to = call.result_type();
  if (equal(call.arg_type(0), to)) return call.args.at(0);
  return cast_value(call.args.at(0), to, call.span);
}

Value eval_indexAsNat(const PrimCall& call) {
  const Value& i = call.args.at(0);
  return Value::nat(i.raw_int());
}

// natAsIndex(n)(v): v as idx[n]; an error when v >= n.
Value eval_natAsIndex(const PrimCall& call) {
  int64_t n = call.dep_nat(0);
  int64_t v = call.args.at(0).raw_int();
  if (v < 0 || v >= n)
    index_fault("natAsIndex(" + std::to_string(n) + "): " + std::to_string(v) + " is out of range",
                call.span);
  return Value::index(v, n);
}

// let(x)(f) = f(x)
Value eval_let(const PrimCall& call) {
  Interpreter local;
  return interp_ref(call, local).apply(call.args.at(1), call.args.at(0));
}

// ---------------------------------------------------------------------------------
// Arrays
// ---------------------------------------------------------------------------------

// [a, b, c]
Value eval_makeArray(const PrimCall& call) {
  Type elem = prim_elem_of(call.result_type());
  return array_of(elem, call.args);
}

// generate(f) = [f(0), ..., f(n-1)] with indices of type idx[n].
Value eval_generate(const PrimCall& call) {
  Interpreter local;
  Type rt = call.result_type();
  int64_t n = const_size(rt->size, call.span);
  Applier ap(interp_ref(call, local), call.args.at(0));
  ArrayBuilder b(rt->a, n);
  for (int64_t i = 0; i < n; ++i) b.push(ap(Value::index(i, n)));
  return b.finish();
}

// idx(i)(x) = x[i]
Value eval_idx(const PrimCall& call) {
  return index_array(call.args.at(1), call.args.at(0), call.span);
}

// gather(indices)(x)[i] = x[indices[i]]
Value eval_gather(const PrimCall& call) {
  const Value& indices = call.args.at(0);
  const Value& x = call.args.at(1);
  const int64_t m = indices.size();
  ArrayBuilder b(prim_elem_of(call.result_type()), m);
  for (int64_t i = 0; i < m; ++i) b.push(index_array(x, indices.at(i), call.span));
  return b.finish();
}

// scatter(indices)(x)[indices[i]] = x[i]. Positions no index names hold the zero of
// the element type; when several indices name the same position the last one wins.
Value eval_scatter(const PrimCall& call) {
  const Value& indices = call.args.at(0);
  const Value& x = call.args.at(1);
  Type rt = call.result_type();
  const int64_t m = const_size(rt->size, call.span);
  std::vector<Value> out(static_cast<size_t>(m));
  for (int64_t i = 0; i < indices.size(); ++i) {
    int64_t j = indices.at(i).raw_int();
    if (j < 0 || j >= m)
      index_fault("scatter: index " + std::to_string(j) + " is out of range for an array of " +
                      std::to_string(m) + " elements",
                  call.span);
    out[static_cast<size_t>(j)] = x.at(i);
  }
  Value zero;
  for (Value& v : out)
    if (v.is_none()) {
      if (zero.is_none()) zero = zero_value(rt->a);
      v = zero;
    }
  return array_of(rt->a, out);
}

// update(i)(v)(x) = x with element i replaced by v (a point update).
Value eval_update(const PrimCall& call) {
  const int64_t i = call.args.at(0).raw_int();
  const Value& v = call.args.at(1);
  const Value& x = call.args.at(2);
  if (i < 0 || i >= x.size())
    index_fault("update: index " + std::to_string(i) + " is out of range for an array of " +
                    std::to_string(x.size()) + " elements",
                call.span);
  std::vector<Value> out;
  out.reserve(static_cast<size_t>(x.size()));
  for (int64_t j = 0; j < x.size(); ++j) out.push_back(j == i ? v : x.at(j));
  return array_of(call.result_type()->a, out);
}

// padEmpty(r)(x) = [x..., r unspecified elements]; the interpreter fills them with
// the zero of the element type.
Value eval_padEmpty(const PrimCall& call) {
  const int64_t r = call.dep_nat(0);
  const Value& x = call.args.at(0);
  Type elem = prim_elem_of(call.result_type());
  ArrayBuilder b(elem, x.size() + r);
  b.push_all(x);
  if (r > 0) {
    Value z = zero_value(elem);
    for (int64_t i = 0; i < r; ++i) b.push(z);
  }
  return b.finish();
}

// unzip(x) = ([x[i]._1 ...], [x[i]._2 ...]) (free for a zip).
Value eval_unzip(const PrimCall& call) {
  const Value& x = call.args.at(0);
  if (x.obj()->tag == Obj::Tag::Zip) {
    const auto& z = static_cast<const ZipArray&>(*x.obj());
    return Value::pair(z.a, z.b);
  }
  Type rt = call.result_type();  // (n.s, n.t)
  const int64_t n = x.size();
  ArrayBuilder a(prim_elem_of(rt->a), n), b(prim_elem_of(rt->b), n);
  for (int64_t i = 0; i < n; ++i) {
    Value p = x.at(i);
    a.push(p.first());
    b.push(p.second());
  }
  return Value::pair(a.finish(), b.finish());
}

// ---------------------------------------------------------------------------------
// Pairs
// ---------------------------------------------------------------------------------

Value eval_makePair(const PrimCall& call) {
  return Value::pair(call.args.at(0), call.args.at(1));
}
Value eval_fst(const PrimCall& call) {
  return call.args.at(0).first();
}
Value eval_snd(const PrimCall& call) {
  return call.args.at(0).second();
}

// mapFst(f)((a, b)) = (f(a), b)
Value eval_mapFst(const PrimCall& call) {
  Interpreter local;
  const Value& p = call.args.at(1);
  return Value::pair(interp_ref(call, local).apply(call.args.at(0), p.first()), p.second());
}

// mapSnd(f)((a, b)) = (a, f(b))
Value eval_mapSnd(const PrimCall& call) {
  Interpreter local;
  const Value& p = call.args.at(1);
  return Value::pair(p.first(), interp_ref(call, local).apply(call.args.at(0), p.second()));
}

// ---------------------------------------------------------------------------------
// Vectors
// ---------------------------------------------------------------------------------

// vectorFromScalar(x): all n lanes equal to x.
Value eval_vectorFromScalar(const PrimCall& call) {
  Type rt = call.result_type();
  const int64_t n = const_size(rt->size, call.span);
  const Value& x = call.args.at(0);
  return Value::vector(rt->scalar, std::vector<Value>(static_cast<size_t>(n), x));
}

// asVector(n)(x): groups of n consecutive elements as vectors (a view); asVectorAligned
// means the same (alignment is a promise to code generation).
Value eval_asVector(const PrimCall& call) {
  const int64_t n = call.dep_nat(0);
  Value x = call.args.at(0);
  const int64_t len = x.size();
  if (n <= 0 || len % n != 0)
    prim_fail(
        "asVector(" + std::to_string(n) + ") of an array of " + std::to_string(len) + " elements",
        call.span);
  if (x.obj()->tag != Obj::Tag::Dense || static_cast<const DenseArray&>(*x.obj()).rank != 1)
    x = array_of(prim_elem_of(call.arg_type(0)), [&] {
      std::vector<Value> v;
      for (int64_t i = 0; i < len; ++i) v.push_back(x.at(i));
      return v;
    }());
  StridedArray a = static_cast<const DenseArray&>(*x.obj());
  if (a.rank != 1 || a.vec_last) internal_error("interpreter: asVector of a non-scalar array");
  a.split(0, n);
  a.vec_last = true;
  return dense_view(std::move(a));
}

// ---------------------------------------------------------------------------------
// Patterns
// ---------------------------------------------------------------------------------

// map(f)(x) = [f(x[0]), ..., f(x[n-1])]; every variant (mapSeq, mapPar, mapGlobal, ...)
// means the same.
Value eval_map(const PrimCall& call) {
  Interpreter local;
  return map_array(interp_ref(call, local), call.args.at(0), call.args.at(1),
                   prim_elem_of(call.result_type()));
}

// reduce(op)(init)(x) = (...((init op x[0]) op x[1]) ... op x[n-1]): a left fold, for
// every variant (reduceSeq's op takes the accumulator first, as here).
Value eval_reduce(const PrimCall& call) {
  Interpreter local;
  Applier ap(interp_ref(call, local), call.args.at(0));
  Value acc = call.args.at(1);
  const Value& x = call.args.at(2);
  const int64_t n = x.size();
  for (int64_t i = 0; i < n; ++i) acc = ap(acc, x.at(i));
  return acc;
}

// iterateWhile(k)(cond)(step)(init): the state starts as init; while cond holds of it,
// at most k times, it becomes step of it.
Value eval_iterateWhile(const PrimCall& call) {
  Interpreter local;
  Interpreter& interp = interp_ref(call, local);
  const int64_t k = last_dep_nat(call);
  Applier cond(interp, call.args.at(0));
  Applier step(interp, call.args.at(1));
  Value x = call.args.at(2);
  for (int64_t i = 0; i < k; ++i) {
    Value c = cond(x);
    if (c.kind() != ValueKind::Scalar || c.scalar_kind() != ScalarKind::Bool)
      internal_error("interpreter: iterateWhile's condition gave " + c.to_string());
    if (!c.raw_int()) break;
    x = step(x);
  }
  return x;
}

// scanSeq(f)(init)(x)[i] = the accumulator after element i, where the accumulator
// starts as init and becomes f(x[i])(acc).
Value eval_scanSeq(const PrimCall& call) {
  Interpreter local;
  Applier ap(interp_ref(call, local), call.args.at(0));
  Value acc = call.args.at(1);
  const Value& x = call.args.at(2);
  const int64_t n = x.size();
  ArrayBuilder b(prim_elem_of(call.result_type()), n);
  for (int64_t i = 0; i < n; ++i) {
    acc = ap(x.at(i), acc);
    b.push(acc);
  }
  return b.finish();
}

// iterate(k)(f)(x): apply the dependent function f k times; at each step f is
// instantiated with l = (current length) / n, where n comes from f's type
// (l: Nat) -> (l*n).t -> l.t.
Value eval_iterate(const PrimCall& call) {
  Interpreter local;
  Interpreter& interp = interp_ref(call, local);
  const int64_t k = last_dep_nat(call);
  Type ft = call.arg_type(0);
  if (ft->kind != TypeKind::DepFun || ft->binder_kind != Kind::Nat)
    internal_error("interpreter: iterate's function has type " + print(ft));
  Type step = instantiate(ft, Nat(1));
  if (step->kind != TypeKind::Fun || step->a->kind != TypeKind::Array)
    internal_error("interpreter: iterate's function has type " + print(ft));
  const int64_t n = const_size(step->a->size, call.span);
  if (n <= 0) prim_fail("iterate: the step function divides by " + std::to_string(n), call.span);
  const Value& f = call.args.at(0);
  Value x = call.args.at(1);
  for (int64_t j = 0; j < k; ++j) {
    const int64_t len = x.size();
    if (len % n != 0)
      prim_fail("iterate: step " + std::to_string(j) + " on " + std::to_string(len) +
                    " elements, not a multiple of " + std::to_string(n),
                call.span);
    Value g = interp.apply_dep(f, Nat(len / n));
    x = interp.apply(g, x);
  }
  return x;
}

// circularBuffer(alloc)(sz)(f)(x) = slide(sz)(1)(map(f)(x)): the rolling buffer of
// alloc elements is how, not what.
Value eval_circularBuffer(const PrimCall& call) {
  Interpreter local;
  const int64_t sz = last_dep_nat(call);
  Type rt = call.result_type();  // n.sz.t
  Value mapped = map_array(interp_ref(call, local), call.args.at(0), call.args.at(1),
                           prim_elem_of(prim_elem_of(rt)));
  return slide_array(mapped, sz, 1, const_size(rt->size, call.span), call.span);
}

// rotateValues(sz)(f)(x) = slide(sz)(1)(map(f)(x)).
Value eval_rotateValues(const PrimCall& call) {
  return eval_circularBuffer(call);
}

}  // namespace risec::rise
