// Recursive-descent parser for .rise files (spec/rise-syntax.md). See parser.h for
// the desugaring; this file follows the grammar rule by rule.
//
// Decisions beyond the letter of the grammar (all accept a superset of it, with the
// same meaning for every program the grammar accepts):
// - `fun(...)` and `depFun(...)` are atoms, so `x |> fun(y => ...)` and
//   `depFun(n: Nat => ...)(4)` parse; `let` stays at the expression level (its body
//   extends as far as possible) and must be parenthesized inside operators.
// - `let x: T = e in b` may annotate its binder (the printer writes it with types).
// - `depFun(n: Nat, m: Nat => e)` is accepted without the inner parentheses.
// - `lidx(i, n)` takes a size expression for `i`, not only an integer.
// - Sizes in types: `+ -` bind loosest, then `* / %`, then `^` (right associative).
// - A parenthesized type `(s -> t)` is a type operand (the primitive table needs
//   function-typed parameters), and `vec[t, n]` accepts a data type variable.
// - In a type, a FLOAT token DIGITS.DIGITS where an array size is expected is split
//   into INT `.` INT, so `3.4.f32` is Array[3, Array[4, f32]].
#include "rise/parser.h"

#include <locale.h>  // newlocale (POSIX), for strtof_l/strtod_l
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <unordered_map>
#include <utility>

#include "arith/nat.h"
#include "rise/lexer.h"
#include "rise/primitives.h"
#include "rise/withloop.h"
#include "support/stack.h"

namespace risec::rise {

namespace {

class Parser {
 public:
  explicit Parser(SourceRef src) : src_(std::move(src)) {
    if (src_ && src_->text.size() > (std::numeric_limits<unsigned>::max() >> 1))
      user_error("source file too large (" + std::to_string(src_->text.size()) + " bytes)");
    toks_ = tokenize(src_);
  }

  Program program() {
    Program p;
    p.source = src_;
    std::map<std::string, size_t> index;  // name -> position in p.defs
    while (!at(Tok::End)) {
      Definition d;
      if (at(Tok::KwDef)) {
        d = definition();
      } else if (at(Tok::KwForeign)) {
        d = foreign_definition();
        quotients_.clear();
      } else {
        fail("expected 'def' or 'foreign def' at the start of a definition, found " +
             describe(peek()));
      }
      auto [it, fresh] = index.emplace(d.name, p.defs.size());
      if (!fresh) {
        LineCol lc = p.defs[it->second].span.start();
        user_error("duplicate definition of '" + d.name + "' (first defined at line " +
                       std::to_string(lc.line) + ", column " + std::to_string(lc.col) + ")",
                   d.span);
      }
      p.defs.push_back(std::move(d));
    }
    return p;
  }

  Expr whole_expr() {
    Expr e = expr();
    if (!at(Tok::End)) trailing("after the expression");
    return e;
  }

  Type whole_type() {
    Type t = type();
    if (!at(Tok::End)) fail("expected end of type, found " + describe(peek()));
    return t;
  }

 private:
  SourceRef src_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  unsigned prev_end_ = 0;  // end of the last consumed token
  int depth_ = 0;

  // ---- tokens ----

  const Token& peek(size_t k = 0) {
    size_t i = std::min(pos_ + k, toks_.size() - 1);
    const Token& t = toks_[i];
    if (k == 0 && t.kind == Tok::Error) user_error(t.value, span(t));
    return t;
  }
  bool at(Tok k) { return peek().kind == k; }
  Tok kind_at(size_t k) { return peek(k).kind; }

  Token take() {
    Token t = peek();
    if (pos_ < toks_.size() - 1) ++pos_;
    prev_end_ = t.end;
    return t;
  }
  bool accept(Tok k) {
    if (!at(k)) return false;
    take();
    return true;
  }

  Span span(const Token& t) const { return Span{src_, t.begin, t.end}; }
  Span span(unsigned begin, unsigned end) const { return Span{src_, begin, end}; }
  Span from(unsigned begin) const { return Span{src_, begin, std::max(begin, prev_end_)}; }
  static unsigned begin_of(const Expr& e) { return e->span.begin; }

  [[noreturn]] void fail(const std::string& msg) { user_error(msg, span(peek())); }

  // "expected X WHAT, found Y".
  Token expect(Tok k, const std::string& what) {
    if (!at(k)) fail("expected " + tok_spelling(k) + " " + what + ", found " + describe(peek()));
    return take();
  }

  // A closing bracket, naming where the opening one is.
  Token expect_close(Tok k, const Token& open, const std::string& what) {
    if (!at(k)) {
      LineCol lc = span(open).start();
      fail("expected " + tok_spelling(k) + " to close " + what + " opened at line " +
           std::to_string(lc.line) + ", column " + std::to_string(lc.col) + ", found " +
           describe(peek()));
    }
    return take();
  }

  Token expect_name(const std::string& what) {
    if (!at(Tok::Ident)) fail("expected a name " + what + ", found " + describe(peek()));
    return take();
  }

  [[noreturn]] void trailing(const std::string& where) {
    Tok k = peek().kind;
    if (k == Tok::RParen || k == Tok::RBracket || k == Tok::RBrace)
      fail("unmatched " + tok_spelling(k) + " " + where);
    fail("expected an operator or the end of the expression " + where + ", found " +
         describe(peek()));
  }

  // ---- nesting limit ----

