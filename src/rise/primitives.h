// The primitive table: every RISE primitive declared once, with its type written in
// RISE type syntax (parsed from that text at start-up), its arity and its
// interpreter semantics. Adding a primitive means adding a row here (and, later,
// its DPIA translation); nothing else.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "rise/type.h"

namespace risec::rise {

class Value;
struct PrimCall;
// Interpreter semantics: all type-level and value arguments collected.
using PrimEval = Value (*)(const PrimCall& call);

enum class PrimClass {
  Scalar,      // arithmetic, comparison, casts, built-in math
  Memory,      // let, toMem, oclToMem
  Array,       // data layout (views): split, join, zip, ...
  Pattern,     // high-level computation patterns: map, reduce, iterate
  Sequential,  // low-level sequential patterns
  OpenMP,      // mapPar, reducePar
  OpenCL,      // mapGlobal, ..., oclReduceSeq, ...
  Vector,      // SIMD
};

struct PrimitiveInfo {
  std::string name;
  std::string type_text;  // RISE type syntax, as in spec/rise-syntax.md
  PrimClass cls;
  PrimEval eval = nullptr;
  Type type;          // parsed from type_text
  int arity = 0;      // value arguments (function arrows after the dependent binders)
  int dep_arity = 0;  // explicit dependent arguments
};

// The table (built and type-parsed on first use; thread-safe).
const std::vector<PrimitiveInfo>& primitives();
const PrimitiveInfo* find_primitive(const std::string& name);
std::vector<std::string> primitive_names();

// The type of makeArray with `count` elements: {t: Data} -> t -> ... -> count.t
Type make_array_type(int count);

// Built-in scalar functions (sqrt, exp, ...) are primitives of class Scalar whose
// C name is the function of the same name (with an `f` suffix for f32).
bool is_builtin_math(const std::string& name);

}  // namespace risec::rise
