// The RISE printer: expressions to surface syntax with a small Wadler-style layout
// engine (text, line breaks that become spaces when a group fits, nesting). See
// printer.h for what is printed how; the rule for every construct is that the
// parser reads the text back as the same tree.
#include "rise/printer.h"

#include <charconv>
#include <cmath>
#include <memory>
#include <optional>
#include <unordered_set>

#include "rise/lexer.h"
#include "rise/primitives.h"
#include "rise/withloop.h"

namespace risec::rise {

namespace {

constexpr int kWidth = 100;

// ---- documents ----

enum class DK { Text, Line, Cat, Nest, Align, Group };
struct Doc;
using DocP = std::shared_ptr<const Doc>;
struct Doc {
  DK k;
  std::string text;   // Text
  bool soft = false;  // Line: nothing (not a space) when flat
  int indent = 0;     // Nest
  std::vector<DocP> parts;
};

DocP text(std::string s) {
  auto d = std::make_shared<Doc>();
  d->k = DK::Text;
  d->text = std::move(s);
  return d;
}
DocP line() {
  auto d = std::make_shared<Doc>();
  d->k = DK::Line;
  return d;
}
DocP cat(std::vector<DocP> parts) {
  auto d = std::make_shared<Doc>();
  d->k = DK::Cat;
  d->parts = std::move(parts);
  return d;
}
DocP nest(int n, DocP inner) {
  auto d = std::make_shared<Doc>();
  d->k = DK::Nest;
  d->indent = n;
  d->parts.push_back(std::move(inner));
  return d;
}
// Lines inside break to the column where `inner` starts (when that is not too far
// to the right).
DocP align(DocP inner) {
  auto d = std::make_shared<Doc>();
  d->k = DK::Align;
  d->parts.push_back(std::move(inner));
  return d;
}
DocP group(DocP inner) {
  auto d = std::make_shared<Doc>();
  d->k = DK::Group;
  d->parts.push_back(std::move(inner));
  return d;
}

struct Item {
  int indent;
  bool flat;
  const Doc* d;
};

// Whether `first` in flat mode, followed by the rest of the document up to its next
// line break, fits in `rem` columns.
bool fits(int rem, Item first, const std::vector<Item>& rest) {
  std::vector<Item> work{first};
  size_t ri = rest.size();
  while (rem >= 0) {
    if (work.empty()) {
      if (ri == 0) return true;
      work.push_back(rest[--ri]);
    }
    Item it = work.back();
    work.pop_back();
    const Doc& d = *it.d;
    switch (d.k) {
      case DK::Text: {
        size_t nl = d.text.find('\n');
        if (nl != std::string::npos) return rem >= static_cast<int>(nl);
        rem -= static_cast<int>(d.text.size());
        break;
      }
      case DK::Line:
        if (!it.flat) return true;
        if (!d.soft) rem -= 1;
        break;
      case DK::Cat:
        for (auto p = d.parts.rbegin(); p != d.parts.rend(); ++p)
          work.push_back({it.indent, it.flat, p->get()});
        break;
      case DK::Nest:
      case DK::Align:
      case DK::Group:
        work.push_back({it.indent, it.flat, d.parts[0].get()});
        break;
    }
  }
  return false;
}

std::string render(const DocP& root, int start_col = 0) {
  std::string out;
  int col = start_col;
  std::vector<Item> stack{{0, false, root.get()}};
  while (!stack.empty()) {
    Item it = stack.back();
    stack.pop_back();
    const Doc& d = *it.d;
    switch (d.k) {
      case DK::Text: {
        out += d.text;
        size_t nl = d.text.rfind('\n');
        col = nl == std::string::npos ? col + static_cast<int>(d.text.size())
                                      : static_cast<int>(d.text.size() - nl - 1);
        break;
      }
      case DK::Line:
        if (it.flat) {
          if (!d.soft) {
            out += ' ';
            ++col;
          }
        } else {
          out += '\n';
          out.append(static_cast<size_t>(it.indent), ' ');
          col = it.indent;
        }
        break;
      case DK::Cat:
        for (auto p = d.parts.rbegin(); p != d.parts.rend(); ++p)
          stack.push_back({it.indent, it.flat, p->get()});
        break;
      case DK::Nest:
        stack.push_back({it.indent + d.indent, it.flat, d.parts[0].get()});
        break;
      case DK::Align:
        // Far to the right, aligning would leave no room: indent instead.
        stack.push_back({col <= kWidth / 2 ? col : it.indent + 2, it.flat, d.parts[0].get()});
        break;
      case DK::Group: {
        bool flat = it.flat || fits(kWidth - col, Item{it.indent, true, d.parts[0].get()}, stack);
        stack.push_back({it.indent, flat, d.parts[0].get()});
        break;
      }
    }
  }
  return out;
}

// ---- literals ----

std::string float_text(double v, bool f32) {
  const char* suffix = f32 ? "f" : "";
  if (std::isnan(v)) return std::string("(0.0") + suffix + " / 0.0" + suffix + ")";
  if (std::isinf(v))
    return std::string(v > 0 ? "(1.0" : "(-1.0") + suffix + " / 0.0" + suffix + ")";
  char buf[64];
  std::to_chars_result r = f32 ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v))
                               : std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + suffix;
}

