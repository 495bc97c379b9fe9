// The `.elv` strategy-file parser and evaluator (see parser.h): declarations and
// strategy expressions, their evaluation into strategies, imports. Tokens are in
// parser_lex.cpp, parameter values in parser_params.cpp (see parser_internal.h).
#include "elevate/parser.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "elevate/library.h"
#include "elevate/parser_internal.h"
#include "support/cpu.h"
#include "support/files.h"
#include "support/words.h"

namespace risec::elevate {

namespace {

using namespace elv;

// `import "PATH";` as written: PATH and where it is.
struct Import {
  std::string path;
  Span span;
};

struct ParsedFile {
  std::vector<StrategyParam> params;
  std::vector<StrategyConstraint> constraints;
  std::vector<LetDef> lets;
  SPtr main;
};

class Parser {
 public:
  Parser(SourceRef src) : src_(std::move(src)), toks_(lex(src_)) {}

  const std::vector<Tok>& tokens() const { return toks_; }

  // `param NAME in [V1, ...];`, `param (N1, ..., Nk) in permutations([V1, ..., Vk]);`
  // and `constraint EXPR;` declarations, at the start of the file. decl_begin_ and
  // decl_end_ are set to the tokens of the first one and after the last one.
  StrategyDeclarations decls() {
    StrategyDeclarations d;
    std::vector<StrategyParam>& out = d.params;
    int groups = 0;
    imports_.clear();
    while (is_import()) {
      next();
      Tok path = next();
      if (path.text.empty()) user_error("the imported file's path is empty", span(path));
      imports_.push_back(Import{path.text, span(path)});
      expect(T::Semi, "';' after the import");
    }
    imports_end_ = pos_;
    decl_begin_ = decl_end_ = pos_;
    for (;;) {
      if (is_import())
        user_error("an import comes before the parameters and constraints", span(peek()));
      if (peek().kind == T::Name && peek().text == "constraint") {
        next();
        d.constraints.push_back(constraint(out));
        decl_end_ = pos_;
        continue;
      }
      if (!(peek().kind == T::Name && peek().text == "param" &&
            (peek(1).kind == T::Name || peek(1).kind == T::LParen)))
        break;
      next();
      // The names: one, or a parenthesised list bound to a permutation.
      const bool permutation = accept(T::LParen);
      std::vector<Tok> names;
      do {
        Tok name = expect(T::Name, "the parameter's name");
        if (name.text == kLanes)
          user_error(
              "'lanes' is built in (the machine's float lanes); name the parameter "
              "differently",
              span(name));
        for (const StrategyParam& q : out)
          if (q.name == name.text)
            user_error("parameter '" + name.text + "' is declared twice", span(name));
        for (const Tok& q : names)
          if (q.text == name.text)
            user_error("parameter '" + name.text + "' is named twice in the declaration",
                       span(name));
        names.push_back(name);
      } while (permutation && accept(T::Comma));
      Tok close = names.back();
      if (permutation) close = expect(T::RParen, "')' or ',' after the parameters' names");
      Tok in = expect(T::Name, "'in' after the parameter's name");
      if (in.text != "in") user_error("expected 'in' after the parameter's name", span(in));
      const std::string what = permutation ? "the permutation of (" + join_names(names) + ")"
                                           : "parameter '" + names[0].text + "'";
      if (permutation) {
        Tok f = expect(T::Name,
                       "'permutations' after 'in' (a parenthesised list of names "
                       "takes `permutations([...])`)");
        if (f.text != "permutations")
          user_error("expected 'permutations([...])' after the parenthesised names", span(f));
        expect(T::LParen, "'(' after 'permutations'");
      }
      Tok open = expect(T::LBracket, "'[' starting the parameter's values");
      if (peek().kind == T::RBracket) user_error(what + " has no values", span(open));
      std::vector<int64_t> values;
      do {
        Tok v = expect(T::Int, "a number in the parameter's values");
        int64_t x = std::stoll(v.text);
        for (int64_t y : values)
          if (y == x) user_error("value " + v.text + " is listed twice for " + what, span(v));
        values.push_back(x);
      } while (accept(T::Comma));
      Tok end = expect(T::RBracket, "']' or ',' in the parameter's values");
      if (permutation) {
        expect(T::RParen, "')' closing 'permutations('");
        if (values.size() > kMaxPermutationLength)
          user_error(what + " permutes " + std::to_string(values.size()) + " values; at most " +
                         std::to_string(kMaxPermutationLength) + " are allowed (" +
                         std::to_string(kMaxPermutationLength) + "! orders)",
                     span(open, end));
        if (values.size() != names.size())
          user_error(std::to_string(names.size()) + " name(s) (" + join_names(names) +
                         ") cannot hold a permutation of " + std::to_string(values.size()) +
                         " values: give one name per value",
                     span(names.front(), close));
      }
      expect(T::Semi, "';' after the parameter declaration");
      decl_end_ = pos_;
      for (size_t i = 0; i < names.size(); ++i)
        out.push_back(
            StrategyParam{names[i].text, values, span(names[i]), permutation ? groups : -1, i});
      groups += permutation;
    }
    return d;
  }
  std::vector<StrategyParam> params() { return decls().params; }
  size_t decl_begin() const { return decl_begin_; }
  size_t decl_end() const { return decl_end_; }
  // The imports decls() read, in order, and the token after the last one.
  const std::vector<Import>& imports() const { return imports_; }
  size_t imports_end() const { return imports_end_; }

