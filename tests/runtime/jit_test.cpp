// Tests of compile-and-load (runtime/jit.h) and of running programs
// (runtime/process.h): a tiny C function compiled, loaded and called; the cache
// (a second compile is a hit on the same file, no compiler run); compiler errors
// as External errors with the compiler's message; $CC and $RISEC_CFLAGS honoured;
// standalone executables, with the sanitizers catching out-of-bounds accesses and
// undefined behaviour in the code they run; faults and failures of the device recorded
// for in-process calls (with_fault_recording).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/jit.h"
#include "runtime/process.h"
#include "support/diagnostics.h"

namespace risec::runtime {
namespace {

// Sets an environment variable for the lifetime of the object, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_.c_str(), old_->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// Every test gets its own empty cache and no $RISEC_CFLAGS / $CC of the caller.
class JitTest : public ::testing::Test {
 protected:
  JitTest()
      : dir_("risec-jit-test-"),
        cache_("RISEC_CACHE_DIR", (dir_.path() + "/cache").c_str()),
        cflags_("RISEC_CFLAGS", nullptr),
        cc_("CC", nullptr) {}
  std::string cache_path() const { return dir_.path() + "/cache"; }

  TempDir dir_;
  ScopedEnv cache_, cflags_, cc_;
};

// out[i] = x[i] + K for i < sizes[0], K from the preprocessor (default 1).
const char* kAddSource = R"(
#ifndef RISEC_TEST_VALUE
#define RISEC_TEST_VALUE 1
#endif
void add_k__risec_call(void* const* buffers, const int* sizes) {
  float* out = (float*)buffers[0];
  const float* x = (const float*)buffers[1];
  for (int i = 0; i < sizes[0]; ++i) out[i] = x[i] + (float)RISEC_TEST_VALUE;
}
)";

std::vector<float> call_add(const Module& m, std::vector<float> x) {
  std::vector<float> out(x.size(), -1.0f);
  m.call({out.data(), x.data()}, {static_cast<int>(x.size())});
  return out;
}

// The message of the External error `f` throws ("" and a failure when it throws none).
std::string error_of(const std::function<void()>& f) {
  try {
    f();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::External);
    return e.message();
  }
  return "";
}

// The error of building `source`, and of loading kAddSource's add_k.
std::string build_error(const std::string& source = kAddSource) {
  return error_of([&] { build_shared_object(source); });
}
std::string add_k_error() {
  return error_of([] { jit_compile(kAddSource, "add_k"); });
}

TEST_F(JitTest, CompileLoadAndCall) {
  bool hit = true;
  Module m = jit_compile(kAddSource, "add_k", {}, &hit);
  EXPECT_FALSE(hit);
  EXPECT_EQ(call_add(m, {1, 2, 3.5f}), (std::vector<float>{2, 3, 4.5f}));
  EXPECT_EQ(m.path().rfind(cache_path() + "/", 0), 0u) << m.path();
  EXPECT_EQ(m.path().substr(m.path().size() - 3), ".so");
}

TEST_F(JitTest, SecondCompileIsACacheHitOnTheSameFile) {
  Artifact first = build_shared_object(kAddSource);
  EXPECT_FALSE(first.cache_hit);
  struct stat st1;
  ASSERT_EQ(::stat(first.path.c_str(), &st1), 0);
  // The second build must not run the compiler: same path, same inode, same
  // modification time, and no other file appeared in the cache.
  auto files = [&] {
    std::vector<std::string> v;
    for (const auto& e : std::filesystem::directory_iterator(cache_path())) v.push_back(e.path());
    std::sort(v.begin(), v.end());
    return v;
  };
  auto before = files();
  Artifact second = build_shared_object(kAddSource);
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.path, first.path);
  struct stat st2;
  ASSERT_EQ(::stat(second.path.c_str(), &st2), 0);
  EXPECT_EQ(st1.st_ino, st2.st_ino);
  EXPECT_EQ(st1.st_mtim.tv_sec, st2.st_mtim.tv_sec);
  EXPECT_EQ(st1.st_mtim.tv_nsec, st2.st_mtim.tv_nsec);
  EXPECT_EQ(files(), before);

  bool hit = false;
  Module m = jit_compile(kAddSource, "add_k", {}, &hit);
  EXPECT_TRUE(hit);
  EXPECT_EQ(call_add(m, {0}), (std::vector<float>{1}));
  // The source is kept next to the binary, and no temporary directory is left.
  std::string stem = first.path.substr(0, first.path.size() - 3);
  EXPECT_TRUE(std::filesystem::exists(stem + ".c"));
  for (const auto& f : files()) EXPECT_EQ(f.find("/tmp-"), std::string::npos) << f;
}

