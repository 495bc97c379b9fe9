// How much memory risec lets one command use for arrays (inputs, outputs and the
// interpreter's intermediate values), so that a huge --size or an input file that
// announces a huge shape is refused with a clear message before anything is
// allocated, instead of exhausting the machine (issue 11). The limit is the
// machine's physical memory unless RISEC_MAX_MEMORY says otherwise (docs/cli.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace risec {

// The limit in bytes: RISEC_MAX_MEMORY (a number of bytes, optionally followed by
// K, M, G or T for powers of 1024) or the physical memory. A malformed
// RISEC_MAX_MEMORY is a Usage error.
uint64_t memory_limit_bytes();

// Where the limit comes from, for messages ("physical memory" or "RISEC_MAX_MEMORY").
std::string memory_limit_source();

// "4096 bytes (4 KiB)", "3.6 TiB", ...: a byte count for messages.
std::string format_bytes(uint64_t bytes);

// Parses "123", "64K", "2G", ... (1024-based); nullopt when malformed or too large.
std::optional<uint64_t> parse_byte_count(const std::string& text);

// a*b and a+b, saturating at UINT64_MAX (sizes in bytes never wrap around).
uint64_t saturating_mul(uint64_t a, uint64_t b);
uint64_t saturating_add(uint64_t a, uint64_t b);

}  // namespace risec
