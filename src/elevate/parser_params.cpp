// Parameter values of `.elv` strategies (see parser.h): the constraints' arithmetic,
// `--params NAME=NUMBER,...` lists, and their completion and checks against a file's
// declarations.
#include <climits>
#include <set>

#include "elevate/parser_internal.h"
#include "support/cpu.h"
#include "support/words.h"

namespace risec::elevate {

namespace elv {

std::optional<int64_t> evaluate(const ConstraintExpr& e, const ParamValues& values) {
  switch (e.kind) {
    case ConstraintExpr::Int:
      return e.value;
    case ConstraintExpr::Name: {
      auto it = values.find(e.name);
      if (it == values.end()) return std::nullopt;
      return it->second;
    }
    case ConstraintExpr::Not: {
      auto a = evaluate(*e.a, values);
      if (!a) return std::nullopt;
      return *a == 0;
    }
    case ConstraintExpr::Neg: {
      auto a = evaluate(*e.a, values);
      int64_t r;
      if (!a || __builtin_sub_overflow(int64_t{0}, *a, &r)) return std::nullopt;
      return r;
    }
    case ConstraintExpr::Binary:
      break;
  }
  auto a = evaluate(*e.a, values);
  if (!a) return std::nullopt;
  // && and || evaluate their right operand only when it decides.
  if (e.op == "&&" && *a == 0) return 0;
  if (e.op == "||" && *a != 0) return 1;
  auto b = evaluate(*e.b, values);
  if (!b) return std::nullopt;
  const int64_t x = *a, y = *b;
  int64_t r = 0;
  if (e.op == "&&" || e.op == "||") return y != 0;
  if (e.op == "==") return x == y;
  if (e.op == "!=") return x != y;
  if (e.op == "<") return x < y;
  if (e.op == "<=") return x <= y;
  if (e.op == ">") return x > y;
  if (e.op == ">=") return x >= y;
  if (e.op == "+") return __builtin_add_overflow(x, y, &r) ? std::nullopt : std::optional(r);
  if (e.op == "-") return __builtin_sub_overflow(x, y, &r) ? std::nullopt : std::optional(r);
  if (e.op == "*") return __builtin_mul_overflow(x, y, &r) ? std::nullopt : std::optional(r);
  if (y == 0 || (x == INT64_MIN && y == -1)) return std::nullopt;
  return e.op == "/" ? x / y : x % y;
}

std::string missing_name(const ConstraintExpr& e, const ParamValues& values) {
  if (e.kind == ConstraintExpr::Name) return values.count(e.name) ? "" : e.name;
  std::string m = e.a ? missing_name(*e.a, values) : "";
  if (m.empty() && e.b) m = missing_name(*e.b, values);
  return m;
}

}  // namespace elv

using elv::kLanes;

bool StrategyConstraint::holds(const ParamValues& values) const {
  std::optional<int64_t> v = elv::evaluate(*expr, values);
  return v && *v != 0;
}

const StrategyConstraint* violated_constraint(const std::vector<StrategyConstraint>& constraints,
                                              const ParamValues& values) {
  for (const StrategyConstraint& c : constraints)
    if (!c.holds(values)) return &c;
  return nullptr;
}

ParamValues parse_param_values(const std::vector<std::string>& texts) {
  ParamValues out;
  for (const std::string& text : texts) {
    size_t start = 0;
    while (start <= text.size()) {
      size_t comma = text.find(',', start);
      std::string item =
          text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      start = comma == std::string::npos ? text.size() + 1 : comma + 1;
      if (item.empty()) continue;
      size_t eq = item.find('=');
      std::string name = item.substr(0, eq);
      std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
      if (eq == std::string::npos || name.empty() || value.empty() || value.size() > 15 ||
          value.find_first_not_of("0123456789") != std::string::npos)
        throw Error(ErrorKind::Usage,
                    params_word() + " expects NAME=NUMBER[,NAME=NUMBER...], got '" + item + "'");
      if (out.count(name))
        throw Error(ErrorKind::Usage, params_word() + " gives '" + name + "' twice");
      out[name] = std::stoll(value);
    }
  }
  return out;
}

ParamValues complete_param_values(const std::vector<StrategyParam>& params,
                                  const ParamValues& values) {
  ParamValues out;
  std::vector<std::string> names{kLanes};
  for (const StrategyParam& p : params) names.push_back(p.name);
  for (const auto& [name, value] : values) {
    if (name == kLanes) {
      if (value < 1 || value > kMaxLanes)
        throw Error(ErrorKind::Usage, params_word() + " lanes must be from 1 to " +
                                          std::to_string(kMaxLanes) + " (vector lanes), not " +
                                          std::to_string(value));
      out[name] = value;
      continue;
    }
    const StrategyParam* decl = nullptr;
    for (const StrategyParam& p : params)
      if (p.name == name) decl = &p;
    if (!decl) {
      std::string msg =
          params_word() + " " + name + ": the strategy declares no parameter '" + name + "'";
      std::string near = nearest_name(name, names);
      if (!near.empty() && near != kLanes) msg += "; did you mean '" + near + "'?";
      if (params.empty()) msg += " (it declares none)";
      throw Error(ErrorKind::Usage, msg);
    }
    bool listed = false;
    std::string list;
    for (int64_t v : decl->values) {
      listed = listed || v == value;
      list += (list.empty() ? "" : ", ") + std::to_string(v);
    }
    if (!listed)
      throw Error(ErrorKind::Usage, params_word() + " " + name + "=" + std::to_string(value) +
                                        ": not one of the parameter's values [" + list +
                                        "] (declared at " + location(decl->span) + ")");
    out[name] = value;
  }
  for (const StrategyParam& p : params) out.emplace(p.name, p.default_value());
  // The names of a permutation take distinct values (each one is in the list).
  for (size_t i = 0; i < params.size(); ++i) {
    const StrategyParam& p = params[i];
    if (p.group < 0 || p.position != 0) continue;
    std::string names, given, list;
    std::set<int64_t> seen;
    for (size_t j = i; j < params.size() && params[j].group == p.group; ++j) {
      int64_t v = out[params[j].name];
      seen.insert(v);
      names += (j > i ? ", " : "") + params[j].name;
      given += (j > i ? "," : "") + params[j].name + "=" + std::to_string(v);
    }
    if (seen.size() == p.values.size()) continue;
    for (int64_t v : p.values) list += (list.empty() ? "" : ", ") + std::to_string(v);
    throw Error(ErrorKind::Usage, params_word() + " " + given + ": (" + names +
                                      ") must be a permutation of [" + list +
                                      "], each value once (declared at " + location(p.span) +
                                      "; a name not given takes its place in the list)");
  }
  return out;
}

}  // namespace risec::elevate