TEST_F(JitTest, DifferentSourceOrFlagsGiveDifferentEntries) {
  Artifact a = build_shared_object(kAddSource);
  Artifact b = build_shared_object(std::string(kAddSource) + "\n/* changed */\n");
  CompileOptions o;
  o.extra_flags = {"-DRISEC_TEST_VALUE=2"};
  Artifact c = build_shared_object(kAddSource, o);
  EXPECT_NE(a.path, b.path);
  EXPECT_NE(a.path, c.path);
  EXPECT_FALSE(b.cache_hit);
  EXPECT_FALSE(c.cache_hit);
}

TEST_F(JitTest, CompilerErrorIsExternalWithTheCompilersMessage) {
  const std::string bad =
      "void f__risec_call(void* const* b, const int* s) { risec_no_such_name(b, s); }\n"
      "int broken( { }\n";
  const std::string message = build_error(bad);
  EXPECT_EQ(exit_code(ErrorKind::External), 4);
  EXPECT_NE(message.find("the C compiler failed"), std::string::npos) << message;
  EXPECT_NE(message.find("error"), std::string::npos) << message;
  // The compiler's own diagnostic, naming the construct it rejected.
  EXPECT_NE(message.find("broken"), std::string::npos) << message;
  EXPECT_NE(
      message.find(
          "-O3 -march=native -ffp-contract=fast -fno-math-errno -fno-trapping-math -std=gnu99"),
      std::string::npos)
      << message;
  // The compiler's messages name the source kept in the cache.
  size_t at = message.find(cache_path() + "/");
  ASSERT_NE(at, std::string::npos) << message;
  std::string kept = message.substr(at, message.find_first_of(" :\n", at) - at);
  EXPECT_EQ(kept.substr(kept.size() - 2), ".c") << kept;
  EXPECT_EQ(read_file(kept), bad);
  EXPECT_NE(message.find(kept + ":2:"), std::string::npos) << message;
}

// Programs that cannot be the compiler say why: an empty first word, a directory, a
// script without a #! line.
TEST_F(JitTest, CompilersThatCannotRunSayWhy) {
  const std::string dir = cache_path().substr(0, cache_path().rfind('/'));
  {
    ScopedEnv cc("CC", "'' gcc");
    const std::string message = build_error();
    EXPECT_NE(message.find("names no program: its first word is empty"), std::string::npos)
        << message;
  }
  {
    ScopedEnv cc("CC", dir.c_str());
    const std::string message = build_error();
    EXPECT_NE(message.find("(it is a directory)"), std::string::npos) << message;
  }
  const std::string script = dir + "/noshebang.sh";
  write_file(script, "exec cc \"$@\"\n");
  ASSERT_EQ(::chmod(script.c_str(), 0755), 0);
  ScopedEnv cc("CC", script.c_str());
  const std::string message = build_error();
  EXPECT_NE(message.find("a script needs a #! line"), std::string::npos) << message;
}

// A unit with hundreds of errors: the error shows the compiler's first lines and how
// many were left out; a line of megabytes shows its first 2000 bytes.
TEST_F(JitTest, LongCompilerOutputIsCut) {
  std::string bad;
  for (int i = 0; i < 300; ++i) bad += "int broken" + std::to_string(i) + " = ;\n";
  {
    const std::string message = build_error(bad);
    EXPECT_NE(message.find("broken0"), std::string::npos) << message;
    EXPECT_EQ(message.find("broken299"), std::string::npos);
    EXPECT_NE(message.find(" more lines of the compiler's output: the command above prints "
                           "them all]"),
              std::string::npos)
        << message;
    EXPECT_LT(std::count(message.begin(), message.end(), '\n'), 70);
  }
  ScopedEnv cc("CC", "sh -c 'head -c 3000000 /dev/zero | tr \"\\\\0\" x >&2; exit 1' wide-cc");
  const std::string message = build_error();
  EXPECT_LT(message.size(), 4000u);
  EXPECT_NE(message.find("[... 2998000 more bytes of this line]"), std::string::npos)
      << message.substr(0, 400);
}

