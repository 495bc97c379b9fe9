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

// reorder(n)(f)(finv) written through: element j lands at finv(j), which is right only
// when f reads it back there (f(finv(j)) = j for every j < n). A located user error
// when it is not: tried at every j of a known n up to 4096 (else at 4096 spread over
// it and its last 64); a symbolic n only when wrong for every j. Reading needs f alone.
void require_reorder_inverse(const std::vector<arith::Nat>& nats, const std::vector<NatFun>& funs,
                             const Span& span);

}  // namespace risec::rise