  ParsedFile file() {
    ParsedFile f;
    StrategyDeclarations d = decls();
    f.params = std::move(d.params);
    f.constraints = std::move(d.constraints);
    declared_ = f.params;
    auto is_number_name = [&](const std::string& n) {
      if (n == kLanes) return true;
      for (const StrategyParam& p : f.params)
        if (p.name == n) return true;
      return false;
    };
    auto not_a_number_name = [&](const Tok& t) {
      if (is_number_name(t.text))
        user_error("'" + t.text + "' is " +
                       (t.text == kLanes ? std::string("the built-in number of lanes")
                                         : std::string("a strategy parameter")) +
                       "; choose another name",
                   span(t));
    };
    std::vector<LetDef>& lets = f.lets;
    SPtr& main = f.main;
    while (peek().kind == T::Let || is_import() || (!lets.empty() && is_declaration())) {
      if (is_import())
        user_error("an import comes first in the file, before the parameters and the lets",
                   span(peek()));
      if (is_declaration())
        user_error("the parameters and constraints come before the lets", span(peek()));
      next();
      LetDef d;
      Tok name = expect(T::Name, "a name after 'let'");
      not_a_number_name(name);
      d.name = name.text;
      d.span = span(name);
      // One file defines a name once, as a .rise file does (the later let would hide
      // the earlier from the lets below it, silently). A built-in or an imported name
      // may be redefined: the file's lets come first in the lookup.
      for (const LetDef& before : lets)
        if (before.name == d.name) {
          LineCol lc = before.span.start();
          user_error("duplicate definition of '" + d.name + "' (first defined at line " +
                         std::to_string(lc.line) + ", column " + std::to_string(lc.col) + ")",
                     d.span);
        }
      if (accept(T::LParen)) {
        do {
          Tok pn = expect(T::Name, "a parameter name");
          not_a_number_name(pn);
          d.params.push_back(pn.text);
        } while (accept(T::Comma));
        expect(T::RParen, "')' after the parameters");
      }
      expect(T::Eq, "'=' in the let definition");
      d.body = strategy(true);
      expect(T::Semi, "';' after the let definition");
      lets.push_back(std::move(d));
      if (peek().kind == T::End) {
        // The file ends with a let: it is the file's strategy.
        SNode n{SNode::Call, lets.back().span};
        n.name = lets.back().name;
        main = std::make_shared<SNode>(n);
        return f;
      }
    }
    if (peek().kind == T::End) user_error("the strategy file is empty", span(peek()));
    main = strategy(false);
    accept(T::Semi);
    if (peek().kind != T::End)
      user_error("expected end of file after the strategy, found " + describe(peek()),
                 span(peek()));
    return f;
  }

 private:
  SourceRef src_;
  std::vector<Tok> toks_;
  size_t pos_ = 0;
  int depth_ = 0;
  size_t decl_begin_ = 0, decl_end_ = 0;
  std::vector<Import> imports_;
  size_t imports_end_ = 0;
  // The strategy parameters, which arithmetic in arguments may use.
  std::vector<StrategyParam> declared_;
  // What an expression is part of, for messages: a constraint or an argument.
  const char* expr_context_ = "constraint";

  // `constraint EXPR;` after the keyword: EXPR over the parameters declared so far.
  StrategyConstraint constraint(const std::vector<StrategyParam>& params) {
    const Tok& first = peek();
    if (first.kind == T::Semi || first.kind == T::End)
      user_error("expected a condition after 'constraint'", span(first));
    CPtr e = c_binary(0, params);
    StrategyConstraint c{text_of(*e), e->span, e};
    if (!e->boolean)
      user_error(
          "the constraint `" + c.text + "` is a number, not a condition (write e.g. `tj % v == 0`)",
          e->span);
    expect(T::Semi, "';' or an operator after the constraint");
    return c;
  }

  // Binary operators by precedence, loosest first; all associate to the left.
  static const std::vector<std::string>& c_level(size_t level) {
    static const std::vector<std::vector<std::string>> levels = {
        {"||"}, {"&&"}, {"==", "!="}, {"<", "<=", ">", ">="}, {"+", "-"}, {"*", "/", "%"}};
    return levels[level];
  }
  static constexpr size_t kConstraintLevels = 6;

