// Shadow runs of the interpreter that bound the rounding error of a float result
// (rise/rounding_bound.h).
#include "rise/rounding_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "rise/interp.h"
#include "rise/primitives.h"
#include "support/diagnostics.h"

namespace risec::rise {

namespace {

enum class ShadowMode { Magnitude, Count };

bool rb_has_float(const Type& t) {
  if (!t) return false;
  switch (t->kind) {
    case TypeKind::Scalar:
    case TypeKind::Vector:
      return is_float(t->scalar);
    case TypeKind::Array:
      return rb_has_float(t->a);
    case TypeKind::Pair:
      return rb_has_float(t->a) || rb_has_float(t->b);
    default:
      return false;
  }
}

// A scalar or vector type of floats (what a lane-wise operator on floats takes).
bool rb_float_lanes(const Type& t) {
  return t && (t->kind == TypeKind::Scalar || t->kind == TypeKind::Vector) && is_float(t->scalar);
}

double rb_shadow_of(ShadowMode mode, double x) {
  return mode == ShadowMode::Count ? 1.0 : std::fabs(x);
}

Value rb_shadow_scalar(ShadowMode mode, const Value& v) {
  if (v.scalar_kind() == ScalarKind::F32)
    return Value::f32(static_cast<float>(rb_shadow_of(mode, v.as_f32())));
  return Value::f64(rb_shadow_of(mode, v.as_f64()));
}

// The input `v` of type `t` with each float leaf replaced by its shadow.
Value rb_shadow_input(ShadowMode mode, const Value& v, const Type& t) {
  if (!rb_has_float(t)) return v;
  switch (t->kind) {
    case TypeKind::Scalar:
      return rb_shadow_scalar(mode, v);
    case TypeKind::Vector: {
      std::vector<Value> lanes;
      for (int64_t i = 0; i < v.lane_count(); ++i)
        lanes.push_back(rb_shadow_scalar(mode, v.lane(i)));
      return Value::vector(t->scalar, std::move(lanes));
    }
    case TypeKind::Pair:
      return Value::pair(rb_shadow_input(mode, v.first(), t->a),
                         rb_shadow_input(mode, v.second(), t->b));
    case TypeKind::Array:
      break;
    default:
      return v;
  }
  if (v.obj() && v.obj()->tag == Obj::Tag::Dense) {
    StridedArray a = static_cast<const DenseArray&>(*v.obj()).c_order_copy();
    const int64_t n = a.count();
    if (a.sk == ScalarKind::F32) {
      auto* p = reinterpret_cast<float*>(a.ptr(a.offset));
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(rb_shadow_of(mode, p[i]));
    } else if (a.sk == ScalarKind::F64) {
      auto* p = reinterpret_cast<double*>(a.ptr(a.offset));
      for (int64_t i = 0; i < n; ++i) p[i] = rb_shadow_of(mode, p[i]);
    }
    return dense_view(std::move(a));
  }
  ArrayBuilder b(t->a, v.size());
  for (int64_t i = 0; i < v.size(); ++i) b.push(rb_shadow_input(mode, v.at(i), t->a));
  return b.finish();
}

// The primitive at the head of a chain of dependent applications (null: none).
const ExprNode* rb_head_prim(const Expr& e) {
  const ExprNode* n = e.get();
  while (n->kind == ExprKind::DepApp) n = n->fn.get();
  return n->kind == ExprKind::Primitive ? n : nullptr;
}

// e (a primitive under dependent applications) with the primitive replaced by `id`,
// whose generic type is the same.
Expr rb_replace_head(const Expr& e, PrimId id) {
  if (e->kind == ExprKind::Primitive) return with_type(prim_expr(id, e->span), e->type);
  return rebuild(e, rb_replace_head(e->fn, id), nullptr);
}

// The copy of the program a shadow run evaluates; `supported` false when it has no
// bound.
class ShadowProgram final : public ExprMutator {
 public:
  explicit ShadowProgram(ShadowMode mode) : mode_(mode) {}
  bool supported = true;

  Expr mutate(const Expr& e) override {
    if (!e) return e;
    if (e->kind == ExprKind::Foreign ||
        (e->kind == ExprKind::Primitive && e->prim && e->prim->is(PrimId::IterateWhile)))
      supported = false;
    const ExprNode* head = nullptr;
    if ((e->kind == ExprKind::Primitive || e->kind == ExprKind::DepApp) && e->type &&
        e->type->kind == TypeKind::Fun && (head = rb_head_prim(e)) && head->prim)
      return instantiated(e, head->prim->id);
    return ExprMutator::mutate(e);
  }

 protected:
  Expr visit_literal(const Expr& e) override {
    const Type& t = e->type;
    if (!t || t->kind != TypeKind::Scalar || !is_float(t->scalar)) return e;
    double v = 0;
    switch (e->lit.kind) {
      case LitKind::Int:
        v = static_cast<double>(e->lit.i);
        break;
      case LitKind::Scalar:
        v = e->lit.f;
        break;
      case LitKind::NatVal: {
        auto c = e->lit.nat.as_const();
        if (!c) return e;
        v = static_cast<double>(*c);
        break;
      }
      case LitKind::Index:
        return e;
    }
    return with_type(scalar_lit(t->scalar, 0, rb_shadow_of(mode_, v), e->span), t);
  }

