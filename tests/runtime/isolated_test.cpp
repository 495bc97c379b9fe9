// Tests of running generated code in a forked child (runtime/isolated.h) in a process
// that is not a plain risec: one whose signal handlers, atexit handlers or OpenMP
// threads would otherwise leak into the child. The program's fault or early exit is
// reported as the program's, whatever handlers the parent installed (AddressSanitizer
// installs a SIGSEGV handler and a leak check at exit); OpenMP code runs in the child
// after this process has run OpenMP code itself (it used to wait forever there).
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "runtime/isolated.h"
#include "runtime/jit.h"
#include "runtime/process.h"
#include "support/diagnostics.h"

namespace risec::runtime {
namespace {

// Kills this process's children (a child left waiting would keep the test's output
// pipe open).
void kill_children() {
  const pid_t self = ::getpid();
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::ifstream in(entry.path() / "stat");
    std::string line;
    if (!std::getline(in, line) || line.rfind(')') == std::string::npos) continue;
    // "pid (name) state ppid ...": the name may hold spaces, so read after the ')'.
    std::istringstream rest(line.substr(line.rfind(')') + 1));
    char state;
    pid_t ppid = 0;
    if (rest >> state >> ppid && ppid == self) ::kill(std::stoi(entry.path().filename()), SIGKILL);
  }
}

// Ends the process, failing, when not destroyed within two minutes (a child that
// never finishes would otherwise hang the test).
class Watchdog {
 public:
  explicit Watchdog(const std::string& what)
      : thread_([this, what] {
          std::unique_lock<std::mutex> lock(mutex_);
          started_ = true;
          done_cv_.notify_all();
          if (!done_cv_.wait_for(lock, std::chrono::minutes(2), [this] { return done_; })) {
            std::fprintf(stderr, "%s: the child has not finished after two minutes\n",
                         what.c_str());
            kill_children();
            std::_Exit(1);
          }
        }) {
    // Return only once the thread waits (holding no lock): a thread still starting
    // when the test forks can leave a lock of the thread library (or the sanitizer's)
    // taken in the child, which then hangs creating its own threads.
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait(lock, [this] { return started_; });
  }
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    done_cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  bool started_ = false;
  std::thread thread_;
};

class IsolatedTest : public ::testing::Test {
 protected:
  IsolatedTest() : dir_("risec-isolated-test-") {
    if (const char* old = std::getenv("RISEC_CACHE_DIR")) old_cache_ = old;
    ::setenv("RISEC_CACHE_DIR", (dir_.path() + "/cache").c_str(), 1);
  }
  ~IsolatedTest() override {
    if (old_cache_.empty())
      ::unsetenv("RISEC_CACHE_DIR");
    else
      ::setenv("RISEC_CACHE_DIR", old_cache_.c_str(), 1);
  }

  // Calls `entry` of `source` (out[i] = f(x[i]) for 64 floats) in a forked child and
  // returns "" (and the output), or the error's message prefixed with "error: ".
  std::string call(const std::string& source, const std::string& entry, bool openmp,
                   std::vector<float>* out = nullptr) {
    CompileOptions co;
    co.openmp = openmp;
    const std::string path = build_shared_object(source, co).path;
    std::vector<float> x(64);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
    SharedBuffer result(x.size() * sizeof(float));
    std::string r;
    {
      // On this thread: the one that may have run OpenMP code in this process.
      Watchdog watchdog(entry);
      try {
        call_isolated(path, entry, openmp, {result.data(), x.data()}, {64}, 2);
      } catch (const Error& e) {
        r = "error: " + e.message();
      }
    }
    if (out) {
      const auto* f = reinterpret_cast<const float*>(result.data());
      out->assign(f, f + x.size());
    }
    return r;
  }

  TempDir dir_;
  std::string old_cache_;
};

const char* kOpenMPDouble = R"(
void twice__risec_call(void* const* buffers, const int* sizes) {
  float* out = (float*)buffers[0];
  const float* x = (const float*)buffers[1];
  #pragma omp parallel for num_threads(4)
  for (int i = 0; i < sizes[0]; ++i) out[i] = 2.0f * x[i];
}
)";

TEST_F(IsolatedTest, OpenMPRunsInTheChildAfterThisProcessRanOpenMP) {
  std::vector<float> x(64), out(64), expected(64);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(i);
    expected[i] = 2.0f * x[i];
  }
  CompileOptions co;
  co.openmp = true;
  // In this process first: its thread now has a pool of OpenMP threads.
  Module here = jit_compile(kOpenMPDouble, "twice", co);
  here.call({out.data(), x.data()}, {64});
  EXPECT_EQ(out, expected);
  for (int round = 0; round < 3; ++round) {
    std::vector<float> got;
    EXPECT_EQ(call(kOpenMPDouble, "twice", true, &got), "") << round;
    EXPECT_EQ(got, expected) << round;
    // and here again, with new threads
    std::fill(out.begin(), out.end(), -1.0f);
    here.call({out.data(), x.data()}, {64});
    EXPECT_EQ(out, expected) << round;
  }
}

