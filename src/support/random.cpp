// The portable seeded generator and random array filling (see random.h).
#include "support/random.h"

#include "support/diagnostics.h"

namespace risec::runtime {

namespace {

// splitmix64: advances `state` and returns a well-mixed 64-bit value.
uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

template <class T>
void fill(NdArray& array, int64_t n, Rng& rng, T (*draw)(Rng&)) {
  T* p = array.as<T>();
  for (int64_t i = 0; i < n; ++i) p[i] = draw(rng);
}

template <class T>
T small_int(Rng& rng) {
  return static_cast<T>(rng.below(100));
}

}  // namespace

Rng::Rng(uint64_t seed) {
  // Four consecutive splitmix64 outputs are never all zero, which xoshiro requires.
  for (uint64_t& s : s_) s = splitmix64(seed);
}

uint64_t Rng::next() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform01() {
  return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

float Rng::uniform01f() {
  return static_cast<float>(next() >> 40) * 0x1.0p-24f;
}

int64_t Rng::below(int64_t n) {
  if (n <= 0) internal_error("Rng::below needs a positive bound");
  const uint64_t bound = static_cast<uint64_t>(n);
  // Reject the lowest (2^64 mod bound) values so that every residue is equally likely.
  const uint64_t threshold = (0 - bound) % bound;
  uint64_t r;
  do {
    r = next();
  } while (r < threshold);
  return static_cast<int64_t>(r % bound);
}

uint64_t derive_seed(uint64_t seed, uint64_t input_index) {
  uint64_t a = seed;
  uint64_t b = input_index ^ 0x6a09e667f3bcc909ULL;
  return splitmix64(a) ^ rotl(splitmix64(b), 23);
}

void fill_random(NdArray& array, uint64_t seed) {
  Rng rng(seed);
  const int64_t n = array.count();
  switch (array.dtype) {
    case DType::Bool:
      fill<uint8_t>(array, n, rng, [](Rng& r) { return static_cast<uint8_t>(r.next() >> 63); });
      return;
    case DType::I8:
      return fill<int8_t>(array, n, rng, small_int<int8_t>);
    case DType::I16:
      return fill<int16_t>(array, n, rng, small_int<int16_t>);
    case DType::I32:
      return fill<int32_t>(array, n, rng, small_int<int32_t>);
    case DType::I64:
      return fill<int64_t>(array, n, rng, small_int<int64_t>);
    case DType::U8:
      return fill<uint8_t>(array, n, rng, small_int<uint8_t>);
    case DType::U16:
      return fill<uint16_t>(array, n, rng, small_int<uint16_t>);
    case DType::U32:
      return fill<uint32_t>(array, n, rng, small_int<uint32_t>);
    case DType::U64:
      return fill<uint64_t>(array, n, rng, small_int<uint64_t>);
    case DType::F32:
      return fill<float>(array, n, rng, [](Rng& r) { return r.uniform01f(); });
    case DType::F64:
      return fill<double>(array, n, rng, [](Rng& r) { return r.uniform01(); });
  }
  internal_error("unknown runtime dtype");
}

}  // namespace risec::runtime
