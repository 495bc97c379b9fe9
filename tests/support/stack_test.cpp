// The stack guard of support/stack.h (issue 11): unbounded recursion that checks the
// stack at each level ends in a "nesting too deep" error on any thread, however
// large or small its stack, instead of a crash.
#include <gtest/gtest.h>

#include <new>

#include "support/diagnostics.h"
#include "support/stack.h"

namespace risec {
namespace {

// Recurses until check_stack_depth refuses; the frame holds some data, as the
// compiler's walks do.
int recurse(int depth) {
  volatile char frame[256];
  frame[0] = static_cast<char>(depth);
  check_stack_depth();
  if (depth > (1 << 30)) return 0;  // not reached: the guard throws long before
  return recurse(depth + 1) + frame[0];
}

void expect_too_deep() {
  try {
    recurse(0);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User);
    EXPECT_NE(e.message().find("nesting too deep"), std::string::npos) << e.message();
  }
}

TEST(StackGuard, StopsRecursionOnTheMainThread) {
  expect_too_deep();
}

TEST(StackGuard, StopsRecursionOnLargeStackThreadsOfEverySize) {
  for (size_t mib : {2, 8, 32, 128}) {
    if ((mib << 20) > large_stack_bytes()) continue;  // ASan: at most 60 MiB (stack.h)
    SCOPED_TRACE(std::to_string(mib) + " MiB");
    int r = run_with_large_stack(
        [] {
          expect_too_deep();
          return 7;
        },
        mib << 20);
    EXPECT_EQ(r, 7);
  }
}

TEST(StackGuard, LargeStackThreadsPassResultsAndErrors) {
  EXPECT_EQ(run_with_large_stack([] { return 42; }), 42);
  EXPECT_GT(
      run_with_large_stack([] { return static_cast<int>(stack_bytes_left() >> 20); }),
      static_cast<int>(large_stack_bytes() >> 20) * 9 / 10);  // most of it is free at the start
  EXPECT_THROW(run_with_large_stack([]() -> int { throw Error(ErrorKind::Usage, "x"); }), Error);
}

}  // namespace
}  // namespace risec

// What risec was doing when its memory ran out (tools/risec/main.cpp): the activity an
// exception left is kept for the handler; a scope left normally restores the outer one.
TEST(ActivityScope, KeepsTheActivityAnExceptionLeft) {
  {
    risec::ActivityScope outer("making the inputs");
    { risec::ActivityScope inner("interpreting the program"); }
    EXPECT_STREQ(risec::current_activity(), "making the inputs");
    try {
      risec::ActivityScope inner("interpreting the program");
      throw std::bad_alloc();
    } catch (const std::bad_alloc&) {
      EXPECT_STREQ(risec::current_activity(), "interpreting the program");
    }
  }
}
