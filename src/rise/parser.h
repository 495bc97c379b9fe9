// The parser of .rise files: recursive descent over the grammar of
// spec/rise-syntax.md, producing RISE expressions and types with source spans.
//
// Names are never resolved here: every NAME in an expression becomes an Ident (the
// type checker resolves it to a lambda binder, a definition, a prelude definition or
// a primitive, in that order). Syntactic sugar is expanded to primitives:
//   let x = e in b   -> let(e)(fun(x => b))
//   x |> f           -> f(x)                 (left associative)
//   f >> g           -> fun(x__N => g(f(x__N)))   (a fresh, reserved binder name)
//   a + b, -, *, /, % -> add(a)(b), sub, mul, div, mod
//   a < b, >, ==     -> lt(a)(b), gt, equal
//   a <= b, >=, !=   -> not(gt(a)(b)), not(lt(a)(b)), not(equal(a)(b))
//   -x, !x           -> neg(x), not(x); a '-' right before a number is a negative literal
//   x[i]             -> idx(i)(x)
//   p._1, p._2       -> fst(p), snd(p)
//   (a, b)           -> makePair(a)(b)
//   [a, b, c]        -> makeArray(3)(a)(b)(c)
//   f(a, b)          -> f(a)(b)
// Errors are risec::Error of kind User with the span of the offending token.
#pragma once

#include <string>

#include "rise/expr.h"
#include "rise/type.h"
#include "support/diagnostics.h"

namespace risec::rise {

// A whole file: `def` and `foreign def` definitions.
Program parse_program(SourceRef src);

// A single expression making up the whole source (for tests and tools).
Expr parse_expr(SourceRef src);

// A type making up the whole source.
Type parse_type(SourceRef src);

// A type written in the compiler itself (the primitive table): a parse error is a
// bug, reported as an internal error.
Type parse_type(const std::string& text);

// Limits that turn pathological input into located errors instead of stack
// overflows in the parser or in the recursive passes after it.
inline constexpr int kMaxParseNesting = 4096;  // nested parentheses, lambdas, types, ...
inline constexpr int kMaxExprDepth = 10000;    // depth of a parsed expression tree

}  // namespace risec::rise