// RISEC_COMPILE_TIMEOUT bounds the compiler's time: a compiler that hangs is killed and
// reported; a value that is not a positive number of seconds is refused.
TEST_F(JitTest, CompileTimeoutKillsAHangingCompiler) {
  ScopedEnv cc("CC", "sh -c 'sleep 30' risec-slow-cc");
  ScopedEnv limit("RISEC_COMPILE_TIMEOUT", "0.5");
  const auto start = std::chrono::steady_clock::now();
  {
    const std::string message = build_error();
    EXPECT_NE(message.find("failed (timed out: RISEC_COMPILE_TIMEOUT=0.5 s)"), std::string::npos)
        << message;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  for (const char* bad : {"0", "-1", "soon", "1e999", " 5", "5 ", "0x10"}) {
    ScopedEnv b("RISEC_COMPILE_TIMEOUT", bad);
    try {
      build_shared_object(kAddSource);
      FAIL() << "no error for " << bad;
    } catch (const Error& e) {
      EXPECT_NE(e.message().find("is not a positive number of seconds"), std::string::npos)
          << e.message();
    }
  }
}

// A build directory that a killed risec left in the cache is removed when a day old;
// a recent one (another process's build in progress) is kept.
TEST_F(JitTest, StaleBuildDirectoriesAreRemoved) {
  namespace fs = std::filesystem;
  fs::create_directories(cache_path() + "/tmp-old123/sub");
  fs::create_directories(cache_path() + "/tmp-new456");
  fs::last_write_time(cache_path() + "/tmp-old123",
                      fs::file_time_type::clock::now() - std::chrono::hours(48));
  Module m = jit_compile(kAddSource, "add_k");
  EXPECT_EQ(call_add(m, {1}), (std::vector<float>{2}));
  EXPECT_FALSE(fs::exists(cache_path() + "/tmp-old123"));
  EXPECT_TRUE(fs::exists(cache_path() + "/tmp-new456"));
}

TEST_F(JitTest, MissingCompilerIsExternal) {
  ScopedEnv cc("CC", "/nonexistent/risec-test-cc");
  const std::string message = build_error();
  EXPECT_NE(message.find("cannot run '/nonexistent/risec-test-cc'"), std::string::npos) << message;
}

TEST_F(JitTest, CompilerFromCCMayBeSeveralWords) {
  ScopedEnv cc("CC", "env cc");
  EXPECT_EQ(c_compiler(), (std::vector<std::string>{"env", "cc"}));
  Module m = jit_compile(kAddSource, "add_k");
  EXPECT_EQ(call_add(m, {1}), (std::vector<float>{2}));
}

TEST_F(JitTest, RisecCflagsAreHonoured) {
  {
    ScopedEnv flags("RISEC_CFLAGS", "  -DRISEC_TEST_VALUE=42\t-Wall ");
    std::vector<std::string> f = compile_flags({}, true);
    ASSERT_GE(f.size(), 2u);
    EXPECT_EQ(f[f.size() - 2], "-DRISEC_TEST_VALUE=42");
    EXPECT_EQ(f.back(), "-Wall");
    Module m = jit_compile(kAddSource, "add_k");
    EXPECT_EQ(call_add(m, {1, 2}), (std::vector<float>{43, 44}));
  }
  // Without them, the default value (and another cache entry).
  Module m = jit_compile(kAddSource, "add_k");
  EXPECT_EQ(call_add(m, {1, 2}), (std::vector<float>{2, 3}));
  // Flags that break the compilation are reported as compiler failures.
  ScopedEnv flags("RISEC_CFLAGS", "-DRISEC_TEST_VALUE=");
  EXPECT_THROW(jit_compile(kAddSource, "add_k"), Error);
}

// A word of RISEC_CFLAGS may hold spaces, quoted as in a shell.
TEST_F(JitTest, RisecCflagsMayQuoteWords) {
  ScopedEnv flags("RISEC_CFLAGS", "'-DRISEC_TEST_VALUE=(40 + 2)'");
  Module m = jit_compile(kAddSource, "add_k");
  EXPECT_EQ(call_add(m, {1}), (std::vector<float>{43}));
  ScopedEnv open("RISEC_CFLAGS", "-DX='a b");
  try {
    jit_compile(kAddSource, "add_k");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::External);
    EXPECT_NE(e.message().find("unclosed single quote in RISEC_CFLAGS='-DX='\\''a b'"),
              std::string::npos)
        << e.message();
  }
}

// Flags that stop the compiler before it links leave no shared object: an error that
// says so, and nothing in the cache that a later call would fail to load (held-out Q:
// RISEC_CFLAGS=-c left a relocatable object there, -E the preprocessed text).
TEST_F(JitTest, FlagsThatStopBeforeLinkingAreAnErrorAndLeaveNoEntry) {
  for (const char* stop : {"-c", "-E", "-S", "-fsyntax-only"}) {
    SCOPED_TRACE(stop);
    ScopedEnv flags("RISEC_CFLAGS", stop);
    for (int attempt = 0; attempt < 2; ++attempt) {
      const std::string message = add_k_error();
      EXPECT_NE(message.find("exited 0 but made no shared object"), std::string::npos) << message;
      EXPECT_NE(message.find("RISEC_CFLAGS"), std::string::npos) << message;
    }
  }
  // A relocatable object put in the cache by an earlier risec is not loaded: it is
  // built again.
  Module m = jit_compile(kAddSource, "add_k");
  EXPECT_EQ(call_add(m, {1}), (std::vector<float>{2}));
}

