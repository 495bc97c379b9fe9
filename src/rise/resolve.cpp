// Name resolution (see resolve.h).
#include "rise/resolve.h"

#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "rise/primitives.h"
#include "rise/withloop.h"
#include "support/stack.h"

namespace risec::rise {

namespace {

constexpr int kMaxInlineDepth = 2048;  // docs/language.md, "Limits"

// Each definition is resolved once per program and its resolved body shared by all
// its uses (a DAG): a definition used twice by one used twice ... costs linear work
// to resolve, however large its inlined tree would be.
struct ResolvedDefs {
  std::map<std::pair<const Program*, size_t>, Expr> bodies;
};

// The number of nodes of `e` as a tree (shared subterms counted at each use),
// saturating at `cap + 1`; linear in the size of the DAG.
uint64_t tree_size(const Expr& e, uint64_t cap,
                   std::unordered_map<const ExprNode*, uint64_t>& memo) {
  if (!e) return 0;
  if (auto it = memo.find(e.get()); it != memo.end()) return it->second;
  uint64_t n = 1;
  for (const Expr& k : children(e)) n = std::min(cap + 1, n + tree_size(k, cap, memo));
  memo[e.get()] = n;
  return n;
}

// The number of distinct nodes of `e` (shared subterms counted once): the program's
// size as written. Iterative, so that any depth is fine.
uint64_t dag_size(const Expr& e, std::unordered_set<const ExprNode*>& seen) {
  std::vector<Expr> todo = {e};
  while (!todo.empty()) {
    Expr x = std::move(todo.back());
    todo.pop_back();
    if (!x || !seen.insert(x.get()).second) continue;
    for (Expr& k : children(x)) todo.push_back(std::move(k));
  }
  return seen.size();
}

// A definition of the prelude as it is inlined at `use`: its nodes (those written in
// the prelude's text) placed at the use, so that an error inside it, a loop it makes
// (run --profile, risec view) and a rewrite of it point at the user's call rather
// than into the prelude. The copy is per use; prelude definitions are small.
Expr placed_at(const Expr& e, const SourceRef& file, const Span& use,
               std::unordered_map<const ExprNode*, Expr>& done) {
  if (!e) return e;
  if (auto it = done.find(e.get()); it != done.end()) return it->second;
  std::vector<Expr> kids = children(e);
  for (Expr& k : kids) k = placed_at(k, file, use, done);
  Expr r = kids.empty() ? e : rebuild(e, kids);
  if (r->span.file == file) {
    auto moved = std::make_shared<ExprNode>(*r);
    moved->span = use;
    r = moved;
  }
  done[e.get()] = r;
  return r;
}

bool is_type_level_builtin(const std::string& name) {
  return scalar_from_name(name).has_value() || addr_from_name(name).has_value() ||
         name == "natType" || name == "min" || name == "max";  // min, max: of sizes
}

// Replaces definition names by their (resolved) bodies and primitive names by
// primitives; every other node is left to the default traversal.
struct Resolver : ExprMutator {
  Resolver(const Program& p, size_t visible, const Program* pre, int d, ResolvedDefs* m)
      : program(p), limit(visible), prelude(pre), depth(d), memo(m) {}

  // Only the parallel loops' schedules are read (for the printer: names stay as
  // written, nothing is inlined).
  bool schedules_only = false;

  const Program& program;
  size_t limit;  // definitions [0, limit) of `program` are visible
  const Program* prelude;
  int depth;
  ResolvedDefs* memo;

  // Lambda-bound and depFun-bound names in scope.
  std::vector<std::string> scope;
  std::vector<bool> dep_bound;        // per scope entry: bound by depFun (a size or a type)
  std::vector<bool> with_loop_bound;  // per scope entry: bound by a with-loop's desugaring

  // Whether the innermost binder of `n` is one a with-loop's desugaring wrote.
  bool bound_by_with_loop(const std::string& n) const {
    for (size_t i = scope.size(); i-- > 0;)
      if (scope[i] == n) return with_loop_bound[i];
    return false;
  }

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
    if (depth >= kMaxInlineDepth)
      user_error("nesting too deep (limit " + std::to_string(kMaxInlineDepth) +
                     " definitions using one another)",
                 use);
    const Definition& d = p.defs[i];
    if (d.foreign) return foreign(d.foreign, use);
    auto key = std::make_pair(&p, i);
    auto it = memo->bodies.find(key);
    if (it == memo->bodies.end()) {
      check_stack_depth(use);
      Resolver inner(p, i, prelude, depth + 1, memo);
      Expr body = inner.mutate(d.body);
      if (d.annot) body = annotation(body, d.annot, d.span);
      it = memo->bodies.emplace(key, body).first;
    }
    if (&p != prelude || p.defs.empty() || !use.known() || !d.span.known()) return it->second;
    std::unordered_map<const ExprNode*, Expr> done;
    return placed_at(it->second, d.span.file, use, done);
  }

