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

// The stack the command line gives the compiler's thread (docs/cli.md, "Limits"): 1
// GiB, reserved lazily; 60 MiB in the sanitizer build (stack.cpp). A function, not a
// constant of this header: the sanitizer build's tests are compiled once, with the
// Release build's (docs/testing.md), and must get the library's own value.
size_t large_stack_bytes();

// Runs `work` on a new thread with a `stack_bytes` stack and returns its result; an
// exception thrown by `work` is rethrown on the calling thread. (The default argument
// is a call, made where run_with_large_stack is called: the library's value.)
// When no such thread can be made, `work` runs on the calling thread.
int run_with_large_stack(const std::function<int()>& work,
                         size_t stack_bytes = large_stack_bytes());

// Bytes of stack left below the caller's frame on the current thread (a large number
// when the thread's stack cannot be determined).
size_t stack_bytes_left();

// Throws a User error "nesting too deep" located at `where` when less than a reserve
// (1 MiB; 4 MiB under the sanitizers) of the current thread's stack is left. Cheap:
// one comparison after the first call on a thread.
void check_stack_depth(const Span& where = {});

}  // namespace risec
