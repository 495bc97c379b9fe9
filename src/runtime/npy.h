// NumPy .npy files: the format in which `risec eval` and `risec run` exchange arrays
// with users (spec/cli.md), so that data can be prepared and inspected with NumPy.
//
// Reading accepts format versions 1.0, 2.0 and 3.0 of C-order, little-endian arrays
// of the DType element types; anything else (Fortran order, big-endian, structured
// or unsupported dtypes, truncated or oversized data) is a risec::Error of kind
// User whose message starts with the file's name. Writing produces the bytes of
// numpy >= 1.24's np.save: version 1.0, or 2.0 when the header needs more than 64 KiB.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/buffer.h"

namespace risec::runtime {

// Reads and parses the file at `path` (errors name `path`).
NdArray read_npy(const std::string& path);
// The shape the header of the file at `path` announces; reads the header only.
std::vector<int64_t> read_npy_shape(const std::string& path);
// Parses the bytes of a whole .npy file; `name_for_errors` prefixes every message.
NdArray parse_npy(std::string_view bytes, const std::string& name_for_errors);

// The bytes of a .npy file holding `array` (version 1.0, or 2.0 for long headers).
std::string serialize_npy(const NdArray& array);
// Writes serialize_npy(array) to `path` as every output is written (support/files.h:
// atomically, never over an input); throws risec::Error when it cannot.
void write_npy(const std::string& path, const NdArray& array);

}  // namespace risec::runtime
