// What a test binary knows of the build it belongs to, asked at run time rather than
// by macro: the sanitizer build links its test binaries from the Release build's test
// objects (tests/CMakeLists.txt, RISEC_TEST_OBJECTS_FROM; docs/testing.md), so a test
// source is compiled once for both builds and must not fix either's paths or
// settings in its own object. This file's source is compiled in each build.
#pragma once

#include <cstddef>
#include <string>

namespace risec::test {

// The build directory the test binary belongs to (its risec binary, generated files).
const std::string& binary_dir();

// `binary_dir()/risec`: the command line of this build.
std::string risec_binary();

// Whether the compiler under test is the sanitizer build (RISEC_SANITIZE).
bool sanitized_build();

// Whether the property tests take the sanitizers' smaller samples: in the sanitizer
// build, or where the tests' support was compiled with RISEC_TEST_SANITIZED_SAMPLE
// (how a change to those samples is checked without a sanitizer build).
bool sanitized_sample();

// `release` where the full samples are taken, `sanitized` under the sanitizers: the
// count of random cases of a property test (docs/testing.md, "The sanitizer tests").
inline size_t per_build(size_t release, size_t sanitized) {
  return sanitized_sample() ? sanitized : release;
}

}  // namespace risec::test
