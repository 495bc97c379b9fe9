// Name resolution: turns the identifiers the parser produced into what they name.
// Lambda-bound names stay identifiers; definitions are inlined (each use gets its
// own copy, so unannotated definitions are polymorphic); foreign definitions become
// Foreign nodes; primitives become Primitive nodes. Type-level names (sizes, data
// types and address spaces bound by depFun, scalar type names, address spaces) are
// left as identifiers for type inference, which reads them as type-level arguments.
#pragma once

#include <cstdint>

#include "rise/expr.h"

namespace risec::rise {

// The most nodes that inlining may add to a resolved entry: once every use of a
// definition is counted as a copy, the entry may have at most this many nodes more
// than the program as written (docs/language.md, "Limits"). A long program that
// uses each definition once is not limited (its work is linear); definitions that
// use the previous one several times multiply the size and are refused. Resolution
// itself shares the definitions' bodies, so the check is linear in the program text.
inline constexpr uint64_t kMaxInlinedNodes = 16000;

// Resolve definition `index` of `program` (it may use the definitions above it),
// falling back on `prelude` (which may be null) and then on primitives.
Expr resolve_definition(const Program& program, size_t index, const Program* prelude);

// `program` with its parallel loops' schedules read (`mapPar(dynamic, 4)` as one
// primitive node carrying the schedule, as resolve_definition reads them) and every
// name left as written: what `risec print` prints, so that it writes the schedules
// in the same form as the printed result of a rewrite (docs/language.md).
Program with_schedules_read(const Program& program, const Program* prelude);

// Resolve a free-standing expression against primitives only (used for tests and
// for expressions built through the C++ API).
Expr resolve_expr(const Expr& e);

}  // namespace risec::rise
