// The strategy library's index and the core entries (combinators, traversals and
// predicates); rule families register themselves from rules_*.cpp.
#include "elevate/library.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <mutex>

#include "rise/primitives.h"
#include "support/diagnostics.h"

namespace risec::elevate {

namespace {

LibraryEntry core(const std::string& name, std::vector<ParamKind> params,
                  const std::string& description, EntryClass cls, MakeStrategy make) {
  LibraryEntry e;
  e.name = name;
  e.params = std::move(params);
  e.description = description;
  e.cls = cls;
  e.make = std::move(make);
  return e;
}

using P = ParamKind;
using C = EntryClass;

}  // namespace

Strategy arg_strategy(const std::vector<Arg>& a, size_t i) {
  return std::get<Strategy>(a.at(i));
}
int64_t arg_nat(const std::vector<Arg>& a, size_t i) {
  return std::get<int64_t>(a.at(i));
}
const std::vector<int64_t>& arg_list(const std::vector<Arg>& a, size_t i) {
  return std::get<std::vector<int64_t>>(a.at(i));
}
const std::string& arg_name(const std::vector<Arg>& a, size_t i) {
  return std::get<std::string>(a.at(i));
}
rise::AddrSpace arg_addr(const std::vector<Arg>& a, size_t i) {
  return std::get<rise::AddrSpace>(a.at(i));
}

void register_core(Registry& r) {
  auto s0 = [](const std::vector<Arg>& a) { return arg_strategy(a, 0); };
  r.add(core("id", {}, "succeeds, unchanged", C::Combinator, [](auto&) { return id(); }));
  r.add(core("fail", {}, "fails", C::Combinator, [](auto&) { return fail(); }));
  r.add(core("try", {P::Strategy}, "s <+ id", C::Combinator, [=](auto& a) { return try_(s0(a)); }));
  r.add(core("repeat", {P::Strategy}, "apply s until it fails; always succeeds", C::Combinator,
             [=](auto& a) { return repeat(s0(a)); }));
  r.add(core("repeatN", {P::Nat, P::Strategy},
             "s k times, failing where a step fails (fewer once a step changes nothing)",
             C::Combinator, [](auto& a) { return repeat_n(arg_nat(a, 0), arg_strategy(a, 1)); }));
  r.add(core("body", {P::Strategy}, "s on the body of a lambda or dependent lambda", C::Traversal,
             [=](auto& a) { return body(s0(a)); }));
  r.add(core("function", {P::Strategy}, "s on the function of an application", C::Traversal,
             [=](auto& a) { return function(s0(a)); }));
  r.add(core("argument", {P::Strategy}, "s on the argument of an application", C::Traversal,
             [=](auto& a) { return argument(s0(a)); }));
  r.add(core("all", {P::Strategy}, "s on all immediate children", C::Traversal,
             [=](auto& a) { return all(s0(a)); }));
  r.add(core("one", {P::Strategy}, "s on the first immediate child where it succeeds", C::Traversal,
             [=](auto& a) { return one(s0(a)); }));
  r.add(core("some", {P::Strategy}, "s on every immediate child where it succeeds (at least one)",
             C::Traversal, [=](auto& a) { return some(s0(a)); }));
  r.add(core("topDown", {P::Strategy}, "s at the first location, in pre-order, where it succeeds",
             C::Traversal, [=](auto& a) { return top_down(s0(a)); }));
  r.add(core("bottomUp", {P::Strategy}, "s at the first location, in post-order, where it succeeds",
             C::Traversal, [=](auto& a) { return bottom_up(s0(a)); }));
  r.add(core("allTopDown", {P::Strategy},
             "s at the root and then recursively at every child; all must succeed", C::Traversal,
             [=](auto& a) { return all_top_down(s0(a)); }));
  r.add(core("tryAll", {P::Strategy}, "try s at every location (top down); always succeeds",
             C::Traversal, [=](auto& a) { return try_all(s0(a)); }));
  r.add(core("everywhere", {P::Strategy},
             "s at every location where it succeeds, one pass; fails if it succeeded nowhere",
             C::Traversal, [=](auto& a) { return everywhere(s0(a)); }));
  r.add(core("normalize", {P::Strategy}, "repeat(topDown(s)): until s applies nowhere",
             C::Traversal, [=](auto& a) { return normalize(s0(a)); }));
  r.add(core("outermost", {P::Strategy, P::Strategy},
             "outermost(p)(s) = topDown(p ; s): s at the outermost location where p holds",
             C::Traversal,
             [](auto& a) { return outermost(arg_strategy(a, 0), arg_strategy(a, 1)); }));
  r.add(core("innermost", {P::Strategy, P::Strategy},
             "innermost(p)(s) = bottomUp(p ; s): s at the innermost location where p holds",
             C::Traversal,
             [](auto& a) { return innermost(arg_strategy(a, 0), arg_strategy(a, 1)); }));
  r.add(core("isPrimitive", {P::Name},
             "isPrimitive(name): the primitive of that name (with its dependent arguments)",
             C::Predicate, [](auto& a) {
               // held-out K: isPrimitive(mapp) matched nothing, silently under try
               const std::string& name = arg_name(a, 0);
               if (!rise::find_primitive(name)) {
                 std::string near = nearest_name(name, rise::primitive_names());
                 user_error("isPrimitive: no primitive is named '" + name + "'" +
                            (near.empty() ? "" : "; did you mean '" + near + "'?"));
               }
               return is_primitive(name);
             }));
  r.add(core("isMap", {}, "the primitive map", C::Predicate, [](auto&) { return is_map(); }));
  r.add(core("isReduce", {}, "the primitive reduce", C::Predicate,
             [](auto&) { return is_reduce(); }));
  r.add(core("isReduceSeq", {}, "the primitive reduceSeq", C::Predicate,
             [](auto&) { return is_reduce_seq(); }));
  r.add(core("isMapSeq", {}, "the primitive mapSeq", C::Predicate,
             [](auto&) { return is_map_seq(); }));
  r.add(core("isTranspose", {}, "the primitive transpose", C::Predicate,
             [](auto&) { return is_transpose(); }));
  r.add(core("isLambda", {}, "a lambda", C::Predicate, [](auto&) { return is_lambda(); }));
  r.add(core("isApplied", {P::Strategy}, "an application whose function satisfies p", C::Predicate,
             [=](auto& a) { return is_applied(s0(a)); }));
  r.add(core("isFullyApplied", {P::Strategy},
             "a primitive satisfying p applied to all its arguments", C::Predicate,
             [=](auto& a) { return is_fully_applied(s0(a)); }));
  r.add(core("mapNest", {P::Nat}, "d maps nested directly (map(fun(x => map(...)(..)))(..))",
             C::Predicate, [](auto& a) { return map_nest(static_cast<int>(arg_nat(a, 0))); }));
  r.add(core("containsComputation", {},
             "the term contains arithmetic, a reduction or a foreign function", C::Predicate,
             [](auto&) { return contains_computation(); }));
  {
    // tunedAt(n, 64, m, 128, ...): up to 8 (name, value) pairs.
    std::vector<ParamKind> pairs;
    for (int i = 0; i < 8; ++i) pairs.insert(pairs.end(), {P::Name, P::Nat});
    LibraryEntry e =
        core("tunedAt", pairs,
             "the program's sizes are these (n = 64, ...), substituted (--size): a strategy tuned "
             "at them (risec tune writes it first) is refused at other or symbolic sizes",
             C::Predicate, [](auto& a) {
               std::vector<std::pair<std::string, int64_t>> sizes;
               for (size_t i = 0; i + 1 < a.size(); i += 2)
                 sizes.emplace_back(arg_name(a, i), arg_nat(a, i + 1));
               return tuned_at(std::move(sizes));
             });
    e.optional = pairs.size() - 2;
    r.add(e);
  }
}

const std::vector<LibraryEntry>& library() {
  static const std::vector<LibraryEntry> all = [] {
    Registry r;
    register_core(r);
    register_normal_forms(r);
    register_algorithmic(r);
    register_movement(r);
    register_lowering(r);
    register_tiling(r);
    register_product(r);
    register_vector(r);
    register_simplify(r);
    register_default_lowering(r);
    register_pipeline(r);
    register_reciprocal(r);
    return std::move(r.entries());
  }();
  return all;
}

const char* family_name(RuleFamily f) {
  switch (f) {
    case RuleFamily::NormalForm:
      return "normal form";
    case RuleFamily::Algorithmic:
      return "algorithmic";
    case RuleFamily::Movement:
      return "movement";
    case RuleFamily::Tiling:
      return "tiling";
    case RuleFamily::Lowering:
      return "lowering";
    case RuleFamily::Memory:
      return "memory";
    case RuleFamily::Vector:
      return "vector";
    case RuleFamily::Simplify:
      return "simplify";
  }
  return "other";
}

MakeStrategy fixed(Strategy s) {
  return [s = std::move(s)](const Args&) { return s; };
}

void Registry::add(RuleDecl d, EntryClass cls) {
  LibraryEntry e;
  e.name = std::move(d.name);
  e.aliases = std::move(d.aliases);
  e.params = std::move(d.params);
  e.optional = d.optional;
  e.description = std::move(d.rewrite);
  e.cls = cls;
  e.family = d.family;
  e.make = std::move(d.make);
  entries_.push_back(std::move(e));
}

const LibraryEntry* find_entry(const std::string& name) {
  for (const LibraryEntry& e : library()) {
    if (e.name == name) return &e;
    for (const std::string& a : e.aliases)
      if (a == name) return &e;
  }
  return nullptr;
}

Strategy make_strategy(const std::string& name, const std::vector<Arg>& args) {
  const LibraryEntry* e = find_entry(name);
  if (!e) user_error("unknown strategy '" + name + "'");
  if (!e->takes(args.size()))
    user_error("'" + name + "' takes " + e->arity() + ", got " + std::to_string(args.size()));
  check_argument_kinds(*e, args);
  return e->make(args);
}

namespace {

// What each alternative of Arg is, in words; ParamKind lists the kinds in Arg's order.
constexpr const char* kArgWords[] = {"a strategy", "a number", "a list of numbers",
                                     "an address space", "a name"};
static_assert(std::variant_size_v<Arg> == std::size(kArgWords) &&
              static_cast<size_t>(ParamKind::Name) + 1 == std::size(kArgWords));

}  // namespace

void check_argument_kinds(const LibraryEntry& e, const std::vector<Arg>& args) {
  for (size_t i = 0; i < args.size() && i < e.params.size(); ++i)
    if (const auto want = static_cast<size_t>(e.params[i]); args[i].index() != want)
      user_error("argument " + std::to_string(i + 1) + " of '" + e.name + "' must be " +
                 kArgWords[want] +
                 (e.params[i] == ParamKind::Addr ? " (global, local, private, constant)" : "") +
                 ", not " + kArgWords[args[i].index()]);
}

std::string LibraryEntry::arity() const {
  const size_t least = params.size() - std::min(optional, params.size());
  return (least == params.size() ? "" : std::to_string(least) + " or ") +
         std::to_string(params.size()) + " argument(s)";
}

namespace {

// name(n, s, ..) (alias a): the call form of an entry.
std::string signature(const LibraryEntry& e) {
  std::string sig = e.name;
  if (!e.params.empty()) {
    sig += "(";
    const size_t least = e.params.size() - std::min(e.optional, e.params.size());
    for (size_t i = 0; i < e.params.size(); ++i) {
      if (i == least && i) sig += "[";
      if (i) sig += ", ";
      switch (e.params[i]) {
        case ParamKind::Strategy:
          sig += "s";
          break;
        case ParamKind::Nat:
          sig += "n";
          break;
        case ParamKind::IntList:
          sig += "[..]";
          break;
        case ParamKind::Addr:
          sig += "addr";
          break;
        case ParamKind::Name:
          sig += "name";
          break;
      }
    }
    sig += least < e.params.size() && least ? "])" : ")";
  }
  for (const auto& a : e.aliases) sig += " (alias " + a + ")";
  return sig;
}

std::string group_of(const LibraryEntry& e) {
  switch (e.cls) {
    case EntryClass::Combinator:
      return "combinators";
    case EntryClass::Traversal:
      return "traversals";
    case EntryClass::Predicate:
      return "predicates";
    case EntryClass::NormalForm:
      return "normal forms";
    case EntryClass::Rule:
      break;
  }
  return std::string("rules: ") + family_name(e.family);
}

}  // namespace

std::string library_listing() {
  std::map<std::string, std::vector<const LibraryEntry*>> groups;
  for (const LibraryEntry& e : library()) groups[group_of(e)].push_back(&e);
  std::string out;
  for (const auto& [g, entries] : groups) {
    out += g + "\n";
    for (const LibraryEntry* e : entries) {
      std::string sig = signature(*e);
      out += "  " + sig;
      if (sig.size() < 34)
        out += std::string(34 - sig.size(), ' ');
      else
        out += "\n  " + std::string(34, ' ');
      out += e->description + "\n";
    }
    out += "\n";
  }
  return out;
}

}  // namespace risec::elevate
