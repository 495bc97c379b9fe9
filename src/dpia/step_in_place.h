// An array accumulator updated in place (reduceSeq, scanSeq: the step writes the
// accumulator's memory while reading it) is right only where the step writes each
// element from the same element of the old accumulator (zip(acc)(x) |> map(f), nested
// alike for arrays of arrays), never where it reads another one (acc[0], a stencil of
// acc, reverse(acc), a sum of acc: held-out finding F1, a step reading acc[0] after
// writing it). Decided on the step's phrase, conservatively: dpia/translate.cpp gives
// any other step a temporary, copied back after each step.
#pragma once

#include "dpia/functional.h"
#include "dpia/imperative.h"

namespace risec::dpia {

// Whether type t holds an array (a pair holding one included).
bool type_holds_array(const rise::Type& t);

// Whether the step function `op` of a reduction (its accumulator the first parameter,
// `acc_first`) or a scan (the second) may write its array accumulator in place.
bool step_in_place(const Phrase& op, bool acc_first);

// A looser test, for a CPU register block's accumulator (register_block.h, whose steps
// are the strategies' block products, read through splits, zips and vectors): whether
// the step may read it out of order (an index into it, a transposed, reversed,
// shifted or padded view of it, a reduction over it).
bool step_reads_out_of_order(const Phrase& op, bool acc_first);

// For a reduction `e` whose accumulator a strategy placed in private or local memory
// (`space`, for the message): whether it gets a temporary (in that memory) for each
// step's result: where its step may read it out of order. One distributed over a
// group's work items (its step writes through GPU loops; docs/targets.md,
// "Distributed accumulators") cannot get one: then a User error, located at e.
bool placed_step_needs_next(const Phrase& e, const std::string& space);

// Whether expressions a and b name the same memory location, projections through
// zips and pairs taken out (fst(zip(a, b)[i]) is a[i]): a nested reduction whose
// initial value is its destination continues its parent's accumulator.
bool same_memory(const ExpressionP& a, const ExpressionP& b);

}  // namespace risec::dpia
