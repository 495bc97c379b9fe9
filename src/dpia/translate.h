// The acceptor translation (accT: write a functional phrase into an acceptor) and
// the continuation translation (conT: compute a readable value and pass it on), as
// in the RISE & Shine paper's Listings 8 and 9. The translation makes no choice of
// its own: loops come from mapSeq/mapPar/..., memory from toMem/let/reductions,
// and views (split, join, transpose, zip, pad, concat, ...) become source or
// destination views, so nothing is copied that the program did not ask for.
#pragma once

#include "dpia/imperative.h"

namespace risec::dpia {

struct Input {
  std::string name;  // the memory variable holding the input
  Type dt;
  std::string display;  // its name in the source program
};

// Translate the entry (functional DPIA: a chain of lambdas over the inputs) into a
// command writing the result into the acceptor variable `output_name`. The inputs
// (the lambdas' parameters, as memory variables) are returned in `inputs`. The
// variables it invents differ from every name of `entry`, from `output_name` and from
// `in_scope` (the names the caller's code also uses: the sizes; dpia/name_supply.h).
CommandP translate(const Phrase& entry, const std::string& output_name, std::vector<Input>* inputs,
                   const std::vector<std::string>& in_scope = {});

}  // namespace risec::dpia