  CPtr c_binary(size_t level, const std::vector<StrategyParam>& params) {
    if (level == kConstraintLevels) return c_unary(params);
    CPtr left = c_binary(level + 1, params);
    for (;;) {
      const Tok& t = peek();
      const std::vector<std::string>& ops = c_level(level);
      if (t.kind != T::Op || std::find(ops.begin(), ops.end(), t.text) == ops.end()) return left;
      Tok op = next();
      CPtr right = c_binary(level + 1, params);
      const bool logic = op.text == "&&" || op.text == "||";
      const bool equality = op.text == "==" || op.text == "!=";
      const bool order = op.text == "<" || op.text == "<=" || op.text == ">" || op.text == ">=";
      auto operand_error = [&](const CPtr& e, const char* side, const char* wants) {
        user_error("'" + op.text + "' takes " + wants + ", but its " + side + " operand `" +
                       text_of(*e) + "` is " + (e->boolean ? "a condition" : "a number"),
                   e->span);
      };
      if (equality) {
        if (left->boolean != right->boolean)
          user_error("'" + op.text + "' compares a " + (left->boolean ? "condition" : "number") +
                         " with a " + (right->boolean ? "condition" : "number"),
                     span(op));
      } else {
        const bool want = logic;
        const char* wants = logic ? "conditions" : "numbers";
        if (left->boolean != want) operand_error(left, "left", wants);
        if (right->boolean != want) operand_error(right, "right", wants);
      }
      ConstraintExpr n{ConstraintExpr::Binary, Span{src_, left->span.begin, right->span.end}};
      n.boolean = logic || equality || order;
      n.op = op.text;
      n.a = left;
      n.b = right;
      left = std::make_shared<ConstraintExpr>(n);
    }
  }

  CPtr c_unary(const std::vector<StrategyParam>& params) {
    if (++depth_ > kMaxStrategyNesting)
      user_error("nesting too deep (limit " + std::to_string(kMaxStrategyNesting) +
                     " nested parentheses or operators)",
                 span(peek()));
    Tok t = next();
    CPtr out;
    if (t.kind == T::Op && (t.text == "!" || t.text == "-")) {
      CPtr a = c_unary(params);
      const bool is_not = t.text == "!";
      if (a->boolean != is_not)
        user_error("'" + t.text + "' takes a " + (is_not ? "condition" : "number") + ", but `" +
                       text_of(*a) + "` is " + (a->boolean ? "a condition" : "a number"),
                   a->span);
      ConstraintExpr n{is_not ? ConstraintExpr::Not : ConstraintExpr::Neg,
                       Span{src_, t.begin, a->span.end}};
      n.boolean = is_not;
      n.a = a;
      out = std::make_shared<ConstraintExpr>(n);
    } else if (t.kind == T::Int) {
      ConstraintExpr n{ConstraintExpr::Int, span(t)};
      n.value = std::stoll(t.text);
      out = std::make_shared<ConstraintExpr>(n);
    } else if (t.kind == T::Name) {
      std::vector<std::string> names{kLanes};
      for (const StrategyParam& p : params) names.push_back(p.name);
      if (std::find(names.begin(), names.end(), t.text) == names.end()) {
        std::string msg = "unknown name '" + t.text + "' in the " + expr_context_;
        std::string near = nearest_name(t.text, names);
        if (!near.empty()) msg += "; did you mean '" + near + "'?";
        user_error(msg + " (" + (expr_context_[0] == 'a' ? "an " : "a ") + expr_context_ +
                       " uses the parameters declared above it and lanes)",
                   span(t));
      }
      ConstraintExpr n{ConstraintExpr::Name, span(t)};
      n.name = t.text;
      out = std::make_shared<ConstraintExpr>(n);
    } else if (t.kind == T::LParen) {
      CPtr inner = c_binary(0, params);
      Tok close = expect(T::RParen, std::string("')' or an operator in the ") + expr_context_);
      ConstraintExpr n = *inner;
      n.span = span(t, close);  // the parentheses belong to the operand
      out = std::make_shared<ConstraintExpr>(n);
    } else {
      user_error(std::string("expected a number, a parameter, '!', '-' or '(' in the ") +
                     expr_context_ + ", found " + describe(t),
                 span(t));
    }
    --depth_;
    return out;
  }
  std::string text_of(const ConstraintExpr& e) const {
    return src_->text.substr(e.span.begin, e.span.end - e.span.begin);
  }

