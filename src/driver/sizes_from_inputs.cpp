// Sizes from the shapes of --input files (see sizes_from_inputs.h).
#include "driver/sizes_from_inputs.h"

#include <cstdint>
#include <optional>
#include <vector>

#include "driver/run.h"
#include "runtime/npy.h"
#include "support/diagnostics.h"
#include "support/words.h"

namespace risec::driver {

namespace {

// One extent of one input: the parameter's dimension (a Nat over the sizes) and the
// file's value for it.
struct Extent {
  arith::Nat dim;
  int64_t value = 0;
  std::string where;  // "--input x=a.npy (dimension 0)"
};

// The dimensions of a parameter type as a .npy file holds them: one per array level,
// then the lanes of a vector (rise/interp.h: from_ndarray). Pairs are exchanged
// otherwise and end the list (nullopt: the rank is not known).
std::optional<std::vector<arith::Nat>> dims_of(const rise::Type& t) {
  std::vector<arith::Nat> out;
  rise::Type cur = t;
  while (cur->kind == rise::TypeKind::Array) {
    out.push_back(cur->size);
    cur = cur->a;
  }
  if (cur->kind == rise::TypeKind::Vector)
    out.push_back(cur->size);
  else if (cur->kind == rise::TypeKind::Pair)
    return std::nullopt;
  return out;
}

[[noreturn]] void fail(const std::string& msg) {
  throw Error(ErrorKind::User, msg);
}

// Where the entry binds the size `v` (its depFun), for errors about it.
Span binder_span(const rise::Program& program, const std::string& entry, const std::string& v) {
  const rise::Definition* d =
      entry.empty() ? (program.defs.empty() ? nullptr : &program.defs.back()) : program.find(entry);
  for (rise::Expr e = d ? d->body : nullptr; e && e->kind == rise::ExprKind::DepLambda; e = e->fn)
    if (e->name == v) return e->span;
  return Span{};
}

// Why the extent `value` is no value of `d`, linear in `v` (c + k*v, k > 1):
// " (10 is not a multiple of 4)"; "" for other forms.
std::string not_a_multiple(const arith::Nat& d, const std::string& v, int64_t value) {
  auto at = [&](int64_t x) { return arith::substitute(d, {{v, arith::Nat(x)}}).as_const(); };
  auto d0 = at(0), d1 = at(1), d2 = at(2);
  if (!d0 || !d1 || !d2 || *d1 - *d0 != *d2 - *d1) return "";
  const int64_t k = *d1 - *d0, rest = value - *d0;
  if (k < 2 || rest % k == 0) return "";
  return " (" + std::to_string(rest) + " is not a multiple of " + std::to_string(k) + ")";
}

}  // namespace

void sizes_from_inputs(const rise::Program& program, const std::string& entry,
                       const std::map<std::string, std::string>& files, rise::SizeMap* sizes,
                       const std::map<std::string, std::string>& bound, bool require_all) {
  std::map<std::string, std::string> where, paths;
  for (const auto& [flag, given] : {std::pair{"--input", &files}, std::pair{"--bind", &bound}})
    for (const auto& [name, path] : *given) {
      // The same name in both is refused by the caller (bound twice); --input wins here.
      const std::string given = std::string(flag) == "--bind"
                                    ? bind_given(name, path)
                                    : std::string(flag) + " " + name + "=" + path;
      if (!where.emplace(name, given).second) continue;
      paths[name] = path;
    }
  auto shape_of = [&](const std::string& name) {
    try {
      return runtime::read_npy_shape(paths.at(name));
    } catch (const Error& e) {
      throw Error(e.kind(), where.at(name) + ": " + e.message());
    }
  };
  sizes_from_shapes(program, entry, where, shape_of, sizes,
                    require_all ? "the shapes of the --input files do not determine it" : "");
}

void sizes_from_shapes(const rise::Program& program, const std::string& entry,
                       const std::map<std::string, std::string>& where,
                       const std::function<std::vector<int64_t>(const std::string&)>& shape_of,
                       rise::SizeMap* sizes, const std::string& hint) {
  if (where.empty()) return;
  // The entry generic in its sizes; those given with --size are known.
  rise::Checked c = rise::check_program(program, entry);
  std::vector<std::string> unknown;
  rise::Type t = c.type;
  while (t->kind == rise::TypeKind::DepFun) {
    if (t->binder_kind == rise::Kind::Nat && !sizes->count(t->name)) unknown.push_back(t->name);
    t = t->b;
  }
  const std::vector<EntryParam> params = value_parameters(c);
  if (unknown.empty()) return;
  std::vector<std::string> names;
  for (const EntryParam& param : params) names.push_back(param.name);
  for (const auto& [name, opt] : where)  // named as the option that gave it
    check_input_names(names, {{name, opt}},
                      opt.rfind("--", 0) == 0 ? opt.substr(0, opt.find(' ')) : opt);

  std::vector<Extent> extents;
  for (const auto& [name, type, span] : params) {
    auto it = where.find(name);
    if (it == where.end()) continue;
    const std::string& opt = it->second;
    const std::vector<int64_t> shape = shape_of(name);
    std::optional<std::vector<arith::Nat>> dims = dims_of(type);
    if (!dims) continue;
    if (dims->size() != shape.size())
      fail(opt + ": the parameter " + name + ": " + rise::print(type) + " has " +
           std::to_string(dims->size()) + " dimension(s), the " +
           (opt.rfind("--", 0) == 0 ? "file's " : "array's ") + "shape " +
           runtime::shape_string(shape) + " has " + std::to_string(shape.size()));
    for (size_t d = 0; d < shape.size(); ++d)
      extents.push_back({(*dims)[d], shape[d], opt + " (dimension " + std::to_string(d) + ")"});
  }

  // Solve extent by extent while one determines a size; then check them all.
  std::map<std::string, std::string> source;  // size -> the extent that gave it
  arith::Substitution known;
  for (const auto& [v, value] : *sizes) {
    known.emplace(v, arith::Nat(value));
    source[v] = sizes_word();
  }
  // An extent that only a fractional size would give ((4*n).f32 with 10 elements):
  // the first one per size, the error when nothing else determines that size.
  std::map<std::string, std::string> not_multiple;
  for (bool progress = true; progress;) {
    progress = false;
    for (const Extent& e : extents) {
      arith::Nat d = arith::substitute(e.dim, known);
      auto vars = arith::free_vars(d);
      if (vars.size() != 1) continue;
      const std::string& v = vars.begin()->first;
      arith::Solution s = arith::solve(d, arith::Nat(e.value), v);
      if (s.status == arith::Solution::Status::Unsatisfiable) {
        not_multiple.emplace(v, e.where + ": the extent is " + std::to_string(e.value) +
                                    ", but the parameter's type needs " + e.dim.to_string() +
                                    ", and no size " + v + " gives it" +
                                    not_a_multiple(d, v, e.value));
        continue;
      }
      auto value = s.value.as_const();
      if (s.status != arith::Solution::Status::Solved || !value) continue;
      bool exact = true;
      std::string why;
      for (const arith::Divisibility& dv : s.conditions) {
        auto a = arith::substitute(dv.dividend, {{v, s.value}}).as_const();
        auto b = arith::substitute(dv.divisor, {{v, s.value}}).as_const();
        const bool ok = a && b && *b != 0 && *a % *b == 0;
        if (!ok && why.empty() && a && b && *b != 0)
          why = " (" + std::to_string(*a) + " is not a multiple of " + std::to_string(*b) + ")";
        exact &= ok;
      }
      if (!exact) {
        if (!why.empty())
          not_multiple.emplace(v, e.where + ": the extent is " + std::to_string(e.value) +
                                      ", but the parameter's type needs " + e.dim.to_string() +
                                      ", and no size " + v + " gives it" + why);
        continue;
      }
      // An empty array would make the size 0 (or less): sizes are positive.
      if (*value < 1)
        fail(e.where + ": the extent is " + std::to_string(e.value) + ", which makes " + v + " = " +
             std::to_string(*value) + ", but sizes are positive" +
             (e.value == 0 ? " (an array with no elements cannot be given)"
                           : " (the parameter's type needs an extent of at least " +
                                 arith::substitute(e.dim, {{v, arith::Nat(1)}}).to_string() + ")"));
      known.emplace(v, arith::Nat(*value));
      (*sizes)[v] = *value;
      source[v] = e.where;
      progress = true;
    }
  }
  for (const Extent& e : extents) {
    arith::Nat d = arith::substitute(e.dim, known);
    auto value = d.as_const();
    if (!value || *value == e.value) continue;
    std::string from;
    for (const auto& [v, _] : arith::free_vars(e.dim))
      if (auto it = source.find(v); it != source.end())
        from += (from.empty() ? "" : ", ") + v + " = " + std::to_string((*sizes)[v]) + " from " +
                it->second;
    const std::string needs =
        e.dim.is_const() ? std::to_string(*value)
                         : e.dim.to_string() + " = " + std::to_string(*value) + " (" + from + ")";
    fail(e.where + ": the extent is " + std::to_string(e.value) + ", but the parameter's type " +
         "needs " + needs);
  }
  for (const std::string& v : unknown)
    if (auto it = not_multiple.find(v); it != not_multiple.end() && !sizes->count(v))
      fail(it->second);
  for (const std::string& v : unknown)
    if (!hint.empty() && !sizes->count(v))
      user_error("size " + v + " has no value: it is not given with " + sizes_word() + " and " +
                     hint + "; " + how_to_give_size(v),
                 binder_span(program, entry, v));
}

}  // namespace risec::driver
