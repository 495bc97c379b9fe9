// The memory limit of memory.h.
#include "support/memory.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <limits>

#include "support/diagnostics.h"

namespace risec {

namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

uint64_t physical_memory() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return uint64_t{16} << 30;  // unknown: assume 16 GiB
  return saturating_mul(static_cast<uint64_t>(pages), static_cast<uint64_t>(page));
}

}  // namespace

uint64_t saturating_mul(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? kMax : r;
}

uint64_t saturating_add(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? kMax : r;
}

std::optional<uint64_t> parse_byte_count(const std::string& text) {
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    if (__builtin_mul_overflow(value, 10, &value) ||
        __builtin_add_overflow(value, static_cast<uint64_t>(text[i] - '0'), &value))
      return std::nullopt;
  }
  if (i == 0) return std::nullopt;
  if (i == text.size()) return value;
  if (i + 1 != text.size()) return std::nullopt;
  int shift = 0;
  switch (text[i]) {
    case 'K':
    case 'k':
      shift = 10;
      break;
    case 'M':
    case 'm':
      shift = 20;
      break;
    case 'G':
    case 'g':
      shift = 30;
      break;
    case 'T':
    case 't':
      shift = 40;
      break;
    default:
      return std::nullopt;
  }
  if (value > (kMax >> shift)) return std::nullopt;
  return value << shift;
}

uint64_t memory_limit_bytes() {
  const char* env = std::getenv("RISEC_MAX_MEMORY");
  if (!env || !*env) return physical_memory();
  std::optional<uint64_t> v = parse_byte_count(env);
  if (!v)
    throw Error(ErrorKind::Usage, std::string("RISEC_MAX_MEMORY='") + env +
                                      "' is not a byte count (such as 512M, 8G or 1000000)");
  return *v;
}

std::string memory_limit_source() {
  const char* env = std::getenv("RISEC_MAX_MEMORY");
  return env && *env ? "RISEC_MAX_MEMORY" : "the physical memory; RISEC_MAX_MEMORY overrides it";
}

std::string format_bytes(uint64_t bytes) {
  if (bytes == kMax) return "more than 2^64 bytes";
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  std::string exact = std::to_string(bytes) + " bytes";
  if (bytes < 1024) return exact;
  double v = static_cast<double>(bytes);
  int u = -1;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, " (%.1f %s)", v, kUnits[u]);
  return exact + buf;
}

}  // namespace risec