  struct Nest {
    Parser& p;
    explicit Nest(Parser& parser) : p(parser) {
      if (p.depth_ >= kMaxParseNesting)
        p.fail("nesting too deep (more than " + std::to_string(kMaxParseNesting) +
               " nested expressions or types)");
      // The limit is what the language allows; the stack check keeps builds with
      // larger frames (sanitizers) from overflowing before it.
      check_stack_depth(p.span(p.peek()));
      ++p.depth_;
    }
    ~Nest() { --p.depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
  };

  // The depth of every compound node built so far (keeping the nodes alive, so that
  // no address is reused): long chains (`|>`, `+`, calls, array literals) build deep
  // trees without deep parser recursion, and the passes after parsing (and the
  // destructors) recurse over trees, so the depth is limited as the tree grows.
  std::unordered_map<const ExprNode*, std::pair<Expr, int>> tree_depth_;
  // The quotients of the size expressions read since the last node (ExprNode::size_quotients).
  std::vector<std::pair<Nat, Span>> quotients_;

  int depth_of(const Expr& e) const {
    auto it = tree_depth_.find(e.get());
    return it == tree_depth_.end() ? 1 : it->second.second;
  }

  Expr reg(Expr e) {
    if (!quotients_.empty()) {  // the node after a size expression carries its quotients
      auto withq = std::make_shared<ExprNode>(*e);
      withq->size_quotients = std::move(quotients_);
      quotients_.clear();
      e = withq;
    }
    int d = 1;
    if (e->fn) d = std::max(d, depth_of(e->fn) + 1);
    if (e->arg) d = std::max(d, depth_of(e->arg) + 1);
    if (d > kMaxExprDepth)
      user_error("expression too deeply nested (its tree is more than " +
                     std::to_string(kMaxExprDepth) + " levels deep); split it into definitions",
                 e->span);
    const ExprNode* key = e.get();
    tree_depth_[key] = {e, d};
    return e;
  }

  Expr App(Expr f, Expr a, Span s) { return reg(app(std::move(f), std::move(a), std::move(s))); }
  Expr Lam(const std::string& x, Expr body, Type annot, Span s) {
    return reg(lambda(x, std::move(body), std::move(annot), std::move(s)));
  }

  // ---- definitions ----

  Definition definition() {
    take();  // def
    Token name = expect_name("after 'def'");
    Definition d;
    d.name = name.text;
    d.span = span(name);
    if (accept(Tok::Colon)) d.annot = type();
    // (a signature's sizes name its own binders, which the body's nodes need not see)
    quotients_.clear();
    expect(Tok::Eq, "after 'def " + name.text + "'");
    d.body = expr();
    if (!at(Tok::End) && !at(Tok::KwDef) && !at(Tok::KwForeign))
      trailing("in the definition of '" + name.text + "'");
    return d;
  }

  // A foreign function is a scalar C function (spec/rise-syntax.md): its parameters and
  // result are scalars, natType or (parameters only) indices. Held-out J: an array or
  // pair parameter was an internal error, an array result was computed as one scalar, a
  // pair result was C that did not compile, and an idx[n] result was never checked to
  // be in range (an out-of-bounds read).
  static void require_foreign_scalar(const Type& t, const std::string& what, bool result,
                                     const Span& at) {
    const bool scalar = t->kind == TypeKind::Scalar || t->kind == TypeKind::NatData ||
                        (!result && t->kind == TypeKind::Index);
    if (scalar) return;
    user_error(
        "a foreign function is a scalar C function: " + what + " has type " + rise::print(t) +
            (t->kind == TypeKind::Index
                 ? "; return a natType (or an integer) and make the index with natAsIndex, "
                   "which checks that it is in range"
                 : "; its parameters and result are scalars (f32, i32, bool, ...) or natType: "
                   "map the function over an array's elements, or pass a pair's components "
                   "one by one"),
        at);
  }

  Definition foreign_definition() {
    Token kw = take();  // foreign
    expect(Tok::KwDef, "after 'foreign'");
    Token name = expect_name("after 'foreign def'");
    auto f = std::make_shared<ForeignFun>();
    f->name = name.text;
    Token open = expect(Tok::LParen, "after the name of the foreign function");
    if (!at(Tok::RParen)) {
      for (;;) {
        Token p = expect_name("as a parameter of the foreign function");
        expect(Tok::Colon, "and a type after parameter '" + p.text + "'");
        for (const std::string& prev : f->params)
          if (prev == p.text) user_error("duplicate parameter '" + p.text + "'", span(p));
        f->params.push_back(p.text);
        const unsigned at = peek().begin;
        f->param_types.push_back(type());
        require_foreign_scalar(f->param_types.back(), "its parameter '" + p.text + "'", false,
                               from(at));
        if (!accept(Tok::Comma)) break;
      }
    }
    expect_close(Tok::RParen, open, "the parameter list");
    expect(Tok::Colon, "and the result type after the parameters of '" + name.text + "'");
    const unsigned result_at = peek().begin;
    f->result = type();
    require_foreign_scalar(f->result, "its result", true, from(result_at));
    expect(Tok::Eq, "after the result type of '" + name.text + "'");
    if (!at(Tok::String))
      fail("expected a string with the C body of '" + name.text + "', found " + describe(peek()));
    f->body = take().value;
    f->span = from(kw.begin);
    Definition d;
    d.name = name.text;
    d.span = span(name);
    d.foreign = std::move(f);
    return d;
  }

