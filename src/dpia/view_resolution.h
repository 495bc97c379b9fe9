// View resolution: which memory (or which computation) an element read through
// views comes from, and where an element written through destination views lands.
// Backend-neutral: it follows the primitive table's read and write maps
// (rise/views.cpp), so every backend (C, OpenMP, OpenCL, CUDA) prints the same
// resolved accesses and none re-implements a view.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "dpia/imperative.h"
#include "rise/views.h"

namespace risec::dpia {

using rise::Path;
using rise::PathElem;

// A read resolved through views: either a leaf, the element at `path` of `source`
// (a memory variable, a computation, or a node the backend reads itself: Generate,
// MapView, a whole-vector AsVector load, Broadcast, Gather), or a choice between two
// resolved reads by `guard` (a conditional view such as padCst or concat).
struct ResolvedRead;
using ResolvedReadP = std::shared_ptr<const ResolvedRead>;
struct ResolvedRead {
  ExpressionP source;  // leaf
  Path path;           // leaf
  arith::Cond guard;   // choice
  ResolvedReadP then, orelse;
  bool is_leaf() const { return !then; }
};
ResolvedReadP resolve_read(const ExpressionP& e, const Path& path);

// A write resolved through destination views: the element at `path` of `target`, a
// memory variable or a whole-vector store (Acceptor::AsVector without a lane).
struct ResolvedWrite {
  AcceptorP target;
  Path path;
};
// `dynamic` gives the index, as a Nat the backend can print, of the element that a
// data-dependent destination (scatter: element i lands at indices[i]) writes to.
using DynamicIndex = std::function<arith::Nat(const Acceptor& scatter, const arith::Nat& i)>;
ResolvedWrite resolve_write(const AcceptorP& a, const Path& path, const DynamicIndex& dynamic = {});

// The flat (row-major) index of the element at `path` of an array with dimensions
// `dims` (outermost first); the path's remaining elements (vector lanes, pair
// projections) address inside that element.
arith::Nat flat_index(const std::vector<arith::Nat>& dims, const Path& path,
                      const std::string& what);

}  // namespace risec::dpia
