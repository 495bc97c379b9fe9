// Detection of the vector width (see cpu.h).
#include "support/cpu.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "support/diagnostics.h"

namespace risec {

int64_t machine_lanes() {
  if (const char* env = std::getenv("RISEC_LANES"); env && *env) {
    std::string s = env;
    if (s.size() > 4 || s.find_first_not_of("0123456789") != std::string::npos || s[0] == '0' ||
        std::stoll(s) > kMaxLanes)
      throw Error(ErrorKind::Usage, "$RISEC_LANES must be a number of float lanes from 1 to " +
                                        std::to_string(kMaxLanes) + " (e.g. 8), got '" + s + "'");
    return std::stoll(s);
  }
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return 16;
  if (__builtin_cpu_supports("avx")) return 8;
#endif
  return 4;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, implementer, part;
  auto value = [&]() {
    size_t colon = line.find(':');
    if (colon == std::string::npos) return std::string();
    size_t begin = line.find_first_not_of(" \t", colon + 1);
    size_t end = line.find_last_not_of(" \t\r");
    return begin == std::string::npos ? std::string() : line.substr(begin, end + 1 - begin);
  };
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0 && !value().empty()) return value();
    if (implementer.empty() && line.rfind("CPU implementer", 0) == 0) implementer = value();
    if (part.empty() && line.rfind("CPU part", 0) == 0) part = value();
  }
  if (!implementer.empty() || !part.empty())
    return "CPU implementer " + implementer + " part " + part;
  return "unknown CPU";
}

}  // namespace risec