  // ---- expressions ----

  Expr expr() {
    Nest nest(*this);
    if (at(Tok::KwLet)) return let_expr();
    return pipe();
  }

  Expr let_expr() {
    Token kw = take();
    Token name = expect_name("after 'let'");
    Type annot;
    if (accept(Tok::Colon)) annot = type();
    expect(Tok::Eq, "after 'let " + name.text + "'");
    Expr value = expr();
    expect(Tok::KwIn, "after the value of 'let " + name.text + "'");
    Expr body = expr();
    Expr lam = Lam(name.text, body, annot, from(name.begin));
    Expr prim = prim_expr(PrimId::Let, span(kw));
    return App(App(prim, value, from(kw.begin)), lam, from(kw.begin));
  }

  Expr pipe() {
    Expr e = compose();
    while (at(Tok::Pipe)) {
      take();
      Expr f = compose();
      e = App(f, e, from(begin_of(e)));
    }
    return e;
  }

  Expr compose() {
    Expr e = logic_or();
    while (at(Tok::Compose)) {
      take();
      Expr g = logic_or();
      Span sp = from(begin_of(e));
      std::string x = fresh_name("x");
      e = Lam(x, App(g, App(e, ident(x, sp), sp), sp), nullptr, sp);
    }
    return e;
  }

  // `a || b` is select(a)(true)(b) and `a && b` is select(a)(b)(false): the right
  // operand is evaluated only when it decides (select evaluates only the branch it
  // takes, in the interpreter and in C). && binds tighter than ||, both looser than
  // comparisons.
  Expr logic_or() {
    Expr e = logic_and();
    while (at(Tok::OrOr)) {
      Token op = take();
      Expr b = logic_and();
      Span sp = from(begin_of(e));
      e = App(App(App(logic_select(span(op)), e, sp), mask_lit(true, span(op)), sp), b, sp);
    }
    return e;
  }

  Expr logic_and() {
    Expr e = compare();
    while (at(Tok::AndAnd)) {
      Token op = take();
      Expr b = compare();
      Span sp = from(begin_of(e));
      e = App(App(App(logic_select(span(op)), e, sp), b, sp), mask_lit(false, span(op)), sp);
    }
    return e;
  }

  // The select of && and ||, marked: when its condition is a mask, a bool operand is
  // broadcast to every lane (rise::infer).
  static Expr logic_select(Span sp) {
    auto n = std::make_shared<ExprNode>(*prim_expr(PrimId::Select, sp));
    n->lit.mask_from_context = true;
    return n;
  }

  // The constant operand of && and ||: bool, or all lanes of a mask.
  static Expr mask_lit(bool b, Span sp) {
    auto n = std::make_shared<ExprNode>(*bool_lit(b, sp));
    n->lit.mask_from_context = true;
    return n;
  }

  static bool is_comparison(Tok k) {
    return k == Tok::Lt || k == Tok::Gt || k == Tok::EqEq || k == Tok::Le || k == Tok::Ge ||
           k == Tok::Ne;
  }

  Expr compare() {
    Expr a = sum();
    if (!is_comparison(peek().kind)) return a;
    Token op = take();
    Expr b = sum();
    if (is_comparison(peek().kind))
      fail("comparison operators do not chain: use parentheses, e.g. (a < b) == c");
    Span sp = from(begin_of(a));
    auto bin = [&](PrimId name) {
      return App(App(prim_expr(name, span(op)), a, span(begin_of(a), op.end)), b, sp);
    };
    switch (op.kind) {
      case Tok::Lt:
        return bin(PrimId::Lt);
      case Tok::Gt:
        return bin(PrimId::Gt);
      case Tok::EqEq:
        return bin(PrimId::Equal);
      case Tok::Le:
        return App(prim_expr(PrimId::Not, span(op)), bin(PrimId::Gt), sp);
      case Tok::Ge:
        return App(prim_expr(PrimId::Not, span(op)), bin(PrimId::Lt), sp);
      default:
        return App(prim_expr(PrimId::Not, span(op)), bin(PrimId::Equal), sp);
    }
  }

  Expr binary(const Token& op, PrimId prim, const Expr& a, const Expr& b) {
    Expr partial = App(prim_expr(prim, span(op)), a, span(begin_of(a), op.end));
    return App(partial, b, from(begin_of(a)));
  }

  Expr sum() {
    Expr e = product();
    while (at(Tok::Plus) || at(Tok::Minus)) {
      Token op = take();
      Expr b = product();
      e = binary(op, op.kind == Tok::Plus ? PrimId::Add : PrimId::Sub, e, b);
    }
    return e;
  }

  Expr product() {
    Expr e = unary();
    while (at(Tok::Star) || at(Tok::Slash) || at(Tok::Percent)) {
      Token op = take();
      Expr b = unary();
      PrimId prim = op.kind == Tok::Star    ? PrimId::Mul
                    : op.kind == Tok::Slash ? PrimId::Div
                                            : PrimId::Mod;
      e = binary(op, prim, e, b);
    }
    return e;
  }

  static bool starts_postfix(Tok k) {
    return k == Tok::LParen || k == Tok::LBracket || k == Tok::Dot;
  }

