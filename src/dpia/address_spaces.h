// The address-space check of functional DPIA (docs/targets.md, "Address spaces"):
// every memory choice the program makes must be one the hardware can honour. It runs
// at the end of `from_rise` for every target and refuses, located at the offending
// primitive (a user error, exit 1):
//
//  1. a store of something already in memory: toMem/oclToMem of an input, a stored
//     value or a view of them (nothing is computed, so there is nothing to store;
//     copying needs an explicit copy such as mapSeq(fun(x => x)));
//  2. parallel maps nested in an order the hardware cannot run: a mapWorkGroup inside
//     a mapLocal or a mapGlobal, a mapGlobal inside a work group, a mapLocal outside
//     a work group or inside a mapGlobal, the same dimension used twice in a nest;
//  3. local memory allocated outside a work group (at host level, in a mapGlobal) or
//     inside one work item (a mapLocal's body), or written by every work item of the
//     group at once (a local reduction accumulator, a value no mapLocal computes);
//  4. global (or constant) memory allocated inside a kernel;
//  5. private memory shared between work items: a store allocated outside every kernel,
//     a store or accumulator at work-group level (inside a mapWorkGroup, outside its
//     mapLocals) written by the work items of a mapLocal, or an accumulator outside
//     kernels written by global threads.
//
// A store without an address space (toMem, let, the accumulator of reduceSeq) is
// global memory outside kernels and private memory inside one.
#pragma once

#include "dpia/functional.h"

namespace risec::dpia {

// Throws risec::Error (User) at the first violation found (outer phrases first).
void check_address_spaces(const Phrase& program);

}  // namespace risec::dpia
