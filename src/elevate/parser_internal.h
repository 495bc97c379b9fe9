// The `.elv` parser's internals (see parser.h), shared by its files:
//   parser_lex.cpp     tokens
//   parser.cpp         declarations and strategy expressions (the syntax tree below),
//                      their evaluation into strategies, imports
//   parser_params.cpp  parameter values: constraints' arithmetic, NAME=NUMBER lists,
//                      completion and checking against the declarations
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "elevate/parser.h"

namespace risec::elevate {

// A constraint's expression: a number or a condition (`boolean`), type-checked as it is
// parsed.
struct ConstraintExpr {
  enum Kind { Int, Name, Not, Neg, Binary } kind;
  Span span;
  bool boolean = false;
  int64_t value = 0;  // Int
  std::string name;   // Name
  std::string op;     // Binary
  std::shared_ptr<const ConstraintExpr> a, b;
};

namespace elv {

// ---------------------------------------------------------------- tokens

enum class T {
  End,
  Name,
  Int,
  LParen,
  RParen,
  LBracket,
  RBracket,
  Comma,
  Semi,
  Choice,
  At,
  Eq,
  Let,
  Op,  // an operator of a constraint: + - * / % == != < <= > >= && || !
  Str  // a string: `import "PATH";` (text is PATH, without the quotes)
};

struct Tok {
  T kind;
  unsigned begin, end;
  std::string text;
};

// The tokens of a file, ending with T::End (risec::Error User at a character that
// starts none).
std::vector<Tok> lex(const SourceRef& src);

// ---------------------------------------------------------------- syntax tree

struct SNode;
using SPtr = std::shared_ptr<const SNode>;

struct SNode {
  enum Kind { Call, Seq, Choice, At, Int, List, Arith } kind;
  Span span;
  std::string name;                            // Call
  std::vector<SPtr> args;                      // Call: all argument groups flattened
  std::vector<SPtr> parts;                     // Seq, Choice: `p0 ; p1 ; ...`, `p0 <+ p1 <+ ...`
  SPtr a, b;                                   // At (a @ b)
  int64_t value = 0;                           // Int
  std::vector<SPtr> items;                     // List: numbers (Int) or names of numbers (Call)
  std::shared_ptr<const ConstraintExpr> expr;  // Arith: `tw + 2` over parameters and lanes
};

struct LetDef {
  std::string name;
  std::vector<std::string> params;
  SPtr body;
  Span span;
};

// The built-in number (support/cpu.h).
constexpr const char* kLanes = "lanes";

// ---------------------------------------------------------------- constraints

using CPtr = std::shared_ptr<const ConstraintExpr>;

// The value (a condition as 0 or 1), or nullopt after a division by zero or an overflow.
std::optional<int64_t> evaluate(const ConstraintExpr& e, const ParamValues& values);

// The first name of an expression with no value in `values` (a parameter an imported
// let uses that the importing file does not declare), or "".
std::string missing_name(const ConstraintExpr& e, const ParamValues& values);

}  // namespace elv
}  // namespace risec::elevate