  const Tok& peek(size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  Tok next() { return toks_[std::min(pos_++, toks_.size() - 1)]; }
  bool accept(T k) {
    if (peek().kind != k) return false;
    ++pos_;
    return true;
  }
  Span span(const Tok& t) const { return Span{src_, t.begin, t.end}; }
  Span span(const Tok& from, const Tok& to) const { return Span{src_, from.begin, to.end}; }
  static std::string join_names(const std::vector<Tok>& names) {
    std::string out;
    for (const Tok& n : names) out += (out.empty() ? "" : ", ") + n.text;
    return out;
  }
  // `import "..."` at the k-th token from here.
  bool is_import(size_t k = 0) const {
    return peek(k).kind == T::Name && peek(k).text == "import" && peek(k + 1).kind == T::Str;
  }
  // A declaration (param or constraint) at token k.
  bool is_declaration(size_t k = 0) const {
    if (peek(k).kind != T::Name) return false;
    if (peek(k).text == "param")
      return peek(k + 1).kind == T::Name || peek(k + 1).kind == T::LParen;
    return peek(k).text == "constraint" &&
           (peek(k + 1).kind == T::Name || peek(k + 1).kind == T::Int);
  }
  std::string describe(const Tok& t) const {
    if (t.kind == T::Str) return "\"" + t.text + "\"";
    return t.kind == T::End ? "end of file" : "'" + t.text + "'";
  }
  Tok expect(T k, const std::string& what) {
    if (peek().kind != k)
      user_error("expected " + what + ", found " + describe(peek()), span(peek()));
    return next();
  }

  // In a let body, a ';' followed by 'let' or the end of the file ends the body.
  bool seq_continues(bool in_let) const {
    if (peek().kind != T::Semi) return false;
    // A misplaced import or declaration ends the let, to be refused as such.
    if (is_import(1) || is_declaration(1)) return false;
    if (!in_let) return peek(1).kind != T::End;
    return peek(1).kind != T::Let && peek(1).kind != T::End;
  }

  SPtr strategy(bool in_let) {
    if (++depth_ > kMaxStrategyNesting)
      user_error("nesting too deep (limit " + std::to_string(kMaxStrategyNesting) +
                     " nested parentheses or arguments)",
                 span(peek()));
    // `a ; b ; c ...` is one node with a list of parts (not a nested tree), so a
    // sequence of any length is built, evaluated and run without deep recursion.
    SPtr first = choice();
    if (!seq_continues(in_let)) {
      --depth_;
      return first;
    }
    SNode n{SNode::Seq, first->span};
    n.parts.push_back(first);
    while (seq_continues(in_let)) {
      next();
      n.parts.push_back(choice());
      n.span = Span::merge(n.span, n.parts.back()->span);
    }
    --depth_;
    return std::make_shared<SNode>(std::move(n));
  }

  SPtr choice() {
    SPtr first = located();
    if (peek().kind != T::Choice) return first;
    SNode n{SNode::Choice, first->span};
    n.parts.push_back(first);
    while (accept(T::Choice)) {
      n.parts.push_back(located());
      n.span = Span::merge(n.span, n.parts.back()->span);
    }
    return std::make_shared<SNode>(std::move(n));
  }

  SPtr located() {
    SPtr s = call();
    if (accept(T::At)) {
      SPtr where = call();
      SNode n{SNode::At, Span::merge(s->span, where->span)};
      n.a = s;
      n.b = where;
      return std::make_shared<SNode>(n);
    }
    return s;
  }

  SPtr call() {
    if (accept(T::LParen)) {
      SPtr s = strategy(false);
      expect(T::RParen, "')'");
      return s;
    }
    Tok name = expect(T::Name, "a strategy");
    SNode n{SNode::Call, span(name)};
    n.name = name.text;
    while (peek().kind == T::LParen) {
      Tok open = next();
      if (peek().kind == T::RParen) user_error("empty argument list", span(open));
      do {
        n.args.push_back(arg());
      } while (accept(T::Comma));
      Tok close = expect(T::RParen, "')' or ',' in the argument list");
      n.span = Span::merge(n.span, span(close));
    }
    return std::make_shared<SNode>(n);
  }

  // Binary operators on numbers: the levels of c_level from kArithmeticLevel on.
  static constexpr size_t kArithmeticLevel = 4;
  static bool is_arithmetic(const Tok& t) {
    return t.kind == T::Op &&
           (t.text == "+" || t.text == "-" || t.text == "*" || t.text == "/" || t.text == "%");
  }

  SPtr arg() {
    // A number computed from numbers and parameters, such as `tw + 2`, or negative,
    // `-4` (refused where a count is expected, by the callee's checks).
    const bool negative = peek().kind == T::Op && peek().text == "-";
    if (negative || ((peek().kind == T::Int || peek().kind == T::Name) && is_arithmetic(peek(1)))) {
      expr_context_ = "argument";
      CPtr e = c_binary(kArithmeticLevel, declared_);
      expr_context_ = "constraint";
      SNode n{SNode::Arith, e->span};
      n.expr = e;
      return std::make_shared<SNode>(n);
    }
    if (peek().kind == T::Int) {
      Tok t = next();
      SNode n{SNode::Int, span(t)};
      n.value = std::stoll(t.text);
      return std::make_shared<SNode>(n);
    }
    if (peek().kind == T::LBracket) {
      Tok open = next();
      SNode n{SNode::List, span(open)};
      if (peek().kind != T::RBracket) {
        do {
          if (peek().kind == T::Name) {
            Tok t = next();
            SNode item{SNode::Call, span(t)};
            item.name = t.text;
            n.items.push_back(std::make_shared<SNode>(item));
            continue;
          }
          Tok t = expect(T::Int, "a number in the list");
          SNode item{SNode::Int, span(t)};
          item.value = std::stoll(t.text);
          n.items.push_back(std::make_shared<SNode>(item));
        } while (accept(T::Comma));
      }
      Tok close = expect(T::RBracket, "']' or ',' in the list");
      n.span = Span::merge(n.span, span(close));
      return std::make_shared<SNode>(n);
    }
    return strategy(false);
  }
};

// ---------------------------------------------------------------- evaluation

// Failures of a call in the file are located at the call (innermost first).
Strategy located_strategy(Strategy s, const Span& where) {
  std::string name = s.name();
  return Strategy(name, [s, where](const Expr& e, const Env& env) -> Result {
    return s(e, step_env(env, where)).located(where);
  });
}

bool same_place(const Span& a, const Span& b) {
  return a.file == b.file && a.begin == b.begin && a.end == b.end;
}

// A call of a let the file defines: as located_strategy, and a failure inside the let's
// body (located there) notes this call, so the message says which call failed.
Strategy let_call(const std::string& let, Strategy s, const Span& where) {
  return Strategy(let, [let, s, where](const Expr& e, const Env& env) -> Result {
    Result r = s(e, step_env(env, where));
    if (r.ok()) return r;
    if (!r.failure().where.known()) return std::move(r).located(where);
    r.change_failure().calls.emplace_back(let, where);
    return r;
  });
}

class Evaluator {
 public:
  Evaluator(std::vector<LetDef> lets, std::map<std::string, int64_t> numbers)
      : lets_(std::move(lets)), numbers_(std::move(numbers)) {}