// ---- the expression printer ----

enum Prec { kExpr, kPipe, kCompose, kOr, kAnd, kCompare, kSum, kProd, kUnary, kPostfix };

struct Printed {
  DocP doc;
  int prec;
};

// prim-names: off (let is a keyword too)
const char* const kReservedWords[] = {"def", "foreign", "fun",   "depFun", "let",
                                      "in",  "true",    "false", "lidx"};
// prim-names: on

bool is_identifier(const std::string& s) {
  if (s.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(s[0])) return false;
  for (char c : s)
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  for (const char* k : kReservedWords)
    if (s == k) return false;
  return !is_reserved_name(s);
}

// Primitives written with their own syntax, and how many value arguments that
// syntax takes.
int sugar_arity(const ExprNode& head) {
  if (head.kind != ExprKind::Primitive || !head.prim) return -1;
  switch (head.prim->id) {
    case PrimId::Add:
    case PrimId::Sub:
    case PrimId::Mul:
    case PrimId::Div:
    case PrimId::Mod:
    case PrimId::Lt:
    case PrimId::Gt:
    case PrimId::Equal:
    case PrimId::Idx:
    case PrimId::MakePair:
    case PrimId::Let:
      return 2;
    case PrimId::Neg:
    case PrimId::Not:
    case PrimId::Fst:
    case PrimId::Snd:
      return 1;
    case PrimId::MakeArray:
      return head.count > 0 ? head.count : -1;
    default:
      return -1;
  }
}

enum class Param { Unknown, ExplicitDep, FunValue, DataValue };

// An application spine with, for every argument, the parameter of the head's type
// it fills. Implicit parameters ({n: Nat}) are never applied explicitly (the type
// checker instantiates them), so a dependent argument fills the next explicit
// dependent parameter and, in a parsed program, so does a value argument.
struct AppView {
  Spine sp;
  std::vector<Param> params;
  bool known = false;      // the head's type is known
  bool saturated = false;  // no explicit parameter left after the arguments
  bool prim_like = false;  // the head is a primitive or a name of one
};

const PrimitiveInfo* named_primitive(const Expr& head) {
  if (head->kind == ExprKind::Primitive) return head->prim;
  if (head->kind == ExprKind::Ident) return find_primitive(head->name);
  return nullptr;
}

Type head_type(const Expr& head) {
  if (head->kind == ExprKind::Primitive) {
    if (head->prim && head->prim->is(PrimId::MakeArray)) return make_array_type(head->count);
    if (head->prim && head->prim->type) return head->prim->type;
    return head->type;
  }
  if (head->type) return head->type;
  if (head->kind == ExprKind::Ident)
    if (const PrimitiveInfo* p = find_primitive(head->name)) return p->type;
  return nullptr;
}