  Expr visit_ident(const Expr& e) override {
    const std::string& n = e->name;
    // The primitives a with-loop's desugaring names (take, drop, generate, ...; spanned
    // by the with-loop) are those primitives, even inside a parameter of that name
    // (`fun(take: n.f32 => with { ... })`).
    // A name the desugaring binds itself (the generator's index, named as the program
    // names it, say `select`) stays that binder.
    if (written_by_with_loop(e->span) && !bound_by_with_loop(n))
      if (const PrimitiveInfo* p = find_primitive(n)) return prim_expr(p->id, e->span);
    if (in_scope(n) || schedules_only) return e;
    if (auto d = lookup_definition(n, e->span)) return *d;
    if (const PrimitiveInfo* p = find_primitive(n)) return prim_expr(p->id, e->span);
    if (is_type_level_builtin(n)) return e;
    std::string msg = "unknown name '" + n + "'";
    std::string near = nearest_name(n, known_names());
    if (!near.empty()) msg += "; did you mean '" + near + "'?";
    user_error(msg, e->span);
  }

  // Whether `n` names a visible definition (the user's or the prelude's).
  bool defined(const std::string& n) const {
    for (size_t i = 0; i < limit; ++i)
      if (program.defs[i].name == n) return true;
    if (prelude)
      for (const auto& d : prelude->defs)
        if (d.name == n) return true;
    return false;
  }
  // `n` names what the program does not bind: a primitive, a builtin.
  bool unbound(const std::string& n) const { return !in_scope(n) && !defined(n); }

  // An application's whole spine at once (`f(a)(b)(c)`, iteratively: a long array
  // literal is one), so that a scheduled parallel loop is seen with its arguments.
  Expr visit_app(const Expr& e) override {
    std::vector<Expr> chain;  // the applications, outermost first
    Expr head = e;
    while (head->kind == ExprKind::App || head->kind == ExprKind::DepApp) {
      chain.push_back(head);
      head = head->fn;
    }
    size_t used = 0;
    Expr out = scheduled_loop(head, chain, used);
    if (!out) out = mutate(head);
    for (size_t i = chain.size() - used; i-- > 0;) {
      const Expr& a = chain[i];
      out = rebuild(a, out, a->kind == ExprKind::App ? mutate(a->arg) : nullptr);
    }
    return out;
  }

  // `mapPar(dynamic, 4)(f)`, `reducePar(guided)(op)(init)`: a parallel loop's OpenMP
  // schedule, written as the primitive's first arguments (docs/language.md, "Parallel
  // loops' schedules"): the kind, a name the program does not bind, then the chunk, an
  // integer literal, if any. The primitive node carries it (ExprNode::schedule), as
  // after the rule ompSchedule; the printer writes it back this way. Returns the
  // primitive and sets `used` to the number of applications it takes, or null.
  Expr scheduled_loop(const Expr& head, const std::vector<Expr>& chain, size_t& used) {
    if (head->kind != ExprKind::Ident || !unbound(head->name)) return nullptr;
    const PrimitiveInfo* info = find_primitive(head->name);
    if (!info || !(info->id == PrimId::MapPar || info->id == PrimId::ReducePar)) return nullptr;
    auto arg = [&](size_t i) -> const Expr* {  // the i-th argument, if applied (not dependent)
      if (i >= chain.size() || chain[chain.size() - 1 - i]->kind != ExprKind::App) return nullptr;
      return &chain[chain.size() - 1 - i]->arg;
    };
    const Expr* k = arg(0);
    if (!k || (*k)->kind != ExprKind::Ident || !unbound((*k)->name)) return nullptr;
    std::optional<ParSchedule::Kind> kind = schedule_kind((*k)->name);
    // A name that is nothing else (`mapPar(auto)`) may have been meant as a schedule:
    // the error says which there are, and the nearest name as for any unknown name.
    if (!kind && !find_primitive((*k)->name) && !is_type_level_builtin((*k)->name)) {
      const std::string& n = (*k)->name;
      std::string msg = "unknown name '" + n + "': " + head->name +
                        "'s schedules are static, dynamic and guided, each with an optional "
                        "chunk (" +
                        head->name + "(dynamic, 4)); OpenMP's auto and runtime are not offered";
      std::string near = nearest_name(n, known_names());
      if (!near.empty()) msg += "; did you mean '" + near + "'?";
      user_error(msg, (*k)->span);
    }
    if (!kind) return nullptr;
    ParSchedule s{*kind, 0};
    used = 1;
    const Expr* c = arg(1);
    if (c && (*c)->kind == ExprKind::Literal && (*c)->lit.kind == LitKind::Int) {
      const int64_t chunk = (*c)->lit.i;
      if (chunk < 1 || chunk > kMaxScheduleChunk)
        user_error(head->name + "(" + (*k)->name + ", ...): the schedule's chunk must be a " +
                       "number of iterations from 1 to " + std::to_string(kMaxScheduleChunk) +
                       ", not " + std::to_string(chunk),
                   (*c)->span);
      s.chunk = chunk;
      used = 2;
    } else if (c && not_a_chunk(**c)) {
      // `mapPar(dynamic, n)`, `mapPar(dynamic, 4.0f)`: the chunk is part of the loop's
      // pragma, a constant; without this the size would be taken as the function.
      user_error(head->name + "(" + (*k)->name + ", ...): the schedule's chunk must be a " +
                     "positive integer literal (a number of iterations from 1 to " +
                     std::to_string(kMaxScheduleChunk) + "), not " +
                     ((*c)->kind == ExprKind::Ident ? "'" + (*c)->name + "', which depFun binds"
                                                    : std::string("this literal")),
                 (*c)->span);
    }
    // The primitive spans `mapPar(dynamic, 4)`, so that errors about the loop show it.
    const Span& whole = chain[chain.size() - used]->span;
    return with_schedule(prim_expr(find_primitive(head->name)->id, whole), s);
  }

