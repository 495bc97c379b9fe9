// Running generated code in a forked child (see isolated.h).
#include "runtime/isolated.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include <dlfcn.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/jit.h"
#include "support/diagnostics.h"

namespace risec::runtime {

namespace {

[[noreturn]] void isolation_error(const std::string& msg) {
  throw Error(ErrorKind::External, msg);
}

size_t page_rounded(size_t n) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return (n + page - 1) / page * page;
}

// What the child reports besides the output: the times, or why it could not run.
// (The times, `repeat` doubles, follow it at kTimesOffset.)
struct Report {
  int status = 0;  // 0 ran; 1 could not load the object
  char message[4096];
  int kernel_times = 0;  // the times are the unit's own (CallInfo)
  char device[512];
  // A unit compiled with --profile exports its stages' totals (CallInfo::profile_ms):
  // their number (-1: not profiled) and the first kMaxProfileStages of them.
  int profile_stages = -1;
  double profile_ms[kMaxProfileStages];
  // Set by the child just before it exits by itself: a child that exits with status 0
  // without it was ended by the program (exit() or _Exit() in a foreign function),
  // whose output is then incomplete.
  int finished = 0;
  // The child's minor page faults (all its threads) during the first call and during
  // the calls after it, together (CallInfo).
  long faults_first_call = 0;
  long faults_later_calls = 0;
};
constexpr size_t kTimesOffset = (sizeof(Report) + 63) / 64 * 64;

// How much longer than its time limit a time-limited child may take to load its
// object and set up (call a device-code unit once, building its kernels) before the
// limit starts: a set-up that hangs, or a first call far too slow, still ends.
// (A device-code unit called once is limited by this alone.)
constexpr double kSetUpAllowanceS = 60;

// In the child, registered last so that it runs first when the program calls exit():
// the process ends with the program's status and nothing else of the parent's runs,
// neither its atexit handlers and static destructors (a sanitizer's leak check among
// them, which changes the status) nor a flush of its stdio buffers.
void end_with_programs_status(int status, void*) {
  ::_exit(status);
}

// The minor page faults of this process so far (every thread's).
long minor_faults() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// In the child: load, call, time; never returns.
// `ready_fd`: written one byte, then closed, once the object is loaded and, for a
// device-code unit (one exporting `entry`__risec_kernel_ms: OpenCL, CUDA), called once:
// its first call builds the kernels (PoCL's program build and its per-launch
// work-group compile take seconds, CUDA loads its modules), which is no part of the
// program's time. The time limit starts at that byte. (That call's time is the unit's
// own kernels' time, without the build, so it is the first of the `repeat`.)
[[noreturn]] void child_main(Report* report, double* times_ms, int err_fd, int ready_fd,
                             const std::string& path, const std::string& entry, bool keep_loaded,
                             const std::vector<void*>& buffers, const std::vector<int>& sizes,
                             int repeat) {
  ::dup2(err_fd, STDERR_FILENO);
  ::close(err_fd);
  // A fault of the program ends the child with its signal, for the parent to report,
  // whatever handlers the parent installed (AddressSanitizer's turn SIGSEGV into a
  // report and exit status 1; an embedding application may have its own).
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) ::signal(sig, SIG_DFL);
  ::on_exit(end_with_programs_status, nullptr);
  try {
    Module m(path, entry, keep_loaded);
    const auto* kernel_ms = static_cast<const double*>(m.symbol(entry + "__risec_kernel_ms"));
    auto set_up = [&] {
      const char ready = 1;
      while (::write(ready_fd, &ready, 1) < 0 && errno == EINTR) {
      }
      ::close(ready_fd);
    };
    if (!kernel_ms) set_up();
    using Clock = std::chrono::steady_clock;
    for (int k = 0; k < repeat; ++k) {
      if (k == 1 && kernel_ms) set_up();
      const long faults_before = minor_faults();
      auto t0 = Clock::now();
      m.call(buffers, sizes);
      auto t1 = Clock::now();
      (k == 0 ? report->faults_first_call : report->faults_later_calls) +=
          minor_faults() - faults_before;
      times_ms[k] =
          kernel_ms ? *kernel_ms : std::chrono::duration<double, std::milli>(t1 - t0).count();
    }
    report->kernel_times = kernel_ms != nullptr;
    const auto* stages = static_cast<const int*>(m.symbol(entry + "__risec_profile_stages"));
    const auto* stage_ms = static_cast<const double*>(m.symbol(entry + "__risec_profile_ms"));
    if (stages && stage_ms) {
      report->profile_stages = std::min(*stages, kMaxProfileStages);
      std::copy(stage_ms, stage_ms + report->profile_stages, report->profile_ms);
    }
    if (const auto* dev = static_cast<const char*>(m.symbol(entry + "__risec_device")))
      std::snprintf(report->device, sizeof report->device, "%s", dev);
  } catch (const std::exception& e) {
    report->status = 1;
    std::snprintf(report->message, sizeof report->message, "%s", e.what());
    report->finished = 1;
    ::_exit(0);
  }
  report->finished = 1;
  // No destructors, no atexit handlers, no flushing of the parent's stdio buffers:
  // they belong to the parent. (The Module stays loaded until the process ends.)
  ::_exit(0);
}

