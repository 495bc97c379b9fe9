// The primitive table: every RISE primitive declared once, in primitives.def, with
// its name, its type in RISE type syntax (parsed at start-up), its family and traits,
// the loop it becomes, its interpreter semantics and, for views, its index maps.
// Every other part of the compiler (parser, inference, printer, interpreter, rule
// predicates, DPIA, backends) asks this table instead of keeping a list of names.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "arith/nat.h"
#include "rise/par_schedule.h"
#include "rise/type.h"

namespace risec::rise {

class Value;
struct PrimCall;
// Interpreter semantics: all type-level and value arguments collected.
using PrimEval = Value (*)(const PrimCall& call);

// One identifier per row of primitives.def, in its order.
enum class PrimId : uint8_t {
#define RISEC_PRIM(id, ...) id,
#include "rise/primitives.def"
#undef RISEC_PRIM
};

// What a primitive is, as passes see it.
enum class Family : uint8_t {
  Arith,    // scalar arithmetic, comparison, select, cast (lane-wise on vectors)
  Math,     // built-in math functions (the C library's meaning)
  Index,    // conversions between indices and natType values
  Memory,   // let, toMem, oclToMem: where a value lives
  View,     // data layout without computation: split, join, transpose, zip, pad, ...
  Pair,     // makePair, fst, snd, mapFst, mapSnd
  Vector,   // vectorFromScalar
  Array,    // arrays built from elements or a function: makeArray, generate
  Map,      // map and its low-level forms (the loop kind says which)
  Reduce,   // reduce and its low-level forms
  Iterate,  // iterate, oclIterate
  Scan,     // scanSeq
  Sliding,  // circularBuffer, rotateValues
  Loop,     // iterateWhile: a sequential loop that leaves early (a data-dependent exit)
};

// Traits (bit flags).
enum Trait : uint32_t {
  kView = 1u << 0,          // changes only how indices are read (no computation, no copy)
  kWritableView = 1u << 1,  // also has a destination (acceptor) form
  kLaneWise = 1u << 2,      // applies to each lane of a vector: the vectorizer lifts it
                            // (comparisons, select and cast are not lifted)
  kAssocComm = 1u << 3,     // associative and commutative, with `neutral` as its unit
  kMustLower = 1u << 4,     // no translation to imperative code: a strategy must replace it
                            // (reduce), or only the interpreter runs it (scatter, padEmpty)
  kOpenMP = 1u << 5,        // needs a target with OpenMP loops
  kOpenCL = 1u << 6,        // needs an OpenCL/CUDA target
  kHighLevel = 1u << 7,     // a high-level pattern (map, reduce): a strategy chooses its form
  kDestination = 1u << 8,   // not a view, but its result is built in its destination, so
                            // arguments that must be written can be written there (makePair)
  kWraps = 1u << 9,         // on integers the result wraps around (two's complement), where
                            // C's signed overflow is undefined: printed in the unsigned type
};

// The loop a map or reduction becomes (data, not code: backends decide how to emit it).
enum class LoopKind : uint8_t {
  None,       // not a loop primitive
  Seq,        // for
  SeqUnroll,  // for, fully unrolled by code generation
  Par,        // OpenMP parallel for
  Global,     // OpenCL/CUDA global thread index
  WorkGroup,  // OpenCL/CUDA work group (block)
  Local,      // OpenCL/CUDA local (thread in block)
};

// Whether a loop kind is a level of the GPU's thread hierarchy (its loops carry a
// dimension and run as work items, work groups or global threads).
inline bool is_gpu_loop(LoopKind k) {
  return k == LoopKind::Global || k == LoopKind::WorkGroup || k == LoopKind::Local;
}

// How a primitive uses one of its value arguments (the `access` column, one letter
// per argument; for a function argument, how its body's result is used). Lowering
// (elevate's lowerToC) stores a computed array given where it is read; DPIA's
// translation checks that an argument that must be written is written somewhere.
enum class ArgAccess : uint8_t {
  Read,   // 'r': read, element by element (a computed array there is stored first)
  Write,  // 'w': written into memory of the primitive's own: a map's output element,
          // an accumulator, a loop's state, a let's or toMem's store
  Pass,   // 'p': in the call's own position: written through the call's destination
          // (a view of it) when the call is written, read when the call is read
};

// How tightly a scalar operator binds in C, as C's grammar ranks its levels (the
// values are codegen::Prec's; the C printer checks that they agree).
enum class OpPrec : uint8_t { None = 0, Eq = 9, Rel = 10, Add = 12, Mul = 13, Unary = 14 };

// ---- view index maps (family View) ----
// A view is declared by two functions on paths (rise/views.cpp), from which DPIA
// translation, view resolution and every backend derive what they need.
// A position inside a value: indices into arrays and vectors, pair projections.
struct PathElem {
  enum Kind { Index, Fst, Snd } kind = Index;
  arith::Nat i;  // Index
};
using Path = std::vector<PathElem>;
// Paths, as index maps build them.
PathElem path_index(arith::Nat i);
Path path_prepend(PathElem e, const Path& p);
Path path_rest(const Path& p, size_t from);
// Index k of a path (an internal error naming `what` when it is missing or a projection):
// a view primitive, or another step of view resolution (an acceptor).
arith::Nat path_need_index(const Path& p, size_t k, PrimId what);
arith::Nat path_need_index(const Path& p, size_t k, const char* what);
// A view applied in a program: its explicit Nat and Nat2Nat arguments in order, the
// data types of its value arguments (in RISE order) and of its result.
struct ViewSite {
  std::vector<arith::Nat> nats;
  std::vector<NatFun> funs;
  std::vector<Type> inputs;
  Type result;
};
// Where an element of a view's result is read: value argument `input` at `path`,
// when `guard` holds (the alternatives of a read are tried in order; the last one's
// guard is true).
struct ViewAccess {
  arith::Cond guard;
  int input = 0;
  Path path;
};
// Read map: the alternatives for the element at `path` (outermost index first) of the
// result; each alternative's path is complete (the map passes on what it does not use).
using ViewReadMap = std::vector<ViewAccess> (*)(const ViewSite& site, const Path& path);
// Write map (writable views): writing the view's result into a destination B means
// writing each value argument `input` through an acceptor; the map gives, for the
// element at `path` of that argument, the path in B it lands at.
using ViewWriteMap = Path (*)(const ViewSite& site, int input, const Path& path);

// One row of primitives.def (designated initialisers, in this order).
struct PrimRow {
  PrimId id;
  const char* name;
  const char* type;  // RISE type syntax, as in spec/rise-syntax.md
  Family family;
  uint32_t traits = 0;
  LoopKind loop = LoopKind::None;  // Map and Reduce families
  double neutral = 0.0;            // kAssocComm: the neutral element
  PrimEval eval = nullptr;
  double (*math1)(double) = nullptr;          // Math: one-argument function
  double (*math2)(double, double) = nullptr;  // Math: two-argument function
  ViewReadMap read = nullptr;                 // View
  ViewWriteMap write = nullptr;               // kWritableView
  // How each value argument is used: one letter per argument, 'r', 'w' or 'p' (see
  // ArgAccess); a trailing '*' repeats the last letter (makeArray's elements). No
  // column: every argument is read.
  const char* access = "";
  // Scalar operators: the C operator (prefix for one argument, infix for two), how
  // tightly it binds, and its spelling on vectors (masks) where that differs. The C,
  // OpenMP, OpenCL and CUDA printers use these; the meaning is rise/scalar_ops.h's.
  const char* c_op = nullptr;
  OpPrec c_prec = OpPrec::None;
  const char* c_vector_op = nullptr;
  // The identifier of an OpenMP reduction with this operator (kAssocComm rows).
  const char* omp_reduction = nullptr;
};

// A row as the compiler uses it: the declaration plus what is derived from it.
struct PrimitiveInfo {
  PrimId id{};
  std::string name;
  std::string type_text;
  Family family = Family::Arith;
  uint32_t traits = 0;
  LoopKind loop = LoopKind::None;
  double neutral = 0.0;
  PrimEval eval = nullptr;
  double (*math1)(double) = nullptr;
  double (*math2)(double, double) = nullptr;
  ViewReadMap read = nullptr;
  ViewWriteMap write = nullptr;
  std::vector<ArgAccess> access;  // per value argument (makeArray: its one element access)
  bool access_repeats = false;    // the last access applies to every further argument
  const char* c_op = nullptr;
  OpPrec c_prec = OpPrec::None;
  const char* c_vector_op = nullptr;  // c_op when the row gives none
  const char* omp_reduction = nullptr;
  Type type;          // parsed from type_text
  int arity = 0;      // value arguments (function arrows after the dependent binders)
  int dep_arity = 0;  // explicit dependent arguments