  Expr unary() {
    if (at(Tok::Minus)) {
      Token op = take();
      // A '-' right before a number (not followed by a call, index or field) is
      // part of the literal, so that `-128i8` is in range.
      if ((at(Tok::Int) || at(Tok::Float)) && !starts_postfix(kind_at(1)))
        return postfix(number(true, op.begin));
      if (at(Tok::Ident) && (peek().text == "inf" || peek().text == "inff") &&
          !starts_postfix(kind_at(1)))
        return postfix(special_float(true, op.begin));
      Nest nest(*this);
      Expr x = unary();
      return App(prim_expr(PrimId::Neg, span(op)), x, from(op.begin));
    }
    if (at(Tok::Bang)) {
      Token op = take();
      Nest nest(*this);
      Expr x = unary();
      return App(prim_expr(PrimId::Not, span(op)), x, from(op.begin));
    }
    return postfix(atom());
  }

  Expr postfix(Expr e) {
    // Indexing, projections and annotations nest like parentheses (calls are
    // spines, which later passes walk without recursion).
    int nested = 0;
    auto count = [&] {
      if (++nested > kMaxParseNesting)
        fail("too many nested indexing, '._1'/'._2' or ':' operations (more than " +
             std::to_string(kMaxParseNesting) + ")");
    };
    for (;;) {
      if (at(Tok::LParen)) {
        Token open = take();
        if (at(Tok::RParen))
          fail("expected an argument, found ')' (a function takes at least one argument)");
        for (;;) {
          Expr a = expr();
          bool more = at(Tok::Comma);
          if (!more) {
            expect_close(Tok::RParen, open, "the argument list");
            e = App(e, a, from(begin_of(e)));
            break;
          }
          e = App(e, a, span(begin_of(e), a->span.end));
          take();  // ','
        }
      } else if (at(Tok::LBracket)) {
        count();
        Token open = take();
        Expr i = expr();
        expect_close(Tok::RBracket, open, "the index");
        Span brackets = from(open.begin);
        e = App(App(prim_expr(PrimId::Idx, brackets), i, brackets), e, from(begin_of(e)));
      } else if (at(Tok::Dot)) {
        count();
        Token dot = take();
        if (!at(Tok::Ident) || (peek().text != "_1" && peek().text != "_2"))
          fail("expected '_1' or '_2' after '.', found " + describe(peek()));
        Token field = take();
        PrimId prim = field.text == "_1" ? PrimId::Fst : PrimId::Snd;
        e = App(prim_expr(prim, from(dot.begin)), e, from(begin_of(e)));
      } else if (at(Tok::Colon)) {
        count();
        take();
        Type t = type();
        e = reg(annotation(e, t, from(begin_of(e))));
      } else {
        return e;
      }
    }
  }

  Expr atom() {
    const Token& t = peek();
    switch (t.kind) {
      case Tok::Ident: {
        if (t.text == "inf" || t.text == "inff" || t.text == "nan")
          return special_float(false, t.begin);
        if (t.text == "with" && kind_at(1) == Tok::LBrace) return with_loop();
        if (t.text == "natType" && kind_at(1) == Tok::LParen) return nat_value_literal();
        Token n = take();
        return ident(n.text, span(n));
      }
      case Tok::Int:
      case Tok::Float:
        return number(false, t.begin);
      case Tok::KwTrue:
        return bool_lit(true, span(take()));
      case Tok::KwFalse:
        return bool_lit(false, span(take()));
      case Tok::KwLidx:
        return index_literal();
      case Tok::KwFun:
        return lambda_expr();
      case Tok::KwDepFun:
        return dep_lambda_expr();
      case Tok::LParen:
        return paren_expr();
      case Tok::LBracket:
        return array_literal();
      case Tok::KwLet:
        fail("a 'let' expression must be parenthesized here: (let x = ... in ...)");
      case Tok::String:
        fail("a string literal is only allowed as the body of a foreign def");
      default:
        fail("expected an expression, found " + describe(t));
    }
  }

  // ---- with-loops (withloop.h) ----

  // '[' size-expression { ',' size-expression } ']'
  std::vector<Expr> nat_vec(const std::string& what) {
    Token open = expect(Tok::LBracket, what);
    std::vector<Expr> v;
    for (;;) {
      v.push_back(sum());
      if (!accept(Tok::Comma)) break;
    }
    expect_close(Tok::RBracket, open, what);
    return v;
  }

  bool at_word(const char* w) { return at(Tok::Ident) && peek().text == w; }

  WithPart with_part() {
    Token open = expect(Tok::LParen, "to start a with-loop part");
    WithPart p;
    p.lb = nat_vec("for the lower bound");
    expect(Tok::Le, "after the lower bound");
    Token names_open = expect(Tok::LBracket, "before the index names");
    for (;;) {
      Token name = expect_name("as an index name");
      // One name per dimension: with [i, i] the second would hide the first in the body.
      if (std::find(p.names.begin(), p.names.end(), name.text) != p.names.end())
        user_error("the index name '" + name.text +
                       "' is given twice in this generator; each dimension needs its own name",
                   span(name));
      p.names.push_back(name.text);
      if (!accept(Tok::Comma)) break;
    }
    expect_close(Tok::RBracket, names_open, "the index names");
    expect(Tok::Lt, "after the index names (generators are lb <= [i, ...] < ub)");
    p.ub = nat_vec("for the upper bound");
    if (at_word("step")) {
      take();
      p.step = nat_vec("after 'step'");
    }
    if (at_word("width")) {
      unsigned b = take().begin;
      p.width = nat_vec("after 'width'");
      p.width_span = from(b);
    }
    expect_close(Tok::RParen, open, "the generator");
    p.span = from(open.begin);
    expect(Tok::Colon, "after the generator");
    p.body = expr();
    expect(Tok::Semi, "after the part's expression");
    return p;
  }

