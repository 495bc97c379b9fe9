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

// The families `risec rules` and docs/rules.md group the rules by.
enum class RuleFamily {
  NormalForm,
  Algorithmic,
  Movement,
  Tiling,
  Lowering,
  Memory,
  Vector,
  Simplify
};
const char* family_name(RuleFamily f);  // "normal form", "algorithmic", ...

using Args = std::vector<Arg>;
using MakeStrategy = std::function<Strategy(const Args&)>;

struct LibraryEntry {
  std::string name;
  std::vector<std::string> aliases;
  std::vector<ParamKind> params;  // in call order: tile(32, 32) has {Nat, Nat}
  size_t optional = 0;            // how many of the last params a call may leave out
  std::string description;
  EntryClass cls = EntryClass::Rule;
  RuleFamily family = RuleFamily::Algorithmic;  // rules and normal forms only
  MakeStrategy make;
  // Whether a call with `n` arguments fits; "2 argument(s)" or "1 or 2 argument(s)".
  bool takes(size_t n) const { return n <= params.size() && n + optional >= params.size(); }
  std::string arity() const;
};

// ------------------------------------------------------------------ declaring a rule
// Every rule (and normal form) of the library is declared in this one form, in the
// register_* function of its family's file:
//
//   r.rule({"splitJoin", RuleFamily::Algorithmic,
//           "map(f) -> split(n) >> map(map(f)) >> join; fails when n cannot divide ..",
//           {ParamKind::Nat}, [](const Args& a) { return split_join(arg_nat(a, 0)); }});
//   r.rule({"idAfter", RuleFamily::Algorithmic, "x -> id(x) for data x", {}, fixed(id_after())});
//
//   name     what .elv files call it
//   family   where `risec rules` and docs/rules.md list it
//   rewrite  what it rewrites, as `lhs -> rhs` text followed by its conditions (in words
//            for a pass over the whole term); `risec rules` prints it and docs/rules.md
//            is generated from it (scripts/rules_doc.sh; a test checks they agree)
//   params   the kinds of its arguments, in call order ({} for none)
//   make     builds the strategy from the arguments; fixed(s) for a rule without any
//   aliases  other names it answers to (optional)
//   optional how many of the last params a call may leave out (`make` gets fewer
//            arguments then; optional, 0 by default)
struct RuleDecl {
  std::string name;
  RuleFamily family;
  std::string rewrite;
  std::vector<ParamKind> params;
  MakeStrategy make;
  std::vector<std::string> aliases = {};
  size_t optional = 0;
};

// `make` of a rule without arguments that always builds the strategy `s`.
MakeStrategy fixed(Strategy s);

// All entries (built on first use).
const std::vector<LibraryEntry>& library();
const LibraryEntry* find_entry(const std::string& name);  // by name or alias

// `risec rules`: every entry with its call form and description, grouped (combinators,
// traversals, predicates, normal forms, then the rules by family); docs/rules.md holds it.
std::string library_listing();

// Build a library strategy by name with arguments; throws risec::Error (User) when
// the name is unknown or the arguments do not fit.
Strategy make_strategy(const std::string& name, const std::vector<Arg>& args = {});
// Throws risec::Error (User) unless each argument is of the kind its parameter takes
// ("argument 1 of 'isApplied' must be a strategy, not a number"); make_strategy and the
// .elv parser call it before an entry's `make`, which assumes the kinds.
void check_argument_kinds(const LibraryEntry& e, const std::vector<Arg>& args);

// Registration, called once per family while the library is built.
class Registry {
 public:
  void rule(RuleDecl d) { add(std::move(d), EntryClass::Rule); }
  void normal_form(RuleDecl d) { add(std::move(d), EntryClass::NormalForm); }
  void add(LibraryEntry e) { entries_.push_back(std::move(e)); }  // the core's entries
  std::vector<LibraryEntry>& entries() { return entries_; }

 private:
  void add(RuleDecl d, EntryClass cls);
  std::vector<LibraryEntry> entries_;
};

void register_core(Registry& r);          // combinators, traversals, predicates (library.cpp)
void register_normal_forms(Registry& r);  // normal_forms.cpp
void register_algorithmic(Registry& r);   // rules_algorithmic.cpp
void register_movement(Registry& r);      // rules_movement.cpp
void register_lowering(Registry& r);      // rules_lowering.cpp (incl. memory rules)
void register_tiling(Registry& r);    // rules_tiling.cpp (tile, tileND, reorder, blocked reduce)
void register_product(Registry& r);   // rules_product.cpp (isProductNest, productEpilogueFission)
void register_vector(Registry& r);    // rules_vector.cpp
void register_simplify(Registry& r);  // simplify.cpp (partialEval, dce, cse, simplify)
void register_default_lowering(Registry& r);  // default_lowering.cpp (unrollReductions)
void register_pipeline(Registry& r);          // rules_pipeline.cpp (zipMapFusion, parallelStages)
void register_reciprocal(Registry& r);        // rules_reciprocal.cpp (reciprocalDivision)

// Argument accessors for `make` functions.
Strategy arg_strategy(const std::vector<Arg>& a, size_t i);
int64_t arg_nat(const std::vector<Arg>& a, size_t i);
const std::vector<int64_t>& arg_list(const std::vector<Arg>& a, size_t i);
rise::AddrSpace arg_addr(const std::vector<Arg>& a, size_t i);
const std::string& arg_name(const std::vector<Arg>& a, size_t i);

}  // namespace risec::elevate
