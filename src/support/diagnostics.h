// Source locations and the one error hierarchy every module throws. The types are
// public (include/risec/error.h: the C++ API throws the same objects); this header
// adds what only the compiler uses. The command line turns an Error into
// `file:line:col: error: message`, the source line and a caret (as clang does), and
// into the exit code of ../../shared/spec/cli.md.
#pragma once

#include <string>
#include <vector>

#include "risec/error.h"

namespace risec {

// Convenience constructors.
[[noreturn]] void user_error(const std::string& message, const Span& span = {});
[[noreturn]] void internal_error(const std::string& message, const Span& span = {});

// The identifier (letters, digits, '_') the span's text begins with; "" for an unknown
// span or one beginning with anything else. Names what a node placed at a use
// stands for (`slide2D` for the prelude's inlined lambda, `map` for a strategy's
// mapGlobal).
std::string word_at(const Span& span);

// What risec is doing ("making the inputs", "interpreting the program"), for the
// message of its own out-of-memory (tools/risec/main.cpp): set for the scope's
// lifetime and kept when an exception leaves it, so the handler still sees it.
class ActivityScope {
 public:
  explicit ActivityScope(const char* activity);
  ~ActivityScope();
  ActivityScope(const ActivityScope&) = delete;
  ActivityScope& operator=(const ActivityScope&) = delete;

 private:
  const char* previous_;
  int exceptions_;
};
// The innermost activity that was running when an exception left it, else the
// innermost running one; null: none.
const char* current_activity();

// The closest candidate by edit distance, or "" when nothing is close enough to be
// a plausible typo of `name`.
std::string nearest_name(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace risec
