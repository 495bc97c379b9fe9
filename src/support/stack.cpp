// Large-stack threads and the stack-margin check of stack.h.
#include "support/stack.h"

#include <pthread.h>

#include <exception>
#include <optional>
#include <string>

#include "support/words.h"

namespace risec {

namespace {

// Under AddressSanitizer the large stack stays below 64 MiB: ASan does not clean up the
// shadow of larger stacks when an exception is thrown (__asan_handle_no_return warns
// and then reports false stack-use-after-scope errors). Its frames are several times
// larger, so the reserve below a checked frame is larger too: room for the frames
// between two checks and for raising the error.
#if defined(RISEC_SANITIZED_BUILD)
constexpr size_t kLargeStackBytes = size_t{60} << 20;
constexpr size_t kStackReserveBytes = size_t{4} << 20;
#else
constexpr size_t kLargeStackBytes = size_t{1} << 30;
constexpr size_t kStackReserveBytes = size_t{1} << 20;
#endif

// The lowest usable address of the current thread's stack (0 when unknown).
uintptr_t stack_low_end() {
  thread_local uintptr_t low = [] {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return uintptr_t{0};
    void* addr = nullptr;
    size_t size = 0;
    int rc = pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
    if (rc != 0) return uintptr_t{0};
    return reinterpret_cast<uintptr_t>(addr);
  }();
  return low;
}

struct Job {
  const std::function<int()>* work;
  std::optional<Interface> interface;  // the caller's, for messages (support/words.h)
  int result = 0;
  std::exception_ptr error;
};

void* run_job(void* p) {
  Job* job = static_cast<Job*>(p);
  InterfaceScope words(job->interface);
  try {
    job->result = (*job->work)();
  } catch (...) {
    job->error = std::current_exception();
  }
  return nullptr;
}

}  // namespace

size_t large_stack_bytes() {
  return kLargeStackBytes;
}

int run_with_large_stack(const std::function<int()>& work, size_t stack_bytes) {
  Job job{&work, current_interface()};
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return work();
  pthread_t thread;
  bool started = pthread_attr_setstacksize(&attr, stack_bytes) == 0 &&
                 pthread_create(&thread, &attr, run_job, &job) == 0;
  pthread_attr_destroy(&attr);
  if (!started) return work();
  pthread_join(thread, nullptr);
  if (job.error) std::rethrow_exception(job.error);
  return job.result;
}

size_t stack_bytes_left() {
  uintptr_t low = stack_low_end();
  auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (low == 0 || here <= low) return ~size_t{0};
  return here - low;
}

void check_stack_depth(const Span& where) {
  if (stack_bytes_left() >= kStackReserveBytes) return;
  throw Error(ErrorKind::User,
              "nesting too deep: the program or strategy nests more deeply than the " +
                  std::to_string(kLargeStackBytes >> 20) +
                  " MiB stack allows (see docs/cli.md, \"Limits\")",
              where);
}

}  // namespace risec
