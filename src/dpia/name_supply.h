// Names that risec invents (loop counters, temporaries, accumulators, the parts of a
// split loop, ...) come from one NameSupply per generated function. The supply is
// first told every name already in scope: the user's parameters, sizes and binders
// (reserve_names walks a RISE term, a functional or an imperative DPIA program), and
// the names the generated code itself uses for its interface; `fresh` then hands out
// names that differ from all of them and from each other. Generated code therefore
// never shadows a user's name (an input named `tmp2`, a size named `i1`) nor declares
// one name twice, by construction (docs/architecture.md, "Names").
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "dpia/functional.h"
#include "dpia/imperative.h"

namespace risec::dpia {

class NameSupply {
 public:
  // `name` is in scope: fresh and claim never return it.
  void reserve(const std::string& name) { taken_.insert(name); }
  bool taken(const std::string& name) const { return taken_.count(name) > 0; }
  // `base` followed by a number, not taken, and such that the name followed by each
  // of `suffixes` is not taken either (names derived from it: a double buffer's
  // `_in` and `_out`); reserves the name and the derived ones.
  std::string fresh(const std::string& base, const std::vector<std::string>& suffixes = {});
  // `name` itself when it is free, else fresh(name + "_"); reserved either way.
  std::string claim(const std::string& name);

 private:
  std::unordered_set<std::string> taken_;
  int counter_ = 0;
};

// Reserve every name a program mentions: binders, variables, size variables (free in
// types and Nat arguments), and source names (a lambda's display name).
void reserve_names(NameSupply& s, const rise::Expr& e);
void reserve_names(NameSupply& s, const Phrase& p);
void reserve_names(NameSupply& s, const CommandP& c);

}  // namespace risec::dpia
