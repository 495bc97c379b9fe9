// A `let` is monomorphic: a let-bound name has one type, fixed by its uses. When a
// program fails to type because one let-bound name is used at two types (`let ident =
// fun(x => x)` mapped over an f32 array and an i32 array, `twice(twice)`), unification
// reports wherever the two meet ("expected _.f32 but found 4.i32", "infinite type"),
// which does not say why. explain_monomorphic_let says it.
#pragma once

#include <functional>
#include <optional>

#include "rise/check.h"

namespace risec::rise {

// For a resolved expression whose inference failed: infers (with `infer`) a copy in
// which each use of a let-bound name used twice or more has a let of its own. When that
// copy is well typed and two uses of one let (the first in the program that has them)
// got different types, the error to report instead: it names the let-bound name, both
// types and both uses (located at the second), and suggests one let per type or a def.
// nullopt otherwise (the original error stands).
std::optional<Error> explain_monomorphic_let(const Expr& resolved,
                                             const std::function<Checked(const Expr&)>& infer);

}  // namespace risec::rise