// A unit whose entry the flags hide (-fvisibility=hidden makes every function local to
// the shared object) is an error that names the likely cause, and it is not kept in the
// cache, where every later run would load it again (held-out R).
TEST_F(JitTest, AHiddenEntryIsNamedAndNotCached) {
  ScopedEnv flags("RISEC_CFLAGS", "-fvisibility=hidden");
  for (int attempt = 0; attempt < 2; ++attempt) {
    const std::string message = add_k_error();
    EXPECT_NE(message.find("has no function 'add_k__risec_call'"), std::string::npos) << message;
    EXPECT_NE(message.find("-fvisibility=hidden in RISEC_CFLAGS"), std::string::npos) << message;
    for (const auto& f : std::filesystem::directory_iterator(cache_path()))
      EXPECT_NE(f.path().extension(), ".so") << f.path();
  }
}

// A cache directory we may only read serves the units it holds (held-out R: a read-only
// cache refused even a hit); a unit it lacks is an error that says why. Root ignores
// permission bits, so there the checks run in a child process as nobody.
TEST_F(JitTest, AReadOnlyCacheServesWhatItHolds) {
  {
    bool hit = true;
    jit_compile(kAddSource, "add_k", {}, &hit);
    ASSERT_FALSE(hit);
  }
  auto checks = [&]() -> std::string {
    std::string failures;
    try {
      bool hit = false;
      Module m = jit_compile(kAddSource, "add_k", {}, &hit);
      if (!hit) failures += "not a cache hit; ";
      if (call_add(m, {1}) != std::vector<float>{2}) failures += "wrong result; ";
    } catch (const Error& e) {
      failures += "the hit failed: " + e.message() + "; ";
    }
    try {
      jit_compile(std::string(kAddSource) + "/* another unit */\n", "add_k");
      failures += "a miss built into a read-only cache; ";
    } catch (const Error& e) {
      if (e.message().find("cannot build into the cache of compiled code") == std::string::npos)
        failures += "the miss said: " + e.message() + "; ";
    }
    return failures;
  };
  if (::geteuid() != 0) {
    ASSERT_EQ(::chmod(cache_path().c_str(), 0555), 0);
    const std::string failures = checks();
    ::chmod(cache_path().c_str(), 0700);
    EXPECT_EQ(failures, "");
    return;
  }
  const uid_t nobody = 65534;
  ASSERT_EQ(::chmod(dir_.path().c_str(), 0755), 0);
  for (const auto& f : std::filesystem::recursive_directory_iterator(dir_.path()))
    ASSERT_EQ(::chown(f.path().c_str(), nobody, nobody), 0) << f.path();
  ASSERT_EQ(::chmod(cache_path().c_str(), 0555), 0);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(pipe_fds[0]);
    std::string failures = ::setgid(nobody) != 0 || ::setuid(nobody) != 0
                               ? std::string("cannot become nobody")
                               : checks();
    if (::write(pipe_fds[1], failures.data(), failures.size()) < 0) ::_exit(2);
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string failures;
  char buf[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], buf, sizeof buf)) > 0;) failures.append(buf, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ::chmod(cache_path().c_str(), 0700);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(failures, "");
}

TEST_F(JitTest, DefaultFlags) {
  CompileOptions o;
  o.openmp = true;
  o.extra_flags = {"-DX"};
  EXPECT_EQ(compile_flags(o, true),
            (std::vector<std::string>{"-O3", "-march=native", "-ffp-contract=fast",
                                      "-fno-math-errno", "-fno-trapping-math", "-std=gnu99",
                                      "-shared", "-fPIC", "-fopenmp", "-DRISEC_OMP_SIMD", "-DX"}));
  EXPECT_EQ(compile_flags({}, false),
            (std::vector<std::string>{"-O3", "-march=native", "-ffp-contract=fast",
                                      "-fno-math-errno", "-fno-trapping-math", "-std=gnu99",
                                      "-fopenmp-simd", "-DRISEC_OMP_SIMD"}));
}

