// Imperative DPIA passes run before code generation.
#pragma once

#include "dpia/imperative.h"

namespace risec::dpia {

// Remove temporaries that are written but never read: the allocation and every
// assignment into it (loops left empty disappear too).
CommandP remove_dead_temporaries(const CommandP& c);

}  // namespace risec::dpia
