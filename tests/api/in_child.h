// Running a test's body in a forked child (the API tests of OpenCL faults and device
// failures): a process that loaded PoCL cannot run OpenCL in a child it forks later
// (its threads are not in the child), which other tests of the API binary do
// (api_gpu_buffers_test.cpp), so the OpenCL calls happen only in the child.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>

#include "risec/risec.h"

namespace risec::test {

// Runs `body` in a child process and returns its exit status: 0 passed, 1 a failed
// expectation, 2 an error (a risec::Error escaping `body`, printed), 3 skipped (what
// `body` returns when there is no OpenCL device).
inline int run_in_child(const std::function<int()>& body) {
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) return 2;
  if (pid == 0) {
    int status = 0;
    try {
      status = body();
      if (status == 0 && ::testing::Test::HasFailure()) status = 1;
    } catch (const risec::Error& e) {
      std::fprintf(stderr, "%s\n", risec::format_error(e).c_str());
      status = 2;
    }
    std::fflush(nullptr);
    ::_exit(status);
  }
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return 2;
  return WEXITSTATUS(status);
}

}  // namespace risec::test