TEST_F(JitTest, CacheDirectoryChoice) {
  EXPECT_EQ(cache_dir(), cache_path());
  EXPECT_TRUE(std::filesystem::is_directory(cache_path()));
  ScopedEnv no_cache("RISEC_CACHE_DIR", nullptr);
  {
    ScopedEnv xdg("XDG_CACHE_HOME", (dir_.path() + "/xdg").c_str());
    EXPECT_EQ(cache_dir(), dir_.path() + "/xdg/risec");
  }
  ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
  {
    ScopedEnv home("HOME", (dir_.path() + "/home").c_str());
    EXPECT_EQ(cache_dir(), dir_.path() + "/home/.cache/risec");
  }
  // A HOME below a regular file: no directory can be made there (even by root).
  write_file(dir_.path() + "/file", "");
  ScopedEnv home("HOME", (dir_.path() + "/file/home").c_str());
  ScopedEnv tmp("TMPDIR", dir_.path().c_str());
  std::string fallback = cache_dir();
  EXPECT_EQ(fallback, dir_.path() + "/risec-cache-" + std::to_string(::getuid()));
  struct stat st;
  ASSERT_EQ(::stat(fallback.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

// A relative RISEC_CACHE_DIR is made absolute: one named "-cache" must not reach the C
// compiler as an option (held-out Q). A regular file there is said to be one.
TEST_F(JitTest, RelativeCacheDirectoryIsMadeAbsolute) {
  const auto old_cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir_.path());
  struct Back {
    std::filesystem::path p;
    ~Back() { std::filesystem::current_path(p); }
  } back{old_cwd};
  {
    ScopedEnv rel("RISEC_CACHE_DIR", "-cache");
    EXPECT_EQ(cache_dir(), dir_.path() + "/-cache");
    Artifact a = build_shared_object(kAddSource);
    EXPECT_EQ(a.path.rfind(dir_.path() + "/-cache/", 0), 0u) << a.path;
  }
  write_file(dir_.path() + "/plain", "");
  ScopedEnv file("RISEC_CACHE_DIR", "plain");
  try {
    cache_dir();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("'plain' as the cache of compiled code: Not a directory"),
              std::string::npos)
        << e.message();
  }
}

TEST_F(JitTest, MissingEntryPointIsExternal) {
  Artifact a = build_shared_object(kAddSource);
  try {
    Module m(a.path, "no_such_entry");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::External);
    EXPECT_NE(e.message().find("no_such_entry__risec_call"), std::string::npos) << e.message();
  }
}

TEST_F(JitTest, ModulesMove) {
  Module a = jit_compile(kAddSource, "add_k");
  Module b = std::move(a);
  EXPECT_EQ(call_add(b, {5}), (std::vector<float>{6}));
  Module c = jit_compile(std::string(kAddSource) + "/* other */\n", "add_k");
  c = std::move(b);
  EXPECT_EQ(call_add(c, {6}), (std::vector<float>{7}));
}

// ---- standalone executables ----

std::vector<float> run_add(const Executable& exe, std::vector<float> x) {
  std::vector<float> out(x.size(), -1.0f);
  exe.call(out.data(), out.size() * sizeof(float), {{x.data(), x.size() * sizeof(float)}},
           {static_cast<int>(x.size())});
  return out;
}

TEST_F(JitTest, StandaloneExecutable) {
  Artifact a = build_executable(kAddSource, "add_k");
  EXPECT_FALSE(a.cache_hit);
  EXPECT_EQ(a.path.substr(a.path.size() - 4), ".exe");
  Executable exe(a.path);
  EXPECT_EQ(run_add(exe, {1, 2, 3}), (std::vector<float>{2, 3, 4}));
  EXPECT_TRUE(build_executable(kAddSource, "add_k").cache_hit);
  // No inputs and no sizes at all.
  const char* const_src =
      "void c7__risec_call(void* const* b, const int* s) { (void)s; *(int*)b[0] = 7; }\n";
  Executable c7(build_executable(const_src, "c7").path);
  int out = 0;
  c7.call(&out, sizeof out, {}, {});
  EXPECT_EQ(out, 7);
}

TEST_F(JitTest, SanitizedExecutableRunsCorrectCode) {
  CompileOptions o;
  o.extra_flags = sanitizer_flags();
  Executable exe(build_executable(kAddSource, "add_k", o).path);
  EXPECT_EQ(run_add(exe, {1, 2, 3, 4, 5}), (std::vector<float>{2, 3, 4, 5, 6}));
}

void expect_generated_failure(const Executable& exe, std::vector<float> x,
                              const std::string& text) {
  try {
    run_add(exe, std::move(x));
    FAIL() << "no error (expected " << text << ")";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Internal);
    EXPECT_NE(e.message().find("the generated program failed"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find(text), std::string::npos) << e.message();
  }
}

