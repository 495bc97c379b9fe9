// What the public API's value types hold (include/risec/risec.h declares them with
// an opaque Impl): the compiler's own objects. Only src/driver sees this header; the
// command line's subcommands use it to reach the pieces the API does not show
// (the imperative DPIA, the checked program) while going through the same calls.
#pragma once

#include <string>
#include <vector>

#include "driver/compile.h"
#include "elevate/strategy.h"
#include "rise/check.h"
#include "rise/expr.h"
#include "risec/risec.h"

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
  driver::Compiled compiled;
  std::string target;
  rise::SizeMap fixed_sizes;            // sizes given at compile time
  std::vector<rise::Type> input_types;  // the data inputs' types (symbolic in the sizes)
  rise::Type output_type;
  std::vector<Parameter> inputs;
  Parameter output;
};

namespace api {
// The API's calls with the compiler's objects, for the command line.
Program wrap(rise::Program p);
Strategy wrap(elevate::Strategy s);
}  // namespace api

}  // namespace risec
