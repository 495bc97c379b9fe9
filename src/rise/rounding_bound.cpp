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

// Whether a scalar leaf of t (vector lanes included) satisfies `leaf`.
template <class Leaf>
bool rb_any_scalar(const Type& t, Leaf leaf) {
  if (!t) return false;
  switch (t->kind) {
    case TypeKind::Scalar:
    case TypeKind::Vector:
      return leaf(t->scalar);
    case TypeKind::Array:
      return rb_any_scalar(t->a, leaf);
    case TypeKind::Pair:
      return rb_any_scalar(t->a, leaf) || rb_any_scalar(t->b, leaf);
    default:
      return false;
  }
}

bool rb_has_float(const Type& t) {
  return rb_any_scalar(t, [](ScalarKind k) { return is_float(k); });
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
      case PrimId::Select:
        return shadow_select(e);
      case PrimId::Gt:
      case PrimId::Lt:
      case PrimId::Equal:
        if (rb_has_float(param)) float_condition_ = true;
        note_use();
        return e;
      case PrimId::Cast: {
        const Type& to = t->b;
        if (rb_float_lanes(to) && to->scalar == ScalarKind::F32) computes_in_f32 = true;
        const bool from_bool =
            param && (param->kind == TypeKind::Scalar || param->kind == TypeKind::Vector) &&
            param->scalar == ScalarKind::Bool;
        if (from_bool && rb_float_lanes(to) && to->kind == TypeKind::Scalar)
          return constant_one(t);  // a condition's shadow is not the condition; |cast(b)| <= 1
        if (from_bool) {
          bool_used_ = true;  // to an integer (indices, control) or to a vector of floats
          note_use();
          if (rb_has_float(to)) supported = false;
          return e;
        }
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
    if (param->scalar == ScalarKind::F32) computes_in_f32 = true;
    switch (id) {
      case PrimId::Pow:
        supported = false;
        return e;
      case PrimId::Neg:
        return rb_replace_head(e, PrimId::Abs);
      case PrimId::Sub:
        return rb_replace_head(e, PrimId::Add);
      case PrimId::Fmin:  // fmin(-100, 1) is -100: the larger magnitude, as for select
        return rb_replace_head(e, mode_ == ShadowMode::Count ? PrimId::Add : PrimId::Fmax);
      case PrimId::Mul:
      case PrimId::Div:
      case PrimId::Mod:
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
      case PrimId::Ceil:
        return mode_ == ShadowMode::Count ? rb_replace_head(e, PrimId::Abs) : e;
      case PrimId::Floor:  // |floor(-0.5)| = 1 = ceil(0.5)
        return rb_replace_head(e, mode_ == ShadowMode::Count ? PrimId::Abs : PrimId::Ceil);
      default:
        return e;
    }
  }

  // A select's shadow is the larger of its branches' shadows, whatever its condition:
  // the condition on shadow values (|s| > |t|, 1 > 1) is not the program's, and the
  // magnitude and count of the branch the program takes are at most that maximum.
  // A select of non-float values keeps its condition; if that can follow float values
  // (a float comparison), the shadow's indices or control could differ: no bound.
  Expr shadow_select(const Expr& e) {
    const Type& t = e->type;  // bool -> v -> v -> v
    const Type& v = t->b->a;
    if (!rb_has_float(v)) {
      bool_used_ = true;
      note_use();
      return e;
    }
    if (!rb_float_lanes(v)) {  // a pair or array of floats: no lane-wise maximum
      supported = false;
      return e;
    }
    const std::string c = fresh_name("rb");
    const std::string a = fresh_name("rb");
    const std::string b = fresh_name("rb");
    Expr fmax_fn = with_type(prim_expr(PrimId::Fmax, e->span), fun(v, fun(v, v)));
    Expr lhs = with_type(app(fmax_fn, with_type(ident(a, e->span), v), e->span), fun(v, v));
    Expr body = with_type(app(lhs, with_type(ident(b, e->span), v), e->span), v);
    Expr fb = with_type(lambda(b, body, nullptr, e->span), fun(v, v));
    Expr fa = with_type(lambda(a, fb, nullptr, e->span), fun(v, fun(v, v)));
    return with_type(lambda(c, fa, nullptr, e->span), t);
  }

  // No bound once a float comparison's result can reach a non-float select or an
  // integer cast (indices and control that follow float values).
  void note_use() {
    if (float_condition_ && bool_used_) supported = false;
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
  bool float_condition_ = false;  // a comparison of floats
  bool bool_used_ = false;        // a bool cast to a number or selecting non-floats

 public:
  bool computes_in_f32 = false;  // an f32 operation or a cast to f32
};

bool rb_has_f32(const Type& t) {
  return rb_any_scalar(t, [](ScalarKind k) { return k == ScalarKind::F32; });
}

std::optional<Value> rb_shadow_run(ShadowMode mode, const Expr& entry,
                                   const std::vector<Value>& inputs, bool* computes_in_f32) {
  ShadowProgram sp(mode);
  Expr program = sp.mutate(entry);
  if (!sp.supported) return std::nullopt;
  if (computes_in_f32) *computes_in_f32 = sp.computes_in_f32;
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
  bool computes_in_f32 = false;
  std::optional<Value> m = rb_shadow_run(ShadowMode::Magnitude, entry, inputs, &computes_in_f32);
  if (!m) return std::nullopt;
  std::optional<Value> k = rb_shadow_run(ShadowMode::Count, entry, inputs, nullptr);
  if (!k) return std::nullopt;
  const bool f32 = computes_in_f32 || rb_has_f32(result);
  return RoundingBound{std::move(*m), std::move(*k), f32 ? 0x1p-24 : 0x1p-53};
}

double rounding_allowance(double unit_roundoff, double magnitude, double count) {
  if (!(magnitude >= 0) || !(count >= 0) || !std::isfinite(magnitude) || !std::isfinite(count))
    return 0;
  const double u = unit_roundoff;
  const double cap = kMaxRoundingAllowance * magnitude;
  if (count * u >= 1) return cap;
  return std::min(cap, 2 * u * count * magnitude / (1 - count * u));
}

}  // namespace risec::rise
