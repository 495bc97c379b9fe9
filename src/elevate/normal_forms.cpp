// Placeholder: this family's entries are being written.
#include "elevate/library.h"

namespace risec::elevate {

void register_normal_forms(Registry&) {}

}  // namespace risec::elevate
