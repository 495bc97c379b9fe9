// A GPU target's device buffers are kept between calls of a risec::Kernel: one
// OpenCL kernel (dot, two launches with a temporary between them) called through the
// C++ API many times with random inputs and sizes gives the interpreter's result
// every time, and creates its buffers only when a size changes them
// (NAME__risec_buffers_created, which the generated header declares).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <link.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "risec/risec.h"

namespace {

// A private cache of compiled code, removed at exit (unless one is already set).
const bool kGpuBuffersPrivateCache = [] {
  if (std::getenv("RISEC_CACHE_DIR")) return false;
  static std::string dir =
      (std::filesystem::temp_directory_path() / "risec-gpubuf-XXXXXX").string();
  if (!::mkdtemp(dir.data())) return false;
  ::setenv("RISEC_CACHE_DIR", dir.c_str(), 1);
  std::atexit([] { std::filesystem::remove_all(dir); });
  return true;
}();

std::string gpu_buffers_path(const std::string& rel) {
  return std::string(RISEC_SOURCE_DIR) + "/" + rel;
}

// The address of `symbol` in the loaded object that exports it (the Kernel's unit,
// loaded RTLD_LOCAL: found among the process's objects by name), or null.
void* loaded_symbol(const std::string& symbol) {
  struct Search {
    const std::string* symbol;
    void* found;
  } search{&symbol, nullptr};
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        if (!info->dlpi_name || !*info->dlpi_name) return 0;
        void* h = ::dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
        if (!h) return 0;
        s->found = ::dlsym(h, s->symbol->c_str());
        ::dlclose(h);  // the Kernel's own reference keeps it loaded
        return s->found ? 1 : 0;
      },
      &search);
  return search.found;
}

// Runs `body` in a child process (the OpenCL platform's own allocations, alive until
// exit, would be leaks of this binary under LeakSanitizer); its gtest failures are
// reported through the exit status.
void in_child(const std::function<void()>& body) {
  std::fflush(nullptr);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int status = 0;
    try {
      body();
      status = ::testing::Test::HasFailure() ? 1 : 0;
    } catch (const risec::Error& e) {
      std::fprintf(stderr, "%s", risec::format_error(e).c_str());
      status = 2;
    }
    std::fflush(nullptr);
    ::_exit(status);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: a failed expectation, 2: an error (on stderr)";
}

TEST(ApiGpuBuffers, KeptWhileTheSizesDoNotChange) {
  risec::Program p = risec::Program::load(gpu_buffers_path("examples/dot/dot.rise"));
  risec::CompileOptions o;
  o.target = "opencl";
  o.strategy = risec::Strategy::load(gpu_buffers_path("examples/dot/global_chunks.elv"));
  risec::Source source = risec::compile(p, o);
  const std::string fn = source.name();
  ASSERT_NE(source.header().find(fn + "__risec_release(void);"), std::string::npos);
  ASSERT_NE(source.header().find(fn + "__risec_buffers_created;"), std::string::npos);
  in_child([&] {
    risec::Kernel k(source);
    std::mt19937 rng(35);
    // The sizes of the calls: repeats and changes, in random order (n: 32 divides it).
    std::vector<int64_t> ns = {64, 64, 32, 32, 32, 640, 64, 64};
    for (int i = 0; i < 24; ++i)
      ns.push_back(32 * std::uniform_int_distribution<int64_t>(1, 6)(rng));
    const unsigned long* created = nullptr;
    unsigned long first = 0, on_change = 0, before = 0;
    int64_t last_n = 0;
    for (size_t c = 0; c < ns.size(); ++c) {
      const int64_t n = ns[c];
      // Small integers: every order of the additions gives the same f32 sum.
      std::vector<float> x(n), y(n);
      std::uniform_int_distribution<int> v(-8, 8);
      for (int64_t i = 0; i < n; ++i) {
        x[i] = static_cast<float>(v(rng));
        y[i] = static_cast<float>(v(rng));
      }
      float got = 12345;
      k(risec::Buffer(&got, 1), {x, y}, {{"n", n}});
      risec::ArrayRef ax{x.data(), risec::ScalarType::F32, {n}, {}};
      risec::ArrayRef ay{y.data(), risec::ScalarType::F32, {n}, {}};
      std::vector<risec::Array> want = risec::interpret(p, {ax, ay}, "", {{"n", n}});
      ASSERT_EQ(want.size(), 1u);
      ASSERT_EQ(want[0].bytes.size(), sizeof(float));
      float w = 0;
      std::memcpy(&w, want[0].bytes.data(), sizeof w);
      EXPECT_EQ(got, w) << "call " << c << ", n = " << n;
      if (c == 0) {
        created = static_cast<const unsigned long*>(loaded_symbol(fn + "__risec_buffers_created"));
        ASSERT_NE(created, nullptr);
        first = before = *created;
        EXPECT_GT(first, 0u);
      } else {
        const unsigned long delta = *created - before;
        before = *created;
        if (n == last_n) {
          EXPECT_EQ(delta, 0u) << "call " << c << ": buffers created again at the same n = " << n;
        } else {
          // The same buffers (those whose size depends on n) at every change.
          if (on_change == 0) on_change = delta;
          EXPECT_GT(delta, 0u) << "call " << c << ": n changed from " << last_n << " to " << n;
          EXPECT_EQ(delta, on_change) << "call " << c;
          EXPECT_LE(delta, first) << "call " << c;
        }
      }
      last_n = n;
    }
    // The release frees everything (twice is harmless); the next call sets up again.
    using Release = void (*)();
    auto release = reinterpret_cast<Release>(loaded_symbol(fn + "__risec_release"));
    ASSERT_NE(release, nullptr);
    const unsigned long before_release = *created;
    release();
    release();
    std::vector<float> x(96, 2.0f), y(96, -3.0f);
    float got = 0;
    k(risec::Buffer(&got, 1), {x, y}, {{"n", 96}});
    EXPECT_EQ(got, 96 * -6.0f);
    EXPECT_EQ(*created - before_release, first) << "every buffer again after the release";
  });
}

}  // namespace