// GNU OpenMP keeps the threads of a thread's parallel regions in a pool, per thread,
// for the next region, and does not survive fork(): a child forked by a thread that
// had run parallel regions finds that pool but not its threads, and its first
// parallel region waits for them forever. The parent never loads generated code
// itself, but a process embedding risec may have (risec::Kernel, the Python package,
// the test suite's in-process calls): when libgomp is loaded, the calling thread's
// pool is released before the fork (OpenMP 5.0 omp_pause_resource_all; its threads
// end, and the next parallel region of this thread starts new ones).
void release_openmp_threads() {
  void* gomp = ::dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!gomp) return;
  using Pause = int (*)(int);
  if (auto pause = reinterpret_cast<Pause>(::dlsym(gomp, "omp_pause_resource_all")))
    pause(2);  // omp_pause_hard
  ::dlclose(gomp);
}

}  // namespace

bool gpu_runtime_loaded() {
  for (const char* lib : {"libOpenCL.so.1", "libOpenCL.so", "libcuda.so.1", "libcuda.so"}) {
    if (void* h = ::dlopen(lib, RTLD_NOW | RTLD_NOLOAD)) {
      ::dlclose(h);
      return true;
    }
  }
  return false;
}

MappedBuffer::MappedBuffer(size_t size, size_t page_offset, Sharing sharing, const char* what)
    : size_(size),
      offset_(page_offset % page_rounded(1) / 64 * 64),
      mapped_(page_rounded(offset_ + (size ? size : 1))) {
  const int flags = (sharing == Sharing::WithChildren ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS;
  void* p = ::mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED) {
    mapped_ = 0;
    isolation_error("cannot allocate " + std::to_string(size) + " bytes " + what + ": " +
                    std::strerror(errno));
  }
  data_ = static_cast<std::byte*>(p) + offset_;
  // Touch every page now (it reads zero), as the parent's buffers were touched before:
  // the first timed call must not pay for the page faults.
  std::memset(data_, 0, size_);
}

