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

// Paths, as index maps build them.
PathElem path_index(arith::Nat i);
Path path_prepend(PathElem e, const Path& p);
Path path_rest(const Path& p, size_t from);
// Index k of a path (an internal error naming `what` when it is missing or a projection).
arith::Nat path_need_index(const Path& p, size_t k, const char* what);

}  // namespace risec::rise
