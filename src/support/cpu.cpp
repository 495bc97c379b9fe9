// Detection of the vector width (see cpu.h).
#include "support/cpu.h"

#include <cstdlib>
#include <string>

#include "support/diagnostics.h"

namespace risec {

int64_t machine_lanes() {
  if (const char* env = std::getenv("RISEC_LANES"); env && *env) {
    std::string s = env;
    if (s.size() > 4 || s.find_first_not_of("0123456789") != std::string::npos || s[0] == '0')
      throw Error(
          ErrorKind::Usage,
          "$RISEC_LANES must be a positive number of float lanes (e.g. 8), got '" + s + "'");
    return std::stoll(s);
  }
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return 16;
  if (__builtin_cpu_supports("avx")) return 8;
#endif
  return 4;
}

}  // namespace risec