TEST_F(JitTest, AddressSanitizerCatchesOneElementPastTheEnd) {
  // Reads x[n] and writes out[n]: one element past each buffer.
  const char* src = R"(
void oob__risec_call(void* const* buffers, const int* sizes) {
  float* out = (float*)buffers[0];
  const float* x = (const float*)buffers[1];
  for (int i = 0; i <= sizes[0]; ++i) out[i] = x[i];
}
)";
  CompileOptions o;
  o.extra_flags = sanitizer_flags();
  Executable exe(build_executable(src, "oob", o).path);
  expect_generated_failure(exe, {1, 2, 3}, "AddressSanitizer: heap-buffer-overflow");
  // A buffer whose size is not a multiple of 8 or 64 is caught just the same.
  expect_generated_failure(exe, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
                           "AddressSanitizer");
}

TEST_F(JitTest, UndefinedBehaviourSanitizerCatchesSignedOverflow) {
  const char* src = R"(
#include <limits.h>
void ovf__risec_call(void* const* buffers, const int* sizes) {
  int x = INT_MAX - 1 + sizes[0];
  *(float*)buffers[0] = (float)x;
}
)";
  CompileOptions o;
  o.extra_flags = sanitizer_flags();
  Executable exe(build_executable(src, "ovf", o).path);
  expect_generated_failure(exe, {1, 2}, "runtime error: signed integer overflow");
}

TEST_F(JitTest, CrashAndTimeoutOfGeneratedCode) {
  const char* crash =
      "void boom__risec_call(void* const* b, const int* s) { (void)b; if (s[0] > 0) "
      "*(volatile int*)0 = 1; }\n";
  Executable exe(build_executable(crash, "boom").path);
  std::vector<float> x = {1};
  expect_generated_failure(exe, x, "killed by signal 11");
  const char* loop =
      "void spin__risec_call(void* const* b, const int* s) { (void)b; volatile int k = "
      "s[0]; while (k) { } }\n";
  Executable spin(build_executable(loop, "spin").path);
  float out = 0;
  Executable::Options eo;
  eo.timeout_s = 0.5;
  try {
    spin.call(&out, sizeof out, {{x.data(), sizeof(float)}}, {1}, eo);
    FAIL() << "no timeout";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("timed out"), std::string::npos) << e.message();
  }
}

TEST_F(JitTest, StandaloneMainIsGeneratedForValidNamesOnly) {
  EXPECT_NE(standalone_main_source("mv").find(
                "void mv__risec_call(void* const* buffers, const int* sizes);"),
            std::string::npos);
  EXPECT_THROW(standalone_main_source("a b"), Error);
}

// ---- processes ----

TEST(Process, CapturesOutputAndStatus) {
  ProcessResult r = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.describe(), "exit status 3");
  // Arguments are passed as they are: no shell expands them.
  ProcessResult e = run_process({"echo", "$HOME", "a b", "*"});
  EXPECT_EQ(e.out, "$HOME a b *\n");
  EXPECT_TRUE(e.ok());
}

// merge_stderr: both streams in one, in the order written (a compiler's messages,
// which held-out R saw reordered: all of stderr, then stdout).
TEST(Process, MergedStreamsKeepTheirOrder) {
  ProcessOptions o;
  o.merge_stderr = true;
  ProcessResult r = run_process({"sh", "-c", "echo one; echo two >&2; echo three; exit 1"}, o);
  EXPECT_EQ(r.out, "one\ntwo\nthree\n");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.exit_code, 1);
}

// A failing compiler's error shows what it wrote in that order.
TEST_F(JitTest, CompilerMessagesKeepTheirOrder) {
  ScopedEnv cc("CC", "sh -c 'echo first; echo second >&2; echo third; exit 1' ordered-cc");
  const std::string message = build_error();
  EXPECT_NE(message.find("first\nsecond\nthird"), std::string::npos) << message;
}

TEST(Process, LargeOutputOnBothStreams) {
  ProcessResult r = run_process(
      {"sh", "-c",
       "i=0; while [ $i -lt 20000 ]; do echo line$i; echo err$i >&2; i=$((i+1)); done"});
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 20000);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 20000);
}

TEST(Process, EnvironmentAndStdin) {
  ProcessOptions o;
  o.env = {"RISEC_PROCESS_TEST=hello"};
  ProcessResult r = run_process({"sh", "-c", "echo $RISEC_PROCESS_TEST; cat"}, o);
  EXPECT_EQ(r.out, "hello\n");  // stdin is /dev/null: cat ends at once
}

TEST(Process, SignalsAndTimeouts) {
  ProcessResult r = run_process({"sh", "-c", "kill -9 $$"});
  EXPECT_EQ(r.signal, 9);
  EXPECT_NE(r.describe().find("killed by signal 9"), std::string::npos);
  ProcessOptions o;
  o.timeout_s = 0.2;
  ProcessResult t = run_process({"sleep", "30"}, o);
  EXPECT_TRUE(t.timed_out);
  EXPECT_FALSE(t.ok());
}

