// Running generated code so that its faults are the program's, not risec's
// (spec/cli.md: a crash in generated code is an error of the program, exit 4).
// The entry of a compiled shared object is called in a forked child process: the
// child loads the object (the parent never does, so the parent holds no OpenMP
// threads that a fork would lose), calls the entry `repeat` times, timing each call
// itself, and exits. The inputs are the parent's memory, which the child reads
// copy-on-write (no copy); the output is written into a SharedBuffer, memory mapped
// MAP_SHARED before the fork, so the parent sees it without a copy either. A signal
// (SIGFPE, SIGSEGV, ...) or a non-zero exit of the child becomes a risec::Error
// (External: exit 4) saying what happened, with what the program wrote on stderr.
// The child is the program's alone: the fault signals get their default action
// (whatever handlers the parent had, e.g. AddressSanitizer's), an exit() of the
// program ends it at once with the program's status (none of the parent's atexit
// handlers or destructors run), and a process that ran OpenMP code itself releases its
// thread's OpenMP threads before the fork (a child cannot use them).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace risec::runtime {

// Zeroed anonymous memory whose data() lies `page_offset` bytes (rounded down to a
// multiple of 64) into its first page, every page touched (a forked child's first
// call pays no page fault). Shared with forked children (MAP_SHARED: the result they
// write) or private (MAP_PRIVATE: a child reads the parent's pages, copy-on-write).
class MappedBuffer {
 public:
  enum class Sharing { WithChildren, Private };
  MappedBuffer() = default;
  // `what` names the buffer in the error when it cannot be allocated.
  MappedBuffer(size_t size, size_t page_offset, Sharing sharing, const char* what);
  MappedBuffer(const MappedBuffer&) = delete;
  MappedBuffer& operator=(const MappedBuffer&) = delete;
  MappedBuffer(MappedBuffer&& other) noexcept;
  MappedBuffer& operator=(MappedBuffer&& other) noexcept;
  ~MappedBuffer();

  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  std::byte* data_ = nullptr;
  size_t size_ = 0;
  size_t offset_ = 0;  // data_ - the start of the mapping
  size_t mapped_ = 0;
};

// Where `risec run` (driver::execute) places every buffer it passes to the program: this
// many bytes into a page, where glibc's posix_memalign(64) and aligned operator new put
// a large array (a mapping of its own, its 16-byte header rounded up to 64). One fixed
// offset for the inputs and the output, whatever allocated the inputs' values before:
// inputs read from .npy files came from glibc's heap (reading them freed large
// buffers, which raises malloc's mmap threshold), seeded ones from mappings of their
// own, so the same program's arrays lay differently in the two (issue 34).
inline constexpr size_t kPlacementOffset = 64;

// The result of an isolated call, shared with the child that writes it: risec run
// places it at kPlacementOffset, as it places every input (PlacedBuffer), so that the
// output and the inputs lie at one offset in their pages, as two large arrays of a C
// program or NumPy do (docs/performance.md, "Softmax and layer norm, where the time
// goes").
class SharedBuffer : public MappedBuffer {
 public:
  SharedBuffer() = default;
  explicit SharedBuffer(size_t size, size_t page_offset = 0)
      : MappedBuffer(size, page_offset, Sharing::WithChildren, "of shared memory for the result") {}
};

// Private memory for the inputs of `risec run`, at kPlacementOffset.
class PlacedBuffer : public MappedBuffer {
 public:
  PlacedBuffer() = default;
  PlacedBuffer(size_t size, size_t page_offset)
      : MappedBuffer(size, page_offset, Sharing::Private, "for an input") {}
};

// What generated code reports beside its output, when it exports it: an OpenCL
// unit's `entry`__risec_kernel_ms (the kernels' time of a call, which then replaces
// the wall time) and `entry`__risec_device (the platform and device it ran on).
// A unit compiled with --profile also exports `entry`__risec_profile_stages and
// `entry`__risec_profile_ms (codegen/c/profile.cpp): the milliseconds each stage took,
// summed over the calls of the child.
constexpr int kMaxProfileStages = 256;  // codegen::kMaxProfileStages, checked in driver/run.cpp
struct CallInfo {
  bool kernel_times = false;
  std::string device;
  bool profiled = false;
  std::vector<double> profile_ms;
  // Minor page faults of the child (every thread) during the first call, and during
  // the other calls together: a program whose heap buffers are kept between calls
  // faults them in once (tests/e2e/heap_buffers_test.cpp).
  long faults_first_call = 0;
  long faults_later_calls = 0;
  // The child ran past call_isolated's time limit and was killed: no times, no output.
  bool timed_out = false;
};

// Calls `entry`__risec_call of the shared object at `path` `repeat` times in a
// forked child (buffers[0] the output, in a SharedBuffer; then the inputs), and
// returns the wall time of each call in milliseconds. `keep_loaded`: see Module.
// When the object cannot be loaded (a damaged cache entry), *load_failed is set
// before the Error is thrown. `time_limit_s` > 0: a child still running that long
// after it has set up is killed; then info->timed_out is set and no times are
// returned (without `info`, an Error says so). Setting up is loading the object and,
// for a unit with device code (exporting `entry`__risec_kernel_ms: OpenCL, CUDA), its
// first call, which builds its kernels (seconds on PoCL, where a kernel may take
// microseconds; the call's time, the unit's own, leaves the build out); setting up may
// take the limit plus a minute.
std::vector<double> call_isolated(const std::string& path, const std::string& entry,
                                  bool keep_loaded, const std::vector<void*>& buffers,
                                  const std::vector<int>& sizes, int repeat,
                                  bool* load_failed = nullptr, CallInfo* info = nullptr,
                                  double time_limit_s = 0);

// Whether this process has loaded an OpenCL or CUDA driver (libOpenCL.so.1,
// libcuda.so.1), e.g. through an in-process call of generated code (the C++ API's
// Kernel, the Python module). A child forked after the platform started inherits its
// state but not its worker threads: PoCL's first launch there waits forever, and CUDA
// does not support a fork after its initialisation. Such programs must run in a fresh
// process (driver::execute then runs the standalone executable).
bool gpu_runtime_loaded();

// What a signal that ended generated code probably means, e.g. "SIGFPE (integer
// division by zero or overflow?)".
std::string describe_program_signal(int sig);

}  // namespace risec::runtime
