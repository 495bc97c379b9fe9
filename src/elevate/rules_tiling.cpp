// Placeholder: this family's entries are being written.
#include "elevate/library.h"

namespace risec::elevate {

void register_tiling(Registry&) {}

}  // namespace risec::elevate
