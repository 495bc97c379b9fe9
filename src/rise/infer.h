// Type inference of one resolved expression (see infer.cpp for the method).
#pragma once

#include "rise/check.h"

namespace risec::rise {

// Infer the types of a resolved expression. Leading depFuns over Nat whose binder
// is named in `sizes` are specialised to those values. With `closed` (a whole
// program, not a term cut out of one by a rewrite), every size name it writes must
// be bound in it.
Checked infer_entry(const Expr& resolved, const SizeMap* sizes, bool closed = false);

// Infer a term in a context of typed variables (used after a rewrite); with
// `expected`, the term's type must unify with it.
Checked infer_in_context(const Expr& e, const std::vector<std::pair<std::string, Type>>& vars,
                         const Type& expected);

}  // namespace risec::rise