  // A loop's second argument that cannot be its function: a non-integer literal, or a
  // name bound by depFun (a size), where a chunk was meant.
  bool not_a_chunk(const ExprNode& c) const {
    if (c.kind == ExprKind::Literal) return true;
    if (c.kind != ExprKind::Ident) return false;
    for (size_t i = scope.size(); i-- > 0;)
      if (scope[i] == c.name) return dep_bound[i];
    return false;
  }

  Expr visit_lambda(const Expr& e) override { return in_binder_scope(e); }
  Expr visit_dep_lambda(const Expr& e) override { return in_binder_scope(e); }

  // The body of a Lambda or DepLambda, with its binder in scope.
  Expr in_binder_scope(const Expr& e) {
    scope.push_back(e->name);
    dep_bound.push_back(e->kind == ExprKind::DepLambda);
    with_loop_bound.push_back(written_by_with_loop(e->span));
    Expr r = mutate_children(e);
    scope.pop_back();
    dep_bound.pop_back();
    with_loop_bound.pop_back();
    return r;
  }
};

}  // namespace

Expr resolve_definition(const Program& program, size_t index, const Program* prelude) {
  ResolvedDefs memo;
  Resolver r(program, index, prelude, 0, &memo);
  const Definition& d = program.defs[index];
  if (d.foreign) return foreign(d.foreign, d.span);
  Expr body = r.mutate(d.body);
  if (d.annot) body = annotation(body, d.annot, d.span);
  // The passes after resolution (inference, rewriting, DPIA, code generation) work
  // on the inlined tree; a program whose tree is too large is refused here, quickly,
  // instead of after minutes of work.
  std::unordered_set<const ExprNode*> written;
  uint64_t cap = kMaxInlinedNodes + dag_size(body, written);
  std::unordered_map<const ExprNode*, uint64_t> sizes;
  if (tree_size(body, cap, sizes) > cap)
    user_error(
        "the program is too large once its definitions are inlined at their uses "
        "(more than " +
            std::to_string(kMaxInlinedNodes) +
            " nodes more than as written, the limit): a definition that uses another "
            "several times multiplies its size; apply it once to an array with map instead",
        d.span);
  return body;
}

Program with_schedules_read(const Program& program, const Program* prelude) {
  Program out = program;
  ResolvedDefs memo;
  for (size_t i = 0; i < out.defs.size(); ++i) {
    Definition& d = out.defs[i];
    if (d.foreign || !d.body) continue;
    Resolver r(program, i, prelude, 0, &memo);
    r.schedules_only = true;
    d.body = r.mutate(d.body);
  }
  return out;
}

Expr resolve_expr(const Expr& e) {
  static const Program empty;
  ResolvedDefs memo;
  Resolver r(empty, 0, nullptr, 0, &memo);
  return r.mutate(e);
}

}  // namespace risec::rise