  Expr with_loop() {
    Nest nest(*this);
    unsigned begin = take().begin;  // with
    Token open = take();            // {
    WithLoop w;
    while (!at(Tok::RBrace)) {
      if (!at(Tok::LParen))
        fail("expected a with-loop part '(lb <= [i] < ub) : expr;' or '}', found " +
             describe(peek()));
      w.parts.push_back(with_part());
    }
    if (w.parts.empty()) fail("a with-loop needs at least one part");
    expect_close(Tok::RBrace, open, "the with-loop parts");
    expect(Tok::Colon, "after the with-loop parts");
    unsigned op_begin = peek().begin;
    if (!at(Tok::Ident)) fail("expected genarray, modarray or fold, found " + describe(peek()));
    Token op = take();
    Token args = expect(Tok::LParen, "after " + op.text);
    if (op.text == "genarray") {
      w.op = WithLoop::Op::Genarray;
      w.shape = nat_vec("for the genarray shape");
      expect(Tok::Comma, "after the genarray shape (genarray(shape, default))");
      w.deflt = expr();
    } else if (op.text == "modarray") {
      w.op = WithLoop::Op::Modarray;
      w.array = expr();
    } else if (op.text == "fold") {
      w.op = WithLoop::Op::Fold;
      w.fold_op = expr();
      expect(Tok::Comma, "after the fold operator (fold(op, neutral))");
      w.neutral = expr();
    } else {
      user_error("expected genarray, modarray or fold, found name '" + op.text + "'", span(op));
    }
    expect_close(Tok::RParen, args, "the with-loop operation");
    w.op_span = from(op_begin);
    w.span = from(begin);
    return reg(desugar_with_loop(w));
  }

  Expr paren_expr() {
    Token open = take();
    Expr a = expr();
    if (accept(Tok::Comma)) {
      Expr b = expr();
      if (at(Tok::Comma))
        fail("a pair has exactly two components; nest pairs for more: (a, (b, c))");
      expect_close(Tok::RParen, open, "the pair");
      Span sp = from(open.begin);
      return App(App(prim_expr(PrimId::MakePair, sp), a, sp), b, sp);
    }
    expect_close(Tok::RParen, open, "the parenthesized expression");
    return a;
  }

  Expr array_literal() {
    Token open = take();
    if (at(Tok::RBracket)) fail("an array literal needs at least one element");
    std::vector<Expr> elems;
    for (;;) {
      elems.push_back(expr());
      if (!accept(Tok::Comma)) break;
    }
    expect_close(Tok::RBracket, open, "the array literal");
    Span sp = from(open.begin);
    // Its elements are applied one by one, a tree as deep as it is long (reg's limit);
    // held-out K: a flat literal was "too deeply nested".
    if (elems.size() >= static_cast<size_t>(kMaxExprDepth))
      user_error("an array literal of " + std::to_string(elems.size()) +
                     " elements is too long (at most " + std::to_string(kMaxExprDepth - 1) +
                     "): pass large data as an input (run --input NAME=FILE.npy)",
                 sp);
    Expr e = make_array_prim(static_cast<int>(elems.size()), sp);
    for (const Expr& x : elems) e = App(e, x, sp);
    return e;
  }

  // ---- literals ----

  // `inf`, `nan` (a floating-point type from context, f64 by default) and `inff` (f32),
  // negated when a '-' at `begin` preceded it.
  Expr special_float(bool negative, unsigned begin) {
    Token t = take();
    Span sp = span(begin, t.end);
    double v = t.text == "nan" ? std::numeric_limits<double>::quiet_NaN()
                               : std::numeric_limits<double>::infinity();
    if (negative) v = -v;
    if (t.text == "inff") return f32_lit(v, sp);
    Expr e = f64_lit(v, sp);
    auto n = std::make_shared<ExprNode>(*e);
    n->lit.float_from_context = true;
    return n;
  }

  // An INT or FLOAT token (negated when a '-' at `begin` preceded it).
  Expr number(bool negative, unsigned begin) {
    Token t = take();
    Span sp = span(begin, t.end);
    std::string shown = (negative ? "-" : "") + t.text;
    if (t.kind == Tok::Float) {
      // Rounded to the nearest float as strtof/strtod do (docs/language.md): a value
      // too small for the type becomes a subnormal or 0 (std::from_chars refuses it);
      // only one too large for it is refused. The lexer's digits are decimal, read in
      // the "C" locale whatever the embedding program set.
      static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", locale_t{});
      const bool f32 = t.suffix == "f";
      char* end = nullptr;
      double v = f32 ? static_cast<double>(strtof_l(t.number.c_str(), &end, c_locale))
                     : strtod_l(t.number.c_str(), &end, c_locale);
      if (end != t.number.c_str() + t.number.size() || std::isinf(v))
        user_error(
            "floating-point literal '" + shown + "' is out of range for " + (f32 ? "f32" : "f64"),
            sp);
      if (negative) v = -v;
      return f32 ? f32_lit(v, sp) : f64_lit(v, sp);
    }
    uint64_t mag = 0;
    auto r = std::from_chars(t.number.data(), t.number.data() + t.number.size(), mag);
    if (r.ec != std::errc())
      user_error("integer literal '" + shown + "' is too large (more than 64 bits)", sp);
    if (t.suffix.empty()) {
      uint64_t limit = negative ? (uint64_t(1) << 63) : (uint64_t(1) << 63) - 1;
      if (mag > limit) user_error("integer literal '" + shown + "' does not fit in 64 bits", sp);
      int64_t v = negative ? static_cast<int64_t>(uint64_t(0) - mag) : static_cast<int64_t>(mag);
      return int_lit(v, sp);
    }
    ScalarKind k = *scalar_from_name(t.suffix);
    int bits = scalar_bits(k);
    uint64_t limit;
    if (is_unsigned_int(k)) {
      limit = negative ? 0 : (bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1);
    } else {
      limit = negative ? (uint64_t(1) << (bits - 1)) : (uint64_t(1) << (bits - 1)) - 1;
    }
    if (mag > limit) user_error("integer literal '" + shown + "' does not fit in " + t.suffix, sp);
    int64_t v = negative ? static_cast<int64_t>(uint64_t(0) - mag) : static_cast<int64_t>(mag);
    return scalar_lit(k, v, 0.0, sp);
  }

