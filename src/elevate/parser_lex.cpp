// The `.elv` parser's tokens (see parser_internal.h).
#include <cctype>
#include <cstdio>

#include "elevate/parser_internal.h"
#include "support/diagnostics.h"

namespace risec::elevate::elv {

// The length of the UTF-8 sequence at s[i] when it is a whole, well-formed one of two to
// four bytes; else 1 (a stray byte).
static size_t lex_bad_char_length(const std::string& s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  size_t n = 1;
  if (b >= 0xc2 && b < 0xe0)
    n = 2;
  else if (b >= 0xe0 && b < 0xf0)
    n = 3;
  else if (b >= 0xf0 && b < 0xf5)
    n = 4;
  if (n == 1 || i + n > s.size()) return 1;
  for (size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xc0) != 0x80) return 1;
  return n;
}

// What the lexer says of a character it does not know: a printable ASCII one as
// itself, any other byte (a control character, NUL, half a UTF-8 sequence) in hex, and
// a whole non-ASCII character as itself with its code point, never a raw byte.
static std::string lex_bad_char_message(const std::string& s, size_t i, size_t n) {
  const unsigned char b = static_cast<unsigned char>(s[i]);
  char buf[96];
  if (n == 1 && b >= 0x20 && b < 0x7f) {
    std::snprintf(buf, sizeof buf, "unexpected character '%c'", static_cast<char>(b));
    return buf;
  }
  if (n == 1) {
    std::snprintf(buf, sizeof buf, "unexpected byte 0x%02x", b);
    return std::string(buf) + " (only ASCII is allowed outside strings and comments)";
  }
  unsigned cp = b & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
  std::snprintf(buf, sizeof buf, "U+%04X", cp);
  return "unexpected character '" + s.substr(i, n) + "' (" + buf +
         "; only ASCII is allowed outside strings and comments)";
}

std::vector<Tok> lex(const SourceRef& src) {
  const std::string& s = src->text;
  std::vector<Tok> out;
  size_t i = 0;
  auto err = [&](const std::string& msg, size_t b, size_t e) {
    user_error(msg, Span{src, static_cast<unsigned>(b), static_cast<unsigned>(e)});
  };
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      if (end == std::string::npos) err("unterminated comment", i, i + 2);
      i = end + 2;
      continue;
    }
    unsigned b = static_cast<unsigned>(i);
    auto push = [&](T k, size_t len) {
      out.push_back({k, b, static_cast<unsigned>(i + len), s.substr(i, len)});
      i += len;
    };
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      std::string w = s.substr(i, j - i);
      push(w == "let" ? T::Let : T::Name, j - i);
      continue;
    }
    if (c == '"') {
      size_t j = i + 1;
      while (j < s.size() && s[j] != '"' && s[j] != '\n') ++j;
      if (j >= s.size() || s[j] != '"')
        err("unterminated string (it ends at the line's end)", i, j);
      out.push_back({T::Str, b, static_cast<unsigned>(j + 1), s.substr(i + 1, j - i - 1)});
      i = j + 1;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j - i > 15) err("number too large", i, j);
      push(T::Int, j - i);
      continue;
    }
    // Constraints' operators (`<+` is the choice, below).
    if (i + 1 < s.size()) {
      const std::string two = s.substr(i, 2);
      if (two == "==" || two == "!=" || two == "<=" || two == ">=" || two == "&&" || two == "||") {
        push(T::Op, 2);
        continue;
      }
    }
    if (std::string("+-*/%>!").find(c) != std::string::npos ||
        (c == '<' && (i + 1 >= s.size() || s[i + 1] != '+'))) {
      push(T::Op, 1);
      continue;
    }
    switch (c) {
      case '(':
        push(T::LParen, 1);
        continue;
      case ')':
        push(T::RParen, 1);
        continue;
      case '[':
        push(T::LBracket, 1);
        continue;
      case ']':
        push(T::RBracket, 1);
        continue;
      case ',':
        push(T::Comma, 1);
        continue;
      case ';':
        push(T::Semi, 1);
        continue;
      case '@':
        push(T::At, 1);
        continue;
      case '=':
        push(T::Eq, 1);
        continue;
      case '<':
        if (i + 1 < s.size() && s[i + 1] == '+') {
          push(T::Choice, 2);
          continue;
        }
        break;
      default:
        break;
    }
    const size_t n = lex_bad_char_length(s, i);
    err(lex_bad_char_message(s, i, n), i, i + n);
  }
  out.push_back({T::End, static_cast<unsigned>(s.size()), static_cast<unsigned>(s.size()), ""});
  return out;
}

}  // namespace risec::elevate::elv
