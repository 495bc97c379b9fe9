// Loop interchange for contiguous access: a perfect nest of two sequential loops
// whose stores walk memory with stride 1 along the outer variable and another
// stride along the inner one (a map over the columns of a transposed view, as in
// `rows |> transpose |> map(...) |> transpose`) is swapped, so that the innermost
// loop stores (and usually reads) consecutive elements and the C compiler can
// vectorise it. A parallel outer loop (without a reduction) is swapped too when each
// iteration of the new outer loop writes elements of its own (the outer trip count is
// at most the inner stride): the parallel loop then runs over the former inner
// variable. The indices are those the body's views produce (the caller resolves
// them, as for index-set splitting, dpia/split_loop.h).
#pragma once

#include <optional>

#include "dpia/imperative.h"
#include "dpia/split_loop.h"

namespace risec::dpia {

// The swapped nest for(inner) for(outer) body, when `loop` is a sequential loop whose
// body is a sequential loop, the swap keeps the program's meaning (no memory written
// in the nest, other than temporaries declared in it, is also read in it; the inner
// trip count does not depend on the outer variable; no parallel loop, GPU level or
// double buffer inside) and it makes the stores contiguous: every store to memory
// declared outside the nest has stride 1 in the outer variable and not in the inner
// one. `accesses` are the resolved accesses of the inner loop's body.
std::optional<CommandP> interchange_for_contiguity(const Command& loop,
                                                   const BodyAccesses& accesses);

}  // namespace risec::dpia
