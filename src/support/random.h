// Seeded pseudo-random numbers that are bit-identical on every platform, for the
// inputs `risec eval`/`risec run` generate when none is given (spec/cli.md) and for
// property tests. std:: distributions are implementation-defined, so this file has
// its own generator (xoshiro256**, seeded through splitmix64) and conversions. In
// support (like buffer.h) because the interpreter's random inputs draw from it.
#pragma once

#include <cstdint>

#include "support/buffer.h"

namespace risec::runtime {

class Rng {
 public:
  explicit Rng(uint64_t seed);

  // The next 64 random bits.
  uint64_t next();
  // Uniform in [0, 1) with 53 random bits (every value a multiple of 2^-53).
  double uniform01();
  // Uniform in [0, 1) with 24 random bits (every value a multiple of 2^-24).
  float uniform01f();
  // Uniform in [0, n), without modulo bias; n must be positive.
  int64_t below(int64_t n);

 private:
  uint64_t s_[4];
};

// The seed of input number `input_index` of a program run with `seed`: different
// inputs (and different seeds) get unrelated streams.
uint64_t derive_seed(uint64_t seed, uint64_t input_index);

// Fills `array` from Rng(seed): floats uniform in [0, 1) (f32 from 24 bits, f64 from
// 53), integers uniform in [0, 100), bools fair; one draw per element in C order.
void fill_random(NdArray& array, uint64_t seed);

}  // namespace risec::runtime