  // Scalar computations: arithmetic, math, index conversions.
  bool is_scalar() const {
    return family == Family::Arith || family == Family::Math || family == Family::Index;
  }
  bool has(uint32_t trait) const { return (traits & trait) == trait; }
  // Applied to all its arguments, it computes values (arithmetic, math, index
  // conversions, reductions, scans, iterations, sliding windows, low-level loops)
  // instead of only arranging them (views, pairs, memory, the high-level map).
  bool computes() const {
    switch (family) {
      case Family::Reduce:
      case Family::Scan:
      case Family::Iterate:
      case Family::Sliding:
      case Family::Loop:
        return true;
      case Family::Map:
        return !has(kHighLevel);
      default:
        return is_scalar();
    }
  }
  bool is(PrimId p) const { return id == p; }
  // How value argument i is used (Read beyond the declared ones).
  ArgAccess arg_access(size_t i) const {
    if (i < access.size()) return access[i];
    return access_repeats && !access.empty() ? access.back() : ArgAccess::Read;
  }
  // Whether the result can be written (not only read) when an argument must be
  // written: some argument is written through the call's destination or into memory
  // of the primitive's own (writable views, primitives that build their result in
  // their destination, padClamp, loops, let, toMem).
  bool writable() const {
    for (ArgAccess a : access)
      if (a != ArgAccess::Read) return true;
    return false;
  }
  // Applied to all its arguments, it computes an array into memory, element by
  // element: the low-level maps, scans and iterations.
  bool computes_array() const {
    return (family == Family::Map && !has(kHighLevel)) || family == Family::Scan ||
           family == Family::Iterate;
  }
  // A comparison: two arguments, a bool (or mask) result.
  bool compares() const { return c_prec == OpPrec::Rel || c_prec == OpPrec::Eq; }
};

// The table (built and type-parsed on first use; thread-safe), indexed by PrimId.
const std::vector<PrimitiveInfo>& primitives();
const PrimitiveInfo& primitive(PrimId id);
const PrimitiveInfo* find_primitive(const std::string& name);
// The name of primitive `id`, for messages and printing.
const std::string& prim_name(PrimId id);
std::vector<std::string> primitive_names();

// The type of makeArray with `count` elements: {t: Data} -> t -> ... -> count.t
Type make_array_type(int count);

}  // namespace risec::rise