  Expr index_literal() {
    Token kw = take();
    Token open = expect(Tok::LParen, "after 'lidx'");
    Nat value = nat();
    expect(Tok::Comma, "between the value and the size of 'lidx'");
    Nat size = nat();
    expect_close(Tok::RParen, open, "'lidx('");
    Span sp = from(kw.begin);
    auto cv = value.as_const(), cs = size.as_const();
    if (cv && cs && (*cv < 0 || *cv >= *cs))
      user_error("index literal " + std::to_string(*cv) + " is out of range for idx[" +
                     std::to_string(*cs) + "]",
                 sp);
    Literal l;
    l.kind = LitKind::Index;
    l.nat = value;
    l.size = size;
    return literal(l, sp);
  }

  // `natType(n - 3)`: a size expression as a natType value, which the checker requires
  // to be a natural number (`requires: n - 3 >= 0` for symbolic sizes); how the
  // printer writes such a value (with-loops desugar their bounds to it).
  Expr nat_value_literal() {
    Token kw = take();
    Token open = expect(Tok::LParen, "after 'natType'");
    Nat value = nat();
    expect_close(Tok::RParen, open, "'natType('");
    Literal l;
    l.kind = LitKind::NatVal;
    l.nat = value;
    return literal(l, from(kw.begin));
  }

  // ---- lambdas ----

  struct Binder {
    Token name;
    Type annot;
  };

  std::vector<Binder> binders() {
    std::vector<Binder> out;
    for (;;) {
      Binder b{expect_name("as a lambda parameter"), nullptr};
      if (accept(Tok::Colon)) b.annot = type();
      out.push_back(std::move(b));
      if (!accept(Tok::Comma)) return out;
    }
  }

  Expr lambda_expr() {
    Token kw = take();
    Token open = expect(Tok::LParen, "after 'fun'");
    std::vector<Binder> bs;
    if (at(Tok::LParen)) {
      Token inner = take();
      bs = binders();
      expect_close(Tok::RParen, inner, "the lambda parameters");
    } else {
      bs = binders();
    }
    if (!at(Tok::FatArrow))
      fail("expected '=>' after lambda parameters, found " + describe(peek()));
    take();
    Expr body = expr();
    expect_close(Tok::RParen, open, "'fun('");
    for (size_t i = bs.size(); i-- > 0;) {
      unsigned b = i == 0 ? kw.begin : bs[i].name.begin;
      body = Lam(bs[i].name.text, body, bs[i].annot, from(b));
    }
    return body;
  }

  struct DepBinder {
    Token name;
    Kind kind;
  };

  Kind kind_name() {
    if (!at(Tok::Ident))
      fail("expected a kind (Nat, Data, Addr or Nat2Nat), found " + describe(peek()));
    Token k = take();
    if (k.text == "Nat") return Kind::Nat;
    if (k.text == "Data") return Kind::Data;
    if (k.text == "Addr") return Kind::Addr;
    if (k.text == "Nat2Nat") return Kind::Nat2Nat;
    std::string msg = "unknown kind '" + k.text + "' (expected Nat, Data, Addr or Nat2Nat)";
    std::string near = nearest_name(k.text, {"Nat", "Data", "Addr", "Nat2Nat"});
    if (!near.empty()) msg += "; did you mean '" + near + "'?";
    user_error(msg, span(k));
  }

  DepBinder dep_binder() {
    Token name = expect_name("as a depFun parameter");
    if (!at(Tok::Colon))
      fail("expected ':' and a kind (Nat, Data, Addr or Nat2Nat) after depFun parameter '" +
           name.text + "', found " + describe(peek()));
    take();
    return DepBinder{name, kind_name()};
  }

  std::vector<DepBinder> dep_binders() {
    std::vector<DepBinder> out;
    for (;;) {
      out.push_back(dep_binder());
      if (!accept(Tok::Comma)) return out;
    }
  }

  Expr dep_lambda_expr() {
    Token kw = take();
    Token open = expect(Tok::LParen, "after 'depFun'");
    std::vector<DepBinder> bs;
    if (at(Tok::LParen)) {
      Token inner = take();
      bs = dep_binders();
      expect_close(Tok::RParen, inner, "the depFun parameters");
    } else {
      bs = dep_binders();
    }
    if (!at(Tok::FatArrow))
      fail("expected '=>' after depFun parameters, found " + describe(peek()));
    take();
    Expr body = expr();
    expect_close(Tok::RParen, open, "'depFun('");
    for (size_t i = bs.size(); i-- > 0;) {
      unsigned b = i == 0 ? kw.begin : bs[i].name.begin;
      body = reg(dep_lambda(bs[i].kind, bs[i].name.text, body, from(b)));
    }
    return body;
  }

