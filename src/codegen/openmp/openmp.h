// The OpenMP target's part of code generation: which clauses a parallel loop gets.
// The OpenMP printer (openmp_printer.h, which extends the C printer) calls these to
// turn a `mapPar` loop into `#pragma omp parallel for` (with `collapse(2)`
// over a perfect nest of two parallel loops) and a `reducePar` loop into one with a
// `reduction` clause, either with a `schedule` clause where a strategy chose one
// (ompSchedule). Loop bodies are outlined into functions with `restrict`
// parameters by that printer; nested parallel loops run sequentially there.
#pragma once

#include <string>

#include "dpia/imperative.h"

namespace risec::codegen::openmp {

// The reduction clause for a parallel loop accumulating `c_var` (of data type `dt`)
// with the primitive `op` (add, mul, fmin, fmax). Scalars use OpenMP's operators; vectors (GCC
// vector types, which have no built-in reduction) a declared reduction named `id`,
// whose `#pragma omp declare reduction` line is `declaration` (empty for scalars).
// `vector_c_type` is the C type of a vector accumulator; `min_max_helper` (for
// fmin/fmax of a float scalar) the C printer's helper computing them as the
// interpreter does, which a declared reduction combines partial results with (NaN
// operands ignored, NaN the identity). Throws risec::Error (User) for accumulators
// OpenMP cannot reduce (arrays, pairs, fmin/fmax on vectors).
struct Reduction {
  std::string clause;
  std::string id;
  std::string declaration;
};
Reduction reduction(const rise::PrimitiveInfo& op, const std::string& c_var, const rise::Type& dt,
                    const std::string& vector_c_type, const std::string& min_max_helper = "");

// Whether the parallel loop `outer` and its body form a perfect nest of two parallel
// loops without reductions, which `collapse(2)` runs as one iteration space, and the
// outer loop has no schedule: a schedule's chunk counts the loop's own iterations, which
// for the outer loop are rows, not the collapsed space's elements. The inner loop's
// schedule is the collapsed nest's (its iterations are the inner loop's, row after row).
bool collapsible(const dpia::Command& outer);

// " schedule(dynamic, 4)" for a loop ompSchedule gave a schedule; "" for the default
// (no clause: the OpenMP runtime's own, static in GCC's). `count` is the loop's (or
// collapsed nest's) iteration count and `trips` its C expression: a static chunk above it is
// printed as the count (the same schedule: the first thread runs every iteration),
// because GCC computes a static chunk's start as (round * threads + thread) * chunk in
// the loop's int type, which overflows for chunks near 2^31 / threads (a chunk of 2^27
// on 16 threads crashed a 5-iteration loop).
std::string schedule_clause(const rise::ParSchedule& s, const arith::Nat& count,
                            const std::string& trips);

// The pragma text (without `#pragma `) of a parallel loop with `clause` ("" or
// " reduction(...)" / " collapse(2)", followed by the schedule clause if any).
std::string parallel_for(const std::string& clause);

}  // namespace risec::codegen::openmp