MappedBuffer::MappedBuffer(MappedBuffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      offset_(std::exchange(o.offset_, 0)),
      mapped_(std::exchange(o.mapped_, 0)) {}

MappedBuffer& MappedBuffer::operator=(MappedBuffer&& o) noexcept {
  if (this != &o) {
    if (data_) ::munmap(data_ - offset_, mapped_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    offset_ = std::exchange(o.offset_, 0);
    mapped_ = std::exchange(o.mapped_, 0);
  }
  return *this;
}

MappedBuffer::~MappedBuffer() {
  if (data_) ::munmap(data_ - offset_, mapped_);
}

std::string describe_program_signal(int sig) {
  const char* name = sigabbrev_np(sig);
  std::string s = name ? std::string("SIG") + name : "signal " + std::to_string(sig);
  switch (sig) {
    case SIGFPE:
      return s + " (integer division by zero or overflow?)";
    case SIGSEGV:
      return s + " (an invalid memory access: an index out of bounds?)";
    case SIGBUS:
      return s + " (an invalid memory access)";
    case SIGILL:
      return s +
             " (an illegal instruction: a trap for undefined behaviour, or an "
             "instruction this CPU does not have)";
    case SIGABRT:
      return s + " (the program aborted)";
    default: {
      const char* d = strsignal(sig);
      return d ? s + " (" + d + ")" : s;
    }
  }
}

std::vector<double> call_isolated(const std::string& path, const std::string& entry,
                                  bool keep_loaded, const std::vector<void*>& buffers,
                                  const std::vector<int>& sizes, int repeat, bool* load_failed,
                                  CallInfo* info, double time_limit_s) {
  if (load_failed) *load_failed = false;
  if (repeat < 1) internal_error("call_isolated: repeat must be at least 1");
  SharedBuffer shared(kTimesOffset + sizeof(double) * static_cast<size_t>(repeat));
  auto* report = new (shared.data()) Report;
  report->device[0] = 0;
  auto* times_ms = reinterpret_cast<double*>(shared.data() + kTimesOffset);
  int fds[2], ready_fds[2];
  if (::pipe(fds) != 0)
    isolation_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  if (::pipe(ready_fds) != 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    isolation_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  std::fflush(nullptr);
  release_openmp_threads();
  pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {fds[0], fds[1], ready_fds[0], ready_fds[1]}) ::close(fd);
    isolation_error(std::string("cannot fork to run the program: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    ::close(ready_fds[0]);
    child_main(report, times_ms, fds[1], ready_fds[1], path, entry, keep_loaded, buffers, sizes,
               repeat);
  }
  ::close(fds[1]);
  ::close(ready_fds[1]);
  // What the program writes on stderr, to report with a failure (and to pass on),
  // until it closes the pipe by ending (or the time limit passes). The limit counts
  // from the child's word that its set-up is done (ready_fds: loading the object, and
  // building a device-code unit's kernels, which takes PoCL seconds and which a killed
  // child would never cache), which must come within the limit plus kSetUpAllowanceS.
  using Clock = std::chrono::steady_clock;
  auto after = [](double s) {
    return Clock::now() +
           std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  bool prepared = false;
  auto deadline = after(time_limit_s + kSetUpAllowanceS);
  bool timed_out = false;
  std::string err;
  char buf[4096];
  for (;;) {
    if (time_limit_s > 0) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      pollfd pfd[2] = {{fds[0], POLLIN, 0}, {prepared ? -1 : ready_fds[0], POLLIN, 0}};
      const int ready =
          left > 0 ? ::poll(pfd, 2, static_cast<int>(std::min<int64_t>(left + 1, 1000000))) : 0;
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) {
        // The whole child (its OpenMP threads with it) ends at once.
        ::kill(pid, SIGKILL);
        timed_out = true;
        break;
      }
      if (!prepared && pfd[1].revents != 0) {
        // Ready (a byte), or the child ended before (end of file): the clock starts.
        prepared = true;
        deadline = after(time_limit_s);
        ::close(ready_fds[0]);
        ready_fds[0] = -1;
      }
      if (ready > 0 && pfd[0].revents == 0) continue;
    }
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n > 0) {
      err.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  ::close(fds[0]);
  if (ready_fds[0] >= 0) ::close(ready_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      isolation_error(std::string("waiting for the program: ") + std::strerror(errno));
  if (timed_out) {
    if (!info)
      isolation_error("the program ran past its time limit of " + std::to_string(time_limit_s) +
                      " s and was stopped");
    info->timed_out = true;
    return {};
  }
  while (!err.empty() && err.back() == '\n') err.pop_back();
  std::string what;
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT && !err.empty())
    // It said why (a failed check of generated code: a division by zero, a size).
    isolation_error("the program stopped: " + err);
  if (WIFSIGNALED(status))
    what = "the program was killed by " + describe_program_signal(WTERMSIG(status));
  else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
    what = "the program exited with status " + std::to_string(WEXITSTATUS(status));
  else if (!report->finished)
    what = "the program exited (status 0) before its call returned, so its output is incomplete";
  if (!what.empty()) isolation_error(what + (err.empty() ? "" : "; it wrote:\n" + err));
  if (report->status != 0) {
    if (load_failed) *load_failed = true;
    isolation_error(report->message);
  }
  // A successful program's messages (none, usually) are passed on.
  if (!err.empty()) std::fprintf(stderr, "%s\n", err.c_str());
  if (info) {
    info->kernel_times = report->kernel_times != 0;
    info->device = report->device;
    info->profiled = report->profile_stages >= 0;
    info->faults_first_call = report->faults_first_call;
    info->faults_later_calls = report->faults_later_calls;
    info->profile_ms.assign(report->profile_ms,
                            report->profile_ms + std::max(report->profile_stages, 0));
  }
  return std::vector<double>(times_ms, times_ms + repeat);
}

}  // namespace risec::runtime