AppView analyze(const Expr& e) {
  AppView v;
  v.sp = spine(e);
  v.prim_like = named_primitive(v.sp.head) != nullptr;
  Type t = head_type(v.sp.head);
  v.known = t != nullptr;
  for (const Spine::Arg& a : v.sp.args) {
    Param p = Param::Unknown;
    while (t && t->kind == TypeKind::DepFun && t->implicit) t = t->b;
    if (t && t->kind == TypeKind::DepFun) {
      p = Param::ExplicitDep;
      t = t->b;
    } else if (t && t->kind == TypeKind::Fun && !a.dep) {
      p = is_data(t->a) ? Param::DataValue : Param::FunValue;
      t = t->b;
    } else {
      t = nullptr;
    }
    v.params.push_back(p);
  }
  if (t) {
    while (t->kind == TypeKind::DepFun && t->implicit) t = t->b;
    v.saturated = t->kind != TypeKind::Fun && t->kind != TypeKind::DepFun;
  } else {
    v.known = false;
  }
  return v;
}

// A complete sugar form: a primitive with its own syntax applied to exactly the
// value arguments that syntax shows.
bool sugar_form(const AppView& v, std::vector<Expr>& vals) {
  int k = sugar_arity(*v.sp.head);
  if (k < 0 || v.sp.args.empty()) return false;
  vals.clear();
  for (size_t i = 0; i < v.sp.args.size(); ++i) {
    if (v.sp.args[i].dep) return false;
    vals.push_back(v.sp.args[i].value);
  }
  if (static_cast<int>(vals.size()) != k) return false;
  if (v.sp.head->prim->is(PrimId::Let) && vals[1]->kind != ExprKind::Lambda) return false;
  return true;
}

bool sugar_form(const Expr& e, std::vector<Expr>& vals) {
  if (e->kind != ExprKind::App && e->kind != ExprKind::DepApp) return false;
  return sugar_form(analyze(e), vals);
}

// The primitive of a term in sugar_form.
PrimId sugar_prim(const Expr& e) {
  return spine(e).head->prim->id;
}

class Printer {
 public:
  explicit Printer(const PrintOptions& o) : opts_(o) {}

  // Every name in `e`, so that generated display names collide with none.
  void collect_names(const Expr& root) {
    for_each_subexpr(root, [&](const Expr& n) {
      if (!n->name.empty()) used_.insert(n->name);
      // (a with-loop's desugaring names its primitives as the parser reads them)
      if (n->kind == ExprKind::Primitive || n->kind == ExprKind::Foreign ||
          (n->kind == ExprKind::Ident && written_by_with_loop(n->span) && find_primitive(n->name)))
        globals_.insert(n->name);
      schedules_ = schedules_ || !n->schedule.is_default();
      return true;
    });
  }
  void reserve(const std::string& name) { used_.insert(name); }

  // Not on ExprVisitor: the layout looks at whole spines and shapes (compositions,
  // let, infix operators) and decides per construct what to print of its children.
  DocP print(const Expr& e, int ctx) {
    Printed p = doc(e);
    if (p.prec < ctx) return cat({text("("), p.doc, text(")")});
    return p.doc;
  }

  std::string type_text(const Type& t) { return t ? rise::print(t) : std::string("?"); }

 private:
  PrintOptions opts_;
  std::unordered_set<std::string> used_;
  // A binder named like a primitive or foreign function of the program (`fun(map =>
  // ...)` around a `map` a rewrite wrote, or a definition inlined there) is shown
  // renamed (`map1`), since the primitive's name in its scope would read back as the
  // binder; likewise, when a parallel loop has a schedule, a binder named like its kind
  // (`dynamic`), since `mapPar(dynamic)` in its scope would call the binder.
  std::unordered_set<std::string> globals_;
  bool schedules_ = false;
  std::vector<std::pair<std::string, std::string>> scope_;  // binder -> display name
  std::vector<bool> with_loop_bound_;  // per scope_ entry: a with-loop's desugaring wrote it

  std::string display(const std::string& name) const {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
      if (it->first == name) return it->second;
    return name;
  }