// The program's own signal, not the handler this process installed for it.
void exit_seven(int) {
  ::_exit(7);
}

TEST_F(IsolatedTest, AFaultIsTheProgramsSignalWhateverHandlerThisProcessHas) {
  struct sigaction mine = {}, old_segv = {}, old_fpe = {};
  mine.sa_handler = exit_seven;
  ::sigaction(SIGSEGV, &mine, &old_segv);
  ::sigaction(SIGFPE, &mine, &old_fpe);
  const std::string segv = R"(
void segv__risec_call(void* const* buffers, const int* sizes) {
  float* out = (float*)buffers[0];
  for (int i = 0; i < sizes[0]; ++i) out[i] = *(volatile float*)0;
}
)";
  const std::string fpe = R"(
#include <signal.h>
void fpe__risec_call(void* const* buffers, const int* sizes) {
  (void)buffers; (void)sizes;
  raise(SIGFPE);
}
)";
  for (bool openmp : {false, true}) {
    std::string r = call(segv, "segv", openmp);
    EXPECT_NE(r.find("killed by SIGSEGV"), std::string::npos) << r;
    r = call(fpe, "fpe", openmp);
    EXPECT_NE(r.find("killed by SIGFPE"), std::string::npos) << r;
  }
  ::sigaction(SIGSEGV, &old_segv, nullptr);
  ::sigaction(SIGFPE, &old_fpe, nullptr);
}

// Set by an atexit handler of this process when it runs in another process.
pid_t g_test_process = 0;
std::string g_marker;
void mark_if_in_a_child() {
  if (::getpid() != g_test_process && !g_marker.empty()) write_file(g_marker, "ran");
}

TEST_F(IsolatedTest, ExitInTheProgramRunsNoneOfThisProcesssExitHandlers) {
  g_test_process = ::getpid();
  g_marker = dir_.path() + "/atexit-ran-in-the-child";
  static bool registered = false;
  if (!registered) registered = std::atexit(mark_if_in_a_child) == 0;
  ASSERT_TRUE(registered);
  for (const char* status : {"0", "3"}) {
    const std::string source = std::string(R"(
#include <stdlib.h>
void quit__risec_call(void* const* buffers, const int* sizes) {
  float* out = (float*)buffers[0];
  out[0] = 1.0f;
  (void)sizes;
  exit()") + status + R"();
}
)";
    std::string r = call(source, "quit", false);
    if (std::string(status) == "0")
      EXPECT_NE(r.find("before its call returned"), std::string::npos) << r;
    else
      EXPECT_NE(r.find("exited with status 3"), std::string::npos) << r;
    EXPECT_FALSE(std::filesystem::exists(g_marker)) << "this process's atexit handler ran";
  }
  g_marker.clear();
}

// A child still running at the time limit is killed, OpenMP threads and all: the
// caller learns it from CallInfo (or an Error without one) after about the limit, not
// after the program would have ended. A program that ends in time is unaffected.
TEST_F(IsolatedTest, AChildPastItsTimeLimitIsKilled) {
  const char* source = R"(
#include <unistd.h>
void slow__risec_call(void* const* buffers, const int* sizes) {
  float* out = (float*)buffers[0];
  #pragma omp parallel for num_threads(2)
  for (int i = 0; i < sizes[0]; ++i) { if (i == 0) sleep(60); out[i] = 1.0f; }
}
)";
  for (bool openmp : {false, true}) {
    SCOPED_TRACE(openmp ? "openmp" : "c");
    CompileOptions co;
    co.openmp = openmp;
    const std::string path = build_shared_object(source, co).path;
    std::vector<float> x(64, 1.0f);
    SharedBuffer result(x.size() * sizeof(float));
    Watchdog watchdog("slow");
    const auto t0 = std::chrono::steady_clock::now();
    CallInfo info;
    std::vector<double> times = call_isolated(path, "slow", openmp, {result.data(), x.data()}, {64},
                                              3, nullptr, &info, 0.3);
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_TRUE(info.timed_out);
    EXPECT_TRUE(times.empty());
    EXPECT_GE(waited, 0.3);
    EXPECT_LT(waited, 30.0);
    try {
      call_isolated(path, "slow", openmp, {result.data(), x.data()}, {64}, 1, nullptr, nullptr,
                    0.2);
      ADD_FAILURE() << "no error without CallInfo";
    } catch (const Error& e) {
      EXPECT_NE(e.message().find("time limit"), std::string::npos) << e.message();
    }
  }
  // In time: the times of every call, the output written.
  CompileOptions co;
  co.openmp = true;
  const std::string path = build_shared_object(kOpenMPDouble, co).path;
  std::vector<float> x(64, 3.0f);
  SharedBuffer result(x.size() * sizeof(float));
  Watchdog watchdog("twice");
  CallInfo info;
  std::vector<double> times =
      call_isolated(path, "twice", true, {result.data(), x.data()}, {64}, 3, nullptr, &info, 60);
  EXPECT_FALSE(info.timed_out);
  EXPECT_EQ(times.size(), 3u);
  EXPECT_EQ(reinterpret_cast<const float*>(result.data())[63], 6.0f);
}

