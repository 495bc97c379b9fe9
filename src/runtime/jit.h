// Compile-and-load of generated C: the step between code generation and running,
// timing and checking (risec run, the end-to-end tests, benchmarks).
//
// A translation unit is compiled by `$CC` (default `cc`; it may be several words,
// e.g. "ccache gcc") with
//     -O3 -march=native -ffp-contract=fast -fno-math-errno -std=gnu99 [-fopenmp | -fopenmp-simd]
//     -DRISEC_OMP_SIMD $RISEC_CFLAGS <extra> ... -lmvec -lm
// (the spec's flags, plus what lets vector math lane loops use glibc's libmvec).
// through fork/execvp (never a shell), in a private directory made with mkdtemp. The
// result is cached in cache_dir() under a hash of the compiler (its words and the
// identity of its executable), the flags, the host CPU when -march=native is used,
// and the source; entries are written atomically (compiled under a temporary name,
// then renamed), so concurrent runs never see a half-written file. A compiler
// failure is a risec::Error (External) carrying the compiler's output.
//
// Two ways to run the result:
//   - Module: a shared object loaded into this process with dlopen; call() runs the
//     uniform entry `NAME__risec_call(void* const* buffers, const int* sizes)` that
//     every generated unit defines (buffers[0] the output, then the inputs).
//   - Executable: the unit linked with a small generated main() into a standalone
//     program, run as a child process on inputs passed as raw binary files. This is
//     how generated code is checked under -fsanitize=address,undefined: a sanitized
//     shared object cannot be loaded into an unsanitized process (ASan must be the
//     first library loaded), but a sanitized executable is an ordinary program. Each
//     buffer is allocated with its exact size, so one byte past the end is reported.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "risec/error.h"

namespace risec::runtime {

struct CompileOptions {
  bool openmp = false;                   // add -fopenmp (compiling and linking)
  bool cuda = false;                     // CUDA C++ (a .cu file), compiled by nvcc_compiler()
  std::vector<std::string> extra_flags;  // after the defaults and $RISEC_CFLAGS
  std::vector<std::string> libs;         // linked after the sources (-lOpenCL)
};

// The host CPU as /proc/cpuinfo names it: its model name and feature flags lines,
// which -march=native code depends on (a cache or a tuning database shared between
// machines must not hand one CPU's code or timings to another). Empty where there is
// no /proc/cpuinfo.
std::string host_cpu();

// The compiler command: the words of $CC, or {"cc"}.
std::vector<std::string> c_compiler();
// The CUDA compiler command: the words of $NVCC, else `nvcc` found in PATH, else
// /usr/local/cuda/bin/nvcc. Throws risec::Error (External) saying how to provide one
// when it is not there.
std::vector<std::string> nvcc_compiler();
// The flags for a shared object or an executable, in order: the defaults (-O3
// -march=native -ffp-contract=fast -fno-math-errno -std=gnu99, then -shared -fPIC for a shared
// object), -fopenmp when asked, the words of $RISEC_CFLAGS, then options.extra_flags.
// CUDA: -O3 -std=c++17 -arch=native (the GPU present; $RISEC_CUDA_ARCH replaces
// "native"), -shared -Xcompiler -fPIC, the words of $RISEC_NVCCFLAGS, then
// options.extra_flags.
std::vector<std::string> compile_flags(const CompileOptions& options, bool shared_object);
// Flags that build a sanitized executable whose first error ends it with a report on
// stderr and a non-zero exit status: -fsanitize=address,undefined
// -fno-sanitize-recover=all -fno-omit-frame-pointer -g.
std::vector<std::string> sanitizer_flags();

// Where compiled code is cached: $RISEC_CACHE_DIR, else $XDG_CACHE_HOME/risec, else
// $HOME/.cache/risec, else ${TMPDIR:-/tmp}/risec-cache-UID. Created (0700) when
// missing. Throws risec::Error (External) when no directory can be made.
std::string cache_dir();

// A compiled file in the cache.
struct Artifact {
  std::string path;             // <cache>/<hash>.so or <cache>/<hash>.exe
  bool cache_hit = false;       // found in the cache: the compiler did not run
  std::string compiler_output;  // what the compiler printed (warnings), "" on a hit
};

// Compile `source` into a shared object. The source is kept in the cache as
// <hash>.c. Throws risec::Error (External) naming that file, with the compiler's
// command line and output, when the compiler fails.
Artifact build_shared_object(const std::string& source, const CompileOptions& options = {});

// Compile `source` (a unit defining `entry`__risec_call) with a generated main()
// into a standalone executable (see Executable).
Artifact build_executable(const std::string& source, const std::string& entry,
                          const CompileOptions& options = {});

// In-process calls and the generated code's faults. Generated code reports a fault of
// the data (an idx[n] input or a natAsIndex out of range, an integer division by zero)
// through the macros RISEC_BOUNDS_FAILED / RISEC_ARITHMETIC_FAILED, by default a message
// and abort(): right for a standalone program and for risec run's child process, fatal
// for a caller that loaded the code into its own process. with_fault_recording(source,
// entry) is `source` (a unit defining `entry`__risec_call) with those macros defined
// first to record the fault instead, and one more entry,
//     int ENTRY__risec_call_faults(void* const* buffers, const int* sizes,
//                                  char* message, int capacity)
// which calls ENTRY__risec_call and returns 1 with "f: what" (the text risec run
// prints) in `message` when the call faulted, else 0. Every check site returns a safe
// value after its report (an index 0, a quotient 0, the input check returns before any
// loop), so the call goes on without touching memory outside its buffers; its output
// may then be partly written. The first fault of a call wins (a compare-and-swap:
// OpenMP threads may fault at once), and a call starts with none recorded. The record
// is per calling thread (thread-local) where the unit runs on the caller's thread (c,
// opencl and cuda hosts), so concurrent calls of one kernel never see each other's
// faults; code compiled with OpenMP (_OPENMP) faults on its worker threads, so its record
// is the unit's own and its calls are serialised by a lock of the unit (each call already
// uses every core). The host code of the GPU targets reports a failure of the device or
// its runtime (no OpenCL platform, no CUDA GPU, an API call's error, kernels that do not
// build) through RISEC_DEVICE_FAILED(what), by default the message and abort(); it is
// recorded here too, and the host function then releases what it made, unlocks and
// returns (a set-up that failed is undone: the next call sets up again), and the entry
// returns 2 with `what` in `message`. The C and OpenMP code reports a failed allocation
// of an intermediate array through RISEC_ALLOC_FAILED(fn, what) ("f: cannot allocate N
// bytes for an intermediate array", by default the message and abort()): recorded as a
// failure of kind 2 too, and RISEC_STOPPED() becomes 1, on which the function releases
// the buffers it holds and returns (a buffer inside a loop skips its scope first). A
// source that mentions none of the four macros (compiled without bounds checks, no
// integer division, no device, no heap buffer) is returned as it is. A definition of a macro in
// $RISEC_CFLAGS still wins (the fault is then that definition's business).
std::string with_fault_recording(const std::string& source, const std::string& entry);

// A loaded shared object and its uniform entry point; dlclose on destruction.
class Module {
 public:
  // dlopen(path, RTLD_NOW | RTLD_LOCAL) and dlsym(`entry`__risec_call). Throws
  // risec::Error (External) with dlerror()'s message. With `keep_loaded` the object
  // stays in memory after dlclose (RTLD_NODELETE): code using OpenMP must, since
  // unloading libgomp while its worker threads wait crashes the process. A GPU
  // target's unit keeps its device buffers between calls: the destructor calls its
  // `entry`__risec_release before dlclose (another Module of the same object, which
  // shares them, then sets up again on its next call).
  Module(const std::string& path, const std::string& entry, bool keep_loaded = false);
  Module(Module&& other) noexcept;
  Module& operator=(Module&& other) noexcept;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module();