 private:
  // A primitive with all its dependent arguments (type: a function type).
  Expr instantiated(const Expr& e, PrimId id) {
    const Type& t = e->type;
    const Type& param = t->a;
    switch (id) {
      case PrimId::IterateWhile:
        supported = false;
        return e;
      case PrimId::Cast: {
        const Type& to = t->b;
        if (!rb_has_float(param) && !rb_has_float(to)) return e;
        if (!rb_float_lanes(to)) {  // float to integer or bool: indices, control
          supported = false;
          return e;
        }
        if (rb_has_float(param)) return e;  // f32 <-> f64
        if (mode_ == ShadowMode::Magnitude) return then_abs(e);
        if (to->kind != TypeKind::Scalar) {
          supported = false;
          return e;
        }
        return constant_one(t);
      }
      default:
        break;
    }
    if (!rb_float_lanes(param)) return e;
    switch (id) {
      case PrimId::Pow:
        supported = false;
        return e;
      case PrimId::Neg:
        return rb_replace_head(e, PrimId::Abs);
      case PrimId::Sub:
        return rb_replace_head(e, PrimId::Add);
      case PrimId::Mul:
      case PrimId::Div:
      case PrimId::Mod:
      case PrimId::Fmin:
      case PrimId::Fmax:
        return mode_ == ShadowMode::Count ? rb_replace_head(e, PrimId::Add) : e;
      case PrimId::Log:
      case PrimId::Sin:
      case PrimId::Cos:
      case PrimId::Tan:
      case PrimId::Tanh:
      case PrimId::Erf:
        return mode_ == ShadowMode::Count ? rb_replace_head(e, PrimId::Abs) : then_abs(e);
      case PrimId::Sqrt:
      case PrimId::Rsqrt:
      case PrimId::Exp:
      case PrimId::Floor:
      case PrimId::Ceil:
        return mode_ == ShadowMode::Count ? rb_replace_head(e, PrimId::Abs) : e;
      default:
        return e;
    }
  }

  // fun(x => abs(f(x))) for f = e, a one-argument primitive instantiated at a function
  // type (the checked program gives a primitive its instantiated type).
  static Expr then_abs(const Expr& e) {
    const Type& t = e->type;
    const Type& res = t->b;
    const std::string x = fresh_name("rb");
    Expr arg = with_type(ident(x, e->span), t->a);
    Expr inner = with_type(app(e, arg, e->span), res);
    Expr abs_fn = with_type(prim_expr(PrimId::Abs, e->span), fun(res, res));
    Expr body = with_type(app(abs_fn, inner, e->span), res);
    return with_type(lambda(x, body, nullptr, e->span), t);
  }

  // fun(x => 1) at the function type `t` (to a float scalar).
  static Expr constant_one(const Type& t) {
    const std::string x = fresh_name("rb");
    Expr one = with_type(scalar_lit(t->b->scalar, 0, 1.0), t->b);
    return with_type(lambda(x, one), t);
  }

  ShadowMode mode_;
};

std::optional<Value> rb_shadow_run(ShadowMode mode, const Expr& entry,
                                   const std::vector<Value>& inputs) {
  ShadowProgram sp(mode);
  Expr program = sp.mutate(entry);
  if (!sp.supported) return std::nullopt;
  std::vector<Value> shadow_inputs;
  Type t = entry->type;
  for (const Value& v : inputs) {
    if (!t || t->kind != TypeKind::Fun) return std::nullopt;
    shadow_inputs.push_back(rb_shadow_input(mode, v, t->a));
    t = t->b;
  }
  try {
    Interpreter interp;
    return interp.run(program, shadow_inputs);
  } catch (const Error&) {
    return std::nullopt;  // a fault the shadow values cause (an index out of range)
  }
}

}  // namespace

std::optional<RoundingBound> rounding_bound(const Expr& entry, const std::vector<Value>& inputs) {
  Type result = entry ? entry->type : nullptr;  // the type after the parameters
  while (result && result->kind == TypeKind::Fun) result = result->b;
  if (!rb_has_float(result)) return std::nullopt;
  std::optional<Value> m = rb_shadow_run(ShadowMode::Magnitude, entry, inputs);
  if (!m) return std::nullopt;
  std::optional<Value> k = rb_shadow_run(ShadowMode::Count, entry, inputs);
  if (!k) return std::nullopt;
  return RoundingBound{std::move(*m), std::move(*k)};
}

double rounding_allowance(bool is_f64, double magnitude, double count) {
  if (!(magnitude >= 0) || !(count >= 0) || !std::isfinite(magnitude) || !std::isfinite(count))
    return 0;
  const double u = is_f64 ? 0x1p-53 : 0x1p-24;
  const double cap = kMaxRoundingAllowance * magnitude;
  if (count * u >= 1) return cap;
  return std::min(cap, 2 * u * count * magnitude / (1 - count * u));
}

}  // namespace risec::rise
