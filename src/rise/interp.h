// The reference interpreter: the oracle of the whole compiler. Every rewrite and
// every generated program is checked against what it computes.
//
// It evaluates closed, fully typed expressions (every node's `type` set, sizes
// concrete; see rise/check.h). Evaluation first translates the expression into a
// small tree of instructions in which variables are frame slots (closures are flat:
// a lambda copies the values it uses when it is made), saturated primitive
// applications are recognised once, and scalar primitives, fst/snd/idx, select
// (which evaluates only the branch it picks, as C's `?:` does) and let have inline
// fast paths; everything else calls the primitive's eval_<name> (interp_prims.h).
// Types that still mention type-level variables (inside a depFun, e.g. the step
// function of iterate) are instantiated at run time from the bindings in scope.
//
// Values and the meaning of each primitive: rise/value.h and rise/interp_prims.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rise/expr.h"
#include "rise/value.h"
#include "support/buffer.h"

namespace risec::rise {

struct CNode;  // an instruction (interp.cpp)

struct RoundingBound;

class Interpreter {
 public:
  Interpreter() = default;

  // Evaluate a closed, fully typed expression.
  Value eval(const Expr& closed_typed_expr);
  // Apply a function value (closure, partially applied primitive, native function).
  Value apply(const Value& f, const Value& arg);
  // f(a)(b)
  Value apply(const Value& f, const Value& a, const Value& b);
  // Apply a dependent function value (a depFun closure, or a primitive still waiting
  // for its explicit type-level arguments) to a type-level argument.
  Value apply_dep(const Value& f, const TypeArg& arg);
  // Evaluate the entry `e` and apply it to `inputs` in order. Errors: a remaining
  // size parameter ("size n has no value; pass --size"), the wrong number of inputs.
  // Programs the fast path covers (rise/interp_fast.h) are evaluated there, over flat
  // buffers; the others by the boxed evaluator. Both give identical results.
  Value run(const Expr& e, const std::vector<Value>& inputs);

  // Whether run may use the fast path (tests turn it off to compare the two; the
  // environment variable RISEC_INTERP=boxed turns it off for measurements).
  bool fast_path = default_fast_path();
  // Whether a lambda's invariant subterms (those that use neither its parameter nor
  // anything bound inside it) are evaluated at most once per closure, on first use,
  // rather than once per application (docs/architecture.md); tests turn it off to
  // compare; the environment variable RISEC_INTERP_HOIST=off turns it off for
  // measurements. The result and the faults do not depend on it.
  bool hoist_invariants = default_hoist_invariants();
  // How many invariant subterms have been evaluated (each at most once per closure).
  uint64_t invariant_evaluations = 0;
  // Threads for the fast path's outermost map (0: one per hardware thread, or
  // RISEC_INTERP_THREADS). The result does not depend on it.
  int threads = default_threads();

  static bool default_fast_path();
  static int default_threads();
  static bool default_hoist_invariants();
};

// The value of a literal whose type and sizes are known (nullopt otherwise); errors
// for out-of-range index literals.
std::optional<Value> literal_value(const ExprNode& e, const Type& type);

// Applies one function value many times (map, reduce, ...), reusing the frame of a
// lambda closure between calls and calling scalar primitives directly.
class Applier {
 public:
  Applier(Interpreter& interp, const Value& f);
  Value operator()(const Value& x);
  Value operator()(const Value& x, const Value& y);  // f(x)(y)

 private:
  enum class Mode : uint8_t { Generic, Lambda, Native };
  Interpreter& interp_;
  Value f_;  // owns the closure whose code the pointers below point into
  Mode mode_ = Mode::Generic;
  const CNode* body_ = nullptr;             // Lambda: the body
  const CNode* inner_ = nullptr;            // Lambda whose body is a lambda: the inner lambda
  std::vector<Value> frame_, frame2_;       // Lambda: frames of the closure (and inner lambda)
  const PrimitiveInfo* fast_op_ = nullptr;  // a primitive: its ScalarOp when binary and unapplied
};

// The parameters and result of an entry's type. Throws risec::Error (User) "size n
// has no value; pass --size" when a dependent parameter remains.
struct EntrySignature {
  std::vector<Type> params;
  Type result;
};
EntrySignature entry_signature(const Type& t);

// ---- conversions to and from the runtime's arrays ----
// The element type of an NdArray is the scalar kind (same names); vec[t, n] elements
// add an innermost dimension of n; idx[n] and natType leaves are i64 (any integer
// dtype is accepted on input, and checked against the range). A scalar is shape ().
Value from_ndarray(const runtime::NdArray& a, const Type& t);
// Arrays of scalars (any rank), scalars, vectors, indices. Pairs are rejected with a
// clear error: use to_ndarrays.
runtime::NdArray to_ndarray(const Value& v, const Type& t);
// Any data value as its leaves: a pair gives the leaves of its first component then
// those of its second; an array of pairs n.(a, b) is unzipped (n.a's leaves, then
// n.b's), recursively.
std::vector<runtime::NdArray> to_ndarrays(const Value& v, const Type& t);
// The leaf types of to_ndarrays, in the same order.
std::vector<Type> leaf_types(const Type& t);
// A seeded random input of a concrete data type, drawn with runtime::fill_random
// (floats uniform in [0, 1), integers in [0, 100), bools fair); idx[n] leaves are
// uniform in [0, n); pair components and the unzipped components of arrays of pairs
// use runtime::derive_seed(seed, 1) and (seed, 2).
Value random_input(const Type& t, uint64_t seed);
// A closed typed entry evaluated on inputs drawn as `run` draws them from `seed`
// (input i from runtime::derive_seed(seed, i)); the rewrite tests and the fuzzers
// compare programs with it.
Value run_on_random_inputs(const Expr& entry, uint64_t seed);

// Compare two data values as --check does: integers, bools, indices exactly; floats
// with |a - b| <= atol + rtol * max(|a|, |b|) (NaNs equal to NaNs, infinities to
// infinities of the same sign). On a mismatch, `where` (if given) receives e.g.
// "element [3][7]: 1.5 vs 1.25" (pairs: "._1", vector lanes: "<2>"). With `bound` (of
// b's program and inputs), floats may differ by its rounding allowance too, unless
// rtol and atol are both 0 (rise/rounding_bound.h).
bool values_close(const Value& a, const Value& b, double rtol, double atol,
                  std::string* where = nullptr, const RoundingBound* bound = nullptr);

}  // namespace risec::rise
