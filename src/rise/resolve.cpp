// Name resolution (see resolve.h).
#include "rise/resolve.h"

#include <map>
#include <set>

#include "rise/primitives.h"

namespace risec::rise {

namespace {

constexpr int kMaxInlineDepth = 64;

bool is_type_level_builtin(const std::string& name) {
  return scalar_from_name(name).has_value() || addr_from_name(name).has_value() ||
         name == "natType";
}

// Replaces definition names by their (resolved) bodies and primitive names by
// primitives; every other node is left to the default traversal.
struct Resolver : ExprMutator {
  Resolver(const Program& p, size_t visible, const Program* pre, int d)
      : program(p), limit(visible), prelude(pre), depth(d) {}

  const Program& program;
  size_t limit;  // definitions [0, limit) of `program` are visible
  const Program* prelude;
  int depth;

  // Lambda-bound and depFun-bound names in scope.
  std::vector<std::string> scope;

  bool in_scope(const std::string& n) const {
    for (auto it = scope.rbegin(); it != scope.rend(); ++it)
      if (*it == n) return true;
    return false;
  }

  std::vector<std::string> known_names() const {
    std::vector<std::string> out(scope.begin(), scope.end());
    for (size_t i = 0; i < limit; ++i) out.push_back(program.defs[i].name);
    if (prelude)
      for (const auto& d : prelude->defs) out.push_back(d.name);
    for (const auto& p : primitive_names()) out.push_back(p);
    return out;
  }

  // Definition `name` among the visible ones: the latest of the user's file, then
  // the prelude's.
  std::optional<Expr> lookup_definition(const std::string& name, const Span& use) {
    for (size_t i = limit; i-- > 0;) {
      if (program.defs[i].name != name) continue;
      return inline_definition(program, i, use);
    }
    if (prelude && prelude != &program) {
      for (size_t i = prelude->defs.size(); i-- > 0;) {
        if (prelude->defs[i].name != name) continue;
        return inline_definition(*prelude, i, use);
      }
    }
    return std::nullopt;
  }

  Expr inline_definition(const Program& p, size_t i, const Span& use) {
    if (depth >= kMaxInlineDepth) user_error("definitions nest too deeply", use);
    const Definition& d = p.defs[i];
    if (d.foreign) return foreign(d.foreign, use);
    Resolver inner(p, i, prelude, depth + 1);
    Expr body = inner.mutate(d.body);
    if (d.annot) body = annotation(body, d.annot, d.span);
    return body;
  }

  Expr visit_ident(const Expr& e) override {
    const std::string& n = e->name;
    if (in_scope(n)) return e;
    if (auto d = lookup_definition(n, e->span)) return *d;
    if (find_primitive(n)) return primitive(n, e->span);
    if (is_type_level_builtin(n)) return e;
    std::string msg = "unknown name '" + n + "'";
    std::string near = nearest_name(n, known_names());
    if (!near.empty()) msg += "; did you mean '" + near + "'?";
    user_error(msg, e->span);
  }

  Expr visit_lambda(const Expr& e) override { return in_binder_scope(e); }
  Expr visit_dep_lambda(const Expr& e) override { return in_binder_scope(e); }

  // The body of a Lambda or DepLambda, with its binder in scope.
  Expr in_binder_scope(const Expr& e) {
    scope.push_back(e->name);
    Expr r = mutate_children(e);
    scope.pop_back();
    return r;
  }
};

}  // namespace

Expr resolve_definition(const Program& program, size_t index, const Program* prelude) {
  Resolver r(program, index, prelude, 0);
  const Definition& d = program.defs[index];
  if (d.foreign) return foreign(d.foreign, d.span);
  Expr body = r.mutate(d.body);
  if (d.annot) body = annotation(body, d.annot, d.span);
  return body;
}

Expr resolve_expr(const Expr& e) {
  static const Program empty;
  Resolver r(empty, 0, nullptr, 0);
  return r.mutate(e);
}

}  // namespace risec::rise