  Strategy eval(const SPtr& n, const std::map<std::string, Arg>& params, int depth) {
    if (depth > kMaxLetExpansion)
      user_error("nesting too deep (limit " + std::to_string(kMaxLetExpansion) +
                     " let definitions expanding one inside another)",
                 n->span);
    switch (n->kind) {
      case SNode::Seq:
      case SNode::Choice: {
        std::vector<Strategy> parts;
        parts.reserve(n->parts.size());
        for (const SPtr& p : n->parts) parts.push_back(eval(p, params, depth));
        return n->kind == SNode::Seq ? seq_all(std::move(parts)) : lchoice_all(std::move(parts));
      }
      case SNode::At: {
        if (n->b->kind != SNode::Call)
          user_error(
              "the right-hand side of '@' must be a traversal such as topDown or "
              "outermost(p)",
              n->b->span);
        std::vector<SPtr> extra{n->a};
        return call(*n->b, params, depth, &extra);
      }
      case SNode::Call:
        return call(*n, params, depth, nullptr);
      case SNode::Int:
      case SNode::List:
      case SNode::Arith:
        user_error("expected a strategy, found a number", n->span);
    }
    user_error("bad strategy", n->span);
  }

 private:
  std::vector<LetDef> lets_;
  std::map<std::string, int64_t> numbers_;  // strategy parameters' values and lanes
  size_t visible_ = 0;                      // lets [0, visible_) are in scope

 public:
  void set_visible(size_t n) { visible_ = n; }

 private:
  bool visible_let(const std::string& name) const {
    for (size_t i = 0; i < visible_; ++i)
      if (lets_[i].name == name) return true;
    return false;
  }
  // A plain name (what a bare call's strategy is named after).
  static bool is_name(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(),
                                     [](unsigned char c) { return std::isalnum(c) || c == '_'; });
  }

  std::vector<std::string> known_names() const {
    std::vector<std::string> out;
    for (size_t i = 0; i < visible_; ++i) out.push_back(lets_[i].name);
    for (const LibraryEntry& e : library()) {
      out.push_back(e.name);
      for (const auto& a : e.aliases) out.push_back(a);
    }
    return out;
  }

  // An argument's value, checked against the kind the callee declares (none for a
  // let's argument): a count is never negative.
  Arg eval_arg(const SPtr& a, std::optional<ParamKind> kind,
               const std::map<std::string, Arg>& params, int depth, const std::string& callee,
               size_t index) {
    Arg v = eval_arg_value(a, kind, params, depth, callee, index);
    const int64_t* n = std::get_if<int64_t>(&v);
    if (kind == ParamKind::Nat && n && *n < 0)
      user_error("argument " + std::to_string(index + 1) + " of '" + callee +
                     "' must be a count or a size, never negative, not " + std::to_string(*n),
                 a->span);
    return v;
  }

