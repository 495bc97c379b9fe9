// `--bind NAME=FILE.npy` (spec/cli.md, Additions; docs/cli.md "Binding inputs"): an
// input of the entry known at compile time. Its values replace the parameter in the
// program as an array literal (so the parameter leaves the generated function's
// signature), the sizes its shape determines are fixed, and after the strategy the
// `specialise` pass folds them into the code: reductions over them unrolled, zero
// weights removed (src/elevate/simplify.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "rise/check.h"
#include "support/buffer.h"

namespace risec::driver {

// A bound input may have at most this many scalars: its values become code.
inline constexpr int64_t kMaxBoundElements = 4096;

// `checked` (an entry specialised to its sizes) with each parameter named in `files`
// (parameter name -> .npy path) replaced by the file's values as an array literal
// (a scalar literal for a scalar parameter), re-typed. Errors name the option:
// Usage for a name that is no parameter (with the nearest name); User for a file that
// cannot be read, or whose shape or element type is not the parameter's type, for a
// parameter whose type is not an array of scalars (or a scalar) or still depends on a
// size not known at compile time, and for more than kMaxBoundElements values.
// `arrays` are inputs bound from memory (the API's CompileOptions::bind_arrays), the
// same way; a name may not be in both.
using BoundArrays = std::map<std::string, runtime::NdArray>;
rise::Checked bind_inputs(const rise::Checked& checked,
                          const std::map<std::string, std::string>& files,
                          const BoundArrays& arrays = {});

}  // namespace risec::driver
