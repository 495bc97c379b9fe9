#include "build_info.h"

namespace risec::test {

const std::string& binary_dir() {
  static const std::string dir = RISEC_BINARY_DIR;
  return dir;
}

std::string risec_binary() {
  return binary_dir() + "/risec";
}

bool sanitized_build() {
#if defined(RISEC_SANITIZED_BUILD)
  return true;
#else
  return false;
#endif
}

bool sanitized_sample() {
#if defined(RISEC_TEST_SANITIZED_SAMPLE)
  return true;
#else
  return sanitized_build();
#endif
}

}  // namespace risec::test