  Arg eval_arg_value(const SPtr& a, std::optional<ParamKind> kind,
                     const std::map<std::string, Arg>& params, int depth, const std::string& callee,
                     size_t index) {
    auto where = [&] { return "argument " + std::to_string(index + 1) + " of '" + callee + "'"; };
    if (a->kind == SNode::Arith) {
      if (kind && *kind != ParamKind::Nat)
        user_error(where() + " must be " +
                       (*kind == ParamKind::IntList    ? std::string("a list of numbers")
                        : *kind == ParamKind::Strategy ? std::string("a strategy, not a number")
                                                       : std::string("no number")),
                   a->span);
      if (std::string m = missing_name(*a->expr, numbers_); !m.empty())
        user_error("'" + m + "' has no value: the strategy declares no parameter '" + m +
                       "' (a let imported from another file uses it; declare it with `param`)",
                   a->span);
      std::optional<int64_t> v = evaluate(*a->expr, numbers_);
      if (!v)
        user_error(where() + " overflows or divides by zero with these parameter values", a->span);
      return *v;
    }
    // A bare name may be a let parameter, a strategy parameter, lanes or an address
    // space.
    if (a->kind == SNode::Call && a->args.empty()) {
      if (auto it = params.find(a->name); it != params.end()) {
        const std::string* bound = std::get_if<std::string>(&it->second);
        if (bound && kind == ParamKind::Strategy) return eval(a, params, depth);  // refused
        if (bound && kind && kind != ParamKind::Name)
          user_error(where() + " must be " +
                         (kind == ParamKind::Nat       ? "a number"
                          : kind == ParamKind::IntList ? "a list of numbers"
                                                       : "an address space") +
                         "; the let's parameter '" + a->name + "' is the name '" + *bound +
                         "' here",
                     a->span);
        if (kind != ParamKind::Name) return it->second;
        if (const std::string* name = std::get_if<std::string>(&it->second)) return *name;
        // A bare strategy name given to the let (`f(mapPar)` for `isPrimitive(p)`).
        if (const Strategy* st = std::get_if<Strategy>(&it->second); st && is_name(st->name()))
          return st->name();
        user_error(where() + " must be a name; the let's parameter '" + a->name + "' is " +
                       (std::holds_alternative<int64_t>(it->second)    ? "a number"
                        : std::holds_alternative<Strategy>(it->second) ? "a strategy"
                                                                       : "no name") +
                       " here",
                   a->span);
      }
      if (auto it = numbers_.find(a->name); it != numbers_.end()) {
        if (kind == ParamKind::Name)
          user_error(where() + " must be a name, but '" + a->name + "' is " +
                         (a->name == kLanes ? std::string("the built-in number lanes")
                                            : "a parameter of the strategy, a number") +
                         " here: name the parameter differently",
                     a->span);
        if (kind && *kind != ParamKind::Nat)
          user_error(where() + " must be " +
                         (*kind == ParamKind::IntList ? "a list of numbers" : "no number"),
                     a->span);
        return it->second;
      }
      if (auto sp = rise::addr_from_name(a->name)) {
        if (!kind || *kind == ParamKind::Addr) return *sp;
      }
      // A let's argument that names no strategy is a name, for a name parameter of
      // what the let calls (`sched(dynamic)` for `ompSchedule(k, 4)`).
      if (!kind && !find_entry(a->name) && !visible_let(a->name)) return a->name;
    }
    if (kind) {
      switch (*kind) {
        case ParamKind::Nat:
          if (a->kind == SNode::Call && a->args.empty() && !find_entry(a->name))
            user_error(where() + " must be a number; '" + a->name +
                           "' is no parameter of the strategy (declare it with `param`)",
                       a->span);
          if (a->kind != SNode::Int) user_error(where() + " must be a number", a->span);
          return a->value;
        case ParamKind::IntList:
          if (a->kind != SNode::List)
            user_error(where() + " must be a list of numbers such as [1, 2, 3]", a->span);
          return list_values(*a, params);
        case ParamKind::Addr:
          user_error(where() + " must be an address space (Global, Local, Private, Constant)",
                     a->span);
        case ParamKind::Name:
          if (a->kind == SNode::Call && a->args.empty()) return a->name;
          user_error(where() + " must be a name, such as map", a->span);
        case ParamKind::Strategy:
          break;
      }
    } else {
      if (a->kind == SNode::Int) return a->value;
      if (a->kind == SNode::List) return list_values(*a, params);
    }
    if (a->kind == SNode::Int || a->kind == SNode::List)
      user_error(where() + " must be a strategy", a->span);
    return eval(a, params, depth);
  }

  // A list's numbers: literals, or names of numbers (let parameters bound to numbers,
  // strategy parameters, lanes).
  std::vector<int64_t> list_values(const SNode& list, const std::map<std::string, Arg>& params) {
    std::vector<int64_t> out;
    for (const SPtr& item : list.items) {
      if (item->kind == SNode::Int) {
        out.push_back(item->value);
        continue;
      }
      if (auto it = params.find(item->name); it != params.end()) {
        if (auto v = std::get_if<int64_t>(&it->second)) {
          out.push_back(*v);
          continue;
        }
      } else if (auto num = numbers_.find(item->name); num != numbers_.end()) {
        out.push_back(num->second);
        continue;
      }
      user_error("'" + item->name + "' is not a number", item->span);
    }
    return out;
  }

