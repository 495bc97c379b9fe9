// Deep inputs (long `|>` chains, long strategy sequences, nested definitions) are
// walked by recursive passes. Two defences keep that recursion from ever overflowing
// the stack (issue 11): the command line runs the compiler on a thread with a large
// reserved stack (virtual memory, touched only as deep as the recursion goes), and
// the recursive walks call `check_stack_depth`, which raises a located "nesting too
// deep" error while a safety margin of the current thread's stack is still free. The
// margin check works on any thread (the 8 MiB main thread of a test binary included),
// so a library caller gets an error instead of a signal too.
#pragma once

#include <cstddef>
#include <functional>

#include "support/diagnostics.h"

namespace risec {

// The stack the command line gives the compiler's thread (docs/cli.md, "Limits").
// Under AddressSanitizer it stays below 64 MiB: ASan does not clean up the shadow of
// larger stacks when an exception is thrown (__asan_handle_no_return warns and then
// reports false stack-use-after-scope errors).
#if defined(RISEC_SANITIZED_BUILD)
inline constexpr size_t kLargeStackBytes = size_t{60} << 20;
#else
inline constexpr size_t kLargeStackBytes = size_t{1} << 30;  // 1 GiB, reserved lazily
#endif

// How much of a thread's stack must stay free below a checked frame: room for the
// frames between two checks and for raising the error.
#if defined(RISEC_SANITIZED_BUILD)
inline constexpr size_t kStackReserveBytes = size_t{4} << 20;
#else
inline constexpr size_t kStackReserveBytes = size_t{1} << 20;
#endif

// Runs `work` on a new thread with a `stack_bytes` stack and returns its result; an
// exception thrown by `work` is rethrown on the calling thread. When no such thread
// can be made, `work` runs on the calling thread.
int run_with_large_stack(const std::function<int()>& work, size_t stack_bytes = kLargeStackBytes);

// Bytes of stack left below the caller's frame on the current thread (a large number
// when the thread's stack cannot be determined).
size_t stack_bytes_left();

// Throws a User error "nesting too deep" located at `where` when less than
// kStackReserveBytes of the current thread's stack is left. Cheap: one comparison
// after the first call on a thread.
void check_stack_depth(const Span& where = {});

}  // namespace risec
