// The index maps of the view primitives (and the interpreter meaning of those whose
// evaluation lives beside their maps), declared for every row of primitives.def by
// the same X-macro, so that a new view needs its row and its definitions in
// views.cpp and nothing else. Only the functions a row names are defined.
#pragma once

#include <vector>

#include "rise/primitives.h"
#include "rise/value.h"

namespace risec::rise {

// clang-format off
#define RISEC_PRIM(id, ...)                                                          \
  Value view_eval_##id(const PrimCall& call);                                        \
  std::vector<ViewAccess> view_read_##id(const ViewSite& site, const Path& path);    \
  Path view_write_##id(const ViewSite& site, int input, const Path& path);
#include "rise/primitives.def"
#undef RISEC_PRIM
// clang-format on

// Windows of sz elements every sp elements of x, `count` of them (a view where x is
// dense): the interpreter's split and slide, and circularBuffer's windows.
Value slide_array(const Value& x, int64_t sz, int64_t sp, int64_t count, const Span& span);

// reorder(n)(f)(finv) read or written by compiled code, which does not check indices:
// f must map 0..n-1 into 0..n-1 (element i is read from f(i)), and where the result is
// written through it, element j lands at finv(j), right only when f(finv(j)) = j. A
// located user error when not: tried at every index of a known n up to 4096 (else at
// 4096 spread over it and its last 64); for a symbolic n at every value 1..12 of at
// most two size names (lengths up to 256).
void require_reorder(const std::vector<arith::Nat>& nats, const std::vector<NatFun>& funs,
                     const Span& span, bool written);

}  // namespace risec::rise
