// Whether two strided views of memory share a byte: the test Kernel::call makes
// between its output and each input (docs/api.md, "Arrays"). Exact: two views of one
// buffer that interleave (`y[::2]` and `y[1::2]`) or tile it (`a[:, :2]` and
// `a[:, 2:]`) share nothing and are told apart from real overlaps, by a bounded search
// over the index sets (a linear equation in bounded integers); only a search that
// passes its step limit answers "may share".
#pragma once

#include <cstdint>
#include <vector>

namespace risec::driver {

// A view: the address of its element at index 0, the bytes of one element, and per
// dimension its extent and its stride in bytes (any sign, zero too).
struct StridedView {
  uintptr_t base = 0;
  int64_t element_bytes = 1;
  std::vector<int64_t> extents;
  std::vector<int64_t> strides;
};

enum class Sharing {
  None,     // no byte of one is a byte of the other
  Shared,   // some byte is in an element of each
  Unknown,  // the search passed `max_steps` (views whose strides mix in intricate ways)
};

Sharing shared_bytes(const StridedView& a, const StridedView& b, int64_t max_steps = 1 << 18);

}  // namespace risec::driver
