// The disjoint-writes check (docs/guarantees.md, "Parallel loops"): DPIA's promise that
// the iterations of a parallel loop write disjoint parts of their output, checked on
// the imperative program instead of assumed. It runs after translation, for every
// target, and refuses, located at the primitive that made the loop parallel (a user
// error, exit 1), a program in which it cannot prove that:
//
//  1. every parallel loop (mapPar's and reducePar's OpenMP loops, mapGlobal,
//     mapWorkGroup, mapLocal) writes, for two different values of its variable i,
//     different places of each memory allocated outside its body. A place is found by
//     resolving the write's views (view_resolution.h) down to the memory and its
//     flat index; two writes are apart when both indices are s*i + r with one stride
//     s > 0 and offsets r (over the loops inside the body, each free) within less than
//     s of each other, or when the ranges of the two indices do not meet. Memory
//     allocated inside the body is the iteration's own, and the accumulator of a
//     parallel reduction (reducePar) is the backend's;
//  2. on the GPU targets, whose kernels run every command on every work item (SPMD),
//     each write to shared memory (global memory; local memory, shared by a work group)
//     is inside a parallel loop over every dimension the launch spreads its work items
//     over (the dimensions of its mapGlobals; of its mapWorkGroups and mapLocals; for
//     local memory, of its mapLocals): otherwise the work items of the missing
//     dimension all run the write, one after another's updates (the zeroing of an
//     accumulator row inside mapGlobal(1) but outside mapGlobal(0));
//  3. on the GPU targets, private memory (a work item's own) is written inside a GPU
//     loop around which it is allocated only when dpia/distribute.h distributes it
//     (each work item keeps and touches its own part), or when it is a reduction's
//     accumulator at work-group level written by mapLocals, which the address-space
//     check accepts only as a distributed accumulator (address_spaces.h): otherwise
//     each work item would write its iterations into a copy of its own, and the array
//     read back is none of them whole.
//
// Vector lanes need no check: a vector store writes its lanes to distinct places by
// construction (one vector, its n consecutive elements).
#pragma once

#include "dpia/imperative.h"

namespace risec::dpia {

// Throws risec::Error (User) at the first parallel loop whose writes it cannot prove
// disjoint (outer loops first).
void check_disjoint_writes(const CommandP& program);

}  // namespace risec::dpia
