// A generator of well-typed RISE programs driven by fuzzer bytes, for the pipeline
// fuzz target: every byte string gives a program that must parse and type-check, so
// that the fuzzer explores the compiler behind the checker (strategies, DPIA, C
// printing) instead of the parser's error paths.
//
// Programs have one size parameter n, two array inputs and a scalar input, and a
// body built from maps, reductions, zips, splits, joins, transposes, slides, pads,
// takes, drops, reverses, lets and scalar arithmetic. Every array extent is a*n + b
// with a >= 0 and a + b >= 1, so each is positive for every n >= 1.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <string>

namespace risec::fuzz {

// The text of one `def`, named `generated`.
std::string generate_program(FuzzedDataProvider& in);

// A pair-heavy program (fuzz/pair_program_gen.cpp), also a `def` named `generated`,
// with sizes n and k and inputs x, y: n.f32, ps: n.(f32, f32), alpha: f32: a map over
// an array of scalars or pairs whose function builds values of scalars and pairs
// through sequential reductions with such states (nested, Mandelbrot-like selects
// of the whole state), lets of pairs and projections; after it, now and then, a map
// of its pairs, a zip of them with an input, or a reduction with a pair state.
std::string generate_pair_program(FuzzedDataProvider& in);

}  // namespace risec::fuzz
