// Inputs known at compile time (see bind.h).
#include "driver/bind.h"

#include <vector>

#include "driver/run.h"
#include "elevate/rule_util.h"
#include "rise/interp.h"
#include "runtime/npy.h"
#include "support/words.h"

namespace risec::driver {

using rise::PrimId;

namespace {

using rise::Expr;
using rise::ExprKind;

// The widest array literal bind writes: longer arrays are rows of this many elements,
// joined (and a shorter last part concatenated), so that no makeArray has more
// arguments than this. Type inference and rewriting walk an application's spine, so
// one makeArray of 4,096 arguments took quadratic time (issue 32).
constexpr size_t kWidestLiteral = 64;

// An array literal of `elems`: one makeArray, or join(rows) ++ rest (see above).
Expr array_literal(const std::vector<Expr>& elems) {
  if (elems.size() <= kWidestLiteral) {
    Expr e = rise::make_array_prim(static_cast<int>(elems.size()));
    for (const Expr& x : elems) e = rise::app(e, x);
    return e;
  }
  const size_t whole = elems.size() / kWidestLiteral * kWidestLiteral;
  std::vector<Expr> rows;
  for (size_t r = 0; r < whole; r += kWidestLiteral)
    rows.push_back(array_literal(
        std::vector<Expr>(elems.begin() + static_cast<ptrdiff_t>(r),
                          elems.begin() + static_cast<ptrdiff_t>(r + kWidestLiteral))));
  Expr joined = rise::app(rise::prim_expr(PrimId::Join), array_literal(rows));
  if (whole == elems.size()) return joined;
  Expr rest =
      array_literal(std::vector<Expr>(elems.begin() + static_cast<ptrdiff_t>(whole), elems.end()));
  return rise::app(rise::app(rise::prim_expr(PrimId::Concat), joined), rest);
}

// The literal of a value of type t (a scalar, or an array of such, concrete).
Expr literal_of_value(const rise::Value& v, const rise::Type& t) {
  if (t->kind == rise::TypeKind::Array) {
    std::vector<Expr> elems;
    for (int64_t i = 0; i < v.size(); ++i) elems.push_back(literal_of_value(v.at(i), t->a));
    return array_literal(elems);
  }
  const rise::ScalarKind k = t->scalar;
  if (k == rise::ScalarKind::F32) return rise::scalar_lit(k, 0, static_cast<double>(v.as_f32()));
  if (k == rise::ScalarKind::F64) return rise::scalar_lit(k, 0, v.as_f64());
  if (k == rise::ScalarKind::Bool) return rise::bool_lit(v.as_bool());
  return rise::scalar_lit(k, v.as_i64(), 0.0);
}

// The number of scalars of a type made of arrays over a scalar (nullopt otherwise,
// or when an extent is not a known constant).
std::optional<int64_t> scalar_count(const rise::Type& t) {
  if (t->kind == rise::TypeKind::Scalar) return 1;
  if (t->kind != rise::TypeKind::Array) return std::nullopt;
  auto n = t->size.as_const();
  auto inner = scalar_count(t->a);
  if (!n || !inner) return std::nullopt;
  return *n * *inner;
}

[[noreturn]] void refuse(const std::string& opt, const std::string& msg) {
  throw Error(ErrorKind::User, opt + ": " + msg);
}

}  // namespace

rise::Checked bind_inputs(const rise::Checked& checked,
                          const std::map<std::string, std::string>& files,
                          const BoundArrays& arrays) {
  if (files.empty() && arrays.empty()) return checked;
  std::vector<std::string> names;
  for (const EntryParam& p : value_parameters(checked)) names.push_back(p.name);
  std::map<std::string, std::string> given = files;  // name -> file ("" from memory)
  for (const auto& [name, a] : arrays)
    if (!given.emplace(name, "").second)
      throw Error(ErrorKind::Usage, bind_given(name, "") + " is bound twice (a file and an array)");
  check_input_names(names, given, bind_word());

  // depFun(..) binders, then fun(..) binders, then the body.
  std::vector<Expr> dep_binders, binders;
  Expr body = checked.expr;
  while (body->kind == ExprKind::DepLambda) {
    dep_binders.push_back(body);
    body = body->fn;
  }
  while (body->kind == ExprKind::Lambda) {
    binders.push_back(body);
    body = body->fn;
  }
  std::vector<Expr> kept;
  for (const Expr& lam : binders) {
    auto it = given.find(lam->name);
    if (it == given.end()) {
      kept.push_back(lam);
      continue;
    }
    const std::string opt = bind_given(it->first, it->second);
    const rise::Type& t = lam->type->a;
    std::optional<int64_t> count = scalar_count(t);
    if (!count) {
      rise::Type base = t;
      while (base->kind == rise::TypeKind::Array) base = base->a;
      refuse(opt, "the parameter " + lam->name + ": " + rise::print(t) +
                      (base->kind == rise::TypeKind::Scalar
                           ? " has an extent that is not known at compile time (give its "
                             "sizes with " +
                                 sizes_word() + ")"
                           : " cannot be bound: only scalars and arrays of scalars can"));
    }
    if (*count > kMaxBoundElements)
      refuse(opt,
             "the parameter " + lam->name + ": " + rise::print(t) + " has " +
                 std::to_string(*count) + " values; at most " + std::to_string(kMaxBoundElements) +
                 " can be bound (they become code); pass it " +
                 (input_word() == "--input" ? "with --input" : "as " + input_word()) + " instead");
    rise::Value v;
    try {
      auto in_memory = arrays.find(lam->name);
      v = in_memory != arrays.end() ? rise::from_ndarray(in_memory->second, t)
                                    : rise::from_ndarray(runtime::read_npy(it->second), t);
    } catch (const Error& e) {
      throw Error(e.kind(), opt + ": " + e.message(), e.span(), e.note());
    }
    body = elevate::util::substitute(body, lam->name, literal_of_value(v, t));
  }
  // Rebuilt with the kept parameters annotated (inference must not generalise them).
  for (auto it = kept.rbegin(); it != kept.rend(); ++it)
    body = rise::lambda((*it)->name, body, (*it)->type->a, (*it)->span);
  for (auto it = dep_binders.rbegin(); it != dep_binders.rend(); ++it)
    body = rise::dep_lambda((*it)->binder_kind, (*it)->name, body, (*it)->span);
  rise::Checked out = rise::infer_expr(body);
  for (const rise::SideCondition& sc : checked.conditions) out.conditions.push_back(sc);
  // The program is still specialised to the same sizes (the strategy's `tunedAt`
  // checks them): binding replaces parameters by values, not sizes.
  out.sizes = checked.sizes;
  return out;
}

}  // namespace risec::driver