// A timed-out child leads its own process group, so the whole group dies with it: the
// shell's background sleep would otherwise keep the output pipe open for 30 s.
TEST(Process, ATimeoutKillsTheChildsWholeGroup) {
  ProcessOptions o;
  o.timeout_s = 0.3;
  const auto start = std::chrono::steady_clock::now();
  ProcessResult t = run_process({"sh", "-c", "sleep 30 & echo $$; wait"}, o);
  EXPECT_TRUE(t.timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  // The group's id is the shell's pid: it leads the group, as the option promises.
  const std::string pid = t.out.substr(0, t.out.find('\n'));
  ASSERT_FALSE(pid.empty()) << t.out << t.err;
  ProcessResult g = run_process({"ps", "-o", "pgid=", "-p", pid});
  EXPECT_FALSE(g.ok()) << "the shell outlived its timeout: " << g.out;
}

// The child runs in `cwd`; a program named by a relative path is found there; a
// directory that does not exist is an error naming it, not a child that fails.
TEST(Process, RunsInItsWorkingDirectory) {
  TempDir d("risec-process-cwd-");
  {
    std::ofstream s(d.path() + "/hello.sh");
    s << "#!/bin/sh\npwd\n";
  }
  ASSERT_EQ(::chmod((d.path() + "/hello.sh").c_str(), 0755), 0);
  ProcessOptions o;
  o.cwd = d.path();
  ProcessResult r = run_process({"./hello.sh"}, o);
  ASSERT_TRUE(r.ok()) << r.describe() << r.err;
  EXPECT_EQ(std::filesystem::canonical(r.out.substr(0, r.out.find('\n'))),
            std::filesystem::canonical(d.path()));
  o.cwd = d.path() + "/no-such-dir";
  try {
    run_process({"pwd"}, o);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::External);
    EXPECT_NE(e.message().find("cannot run 'pwd' in '" + o.cwd + "'"), std::string::npos)
        << e.message();
  }
}

TEST(Process, UnknownProgramIsExternal) {
  try {
    run_process({"risec-no-such-program-xyz"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::External);
    EXPECT_NE(e.message().find("cannot run 'risec-no-such-program-xyz'"), std::string::npos);
  }
}

// The child's exit ends the wait even when a process it left behind holds its output
// pipes (a compiler wrapper's background server; held-out R: `sleep 15 &` kept risec
// waiting 15 s, and under RISEC_COMPILE_TIMEOUT reported a finished compile as timed out).
TEST(Process, ABackgroundChildHoldingThePipesDoesNotKeepUsWaiting) {
  for (double timeout : {0.0, 20.0}) {
    ProcessOptions o;
    o.timeout_s = timeout;
    const auto start = std::chrono::steady_clock::now();
    ProcessResult r = run_process({"sh", "-c", "sleep 29 & echo done; echo oops >&2"}, o);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    EXPECT_TRUE(r.ok()) << r.describe();
    EXPECT_EQ(r.out, "done\n");
    EXPECT_EQ(r.err, "oops\n");
  }
}

// A script whose #! interpreter is missing fails to start with ENOENT although the file
// is there (held-out Q: $CC naming such a script read "No such file or directory").
TEST(Process, AScriptWithAMissingInterpreterSaysSo) {
  TempDir d("risec-interp-");
  const std::string script = d.path() + "/cc.sh";
  write_file(script, "#!/nonexistent/risec-shell\necho hi\n");
  ASSERT_EQ(::chmod(script.c_str(), 0755), 0);
  try {
    run_process({script});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::External);
    EXPECT_NE(e.message().find("the file is there: is the interpreter its #! line names missing?"),
              std::string::npos)
        << e.message();
  }
}