  // buffers[0]: the output; buffers[1..]: the inputs in order; sizes: the values of
  // the unit's size parameters in order. A unit built from with_fault_recording's
  // source throws risec::Error (Fault) when the call faulted: "the program stopped: f:
  // natAsIndex(4): 7 is out of range", the words risec run uses; and risec::Error
  // (External) with the device's message when its device failed ("no OpenCL platform
  // with a device matches RISEC_OPENCL_PLATFORM=x", "OpenCL error -61 in clCreateBuffer
  // of N bytes"; trailing newlines dropped), its output not written.
  void call(const std::vector<void*>& buffers, const std::vector<int>& sizes) const;
  const std::string& path() const { return path_; }
  // The address of the object's symbol `name`, or null.
  void* symbol(const std::string& name) const;

 private:
  void unload();  // release_, then dlclose

  void* handle_ = nullptr;
  void (*fn_)(void* const*, const int*) = nullptr;
  void (*release_)() = nullptr;  // `entry`__risec_release, when the unit has one
  // `entry`__risec_call_faults, when the unit records its faults (with_fault_recording)
  int (*faults_)(void* const*, const int*, char*, int) = nullptr;
  std::string path_;
};

// Whether code compiled with `options` uses the OpenMP runtime (asked for, or through
// $RISEC_CFLAGS): such a Module must be kept loaded.
bool uses_openmp_runtime(const CompileOptions& options);

// A shared object just built that does not load (`e`, its loader's error): removed from
// the cache, where each later run would load it again and fail the same way, and `e`
// thrown again (External), naming -fvisibility=hidden in RISEC_CFLAGS where the entry
// is missing.
[[noreturn]] void discard_unloadable(const std::string& path, const Error& e);

// build_shared_object of with_fault_recording(source, entry), then load it: a fault of
// the code is an Error of Module::call, never the end of this process. An object found
// in the cache that fails to load (damaged, cut short, another machine's) is removed
// and built once more; only a failure of that one is an error. The C++ API's Kernel
// (and so Python) loads this way.
Module jit_compile(const std::string& source, const std::string& entry,
                   const CompileOptions& options = {}, bool* cache_hit = nullptr);

// A byte range passed to or filled by a standalone executable.
struct Bytes {
  const void* data = nullptr;
  size_t size = 0;
};

// A standalone executable made by build_executable. Its command line is
//     EXE OUTPUT_FILE OUTPUT_BYTES NUM_SIZES SIZE... INPUT_FILE...
// it reads each input file into a buffer of exactly the file's size (64-byte
// aligned), allocates the output with exactly OUTPUT_BYTES (zeroed), calls the
// entry once, and writes the output bytes to OUTPUT_FILE.
class Executable {
 public:
  explicit Executable(std::string path) : path_(std::move(path)) {}

  struct Options {
    double timeout_s = 0;  // 0: no limit
  };
  // Run it once on `inputs`, writing `output_size` bytes to `output`. The inputs are
  // passed through files in a fresh temporary directory. Throws risec::Error
  // (Internal) when the program fails: a sanitizer report, a crash or a timeout of
  // generated code is a compiler bug; the message holds its stderr.
  void call(void* output, size_t output_size, const std::vector<Bytes>& inputs,
            const std::vector<int>& sizes) const;
  void call(void* output, size_t output_size, const std::vector<Bytes>& inputs,
            const std::vector<int>& sizes, const Options& options) const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The C source of the standalone main() calling `entry`__risec_call.
std::string standalone_main_source(const std::string& entry);

}  // namespace risec::runtime
