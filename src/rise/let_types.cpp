// Why a program whose inference failed fails, when the reason is that a `let` is
// monomorphic (see let_types.h): the same program with each use of a let-bound name
// given a let of its own is inferred again; when that one is well typed, the uses of
// one let have different types, and the error names them.
#include "rise/let_types.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "rise/primitives.h"

namespace risec::rise {

namespace {

// The suffix that marks the copy of a let for one use: `#use` and the use's number
// (no name the user writes has a `#`).
const char* const kUseMark = "#use";

// One let that was split: the name as written, where it is bound, and its uses' copies'
// names in the order the uses are written.
struct SplitLet {
  std::string written;
  Span binder;
  std::vector<std::string> copies;
};

// Renames the free occurrences of `x` (in order) to x#use1, x#use2, ... respecting
// lambdas that bind x again.
class UseRenamer : public ExprMutator {
 public:
  explicit UseRenamer(std::string x) : x_(std::move(x)) {}
  std::vector<std::string> names;

 protected:
  Expr visit_ident(const Expr& e) override {
    if (e->name != x_) return e;
    names.push_back(x_ + kUseMark + std::to_string(names.size() + 1));
    return ident(names.back(), e->span);
  }
  Expr visit_lambda(const Expr& e) override {
    if (e->name == x_) return e;
    return mutate_children(e);
  }

 private:
  std::string x_;
};

size_t count_uses(const Expr& e, const std::string& x) {
  if (!e) return 0;
  if (e->kind == ExprKind::Ident) return e->name == x ? 1 : 0;
  if (e->kind == ExprKind::Lambda && e->name == x) return 0;
  size_t n = 0;
  for (const Expr& c : children(e)) n += count_uses(c, x);
  return n;
}

// Gives every use of a let-bound name (used twice or more) a let of its own:
// `let x = v in b(x, x)` becomes `let x#use1 = v in let x#use2 = v in b(x#use1, x#use2)`.
// Inner lets first, so that a value copied holds its own lets split already.
class LetSplitter : public ExprMutator {
 public:
  std::vector<SplitLet> lets;
  bool too_large = false;

 protected:
  Expr visit_app(const Expr& e) override {
    Expr r = mutate_children(e);
    if (too_large) return r;
    // let(v)(fun(x => b))
    const Expr& f = r->fn;
    const Expr& lam = r->arg;
    if (f->kind != ExprKind::App || !is_prim(f->fn, PrimId::Let) || lam->kind != ExprKind::Lambda)
      return r;
    const size_t uses = count_uses(lam->fn, lam->name);
    if (uses < 2) return r;
    // Each copy is inferred again: a bound on the work an explanation may cost.
    copies_ += uses;
    if (uses > 16 || copies_ > 256) {
      too_large = true;
      return r;
    }
    UseRenamer ren(lam->name);
    Expr body = ren.mutate(lam->fn);
    SplitLet s;
    s.written = written_name(ident(lam->name, lam->span));
    s.binder = lam->span;
    s.copies = ren.names;
    for (auto it = ren.names.rbegin(); it != ren.names.rend(); ++it) {
      Expr copy = lambda(*it, body, lam->annot, lam->span);
      body = app(app(f->fn, f->arg, f->span), copy, r->span);
    }
    lets.push_back(std::move(s));
    return body;
  }

 private:
  size_t copies_ = 0;
};

}  // namespace

std::optional<Error> explain_monomorphic_let(const Expr& resolved,
                                             const std::function<Checked(const Expr&)>& infer) {
  LetSplitter split;
  Expr polymorphic = split.mutate(resolved);
  if (split.too_large || split.lets.empty()) return std::nullopt;
  Checked checked;
  try {
    checked = infer(polymorphic);
  } catch (const Error&) {
    return std::nullopt;  // wrong for another reason: the first error stands
  }
  // The type and place of every copy's use.
  std::map<std::string, std::pair<Type, Span>> used;
  for_each_subexpr(checked.expr, [&](const Expr& e) {
    if (e->kind == ExprKind::Ident && e->name.find(kUseMark) != std::string::npos && e->type)
      used.emplace(e->name, std::make_pair(e->type, e->span));
    return true;
  });
  // The let written first whose uses have two types (in the order of the program).
  std::vector<const SplitLet*> order;
  for (const SplitLet& s : split.lets) order.push_back(&s);
  std::sort(order.begin(), order.end(),
            [](const SplitLet* a, const SplitLet* b) { return a->binder.begin < b->binder.begin; });
  for (const SplitLet* s : order) {
    const std::pair<Type, Span>* first = nullptr;
    for (const std::string& c : s->copies) {
      auto it = used.find(c);
      if (it == used.end()) continue;
      if (!first) {
        first = &it->second;
        continue;
      }
      const std::string a = print(first->first), b = print(it->second.first);
      if (a == b) continue;
      const Span& second = it->second.second;
      // A place in the error's own file as LINE:COL (the error's location names the file).
      auto place = [&](const Span& sp) {
        if (!sp.known() || sp.file != second.file) return location(sp);
        const LineCol lc = sp.start();
        return std::to_string(lc.line) + ":" + std::to_string(lc.col);
      };
      auto at = [&](const Span& sp) {
        return sp.known() ? " (at " + place(sp) + ")" : std::string();
      };
      return Error(
          ErrorKind::User,
          "'" + s->written + "' is bound by a let, which gives it one type, but it is " +
              "used at two: " + a + at(first->second) + " and " + b + at(second) +
              "; write one let per type (`let " + s->written + "2 = ...` for the " +
              "second), or bind it with def, whose every use is typed anew",
          second,
          (s->binder.known() ? "the let of '" + s->written + "' is at " + place(s->binder) + " "
                             : std::string()) +
              "(a let is monomorphic: docs/language.md, \"Functions as values\")");
    }
  }
  return std::nullopt;
}

}  // namespace risec::rise