TEST(Process, Helpers) {
  EXPECT_EQ(split_words("  a\tb \n c  "), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(split_words("   ").empty());
  // Quoting as in a POSIX shell, without expansions.
  EXPECT_EQ(split_words(R"(-DA='x y' "-DB=\"q\" \\" c\ d '' $HOME)"),
            (std::vector<std::string>{"-DA=x y", R"(-DB="q" \)", "c d", "", "$HOME"}));
  EXPECT_EQ(split_words(R"('a"b' "c'd")"), (std::vector<std::string>{"a\"b", "c'd"}));
  EXPECT_THROW(split_words("\"abc"), Error);
  EXPECT_EQ(format_command({"cc", "-O3", "a b.c", "it's"}), "cc -O3 'a b.c' 'it'\\''s'");
  std::string path;
  {
    TempDir d("risec-process-test-");
    path = d.path();
    struct stat st;
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    write_file(path + "/f", std::string("a\0b", 3));
    EXPECT_EQ(read_file(path + "/f"), std::string("a\0b", 3));
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_THROW(read_file("/nonexistent/risec"), Error);
}

// with_fault_recording (docs/api.md, "Errors"): code that reports no fault is left as
// it is; a unit whose check calls RISEC_ARITHMETIC_FAILED raises it from Module::call
// (c and OpenMP), each call afresh, while the same unit built without it has no such
// entry (risec run's child process, standalone programs: abort() as before).
const char* kFaultingQuotients = R"C(#include <stdio.h>
#include <stdlib.h>
#ifndef RISEC_ARITHMETIC_FAILED
#define RISEC_ARITHMETIC_FAILED(fn, what) (fprintf(stderr, "%s: %s\n", fn, what), abort())
#endif
static int q_div(int a, int b) {
  if (b == 0) {
    RISEC_ARITHMETIC_FAILED("q", "integer division by zero (i32)");
    return 0;
  }
  return a / b;
}
void q__risec_call(void* const* buffers, const int* sizes) {
  int* out = (int*)buffers[0];
  const int* a = (const int*)buffers[1];
  const int* b = (const int*)buffers[2];
#ifdef _OPENMP
#pragma omp parallel for
#endif
  for (int i = 0; i < sizes[0]; ++i) out[i] = q_div(a[i], b[i]);
}
)C";

TEST_F(JitTest, FaultsAreRecordedForInProcessCalls) {
  EXPECT_EQ(with_fault_recording(kAddSource, "add_k"), kAddSource);
  EXPECT_NE(with_fault_recording(kFaultingQuotients, "q").find("q__risec_call_faults"),
            std::string::npos);
  for (bool openmp : {false, true}) {
    CompileOptions o;
    o.openmp = openmp;
    Module m = jit_compile(kFaultingQuotients, "q", o);
    std::vector<int> a(1000, 12), b(1000, 4), out(1000, -1);
    b[613] = 0;
    try {
      m.call({out.data(), a.data(), b.data()}, {1000});
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Fault);
      EXPECT_EQ(e.message(), "the program stopped: q: integer division by zero (i32)");
    }
    EXPECT_EQ(out[613], 0);  // the safe value
    EXPECT_EQ(out[612], 3);
    b[613] = 3;
    m.call({out.data(), a.data(), b.data()}, {1000});
    EXPECT_EQ(out[613], 4) << "openmp " << openmp;
    Module plain(build_shared_object(kFaultingQuotients, o).path, "q", openmp);
    EXPECT_EQ(plain.symbol("q__risec_call_faults"), nullptr);
    EXPECT_NE(m.symbol("q__risec_call_faults"), nullptr);
  }
}

// A failure of the device (RISEC_DEVICE_FAILED, the GPU targets' host code): recorded
// for in-process calls and raised as External with the device's own words (no "the
// program stopped", no trailing newline), the next call runs; a long message (a build
// log) keeps its first 4 KiB. Built without the recording, the unit aborts with the
// message on stderr (risec run's child, standalone programs).
const char* kFailingDevice = R"C(#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef RISEC_DEVICE_FAILED
#define RISEC_DEVICE_FAILED(what) (fprintf(stderr, "%s\n", (what)), abort())
#endif
static char dev_log[10000];
void dev__risec_call(void* const* buffers, const int* sizes) {
  int* out = (int*)buffers[0];
  if (sizes[0] == 0) {
    RISEC_DEVICE_FAILED("no device with a name matches X=y\n");
    return;
  }
  if (sizes[0] < 0) {
    memset(dev_log, 'L', sizeof dev_log - 1);
    RISEC_DEVICE_FAILED(dev_log);
    return;
  }
  out[0] = sizes[0] * 2;
}
)C";

TEST_F(JitTest, DeviceFailuresAreRecordedForInProcessCalls) {
  EXPECT_NE(with_fault_recording(kFailingDevice, "dev").find("dev__risec_call_faults"),
            std::string::npos);
  Module m = jit_compile(kFailingDevice, "dev");
  int out = -1;
  for (int round = 0; round < 2; ++round) {
    try {
      m.call({&out}, {0});
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::External);
      EXPECT_EQ(e.message(), "no device with a name matches X=y");
    }
    EXPECT_EQ(out, -1);
    m.call({&out}, {21});
    EXPECT_EQ(out, 42);
    out = -1;
  }
  try {
    m.call({&out}, {-1});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::External);
    EXPECT_EQ(e.message(), std::string(4095, 'L'));
  }
  ProcessResult r =
      run_process({build_executable(kFailingDevice, "dev").path, "/dev/null", "4", "1", "0"});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.err.find("no device with a name matches X=y"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace risec::runtime
