// The tokens of .rise files (spec/rise-syntax.md). The lexer never throws: a
// malformed token becomes an Error token carrying its message, so that the parser
// reports the first problem in source order (a syntax error before a bad character
// is reported first).
//
// Numbers: an integer is a run of digits with an optional suffix (i8, i16, i32, i64,
// u8, u16, u32, u64); a floating-point literal needs a digit after the dot or an
// exponent (`1.5`, `1.0f`, `2e-3f`, `1.5e3`), with an optional `f` suffix for f32.
// So `4.f32` is INT `.` NAME, as array types need. `3.4.f32` lexes as FLOAT(3.4) `.`
// NAME: the type parser splits a FLOAT token of the plain form DIGITS.DIGITS back
// into INT `.` INT where a size is expected (see parser.cpp), so the lexer needs no
// knowledge of context.
#pragma once

#include <string>
#include <vector>

#include "support/diagnostics.h"

namespace risec::rise {

enum class Tok {
  End,     // end of input
  Error,   // a malformed token; `value` holds the message
  Ident,   // a name
  Int,     // `number` digits, `suffix` "" or one of i8..u64
  Float,   // `number` the literal without suffix, `suffix` "" or "f"
  String,  // `value` the decoded contents
  // keywords
  KwDef,
  KwForeign,
  KwFun,
  KwDepFun,
  KwLet,
  KwIn,
  KwTrue,
  KwFalse,
  KwLidx,
  // punctuation
  LParen,
  RParen,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  Comma,
  Colon,
  Dot,
  FatArrow,  // =>
  Arrow,     // ->
  Pipe,      // |>
  Compose,   // >>
  AndAnd,    // &&
  OrOr,      // ||
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  Caret,
  Lt,
  Gt,
  EqEq,
  Le,
  Ge,
  Ne,
  Bang,
  Eq,
  Semi,  // ; (ends a with-loop part)
};

struct Token {
  Tok kind = Tok::End;
  unsigned begin = 0;  // byte range [begin, end) in the source text
  unsigned end = 0;
  std::string text;    // the source text of the token
  std::string number;  // Int, Float: the digits (and dot, exponent) without suffix
  std::string suffix;  // Int, Float: the type suffix, possibly empty
  std::string value;   // String: decoded contents; Error: the message
};

// The spelling of a token kind for messages: "')'", "keyword 'in'", "end of file".
std::string tok_spelling(Tok kind);
// A token as found in the input, for "expected X, found Y": "identifier 'foo'",
// "integer literal '5'", "')'", "end of file".
std::string describe(const Token& t);

// All tokens of the source, ending with one End token, or with an Error token at
// the first malformed input (nothing after it is lexed).
std::vector<Token> tokenize(const SourceRef& src);

// Whether `name` is reserved for names the compiler generates (`x__3`).
bool is_reserved_name(const std::string& name);

}  // namespace risec::rise