  // ---- types ----

  Type type() {
    Nest nest(*this);
    if (at(Tok::LBrace) ||
        (at(Tok::LParen) && kind_at(1) == Tok::Ident && kind_at(2) == Tok::Colon)) {
      Token open = take();
      bool implicit = open.kind == Tok::LBrace;
      Token name = expect_name("as a type parameter");
      expect(Tok::Colon, "and a kind after type parameter '" + name.text + "'");
      Kind k = kind_name();
      expect_close(implicit ? Tok::RBrace : Tok::RParen, open, "the type parameter");
      expect(Tok::Arrow, "after the type parameter '" + name.text + "'");
      Type body = type();
      return dep_fun(k, name.text, body, implicit);
    }
    Type a = data_type();
    if (accept(Tok::Arrow)) return fun(a, type());
    return a;
  }

  // A FLOAT token DIGITS.DIGITS where a size is expected is INT `.` INT.
  void split_float() {
    const Token& t = peek();
    if (t.kind != Tok::Float || !t.suffix.empty()) return;
    size_t dot = t.number.find('.');
    if (dot == std::string::npos || t.number.find_first_of("eE") != std::string::npos) return;
    Token a = t, d = t, b = t;
    a.kind = Tok::Int;
    a.number = a.text = t.number.substr(0, dot);
    a.end = t.begin + static_cast<unsigned>(dot);
    d.kind = Tok::Dot;
    d.text = ".";
    d.number.clear();
    d.begin = a.end;
    d.end = d.begin + 1;
    b.kind = Tok::Int;
    b.number = b.text = t.number.substr(dot + 1);
    b.begin = d.end;
    toks_[pos_] = a;
    toks_.insert(toks_.begin() + static_cast<std::ptrdiff_t>(pos_) + 1, {d, b});
  }

  static bool is_type_word(const std::string& s) {
    return s == "Array" || s == "vec" || s == "idx" || s == "natType" || scalar_from_name(s);
  }

  // The index of the ')' matching the '(' at the current position, or 0.
  size_t matching_paren() {
    int level = 0;
    for (size_t i = pos_; i < toks_.size(); ++i) {
      Tok k = toks_[i].kind;
      if (k == Tok::LParen) ++level;
      if (k == Tok::RParen && --level == 0) return i;
      if (k == Tok::End || k == Tok::Error) return 0;
    }
    return 0;
  }

  Type array_of(const Nat& size, const Token& dot) {
    Type elem = data_type();
    if (!is_data(elem))
      user_error("array elements must be data types, not the function type " + print(elem),
                 from(dot.end));
    return array(size, elem);
  }

  Type data_type() {
    Nest nest(*this);
    split_float();
    const Token& t = peek();
    if (t.kind == Tok::Int) {
      Nat n = size_atom();
      Token dot = expect(Tok::Dot, "after the array size (a size alone is not a type)");
      return array_of(n, dot);
    }
    if (t.kind == Tok::LParen) {
      size_t close = matching_paren();
      if (close && toks_[close + 1].kind == Tok::Dot) {
        Nat n = size_atom();
        Token dot = take();
        return array_of(n, dot);
      }
      Token open = take();
      Type a = type();
      if (accept(Tok::Comma)) {
        Token second = peek();
        Type b = type();
        if (at(Tok::Comma)) fail("a pair type has exactly two components");
        expect_close(Tok::RParen, open, "the pair type");
        if (!is_data(a))
          user_error("pair components must be data types, not " + print(a), span(open));
        if (!is_data(b))
          user_error("pair components must be data types, not " + print(b), span(second));
        return pair(a, b);
      }
      expect_close(Tok::RParen, open, "the parenthesized type");
      return a;
    }
    if (t.kind != Tok::Ident) fail("expected a type, found " + describe(t));
    const std::string& name = t.text;
    if (kind_at(1) == Tok::Dot) {
      if (is_type_word(name))
        fail("expected an array size before '.', found the type '" + name + "'");
      Nat n = size_atom();
      Token dot = take();
      return array_of(n, dot);
    }
    if ((name == "min" || name == "max") && kind_at(1) == Tok::LParen) {
      Nat n = size_atom();
      Token dot = expect(Tok::Dot, "after the array size (a size alone is not a type)");
      return array_of(n, dot);
    }
    if (name == "Array") {
      take();
      Token open = expect(Tok::LBracket, "after 'Array'");
      Nat n = nat();
      expect(Tok::Comma, "after the size in 'Array[n, dt]'");
      Token elem_at = peek();
      Type elem = data_type();
      if (!is_data(elem))
        user_error("array elements must be data types, not " + print(elem), span(elem_at));
      expect_close(Tok::RBracket, open, "'Array['");
      return array(n, elem);
    }
    if (name == "vec") {
      take();
      Token open = expect(Tok::LBracket, "after 'vec'");
      Token elem = expect_name("(the element type) in 'vec[t, n]'");
      expect(Tok::Comma, "after the element type in 'vec[t, n]'");
      Nat n = nat();
      expect_close(Tok::RBracket, open, "'vec['");
      if (auto k = scalar_from_name(elem.text)) return vector(*k, n);
      if (is_type_word(elem.text) || elem.text == "min" || elem.text == "max")
        user_error("vector elements must be scalar types, not '" + elem.text + "'", span(elem));
      return vector_of_var(elem.text, n);
    }
    if (name == "idx") {
      take();
      Token open = expect(Tok::LBracket, "after 'idx'");
      Nat n = nat();
      expect_close(Tok::RBracket, open, "'idx['");
      return index_type(n);
    }
    Token n = take();
    if (name == "natType") return nat_data();
    if (auto k = scalar_from_name(name)) return scalar(*k);
    return data_var(n.text);
  }