  // Binds a lambda parameter; returns the name to print.
  std::string bind(const std::string& name, bool by_with_loop = false) {
    std::string shown = name;
    if (!is_identifier(name) || globals_.count(name) || (schedules_ && schedule_kind(name))) {
      std::string base;
      size_t pos = name.rfind("__");
      std::string stem = is_reserved_name(name) ? name.substr(0, pos) : name;
      for (char c : stem)
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
            (c >= '0' && c <= '9' && !base.empty()))
          base += c;
      while (base.size() >= 2 && base.compare(base.size() - 2, 2, "__") == 0) base.pop_back();
      if (base.empty()) base = "x";
      shown = base;
      for (int i = 1; !is_identifier(shown) || used_.count(shown); ++i)
        shown = base + std::to_string(i);
      used_.insert(shown);
    }
    scope_.emplace_back(name, shown);
    with_loop_bound_.push_back(by_with_loop);
    return shown;
  }
  void unbind(size_t n) {
    scope_.resize(scope_.size() - n);
    with_loop_bound_.resize(scope_.size());
  }
  // Whether the innermost binder of `name` is one a with-loop's desugaring wrote.
  bool bound_by_with_loop(const std::string& name) const {
    for (size_t i = scope_.size(); i-- > 0;)
      if (scope_[i].first == name) return with_loop_bound_[i];
    return false;
  }

  Type param_type(const Expr& lam) const {
    if (opts_.types && lam->type && lam->type->kind == TypeKind::Fun) return lam->type->a;
    return lam->annot;
  }

  Printed doc(const Expr& e) {
    switch (e->kind) {
      case ExprKind::Ident:
        // a with-loop's desugared primitive is no binder's, whatever is in scope, but
        // for a binder the desugaring wrote itself (the generator's index)
        if (written_by_with_loop(e->span) && find_primitive(e->name) &&
            !bound_by_with_loop(e->name))
          return {text(e->name), kPostfix};
        return {text(display(e->name)), kPostfix};
      case ExprKind::Primitive:
        // A parallel loop's schedule: its first arguments, `mapPar(dynamic, 4)`, which
        // name resolution reads back (docs/language.md).
        if (!e->schedule.is_default())
          return {text(e->name + "(" + schedule_text(e->schedule) + ")"), kPostfix};
        return {text(e->name), kPostfix};
      case ExprKind::Foreign:
        return {text(e->name), kPostfix};
      case ExprKind::Literal: {
        std::string s = print_literal(e->lit);
        return {text(s), s[0] == '-' ? kUnary : kPostfix};
      }
      case ExprKind::Annotation:
        return {cat({text("("), print(e->fn, kPostfix), text(" : " + type_text(e->annot) + ")")}),
                kPostfix};
      case ExprKind::Lambda:
        return lambda_doc(e);
      case ExprKind::DepLambda:
        return dep_lambda_doc(e);
      case ExprKind::App:
      case ExprKind::DepApp:
        return app_doc(e);
    }
    return {text("?"), kPostfix};
  }

  // fun(x => g(f(x))) with x free in neither f nor g, and neither a primitive
  // written with its own syntax: printed `f >> g`.
  // Only for generated binders (the parser's desugaring of `>>`, or a rewrite's):
  // a lambda the user wrote keeps its form.
  static bool compose_shape(const Expr& lam, Expr& f, Expr& g) {
    if (lam->kind != ExprKind::Lambda || lam->annot || !is_reserved_name(lam->name)) return false;
    const Expr& b = lam->fn;
    if (b->kind != ExprKind::App || b->arg->kind != ExprKind::App) return false;
    const Expr& inner = b->arg;
    if (inner->arg->kind != ExprKind::Ident || inner->arg->name != lam->name) return false;
    f = inner->fn;
    g = b->fn;
    if (sugar_arity(*spine(f).head) >= 0 || sugar_arity(*spine(g).head) >= 0) return false;
    // Asked at every `>>` of a chain, about the whole chain on its left.
    return !occurs_free(lam->name, f) && !occurs_free(lam->name, g);
  }

  [[gnu::noinline]] Printed lambda_doc(const Expr& e) {
    Expr f, g;
    if (compose_shape(e, f, g))
      return {cat({print(f, kCompose), text(" >> "), print(g, kOr)}), kCompose};
    std::vector<DocP> parts{text("fun(")};
    size_t bound = 0;
    Expr cur = e;
    for (;;) {
      if (bound > 0) parts.push_back(text(", "));
      std::string shown = bind(cur->name, written_by_with_loop(cur->span));
      ++bound;
      Type t = param_type(cur);
      parts.push_back(text(t ? shown + ": " + type_text(t) : shown));
      cur = cur->fn;
      if (cur->kind != ExprKind::Lambda || compose_shape(cur, f, g)) break;
    }
    parts.push_back(text(" =>"));
    parts.push_back(nest(2, cat({line(), print(cur, kExpr)})));
    parts.push_back(text(")"));
    unbind(bound);
    return {group(cat(std::move(parts))), kExpr};
  }

  [[gnu::noinline]] Printed dep_lambda_doc(const Expr& e) {
    std::vector<std::string> binders;
    Expr cur = e;
    while (cur->kind == ExprKind::DepLambda) {
      binders.push_back(cur->name + ": " + kind_name(cur->binder_kind));
      cur = cur->fn;
    }
    std::string head = "depFun(";
    if (binders.size() > 1) head += "(";
    for (size_t i = 0; i < binders.size(); ++i) head += (i ? ", " : "") + binders[i];
    if (binders.size() > 1) head += ")";
    head += " =>";
    return {group(cat({text(head), nest(2, cat({line(), print(cur, kExpr)})), text(")")})), kExpr};
  }

  DocP arg_doc(const Spine::Arg& a) {
    if (a.dep) return text("(" + rise::print(a.type_arg) + ")");
    return cat({text("("), print(a.value, kExpr), text(")")});
  }

  bool pipe_ok(const Expr& e, const AppView& v) {
    if (e->kind != ExprKind::App || sugar_arity(*v.sp.head) >= 0) return false;
    size_t n = v.sp.args.size();
    if (n < 2) return false;
    if (v.known) {
      if (!v.saturated || v.params[n - 1] != Param::DataValue) return false;
      for (size_t i = 0; i + 1 < n; ++i)
        if (v.params[i] == Param::ExplicitDep || v.params[i] == Param::FunValue) return true;
      return false;
    }
    // Unknown head (a user definition): pipe when an earlier argument looks like a
    // function or a size and the last one does not, as in `img |> padClamp2D(1)(1)`
    // or `x |> map2D(f)`.
    if (looks_like_fun_or_size(v.sp.args[n - 1])) return false;
    for (size_t i = 0; i + 1 < n; ++i)
      if (looks_like_fun_or_size(v.sp.args[i])) return true;
    return false;
  }

  static bool looks_like_fun_or_size(const Spine::Arg& a) {
    if (a.dep) return true;
    const Expr& x = a.value;
    if (x->kind == ExprKind::Lambda || x->kind == ExprKind::DepLambda) return true;
    if (x->kind == ExprKind::Literal && x->lit.kind == LitKind::Int) return true;
    if (x->kind == ExprKind::Primitive || x->kind == ExprKind::Ident) {
      const PrimitiveInfo* p = named_primitive(x);
      return p && p->arity > 0;
    }
    if (x->kind == ExprKind::App || x->kind == ExprKind::DepApp) {
      AppView av = analyze(x);
      return av.prim_like && av.known && !av.saturated;
    }
    return false;
  }

  // An argument chain f(g(h(...))) deeper than this prints as a pipe chain, which
  // reads back without nesting (the parser limits nesting, not pipe chains).
  static constexpr int kMaxCallNesting = 8;

  static bool deep_arg_chain(const Expr& e) {
    int d = 0;
    for (const ExprNode* n = e->arg.get(); n && n->kind == ExprKind::App; n = n->arg.get())
      if (++d >= kMaxCallNesting) return true;
    return false;
  }

  // Whether the application e prints as `arg |> fn`.
  bool piped(const Expr& e, const AppView& v) {
    if (e->kind != ExprKind::App) return false;
    std::vector<Expr> vals;
    if (sugar_form(v, vals)) return false;
    // A redex (fun(x => body))(v) reads as `v |> fun(x => body)`: the value before its
    // use (with-loop bodies are such redexes, withloop.cpp).
    if (e->fn->kind == ExprKind::Lambda) return true;
    return pipe_ok(e, v) || deep_arg_chain(e);
  }

  // select(a)(b)(false) is printed a && b, select(a)(true)(b) a || b (what they parse to);
  // applied to more arguments (a select of functions), (a || b)(x).
  static std::optional<Printed> logic_doc(const AppView& v, Printer& p) {
    const ExprNode& h = *v.sp.head;
    if (h.kind != ExprKind::Primitive || !h.prim || !h.prim->is(PrimId::Select) ||
        v.sp.args.size() < 3)
      return std::nullopt;
    if (v.sp.args.size() > 3) {
      AppView three = v;
      three.sp.args.resize(3);
      auto inner = logic_doc(three, p);
      if (!inner) return std::nullopt;
      std::vector<DocP> parts{text("("), inner->doc, text(")")};
      for (size_t i = 3; i < v.sp.args.size(); ++i) parts.push_back(p.arg_doc(v.sp.args[i]));
      return Printed{cat(std::move(parts)), kPostfix};
    }
    for (const auto& a : v.sp.args)
      if (a.dep) return std::nullopt;
    auto is_bool = [](const Expr& x, bool b) {
      return x->kind == ExprKind::Literal && x->lit.kind == LitKind::Scalar &&
             x->lit.scalar == ScalarKind::Bool && (x->lit.i != 0) == b;
    };
    const Expr& c = v.sp.args[0].value;
    const Expr& a = v.sp.args[1].value;
    const Expr& b = v.sp.args[2].value;
    if (is_bool(b, false) && !is_bool(a, true))
      return Printed{cat({p.print(c, kAnd), text(" && "), p.print(a, kCompare)}), kAnd};
    if (is_bool(a, true) && !is_bool(b, false))
      return Printed{cat({p.print(c, kOr), text(" || "), p.print(b, kAnd)}), kOr};
    return std::nullopt;
  }

  [[gnu::noinline]] Printed app_doc(const Expr& e) {
    AppView v = analyze(e);
    std::vector<Expr> vals;
    if (sugar_form(v, vals)) return sugar_doc(e, sugar_prim(e), vals);
    if (auto l = logic_doc(v, *this)) return *l;
    if (piped(e, v)) return pipe_doc(e);
    size_t start = 0;
    Expr callee = v.sp.head;
    int k = sugar_arity(*v.sp.head);
    if (k >= 0) {
      // Over-applied sugar: the complete form, then the remaining arguments.
      for (size_t i = 0; i < v.sp.args.size(); ++i) {
        if (static_cast<int>(i) + 1 == k) {
          // The node applying the k-th written argument, found from e.
          Expr cur = e;
          while (cur.get() != v.sp.args[i].node) cur = cur->fn;
          std::vector<Expr> pv;
          if (sugar_form(cur, pv)) {
            callee = cur;
            start = i + 1;
          }
          break;
        }
      }
    }
    std::vector<DocP> parts{print(callee, kPostfix)};
    for (size_t i = start; i < v.sp.args.size(); ++i) parts.push_back(arg_doc(v.sp.args[i]));
    return {cat(std::move(parts)), kPostfix};
  }

  [[gnu::noinline]] Printed pipe_doc(const Expr& e) {
    std::vector<Expr> stages;
    Expr cur = e;
    for (;;) {
      if (cur->kind != ExprKind::App) break;
      AppView v = analyze(cur);
      if (!piped(cur, v)) break;
      stages.push_back(cur->fn);
      cur = cur->arg;
    }
    std::vector<DocP> parts{print(cur, kPipe)};
    std::vector<DocP> rest;
    for (size_t i = stages.size(); i-- > 0;) {
      DocP s = print(stages[i], kCompose);
      if (i + 1 == stages.size()) {
        parts.push_back(text(" |> "));
        parts.push_back(s);
      } else {
        rest.push_back(line());
        rest.push_back(text("|> "));
        rest.push_back(s);
      }
    }
    if (!rest.empty()) parts.push_back(nest(2, cat(std::move(rest))));
    return {group(cat(std::move(parts))), kPipe};
  }

  static const char* infix_op(PrimId n) {
    switch (n) {
      case PrimId::Add:
        return "+";
      case PrimId::Sub:
        return "-";
      case PrimId::Mul:
        return "*";
      case PrimId::Div:
        return "/";
      case PrimId::Mod:
        return "%";
      case PrimId::Lt:
        return "<";
      case PrimId::Gt:
        return ">";
      case PrimId::Equal:
        return "==";
      default:
        return nullptr;
    }
  }
  static int infix_prec(PrimId n) {
    if (n == PrimId::Add || n == PrimId::Sub) return kSum;
    if (n == PrimId::Mul || n == PrimId::Div || n == PrimId::Mod) return kProd;
    return kCompare;
  }

  static bool numeric_literal(const Expr& x) {
    return x->kind == ExprKind::Literal &&
           (x->lit.kind == LitKind::Int ||
            (x->lit.kind == LitKind::Scalar && x->lit.scalar != ScalarKind::Bool));
  }

  [[gnu::noinline]] Printed sugar_doc(const Expr& e, PrimId name, const std::vector<Expr>& vals) {
    if (const char* op = infix_op(name)) {
      int prec = infix_prec(name);
      if (prec == kCompare)
        return {
            cat({print(vals[0], kSum), text(std::string(" ") + op + " "), print(vals[1], kSum)}),
            kCompare};
      // Left-associative chains are flattened (no recursion along the chain).
      std::vector<std::pair<const char*, Expr>> rights{{op, vals[1]}};
      Expr left = vals[0];
      std::vector<Expr> lv;
      while (sugar_form(left, lv) && infix_op(sugar_prim(left)) &&
             infix_prec(sugar_prim(left)) == prec) {
        rights.emplace_back(infix_op(sugar_prim(left)), lv[1]);
        left = lv[0];
      }
      std::vector<DocP> parts{print(left, prec)};
      for (auto it = rights.rbegin(); it != rights.rend(); ++it) {
        parts.push_back(text(std::string(" ") + it->first + " "));
        parts.push_back(print(it->second, prec + 1));
      }
      return {cat(std::move(parts)), prec};
    }
    if (name == PrimId::Not) {
      std::vector<Expr> inner;
      if (sugar_form(vals[0], inner)) {
        PrimId n = sugar_prim(vals[0]);
        const char* op = n == PrimId::Gt      ? "<="
                         : n == PrimId::Lt    ? ">="
                         : n == PrimId::Equal ? "!="
                                              : nullptr;
        if (op)
          return {cat({print(inner[0], kSum), text(std::string(" ") + op + " "),
                       print(inner[1], kSum)}),
                  kCompare};
      }
      return {cat({text("!"), print(vals[0], kUnary)}), kUnary};
    }
    if (name == PrimId::Neg) {
      // `-5` would read back as a negative literal, not neg(5).
      if (numeric_literal(vals[0]))
        return {cat({text("-("), print(vals[0], kExpr), text(")")}), kUnary};
      return {cat({text("-"), print(vals[0], kUnary)}), kUnary};
    }
    if (name == PrimId::Fst || name == PrimId::Snd)
      return {cat({print(vals[0], kPostfix), text(name == PrimId::Fst ? "._1" : "._2")}), kPostfix};
    if (name == PrimId::Idx)
      return {cat({print(vals[1], kPostfix), text("["), print(vals[0], kExpr), text("]")}),
              kPostfix};
    if (name == PrimId::MakePair)
      return {cat({text("("), print(vals[0], kExpr), text(", "), print(vals[1], kExpr), text(")")}),
              kPostfix};
    if (name == PrimId::MakeArray) {
      std::vector<DocP> items;
      for (size_t i = 0; i < vals.size(); ++i) {
        if (i > 0) {
          items.push_back(text(","));
          items.push_back(line());
        }
        items.push_back(print(vals[i], kExpr));
      }
      return {group(cat({text("["), align(cat(std::move(items))), text("]")})), kPostfix};
    }
    // let: a chain of lets, one per line when the chain does not fit.
    std::vector<DocP> parts;
    size_t bound = 0;
    Expr cur = e;
    std::vector<Expr> lv{vals};
    for (;;) {
      const Expr& lam = lv[1];
      DocP value = print(lv[0], kExpr);
      std::string shown = bind(lam->name);
      ++bound;
      Type t = param_type(lam);
      parts.push_back(text("let " + (t ? shown + ": " + type_text(t) : shown) + " = "));
      parts.push_back(value);
      parts.push_back(text(" in"));
      parts.push_back(line());
      cur = lam->fn;
      if (!(sugar_form(cur, lv) && sugar_prim(cur) == PrimId::Let)) break;
    }
    parts.push_back(print(cur, kExpr));
    unbind(bound);
    return {group(cat(std::move(parts))), kExpr};
  }
};

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\0':
        out += "\\0";
        break;
      case '\n':
        out += '\n';
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          const char* hex = "0123456789abcdef";
          unsigned char u = static_cast<unsigned char>(c);
          out += "\\x";
          out += hex[u >> 4];
          out += hex[u & 15];
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace

std::string print_literal(const Literal& lit) {
  switch (lit.kind) {
    case LitKind::Int:
      return std::to_string(lit.i);
    case LitKind::Scalar:
      if (lit.scalar == ScalarKind::Bool) return lit.i ? "true" : "false";
      if (is_float(lit.scalar) && !std::isfinite(lit.f)) {
        // inf, -inf, nan as written (type from context), else with their type fixed
        std::string word = std::isnan(lit.f) ? "nan" : lit.f > 0 ? "inf" : "-inf";
        if (lit.float_from_context) return word;
        if (lit.scalar == ScalarKind::F32 && !std::isnan(lit.f)) return word + "f";
        return "(" + word + " : " + scalar_name(lit.scalar) + ")";
      }
      if (lit.scalar == ScalarKind::F32) return float_text(lit.f, true);
      if (lit.scalar == ScalarKind::F64) return float_text(lit.f, false);
      if (lit.scalar == ScalarKind::U64)
        return std::to_string(static_cast<uint64_t>(lit.i)) + scalar_name(lit.scalar);
      return std::to_string(lit.i) + scalar_name(lit.scalar);
    case LitKind::Index:
      return "lidx(" + arith::print(lit.nat) + ", " + arith::print(lit.size) + ")";
    case LitKind::NatVal:
      // a size as a number of a scalar type (checked programs) or as natType
      if (lit.scalar_value) return "natAsScalar(" + arith::print(lit.nat) + ")";
      // a compound size as `natType(n - 3)`, which reads back as this literal
      // (`((n - 3) : natType)` would read back as a run-time subtraction)
      if (lit.nat.is_var() || lit.nat.is_const())
        return "(" + arith::print(lit.nat) + " : natType)";
      return "natType(" + arith::print(lit.nat) + ")";
  }
  return "?";
}

