// Fuzz target: the .npy reader on arbitrary bytes. Invariants: only user-facing
// errors, and an array that was read writes back to bytes that read to the same array.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_util.h"
#include "runtime/npy.h"

using namespace risec;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  runtime::NdArray a;
  try {
    a = runtime::parse_npy(bytes, "fuzz.npy");
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Internal) fuzz::bug("internal error: " + format_error(e), bytes);
    return 0;
  } catch (const std::exception& e) {
    fuzz::bug(std::string("uncaught exception: ") + e.what(), bytes);
  }
  const std::string written = runtime::serialize_npy(a);
  runtime::NdArray b;
  try {
    b = runtime::parse_npy(written, "written.npy");
  } catch (const Error& e) {
    fuzz::bug("a written array does not read back: " + format_error(e), bytes);
  }
  if (b.dtype != a.dtype || b.shape != a.shape || b.nbytes() != a.nbytes() ||
      (a.nbytes() > 0 && std::memcmp(b.data.data(), a.data.data(), a.nbytes()) != 0))
    fuzz::bug("a written array reads back different", bytes);
  return 0;
}
