// Imperative DPIA passes run before code generation.
#pragma once

#include "dpia/imperative.h"

namespace risec::dpia {

// Remove temporaries that are written but never read: the allocation and every
// assignment into it (loops left empty disappear too).
CmP remove_dead_temporaries(const CmP& c);

}  // namespace risec::dpia