  Strategy call(const SNode& n, const std::map<std::string, Arg>& params, int depth,
                const std::vector<SPtr>* extra) {
    std::vector<SPtr> args = n.args;
    if (extra) args.insert(args.end(), extra->begin(), extra->end());
    // A let parameter bound to a strategy.
    if (auto it = params.find(n.name); it != params.end()) {
      if (!args.empty())
        user_error("'" + n.name + "' is a parameter and takes no arguments", n.span);
      if (auto s = std::get_if<Strategy>(&it->second)) return *s;
      if (auto name = std::get_if<std::string>(&it->second)) {
        std::string msg = "'" + n.name + "' is the name '" + *name + "' here, which is no strategy";
        std::string near = nearest_name(*name, known_names());
        if (!near.empty()) msg += "; did you mean '" + near + "'?";
        user_error(msg, n.span);
      }
      user_error("'" + n.name + "' is a number or list here, not a strategy", n.span);
    }
    if (numbers_.count(n.name)) user_error("'" + n.name + "' is a number, not a strategy", n.span);
    // A let definition (the latest visible one).
    for (size_t i = visible_; i-- > 0;) {
      const LetDef& d = lets_[i];
      if (d.name != n.name) continue;
      if (args.size() != d.params.size())
        user_error("'" + d.name + "' takes " + std::to_string(d.params.size()) +
                       " argument(s), got " + std::to_string(args.size()),
                   n.span);
      std::map<std::string, Arg> inner;
      for (size_t k = 0; k < args.size(); ++k)
        inner[d.params[k]] = eval_arg(args[k], std::nullopt, params, depth, d.name, k);
      size_t saved = visible_;
      visible_ = i;  // a let sees only the lets above it
      // The file's entry (main) is called where it is defined: no call to note.
      const bool implicit = same_place(n.span, d.span);
      Strategy s;
      try {
        s = eval(d.body, inner, depth + 1);
      } catch (const Error& err) {
        // an error in the let's body (an argument of the wrong kind used there) also
        // names the call that gave the arguments, innermost first
        if (implicit || !n.span.known() || same_place(err.span(), n.span)) throw;
        std::string note = "note: in '" + d.name + "', called at " + location(n.span);
        throw err.with_note(err.note().empty() ? note : err.note() + "\n" + note);
      }
      visible_ = saved;
      return implicit ? Strategy(d.name, located_strategy(s, n.span)) : let_call(d.name, s, n.span);
    }
    const LibraryEntry* e = find_entry(n.name);
    if (!e) {
      std::string msg = "unknown strategy '" + n.name + "'";
      std::string near = nearest_name(n.name, known_names());
      if (!near.empty()) msg += "; did you mean '" + near + "'?";
      user_error(msg, n.span);
    }
    if (!e->takes(args.size())) {
      std::string msg =
          "'" + n.name + "' takes " + e->arity() + ", got " + std::to_string(args.size());
      if (extra && args.size() == e->params.size() + 1)
        msg += " (with the strategy on the left of '@')";
      user_error(msg, n.span);
    }
    std::vector<Arg> values;
    for (size_t k = 0; k < args.size(); ++k)
      values.push_back(eval_arg(args[k], e->params[k], params, depth, n.name, k));
    try {
      check_argument_kinds(*e, values);
      return located_strategy(e->make(values), n.span);
    } catch (const Error& err) {
      if (err.span().known()) throw;
      throw err.at(n.span);
    }
  }
};

// ---------------------------------------------------------------- imports

namespace fs = std::filesystem;

// An imported file's path: relative to the directory of the file that imports it (to
// the current directory for a strategy given as text).
std::string resolve_import(const SourceRef& from, const std::string& path) {
  fs::path p(path);
  if (p.is_relative()) p = fs::path(from->name).parent_path() / p;
  return p.lexically_normal().string();
}

// The same, absolute (for a strategy written elsewhere: what tune and explore write).
std::string absolute_import(const SourceRef& from, const std::string& path) {
  return fs::absolute(resolve_import(from, path)).lexically_normal().string();
}

thread_local const std::map<std::string, std::string>* import_texts = nullptr;

// An imported file's text: a regular file of bounded size (not a device such as
// /dev/zero, which never ends).
std::string read_import(const std::string& path, const Span& at) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    user_error("cannot read the imported strategy file '" + path + "'" +
                   (fs::exists(path, ec) ? " (not a regular file)" : ""),
               at);
  if (fs::file_size(path, ec) > kMaxImportBytes)
    user_error("the imported strategy file '" + path + "' is larger than " +
                   std::to_string(kMaxImportBytes >> 20) + " MiB",
               at);
  std::ifstream in(path, std::ios::binary);
  if (!in) user_error("cannot read the imported strategy file '" + path + "'", at);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A file's identity for cycles and repeated imports.
std::string file_key(const std::string& path) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(path, ec);
  return ec ? path : c.string();
}

// The files `p` (parsed from `src`) imports, each after the files it imports, each once
// (`seen`); `stack` holds the files being imported, for cycles. `visit` gets each
// file's source and parsed contents.
void visit_imports(const Parser& p, const SourceRef& src, std::vector<std::string>& stack,
                   std::set<std::string>& seen,
                   const std::function<void(const SourceRef&, ParsedFile&)>& visit) {
  for (const Import& imp : p.imports()) {
    const std::string path = resolve_import(src, imp.path);
    const std::string key = file_key(path);
    if (std::find(stack.begin(), stack.end(), key) != stack.end()) {
      std::string chain;
      for (const std::string& s : stack) chain += fs::path(s).filename().string() + " imports ";
      user_error("import cycle: " + chain + fs::path(key).filename().string(), imp.span);
    }
    if (seen.count(key)) continue;
    if (stack.size() > kMaxImportDepth)
      user_error("imports nested too deep (limit " + std::to_string(kMaxImportDepth) + ")",
                 imp.span);
    std::string text;
    if (import_texts && import_texts->count(path)) {
      text = import_texts->at(path);
    } else {
      text = read_import(path, imp.span);
      note_input(path, "imported by " + src->name);
    }
    auto file = std::make_shared<SourceFile>(SourceFile{path, std::move(text)});
    Parser sub(file);
    ParsedFile f = sub.file();
    stack.push_back(key);
    visit_imports(sub, file, stack, seen, visit);
    stack.pop_back();
    seen.insert(key);
    visit(file, f);
  }
}

void visit_imports(const Parser& p, const SourceRef& src,
                   const std::function<void(const SourceRef&, ParsedFile&)>& visit) {
  std::vector<std::string> stack{file_key(src->name)};
  std::set<std::string> seen;
  visit_imports(p, src, stack, seen, visit);
}

}  // namespace

