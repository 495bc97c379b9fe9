// Sizes from the shapes of --input files (spec/cli.md, Additions): `risec eval` and
// `risec run` without --size values for some sizes of the entry read them from the
// inputs' .npy headers, e.g. x: n.k.f32 given as a (64, 32) array gives n = 64 and
// k = 32. An extent that is an expression of one unknown size (n + 2, 2 * n, n / 4)
// determines it where it is exactly solvable.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "rise/check.h"

namespace risec::driver {

// Adds to `sizes` the entry's sizes that it lacks, from the shapes of `files`
// (parameter name -> .npy path; only headers are read). risec::Error (User) when two
// inputs disagree on a size, or disagree with a size given with --size (naming the
// inputs, dimensions and values); when an input's rank is not its parameter's; and,
// where inputs are given, naming a size that neither --size nor the inputs determine.
// Does nothing when `files` is empty (the checker then names a missing size).
// `bound` are the --bind files (docs/cli.md), whose shapes fix sizes the same way;
// without `require_all` (`risec compile`, whose code may stay generic in the sizes)
// sizes nothing determines are left out instead of being an error.
void sizes_from_inputs(const rise::Program& program, const std::string& entry,
                       const std::map<std::string, std::string>& files, rise::SizeMap* sizes,
                       const std::map<std::string, std::string>& bound = {},
                       bool require_all = true);

// The same from shapes in memory (the Python package's NumPy arrays): `where` maps
// each given parameter to where its value comes from, used in messages ("--input
// x=a.npy", "argument 1 (x)"); `shape_of(name)` gives its shape (called only when
// some size is unknown). `hint` says why a size nothing determines has no value ("the
// arrays' shapes do not determine it"); an empty `hint` leaves such sizes out instead.
// An extent that makes a size 0 or less (an empty array) is an error naming it.
// Does nothing when `where` is empty.
void sizes_from_shapes(const rise::Program& program, const std::string& entry,
                       const std::map<std::string, std::string>& where,
                       const std::function<std::vector<int64_t>(const std::string&)>& shape_of,
                       rise::SizeMap* sizes, const std::string& hint);

}  // namespace risec::driver