  // `vec[t, n]` with a data type variable as element (the primitive table's
  // vector primitives).
  static Type vector_of_var(const std::string& var, const Nat& n) {
    return vector_of(data_var(var), n);
  }

  // ---- sizes ----

  // Operators in one size expression (including parenthesized parts) are limited:
  // a left-nested chain such as n/m/m/.../m builds a deep term.
  int nat_nesting_ = 0;
  int nat_ops_ = 0;
  static constexpr int kMaxNatOps = 256;

  template <typename F>
  Nat arith_op(unsigned begin, F&& f) {
    if (++nat_ops_ > kMaxNatOps)
      user_error(
          "size expression too long (more than " + std::to_string(kMaxNatOps) + " operators)",
          from(begin));
    try {
      return f();
    } catch (const arith::ArithError& e) {
      user_error(std::string("invalid size expression: ") + e.what(), from(begin));
    }
  }

  // INT | NAME | '(' nat ')' | min(nat, nat) | max(nat, nat)
  Nat size_atom() {
    NatScope scope(*this);
    const Token& t = peek();
    if (t.kind == Tok::Int) {
      Token n = take();
      if (!n.suffix.empty()) user_error("a size has no type suffix: write " + n.number, span(n));
      int64_t v = 0;
      auto r = std::from_chars(n.number.data(), n.number.data() + n.number.size(), v);
      if (r.ec != std::errc()) user_error("size '" + n.text + "' is too large", span(n));
      return Nat(v);
    }
    if (t.kind == Tok::Ident) {
      Token n = take();
      if ((n.text == "min" || n.text == "max") && at(Tok::LParen)) {
        Token open = take();
        Nat a = nat();
        expect(Tok::Comma, "between the arguments of '" + n.text + "'");
        Nat b = nat();
        expect_close(Tok::RParen, open, "'" + n.text + "('");
        bool is_min = n.text == "min";
        return arith_op(n.begin, [&] { return is_min ? arith::min(a, b) : arith::max(a, b); });
      }
      if (is_type_word(n.text))
        user_error("expected a size, found the type '" + n.text + "'", span(n));
      return Nat::size_var(n.text);
    }
    if (t.kind == Tok::LParen) {
      Nest nest(*this);
      Token open = take();
      Nat n = nat();
      expect_close(Tok::RParen, open, "the parenthesized size");
      return n;
    }
    fail("expected a size (a number, a name or a parenthesized size expression), found " +
         describe(t));
  }

  struct NatScope {
    Parser& p;
    explicit NatScope(Parser& parser) : p(parser) {
      if (p.nat_nesting_++ == 0) p.nat_ops_ = 0;
    }
    ~NatScope() { --p.nat_nesting_; }
    NatScope(const NatScope&) = delete;
    NatScope& operator=(const NatScope&) = delete;
  };

  Nat nat() {
    Nest nest(*this);
    NatScope scope(*this);
    unsigned begin = peek().begin;
    Nat n = nat_product();
    while (at(Tok::Plus) || at(Tok::Minus)) {
      bool plus = take().kind == Tok::Plus;
      Nat b = nat_product();
      n = arith_op(begin, [&] { return plus ? n + b : n - b; });
    }
    return n;
  }

  Nat nat_product() {
    unsigned begin = peek().begin;
    Nat n = nat_power();
    while (at(Tok::Star) || at(Tok::Slash) || at(Tok::Percent)) {
      Tok op = take().kind;
      Nat b = nat_power();
      n = arith_op(begin, [&] {
        if (op == Tok::Star) return n * b;
        if (b.is_const(0)) throw arith::ArithError("division by zero");
        if (op != Tok::Slash) return arith::mod(n, b);
        Nat q = arith::exact_div(n, b);
        if (!q.as_const()) quotients_.push_back({q, from(begin)});
        return q;
      });
    }
    return n;
  }

  Nat nat_power() {
    unsigned begin = peek().begin;
    Nat a = size_atom();
    if (!at(Tok::Caret)) return a;
    take();
    Nest nest(*this);
    Nat b = nat_power();
    return arith_op(begin, [&] { return arith::pow(a, b); });
  }
};

}  // namespace

Program parse_program(SourceRef src) {
  return Parser(std::move(src)).program();
}

Expr parse_expr(SourceRef src) {
  return Parser(std::move(src)).whole_expr();
}

Type parse_type(SourceRef src) {
  return Parser(std::move(src)).whole_type();
}

Type parse_type(const std::string& text) {
  auto src = std::make_shared<const SourceFile>(SourceFile{"<type>", text});
  try {
    return parse_type(SourceRef(src));
  } catch (const Error& e) {
    internal_error("cannot parse the type '" + text + "': " + e.message());
  }
}

}  // namespace risec::rise
