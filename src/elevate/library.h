// The strategy library: every named strategy a `.elv` file (or the C++ API) can
// use — combinators, traversals, predicates, normal forms and rewrite rules — with
// its parameters and a one-line description (`risec rules` lists the rules).
// Each rule family registers itself from its own file (rules_*.cpp).
#pragma once

#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "elevate/strategy.h"

namespace risec::elevate {

enum class ParamKind { Strategy, Nat, IntList, Addr, Name };

using Arg = std::variant<Strategy, int64_t, std::vector<int64_t>, rise::AddrSpace, std::string>;

enum class EntryClass { Combinator, Traversal, Predicate, NormalForm, Rule };

struct LibraryEntry {
  std::string name;
  std::vector<std::string> aliases;
  std::vector<ParamKind> params;  // in call order: tile(32, 32) has {Nat, Nat}
  std::string description;
  EntryClass cls = EntryClass::Rule;
  std::string family;  // for rules: algorithmic, movement, tiling, lowering, vector, memory
  std::function<Strategy(const std::vector<Arg>&)> make;
};

// All entries (built on first use).
const std::vector<LibraryEntry>& library();
const LibraryEntry* find_entry(const std::string& name);  // by name or alias

// Build a library strategy by name with arguments; throws risec::Error (User) when
// the name is unknown or the arguments do not fit.
Strategy make_strategy(const std::string& name, const std::vector<Arg>& args = {});

// A rule of `family` that takes no arguments and always builds the strategy `s`.
LibraryEntry fixed_rule(const std::string& family, const std::string& name,
                        const std::string& description, Strategy s);

// Registration, called once per family while the library is built.
class Registry {
 public:
  void add(LibraryEntry e) { entries_.push_back(std::move(e)); }
  std::vector<LibraryEntry>& entries() { return entries_; }

 private:
  std::vector<LibraryEntry> entries_;
};

void register_core(Registry& r);          // combinators, traversals, predicates (library.cpp)
void register_normal_forms(Registry& r);  // normal_forms.cpp
void register_algorithmic(Registry& r);   // rules_algorithmic.cpp
void register_movement(Registry& r);      // rules_movement.cpp
void register_lowering(Registry& r);      // rules_lowering.cpp (incl. memory rules)
void register_tiling(Registry& r);    // rules_tiling.cpp (tile, tileND, reorder, blocked reduce)
void register_vector(Registry& r);    // rules_vector.cpp
void register_simplify(Registry& r);  // simplify.cpp (partialEval, dce, cse, simplify)
void register_default_lowering(Registry& r);  // default_lowering.cpp (unrollReductions)
void register_pipeline(Registry& r);          // rules_pipeline.cpp (zipMapFusion, parallelStages)

// Argument accessors for `make` functions.
Strategy arg_strategy(const std::vector<Arg>& a, size_t i);
int64_t arg_nat(const std::vector<Arg>& a, size_t i);
const std::vector<int64_t>& arg_list(const std::vector<Arg>& a, size_t i);
rise::AddrSpace arg_addr(const std::vector<Arg>& a, size_t i);
const std::string& arg_name(const std::vector<Arg>& a, size_t i);

}  // namespace risec::elevate
