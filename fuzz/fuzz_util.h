// What every fuzz target shares: the rule that decides what counts as a bug. Any
// input may be rejected with a risec::Error of a user-facing kind (exit 1-4); an
// internal error (exit 70), any other exception, or a broken invariant is a bug, and
// the target aborts so that libFuzzer saves the input as a crash.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>

#include "support/diagnostics.h"

namespace risec::fuzz {

// Reports a bug found on `input` and aborts (libFuzzer records the input).
[[noreturn]] inline void bug(const std::string& what, const std::string& input) {
  std::fprintf(stderr, "risec fuzz: BUG: %s\n--- input ---\n%s\n--- end ---\n", what.c_str(),
               input.c_str());
  std::fflush(stderr);
  std::abort();
}

// Runs `body`; user-facing errors are fine, anything else is a bug.
template <class F>
void guarded(const std::string& input, F&& body) {
  try {
    body();
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Internal) bug("internal error: " + format_error(e), input);
  } catch (const std::exception& e) {
    bug(std::string("uncaught exception: ") + e.what(), input);
  }
}

inline SourceRef source(const std::string& name, const std::string& text) {
  return std::make_shared<SourceFile>(SourceFile{name, text});
}

}  // namespace risec::fuzz