std::string print_expr(const Expr& e, const PrintOptions& options) {
  if (!e) return "<null>";
  Printer p(options);
  p.collect_names(e);
  return render(p.print(e, kExpr));
}

std::string print_program(const Program& prog, const PrintOptions& options) {
  Printer p(options);
  for (const Definition& d : prog.defs) {
    p.reserve(d.name);
    p.collect_names(d.body);
    if (d.foreign)
      for (const std::string& n : d.foreign->params) p.reserve(n);
  }
  std::string out;
  for (const Definition& d : prog.defs) {
    if (!out.empty()) out += "\n";
    if (d.foreign) {
      const ForeignFun& f = *d.foreign;
      out += "foreign def " + f.name + "(";
      for (size_t i = 0; i < f.params.size(); ++i) {
        if (i) out += ", ";
        out +=
            f.params[i] + ": " + p.type_text(i < f.param_types.size() ? f.param_types[i] : nullptr);
      }
      out += "): " + p.type_text(f.result) + " = " + quote(f.body) + "\n";
      continue;
    }
    if (options.types && d.body && d.body->type)
      out += "// " + d.name + " : " + p.type_text(d.body->type) + "\n";
    std::string head = "def " + d.name;
    if (d.annot) head += " : " + p.type_text(d.annot);
    head += " = ";
    out += head;
    out += d.body ? render(p.print(d.body, kExpr), static_cast<int>(head.size())) : "?";
    out += "\n";
  }
  return out;
}

}  // namespace risec::rise
