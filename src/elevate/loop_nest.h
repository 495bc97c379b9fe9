// The loop-nest model of the tiling rules (rules_tiling.cpp): tile (for the nests
// the composed rules of tile_composed.cpp do not cover), reorder and the loop
// interchanges read the term at the location as a model, change the model and emit
// it again as a term. Moving a reduction across maps or another reduction threads an
// accumulator through the nest, which no composition of the map rules expresses.
//
//   levels   the maps and reductions nested directly in one another, outermost
//            first. A map level is map(fun(x => body))(data); a reduction level is
//            reduce/reduceSeq(fun(acc, y => body))(init)(data) whose body is the next
//            level with the accumulator threaded through: either the next reduction
//            starts from `acc`, or the next map runs over zip(acc)(data') (an array
//            accumulator), or the body is op(acc)(reduction from the neutral element)
//            for an associative op (the blockedReduce form), which is the same.
//   leaves   every array the levels iterate over, as a view of an expression that
//            does not depend on the nest (split/join/transpose and maps of them are
//            lifted out of the loops: split(4)(a), with a = X[i][j], is the view
//            map(map(split(4)))(X) indexed by [i][j]). Each leaf records which levels
//            index which of its dimensions.
//   core     what the innermost level computes, with the leaf elements and the
//            accumulator as variables.
//
// A rewrite changes the model (split a level into two: tiling; swap two adjacent
// levels: interchange) and emits it again as a term: every level iterates over the
// zip of the leaves it indexes (transposed so that their dimensions come in loop
// order), maps inside a reduction carry their slice of the accumulator (zip(acc)(..)),
// the first reduction starts from generate(..(init)) over the maps inside it (or,
// when its initial value is an array, from that array, read like a leaf by the maps
// outside it), and the result is transposed/joined back into the original shape.
// All of these are views, so nothing is copied. A nest may also carry an incoming
// accumulator (its first map runs over zip(acc)(..) inside a reduction's body): the
// local interchange rules then work inside the reduction.
// Interchanges are semantics-preserving as follows:
//   map-map         always (the output is transposed back);
//   map-reduction   always: a reduction moved outside maps carries an array
//                   accumulator, map(fun(i => reduce(op)(init)(xs_i))) ==
//                   reduceSeq(fun(acc, row => map(op)(zip(acc)(row))))(generate(init))
//                   (transpose(xs));
//   reduction-reduction  only when the innermost computation is acc ⊕ h with ⊕ one
//                   of add, mul, fmin, fmax (associative and commutative; on floats
//                   the sum is reassociated, which changes rounding).
// reorder(perm) is the composition of such adjacent interchanges (a bubble sort of
// the levels), each checked, performed on the model and emitted once; the three
// interchange rules are the same step on the two outermost levels at a location.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "elevate/rule_util.h"
#include "elevate/strategy.h"

namespace risec::elevate::loop_nest {

using rise::Nat;
using rise::PrimId;

// ---------------------------------------------------------------- operators

// An associative and commutative operator of the primitive table (add, mul, fmin,
// fmax) given as the primitive or a lambda eta-equal to it.
std::optional<PrimId> known_op(const Expr& op);
// The neutral element of `op` (the table's), as messages write it.
std::string neutral_text(PrimId op);
// Whether `init` is a literal holding the neutral element of `op`.
bool is_neutral(PrimId op, const Expr& init);

// reduce or reduceSeq.
bool is_fold(const util::PrimCall& c);
// reduce/reduceSeq(op)(init)(x): {which, op, init, x}
struct Fold {
  PrimId prim;
  Expr op, init, data;
};
std::optional<Fold> match_fold(const Expr& e);

// ---------------------------------------------------------------- the model

// What a variable of the nest denotes (loop_nest.cpp).
struct DNode;
using DT = std::shared_ptr<const DNode>;

struct Dim {
  bool fold = false;
  Nat size;
  std::string hint;
  DT consumed;  // the level's element (to find a leaf indexed by it)
};

struct LeafRec {
  Expr root;
  std::vector<int> dims;
  std::string var;  // the core's variable for the leaf's element
};

struct Model {
  std::vector<Dim> dims;   // by id
  std::vector<int> order;  // loop order, outermost first
  std::vector<LeafRec> leaves;
  std::string acc_var;  // the core's accumulator variable
  bool has_fold = false;
  // The first reduction's initial value (when !acc_in): a scalar broadcast over the
  // maps inside the reduction (generate(fun(i => ..init..)) peeled off), or, when it
  // is not such a broadcast, an array indexed by those maps (init_dims), which is
  // then read like a leaf by maps moved outside the reduction.
  Expr init;
  bool init_scalar = true;
  std::vector<int> init_dims;
  // An accumulator coming from outside: the first map runs over zip(acc_root)(..)
  // and every map level carries its slice of it.
  bool acc_in = false;
  Expr acc_root;
  std::vector<int> acc_dims;
  std::vector<PrimId> b_ops;  // operators of op(acc)(reduce from neutral) levels
  Expr core;
  std::vector<std::vector<int>> out_groups;  // original output dims -> current ones

  int depth() const { return static_cast<int>(order.size()); }
};

// The model of the nest at e with at most max_depth levels (the deepest found); with
// allow_acc_in, a nest may carry an incoming accumulator.
std::optional<Model> analyze(const Expr& e, int max_depth, bool allow_acc_in = true);
// Split level `id` (of size N) into an outer level of N/n and an inner level of n.
void split_dim(Model& m, int id, int64_t n);
// Why levels j and j+1 (loop positions) cannot be interchanged, if they cannot.
std::optional<std::string> cannot_swap(const Model& m, size_t j);
// The model emitted as a term (a failure of `rule_name` at `where` when it cannot be).
Result emit(const std::string& rule_name, const Model& m, const Expr& where);
// The kinds (map, reduce) of n levels from loop position `from`, for messages.
std::string kinds(const Model& m, size_t from, size_t n);

}  // namespace risec::elevate::loop_nest
