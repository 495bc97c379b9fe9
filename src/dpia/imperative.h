// Imperative DPIA: commands (assignment, sequencing, allocation, loops) over
// acceptors (where to write: memory seen through destination views) and readable
// expressions (memory seen through source views, scalar computations). This is what
// the acceptor and continuation translations produce and what code generation
// prints; views are still symbolic here and become index expressions only when code
// is generated.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dpia/functional.h"

namespace risec::dpia {

// ---------------------------------------------------------------- expressions
struct Expression;
using ExpressionP = std::shared_ptr<const Expression>;

struct Expression {
  enum Kind {
    Var,     // a memory variable (input, output, temporary) or a scalar local
    Nat,     // a Nat as a value (a loop index, an index literal)
    Lit,     // a scalar literal
    Unary,   // prim: neg, not
    Binary,  // prim: add sub mul div mod lt gt equal
    Select,  // args: cond, a, b
    Cast,    // args: x; dt the target
    Call,    // a math builtin (prim) or a foreign function (foreign, name); args
    // views
    View,  // prim (a row with a read map), explicit nats/funs, args: its value arguments;
           // read through the row's read map (dpia/view_resolution.h)
    // Views resolution cannot express by a read map, each for its reason:
    Idx,        // args: x; idx (the index is a value argument, not an explicit Nat)
    MkPair,     // args: a, b (pairs are projections, not views of an argument)
    Fst,        // args: x
    Snd,        // args: x
    Generate,   // var, body (args[0]); an array whose element i is body[var := i]
    MapView,    // var, body (args[0]), input args[1]: element i is body[var := input[i]]
    AsVector,   // args: x; n = lanes; aligned (a whole element is a vector load)
    Broadcast,  // args: x (scalar) -> vector of dt's lanes
    Gather,     // args: indices, x (a data-dependent index, read from memory)
    MkArray,    // args: elements
  } kind;
  Type dt;                                          // the data type of the expression
  std::string name;                                 // Var, foreign Call, Generate/MapView variable
  arith::Nat idx;                                   // Idx index, Nat value
  arith::Nat n;                                     // AsVector lanes
  bool aligned = false;                             // AsVector
  Span span;                                        // AsVector: the primitive written
  rise::Literal lit;                                // Lit
  std::shared_ptr<const rise::ForeignFun> foreign;  // Call of a foreign function
  const rise::PrimitiveInfo* prim = nullptr;        // View, Unary, Binary, builtin Call
  std::vector<arith::Nat> nats;                     // View: explicit Nat arguments, in order
  std::vector<rise::NatFun> funs;                   // View: explicit Nat2Nat arguments
  std::vector<ExpressionP> args;
};

// ---------------------------------------------------------------- acceptors
struct Acceptor;
using AcceptorP = std::shared_ptr<const Acceptor>;

struct Acceptor {
  enum Kind {
    Var,  // a memory variable
    Idx,  // element idx of inner
    // Value argument `input` of the writable view `prim` (explicit nats/funs, value
    // argument types `inputs`), when the view's result is written into `inner`:
    // resolved through the row's write map (dpia/view_resolution.h).
    View,
    Pair1,  // the first component of a pair acceptor (pairs are projections)
    Pair2,
    // Write m.vec[t,n] into an (m*n).t acceptor (n = lanes): the destination of
    // asScalar, kept apart because a whole element is a vector store.
    AsVector,
    // Write an n.s array whose element i goes through the view acceptor `tmpl`
    // (built around a Hole) into element i of the n.t acceptor `inner`: the
    // destination of map(f)(x) for a view function f (map(transpose), map(join), ...).
    // Indexing instantiates the template (ac_idx), so it is rarely seen unindexed.
    MapView,
    Hole,  // the element acceptor in a MapView template
    // Write an n.t array whose element i lands at inner[indices[i]] (scatter): a
    // data-dependent index, read from the n.idx[m] expression `indices`.
    Scatter,
  } kind;
  Type dt;  // the data type written through this acceptor
  std::string name;
  arith::Nat idx, n;
  AcceptorP inner;
  AcceptorP tmpl;  // MapView: the element's acceptor, with a Hole for inner[i]
  const rise::PrimitiveInfo* prim = nullptr;  // View
  int input = 0;                              // View
  std::vector<arith::Nat> nats;               // View
  std::vector<rise::NatFun> funs;             // View
  std::vector<Type> inputs;                   // View
  std::shared_ptr<const Expression> indices;  // Scatter
};

// A MapView template with `element` in place of its Hole.
AcceptorP ac_instantiate(const AcceptorP& tmpl, const AcceptorP& element);

// ---------------------------------------------------------------- commands
struct Command;
using CommandP = std::shared_ptr<const Command>;
struct Distribution;  // dpia/distribute.h

// Where an allocation lives (decided by dpia/memory_placement.h before printing).
enum class Placement {
  Unplaced,  // not decided yet (or not an array)
  Stack,     // a local array of constant size
  Heap,      // allocated and freed around the body
};

struct Command {
  enum Kind {
    Skip,
    Seq,              // body: a list
    Assign,           // acc := exp (scalar or vector data)
    For,              // for var in [0, n): body (loop kind)
    New,              // new var: dt in space; body
    NewDoubleBuffer,  // two buffers of `n` elements of dt; var names the pair;
                      // exp: the input (memory), acc: the output (memory);
                      // body: reads var_in, writes var_out, and uses Swap/Done
    Swap,             // var: the double buffer: next iteration reads what was written
    Done,             // var: the double buffer: the next iteration writes the output
    If,               // cond ? body[0] : body[1]; with exp set, the run-time bool exp
                      // decides instead (a select whose branches need commands)
    Comment,
    Call,   // an expression statement (unused so far)
    Block,  // body[0] in a scope of its own: names it declares are not seen after it
            // (an unrolled copy of a loop body, see dpia/unroll.h)
    Break,  // leave the innermost enclosing For, which has `exits` set (iterateWhile)
  } kind;
  std::vector<CommandP> body;  // Seq: items; For/New: {body}
  AcceptorP acc;               // Assign
  ExpressionP exp;             // Assign
  std::string var;             // For/New variable
  arith::Nat n;                // For: trip count
  // NewDoubleBuffer: the number of steps of the loop in its body (iterate's k), which
  // decides where the first step writes (the output when it is the only one) even
  // after a pass unrolled a loop of one step.
  arith::Nat iterations;
  LoopKind loop = LoopKind::Seq;
  // For: the body may leave the loop early (a Break in it, not inside a nested For), so
  // the loop is never unrolled, split or interchanged: it runs as written.
  bool exits = false;
  int dim = 0;  // For over a GPU level (Global, WorkGroup, Local): the dimension (0, 1, 2)
  Type dt;      // New
  Space space = Space::Default;
  Placement placement = Placement::Unplaced;  // New, NewDoubleBuffer (array buffers)
  std::string text;                           // Comment
  arith::Cond cond;                           // If
  // For (parallel reductions): the loop accumulates into `reduction_var` with the
  // associative and commutative primitive `reduction` (add, mul, fmin, fmax); null for
  // other loops.
  const rise::PrimitiveInfo* reduction = nullptr;
  std::string reduction_var;
  // New: a private array distributed over the work items of a group (dt is one work
  // item's part; dpia/distribute.h); null for others.
  std::shared_ptr<const Distribution> distribution;
  // New: a read-only table of constants (an array literal of many scalars, such as
  // --bind data), its scalars in row-major order; the body only reads it. Printed as a
  // static constant array (C: `static const float NAME[] = {...}`; OpenCL
  // `__constant`), not as one store per element. Null for other variables.
  std::shared_ptr<const std::vector<rise::Literal>> table;
  // For over a parallel kind (Par, Global, WorkGroup, Local): the primitive that made
  // the loop parallel (mapPar, mapGlobal, reducePar, ...) and where it is in the
  // program, for the disjoint-writes check's errors (dpia/disjoint_check.h); New: the
  // reduction whose accumulator it is. Null and unknown for what the translation
  // builds itself.
  const rise::PrimitiveInfo* origin = nullptr;
  Span span;
  std::string source;  // New of a let: the name the let binds in the source (at `span`)
  Span step;           // the strategy step that introduced the primitive, when known
  // For over LoopKind::Par: the OpenMP schedule of its mapPar/reducePar (printed as
  // the pragma's schedule clause; the default for every other loop).
  rise::ParSchedule schedule;
  // For over a sequential loop (a reduceSeq the rule prefetch marked): each iteration
  // prefetches the streams its body reads, this many bytes ahead (printed by the CPU
  // printers, codegen/c/prefetch.cpp); 0 for every other loop.
  int64_t prefetch = 0;
};

using rise::is_gpu_loop;  // the loop kinds of the GPU's thread hierarchy

// ---- constructors ----
ExpressionP ex_var(const std::string& name, Type dt);
ExpressionP ex_nat(arith::Nat v, Type dt);
ExpressionP ex_make(Expression e);
AcceptorP ac_var(const std::string& name, Type dt);
AcceptorP ac_make(Acceptor a);
// The destination of scatter(indices)(x) written into `inner`: x's element i lands at
// inner[indices[i]].
AcceptorP ac_scatter(const AcceptorP& inner, ExpressionP indices, Type x_type);
CommandP cm_seq(std::vector<CommandP> items);
CommandP cm_assign(AcceptorP a, ExpressionP e);
CommandP cm_for(const std::string& var, arith::Nat n, LoopKind kind, CommandP body, int dim = 0);
// `source` and `span`: a let's variable as written and where (errors about it name it)
CommandP cm_new(const std::string& var, Type dt, Space space, CommandP body,
                std::string source = {}, Span span = {});
// new var: dt holding the constants `table` (Command::table); body reads it
CommandP cm_new_table(const std::string& var, Type dt,
                      std::shared_ptr<const std::vector<rise::Literal>> table, CommandP body);
CommandP cm_comment(const std::string& text);
// A sequential loop of at most n iterations whose body may leave it with cm_break().
CommandP cm_for_exiting(const std::string& var, arith::Nat n, CommandP body);
CommandP cm_break();
CommandP cm_if(arith::Cond cond, CommandP then, CommandP orelse);
// A conditional on the run-time value `cond` (a scalar bool): only the branch taken runs.
CommandP cm_if(ExpressionP cond, CommandP then, CommandP orelse);
// The names under which a double buffer's current input and output are visible.
std::string double_buffer_in(const std::string& var);
std::string double_buffer_out(const std::string& var);

// Views on expressions and acceptors, with their result types.
ExpressionP ex_idx(const ExpressionP& x, arith::Nat i);
ExpressionP ex_fst(const ExpressionP& x);
ExpressionP ex_snd(const ExpressionP& x);
AcceptorP ac_idx(const AcceptorP& a, arith::Nat i);
// A view of value arguments `args` by the primitive `prim` (a row with a read map).
ExpressionP ex_view(const rise::PrimitiveInfo& prim, Type dt, std::vector<arith::Nat> nats,
                    std::vector<rise::NatFun> funs, std::vector<ExpressionP> args);
// Value argument `input` (of type inputs[input]) of the writable view `prim` whose
// result is written into `inner`.
AcceptorP ac_view(const rise::PrimitiveInfo& prim, int input, std::vector<Type> inputs,
                  std::vector<arith::Nat> nats, std::vector<rise::NatFun> funs,
                  const AcceptorP& inner);

// Print imperative DPIA (for debugging and tests).
std::string print(const CommandP& c, int indent = 0);
// The same, each loop made by a primitive of the source followed by `// at FILE:L:C`.
std::string print_located(const CommandP& c);
std::string print(const ExpressionP& e);
std::string print(const AcceptorP& a);

// Type-check an imperative program: assignments write scalar or vector data of
// the acceptor's type; views are applied to arrays of the right shape. Throws an
// internal error on violation (the translation produced something inconsistent).
void check(const CommandP& c);

}  // namespace risec::dpia