std::vector<SourceRef> strategy_imports(const SourceRef& src) {
  Parser p(src);
  p.decls();
  std::vector<SourceRef> out;
  visit_imports(p, src, [&](const SourceRef& file, ParsedFile&) { out.push_back(file); });
  return out;
}

ImportTexts::ImportTexts(std::map<std::string, std::string> texts)
    : texts_(std::move(texts)), previous_(import_texts) {
  import_texts = &texts_;
}

ImportTexts::~ImportTexts() {
  import_texts = previous_;
}

std::string with_absolute_imports(const SourceRef& src) {
  Parser p(src);
  p.decls();
  const std::vector<Tok>& toks = p.tokens();
  std::string out;
  size_t at = 0;
  for (size_t k = 0; k < p.imports_end(); ++k) {
    if (toks[k].kind != T::Str) continue;
    out +=
        src->text.substr(at, toks[k].begin - at) + "\"" + absolute_import(src, toks[k].text) + "\"";
    at = toks[k].end;
  }
  return out + src->text.substr(at);
}

std::vector<StrategyParam> strategy_params(const SourceRef& src) {
  Parser p(src);
  return p.params();
}

StrategyDeclarations strategy_declarations(const SourceRef& src) {
  Parser p(src);
  return p.decls();
}

std::string substitute_params(const SourceRef& src, const ParamValues& values) {
  Parser p(src);
  std::vector<StrategyParam> params = p.params();
  ParamValues complete = complete_param_values(params, values);
  if (!values.count(kLanes)) complete.erase(kLanes);
  // The declarations end at the ';' after the last one; uses are name tokens after it.
  const std::vector<Tok>& toks = p.tokens();
  const size_t first = p.decl_end();
  const std::string& text = src->text;
  size_t body_begin = first < toks.size() ? toks[first].begin : text.size();
  std::string out;
  if (p.imports().empty()) {
    // Keep the comments before the first declaration, drop the declarations.
    out = text.substr(0, first > p.decl_begin() ? toks[p.decl_begin()].begin : body_begin);
  } else {
    // The imported lets use the parameters by name: each keeps a declaration of its one
    // value (constraints, then moot, are dropped), and the imports become absolute
    // paths, so the result runs from any directory.
    out = text.substr(0, toks[0].begin);
    for (const Import& imp : p.imports())
      out += "import \"" + absolute_import(src, imp.path) + "\";\n";
    for (const StrategyParam& q : params)
      out += "param " + q.name + " in [" + std::to_string(complete.at(q.name)) + "];\n";
  }
  // Skip the blank line the declarations leave.
  while (body_begin < text.size() && (text[body_begin] == '\n')) ++body_begin;
  size_t at = body_begin;
  for (size_t k = first; k < toks.size(); ++k) {
    if (toks[k].kind != T::Name) continue;
    auto it = complete.find(toks[k].text);
    if (it == complete.end()) continue;
    out += text.substr(at, toks[k].begin - at) + std::to_string(it->second);
    at = toks[k].end;
  }
  out += text.substr(at);
  return out;
}

Strategy parse_strategy_file(const SourceRef& src, const ParamValues& values) {
  Parser p(src);
  ParsedFile f = p.file();
  ParamValues numbers = complete_param_values(f.params, values);
  if (!numbers.count(kLanes)) numbers[kLanes] = machine_lanes();
  if (const StrategyConstraint* c = violated_constraint(f.constraints, numbers)) {
    std::string point;
    for (const StrategyParam& q : f.params)
      point += (point.empty() ? "" : ",") + q.name + "=" + std::to_string(numbers[q.name]);
    bool given = false;
    for (const auto& [name, value] : values) given = given || name != kLanes;
    if (given)
      throw Error(ErrorKind::Usage, params_word() + ": the point " + point +
                                        " violates the constraint `" + c->text + "` (declared at " +
                                        location(c->span) + ")");
    user_error("the default point (each parameter's first value: " + point +
                   ") violates the constraint `" + c->text + "`; choose values with " +
                   params_word() + ", or list a value that satisfies it first",
               c->span);
  }
  // The imported files' lets come first: the file's own lets see them and may redefine
  // their names.
  std::vector<LetDef> lets;
  visit_imports(p, src, [&](const SourceRef&, ParsedFile& g) {
    for (LetDef& d : g.lets) lets.push_back(std::move(d));
  });
  for (LetDef& d : f.lets) lets.push_back(std::move(d));
  size_t count = lets.size();
  Evaluator ev(std::move(lets), std::move(numbers));
  ev.set_visible(count);
  Strategy s = ev.eval(f.main, {}, 0);
  return Strategy(src->name, s);
}

Strategy parse_strategy(const std::string& text, const std::string& name) {
  return parse_strategy_file(std::make_shared<SourceFile>(SourceFile{name, text}));
}

}  // namespace risec::elevate