// A SharedBuffer placed `page_offset` bytes into its first page (risec run puts the
// output at its largest input's page offset): over offsets and sizes, data() lies at
// the offset rounded down to 64 bytes, is zeroed, survives a move, and a forked child's
// writes through it (every element, the last page included) come back.
TEST(Isolated, SharedBufferAtAPageOffset) {
  CompileOptions co;
  co.openmp = true;
  const std::string path = build_shared_object(kOpenMPDouble, co).path;
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  Watchdog watchdog("twice");  // one for the 24 calls
  for (size_t offset : {size_t{0}, size_t{64}, size_t{100}, size_t{2048}, page - 64, page + 128}) {
    for (size_t n : {size_t{1}, size_t{64}, page / 4, page / 4 + 17}) {
      SCOPED_TRACE("offset " + std::to_string(offset) + ", " + std::to_string(n) + " floats");
      SharedBuffer moved(n * sizeof(float), offset);
      SharedBuffer result = std::move(moved);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(result.data()) % page, offset % page / 64 * 64);
      auto* f = reinterpret_cast<float*>(result.data());
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(f[i], 0.0f) << i;
      std::vector<float> x(n);
      for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i);
      call_isolated(path, "twice", true, {result.data(), x.data()}, {static_cast<int>(n)}, 1);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(f[i], 2.0f * x[i]) << i;
    }
  }
}

// A PlacedBuffer (risec run's inputs, at kPlacementOffset like the output): over
// offsets and sizes, data() lies at the offset rounded down to 64 bytes, is zeroed,
// keeps what was written through a move, and a forked child reads it (every element,
// the last page included) as the parent wrote it.
TEST(Isolated, PlacedBufferAtAPageOffset) {
  CompileOptions co;
  co.openmp = true;
  const std::string path = build_shared_object(kOpenMPDouble, co).path;
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  EXPECT_EQ(kPlacementOffset % 64, 0u);
  Watchdog watchdog("twice");  // one for the calls
  for (size_t offset : {size_t{0}, kPlacementOffset, size_t{100}, page - 64, page + 128}) {
    for (size_t n : {size_t{1}, size_t{64}, page / 4 + 17, 3 * page}) {
      SCOPED_TRACE("offset " + std::to_string(offset) + ", " + std::to_string(n) + " floats");
      PlacedBuffer moved(n * sizeof(float), offset);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(moved.data()) % page, offset % page / 64 * 64);
      EXPECT_EQ(moved.size(), n * sizeof(float));
      auto* in = reinterpret_cast<float*>(moved.data());
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(in[i], 0.0f) << i;
      for (size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i) + 0.5f;
      PlacedBuffer x = std::move(moved);
      EXPECT_EQ(moved.data(), nullptr);
      SharedBuffer result(n * sizeof(float), offset);
      call_isolated(path, "twice", true, {result.data(), x.data()}, {static_cast<int>(n)}, 1);
      const auto* out = reinterpret_cast<const float*>(result.data());
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 2.0f * (static_cast<float>(i) + 0.5f)) << i;
    }
  }
}

// A device-code unit (one exporting NAME__risec_kernel_ms, as OpenCL and CUDA units do)
// builds its kernels on its first call in a process: PoCL takes seconds, longer than
// tune's limit for a fast candidate. That set-up is no part of the limit, which starts
// once the child has called the unit once; a unit slow after its set-up is still killed.
TEST_F(IsolatedTest, ADeviceUnitsFirstCallBuildIsNotCountedInItsTimeLimit) {
  const char* source = R"(
#include <unistd.h>
double dev__risec_kernel_ms;
static int built;
void dev__risec_call(void* const* buffers, const int* sizes) {
  float* out = (float*)buffers[0];
  const float* x = (const float*)buffers[1];
  if (!built) { sleep(2); built = 1; } /* the kernels' build */
  else if (sizes[0] == 32) sleep(60);   /* slow after the build */
  for (int i = 0; i < sizes[0]; ++i) out[i] = 2 * x[i];
  dev__risec_kernel_ms = 0.25;
}
)";
  const std::string path = build_shared_object(source, CompileOptions{}).path;
  std::vector<float> x(64, 3.0f);
  for (int n : {64, 32}) {
    SCOPED_TRACE(n);
    SharedBuffer result(x.size() * sizeof(float));
    Watchdog watchdog("dev");
    CallInfo info;
    std::vector<double> times =
        call_isolated(path, "dev", false, {result.data(), x.data()}, {n}, 3, nullptr, &info, 0.5);
    if (n == 64) {
      EXPECT_FALSE(info.timed_out);
      ASSERT_EQ(times.size(), 3u);
      EXPECT_EQ(times[0], 0.25);  // the unit's own time of each timed call
      EXPECT_TRUE(info.kernel_times);
      EXPECT_EQ(reinterpret_cast<const float*>(result.data())[63], 6.0f);
    } else {
      EXPECT_TRUE(info.timed_out);
      EXPECT_TRUE(times.empty());
    }
  }
}

}  // namespace
}  // namespace risec::runtime
