// Functional DPIA: the low-level RISE program with every primitive fully applied
// (partial applications eta-expanded) and every expression given a phrase type
// exp[dt, rd|wr]. The read/write annotation says whether a value can be read where
// it is (rd: an input, a view of one, a scalar computation, or something stored in
// memory) or must first be written somewhere (wr: the result of mapSeq, mapPar,
// scanSeq, iterate, ...). Inference checks that every choice has been made: a wr
// value that is read (a computed array consumed by another computation) without a
// toMem is rejected, with the location where a toMem is needed (the RISE & Shine
// paper's Listing 5), and high-level reduce is rejected as not lowered.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rise/expr.h"
#include "rise/primitives.h"

namespace risec::dpia {

using rise::Nat;
using rise::Type;

enum class Access { Rd, Wr };
const char* access_name(Access a);

// The phrase types of DPIA.
struct PhraseType;
using PType = std::shared_ptr<const PhraseType>;
struct PhraseType {
  enum Kind { Exp, Acc, Comm, Fun, Pair } kind;
  Type dt;                     // Exp, Acc
  Access access = Access::Rd;  // Exp
  PType a, b;                  // Fun: a -> b; Pair: (a, b)
};
PType exp_t(Type dt, Access a);
PType acc_t(Type dt);
PType comm_t();
PType fun_t(PType a, PType b);
std::string print(const PType& t);

// Kinds of loops: declared with the primitives that produce them (rise/primitives.h).
using rise::LoopKind;
const char* loop_kind_name(LoopKind k);

// Where a temporary lives. `Default` is the C target's choice (stack when small
// and static, heap otherwise).
enum class Space { Default, Global, Local, Private, Constant };
const char* space_name(Space s);
// DPIA's space for a RISE address space (oclToMem(a), oclReduceSeq(a)).
Space to_space(rise::AddrSpace a);

struct PhraseNode;
using Phrase = std::shared_ptr<const PhraseNode>;

struct PhraseNode {
  enum Kind {
    Var,        // a lambda-bound variable (or an input)
    Lambda,     // fun(name => body)
    DepLambda,  // depFun(name => body) (only as iterate's step function)
    Prim,       // a fully applied primitive
    Literal,
    Foreign,  // a fully applied foreign function call
  } kind;
  Span span;
  Type type;                         // data type (Exp) or function type (Lambda)
  PType ptype;                       // the phrase type
  std::string name;                  // Var; Lambda/DepLambda binder (unique); Prim name
  std::string display;               // Lambda: the binder's name in the source
  std::vector<rise::TypeArg> targs;  // Prim: explicit type-level arguments, in order
  std::vector<Phrase> args;          // Prim/Foreign: value arguments; Lambda/DepLambda: {body}
  const rise::PrimitiveInfo* prim = nullptr;
  int count = 0;  // makeArray
  rise::Literal lit;
  std::shared_ptr<const rise::ForeignFun> foreign;
  Span head_span;              // Prim: the primitive's name (where errors about it point)
  Span step;                   // Prim: the strategy step that introduced it (rise::ExprNode::step)
  rise::ParSchedule schedule;  // Prim mapPar/reducePar: its OpenMP schedule
  int64_t prefetch = 0;        // Prim reduceSeq: its loop's prefetch distance in bytes

  Access access() const {
    return ptype && ptype->kind == PhraseType::Exp ? ptype->access : Access::Rd;
  }
  const Phrase& body() const { return args[0]; }
};

struct Target;  // dpia/target.h: which loop kinds the target runs

// Translate a typed, low-level RISE term (the body of the entry, under its input
// lambdas) into functional DPIA, inferring access annotations. `inputs` are the
// names of the entry's parameters (readable). Throws risec::Error (User) located at
// the offending term.
Phrase from_rise(const rise::Expr& e, const Target& target);

// Check the phrase types of a functional DPIA term (an internal consistency check;
// throws an internal error on violation).
void check(const Phrase& f);

}  // namespace risec::dpia
