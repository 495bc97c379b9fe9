// What the public API's value types hold (include/risec/risec.h declares them with
// an opaque Impl): the compiler's own objects. Only src/driver sees this header; the
// command line's subcommands use it to reach the pieces the API does not show
// (the imperative DPIA, the checked program) while going through the same calls.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "driver/compile.h"
#include "elevate/strategy.h"
#include "rise/check.h"
#include "rise/expr.h"
#include "risec/risec.h"
#include "support/stack.h"
#include "support/words.h"

namespace risec {

struct Strategy::Impl {
  elevate::Strategy strategy;
};

struct Program::Impl {
  rise::Program program;
};

struct Function::Impl {
  std::string name;
  rise::Checked checked;
};

struct Source::Impl {
  rise::Program program;  // what it was compiled from (Kernel::sizes infers sizes on it)
  std::string entry;
  driver::Compiled compiled;
  std::string target;
  rise::SizeMap fixed_sizes;            // sizes given at compile time
  std::vector<rise::Type> input_types;  // the data inputs' types (symbolic in the sizes)
  rise::Type output_type;
  std::vector<Parameter> inputs;
  Parameter output;
  // C or OpenMP code with vector types, whose aligned loads and stores need arrays at 64
  // bytes (Kernel::call copies others)
  bool aligned_vectors = false;
};

namespace api {
// The API's calls with the compiler's objects, for the command line.
Program wrap(rise::Program p);
Strategy wrap(elevate::Strategy s);

// The program's side conditions on the sizes, an Error naming the first one broken.
void check_conditions(const Source::Impl& s, const Sizes& sizes);

// The element type of a parameter's buffer (nullopt for pairs).
std::optional<ScalarType> element_of(const rise::Type& t);

// Runs a compiler call on a thread with a large stack (support/stack.h), as the
// command line does, and hands back its result or rethrows its error.
template <class F>
auto on_large_stack(F&& f) -> decltype(f()) {
  // Messages name the API's arguments (sizes["n"]), unless a caller (the command
  // line, the Python package) chose its own words (support/words.h).
  InterfaceScope words(Interface::Cpp, /*unless_set=*/true);
  std::optional<decltype(f())> out;
  run_with_large_stack([&] {
    out.emplace(f());
    return 0;
  });
  return std::move(*out);
}
}  // namespace api

}  // namespace risec
