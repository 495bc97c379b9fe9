// Compiling generated C with the system compiler, caching the results, loading
// shared objects and running standalone executables (see jit.h).
#include "runtime/jit.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <utility>

#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/process.h"
#include "support/diagnostics.h"

namespace risec::runtime {

namespace {

[[noreturn]] void jit_error(const std::string& msg) {
  throw Error(ErrorKind::External, msg);
}

// Two 64-bit FNV-1a hashes with different offset bases: a 128-bit cache key.
struct Hasher {
  uint64_t a = 0xcbf29ce484222325ull;
  uint64_t b = 0x84222325cbf29ce4ull;
  void add(std::string_view s) {
    for (unsigned char c : s) {
      a = (a ^ c) * 0x100000001b3ull;
      b = (b ^ c) * 0x100000001b3ull;
    }
    // A separator that cannot occur inside a field of text, so that fields never
    // run into each other ("ab","c" and "a","bc" differ).
    a = (a ^ 0xff) * 0x100000001b3ull;
    b = (b ^ 0xfe) * 0x100000001b3ull;
  }
  std::string hex() const {
    char buf[33];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a),
                  static_cast<unsigned long long>(b));
    return buf;
  }
};

// The executable a command word names (searched in PATH), or "" when there is none.
std::string find_program(const std::string& word) {
  std::string path;
  if (word.find('/') != std::string::npos) {
    path = ::access(word.c_str(), X_OK) == 0 ? word : "";
  } else {
    const char* env = std::getenv("PATH");
    std::string dirs = env ? env : "/usr/bin:/bin";
    size_t start = 0;
    while (start <= dirs.size()) {
      size_t end = dirs.find(':', start);
      if (end == std::string::npos) end = dirs.size();
      std::string dir = dirs.substr(start, end - start);
      std::string cand = (dir.empty() ? std::string(".") : dir) + "/" + word;
      if (::access(cand.c_str(), X_OK) == 0) {
        path = cand;
        break;
      }
      start = end + 1;
    }
  }
  return path;
}

// The executable a command word names (searched in PATH), as "path size mtime", so
// that upgrading the compiler invalidates the cache; the word itself when not found.
std::string program_identity(const std::string& word) {
  std::string path = find_program(word);
  struct stat st;
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return word;
  return path + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec) + " " + std::to_string(st.st_ino);
}

bool is_regular_file(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Whether a cached ELF object is whole and linked: its header, program and section
// header tables and every loaded segment lie within the file, and it is a shared object
// or an executable (not a relocatable object, which RISEC_CFLAGS=-c makes). A copy cut
// short fails this; loading it would not fail cleanly (dlopen maps pages past the end:
// SIGBUS on first touch).
bool whole_elf_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  ElfW(Ehdr) h;
  if (!in.read(reinterpret_cast<char*>(&h), sizeof h)) return false;
  if (std::memcmp(h.e_ident, ELFMAG, SELFMAG) != 0 || h.e_phentsize != sizeof(ElfW(Phdr)))
    return false;
  if (h.e_type != ET_DYN && h.e_type != ET_EXEC) return false;
  in.seekg(0, std::ios::end);
  const auto size = static_cast<uint64_t>(in.tellg());
  auto within = [&](uint64_t offset, uint64_t bytes) {
    return offset <= size && bytes <= size - offset;
  };
  if (!within(h.e_phoff, uint64_t{h.e_phnum} * h.e_phentsize) ||
      !within(h.e_shoff, uint64_t{h.e_shnum} * h.e_shentsize))
    return false;
  for (unsigned i = 0; i < h.e_phnum; ++i) {
    ElfW(Phdr) ph;
    in.seekg(static_cast<std::streamoff>(h.e_phoff + uint64_t{i} * h.e_phentsize));
    if (!in.read(reinterpret_cast<char*>(&ph), sizeof ph)) return false;
    if (ph.p_type == PT_LOAD && !within(ph.p_offset, ph.p_filesz)) return false;
  }
  return true;
}

// mkdir -p with mode 0700 for the directories it creates; false when it cannot, with
// errno saying why (ENOTDIR when the path names something else than a directory), or
// (`writable`) when we cannot create files in it.
bool make_dirs(const std::string& path, bool writable = true) {
  std::filesystem::path p(path);
  std::filesystem::path cur;
  for (const auto& part : p) {
    cur /= part;
    if (cur.empty() || cur == cur.root_path()) continue;
    if (::mkdir(cur.c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return false;
  if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    return false;
  }
  return ::access(path.c_str(), writable ? W_OK | X_OK : X_OK) == 0;
}

// The shared /tmp fallback must be ours: a real directory (no symlink), owned by us,
// writable by nobody else.
bool private_dir(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) return false;
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::getuid() &&
         (st.st_mode & 0022) == 0;
}

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// $RISEC_COMPILE_TIMEOUT: the seconds the compiler may take (unset or empty: no limit).
double compile_timeout() {
  const std::string v = env_or_empty("RISEC_COMPILE_TIMEOUT");
  if (v.empty()) return 0;
  char* end = nullptr;
  // Decimal only: no spaces, no hexadecimal (which strtod takes).
  const bool decimal = v.find_first_not_of("0123456789.eE+-") == std::string::npos;
  const double s = std::strtod(v.c_str(), &end);
  if (!decimal || end == v.c_str() || *end != 0 || !std::isfinite(s) || s <= 0)
    jit_error("RISEC_COMPILE_TIMEOUT='" + v + "' is not a positive number of seconds");
  return s;
}

// The private build directories (tmp-XXXXXX) that a risec killed while compiling left
// in the cache are removed once they are a day old: by the first compile of each
// process in each cache directory (a day, so that another process's build in
// progress is never touched).
void remove_stale_build_dirs(const std::string& dir) {
  static std::mutex mutex;
  static std::set<std::string> done;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!done.insert(dir).second) return;
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto cutoff = fs::file_time_type::clock::now() - std::chrono::hours(24);
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code e2;
    if (name.rfind("tmp-", 0) == 0 && it->is_directory(e2) &&
        fs::last_write_time(it->path(), e2) < cutoff && !e2)
      fs::remove_all(it->path(), e2);
  }
}

// What an error shows of a failing compiler's output: its first 60 lines (the first
// errors are the ones to read; a unit that fails everywhere, a broken $CC wrapper or a
// missing header, can print thousands), at most 2000 bytes of each (one line can be
// megabytes), and how much was left out.
std::string shown_compiler_output(const std::string& output) {
  constexpr int kLines = 60;
  constexpr size_t kLineBytes = 2000;
  std::string shown;
  size_t at = 0;
  for (int lines = 0; at < output.size() && lines < kLines; ++lines) {
    size_t end = output.find('\n', at);
    end = end == std::string::npos ? output.size() : end + 1;
    if (end - at > kLineBytes)
      shown += output.substr(at, kLineBytes) + "[... " + std::to_string(end - at - kLineBytes) +
               " more bytes of this line]\n";
    else
      shown += output.substr(at, end - at);
    at = end;
  }
  if (at < output.size()) {
    const long more =
        std::count(output.begin() + static_cast<std::ptrdiff_t>(at), output.end(), '\n') +
        (output.back() == '\n' ? 0 : 1);
    shown += "[" + std::to_string(more) + (more == 1 ? " more line" : " more lines") +
             " of the compiler's output: the command above prints them all]\n";
  }
  return shown;
}

struct SourceFileText {
  std::string name;  // file name inside the build directory
  const std::string* text;
};

Artifact build(const std::vector<SourceFileText>& sources, const CompileOptions& options,
               bool shared) {
  std::vector<std::string> cc = options.cuda ? nvcc_compiler() : c_compiler();
  std::vector<std::string> flags = compile_flags(options, shared);
  const double timeout_s = compile_timeout();  // refused even where the cache has the unit
  Hasher h;
  h.add("risec-jit 1 " RISEC_VERSION);
  h.add(shared ? "shared object" : "executable");
  for (const auto& w : cc) h.add(w);
  h.add(program_identity(cc[0]));
  for (const auto& f : flags) {
    h.add(f);
    if (f.find("=native") != std::string::npos) h.add(host_cpu());
  }
  for (const auto& l : options.libs) h.add(l);
  for (const auto& s : sources) {
    h.add(s.name);
    h.add(*s.text);
  }
  const std::string dir = cache_dir();
  const std::string key = h.hex();
  const std::string final_path = dir + "/" + key + (shared ? ".so" : ".exe");
  Artifact art;
  art.path = final_path;
  if (is_regular_file(final_path)) {
    if (whole_elf_file(final_path)) {
      art.cache_hit = true;
      return art;
    }
    std::remove(final_path.c_str());  // cut short (a copy, a full disk): built again below
  }
  // The sources are placed in the cache first (HASH.c, HASH.NAME.c for the others),
  // so that the compiler's messages name files that stay there for inspection; the
  // binary is built in a private directory inside the cache, so that the final
  // rename stays within one file system and is atomic.
  if (::access(dir.c_str(), W_OK) != 0)
    jit_error("cannot build into the cache of compiled code '" + dir +
              "': " + std::strerror(errno) + " (it holds no usable build of this unit)");
  remove_stale_build_dirs(dir);
  TempDir tmp("tmp-", dir);
  std::vector<std::string> argv = cc;
  argv.insert(argv.end(), flags.begin(), flags.end());
  const std::string out = tmp.path() + (shared ? "/out.so" : "/out.exe");
  argv.push_back("-o");
  argv.push_back(out);
  std::string main_source;
  for (size_t i = 0; i < sources.size(); ++i) {
    std::string staged = tmp.path() + "/" + sources[i].name;
    const std::string& name = sources[i].name;
    std::string kept = dir + "/" + key + (i == 0 ? name.substr(name.rfind('.')) : "." + name);
    write_file(staged, *sources[i].text);
    if (std::rename(staged.c_str(), kept.c_str()) != 0)
      jit_error("cannot write '" + kept + "': " + std::strerror(errno));
    if (i == 0) main_source = kept;
    argv.push_back(kept);
  }
  argv.insert(argv.end(), options.libs.begin(), options.libs.end());
  if (!options.cuda) argv.push_back("-lmvec");  // glibc's vector math (AVX-512 expf, ...)
  argv.push_back("-lm");
  const std::string compiler = options.cuda ? "nvcc" : "the C compiler";  // in messages
  ProcessOptions po;
  po.timeout_s = timeout_s;
  po.merge_stderr = true;  // its messages in the order it wrote them
  ProcessResult r = run_process(argv, po);
  if (!r.ok()) {
    std::string msg =
        compiler + " failed (" + r.describe() +
        (r.timed_out ? ": RISEC_COMPILE_TIMEOUT=" + env_or_empty("RISEC_COMPILE_TIMEOUT") + " s"
                     : "") +
        ") on " + main_source + "\ncommand: " + format_command(argv);
    const std::string output = shown_compiler_output(r.out);
    if (!output.empty()) msg += "\n" + output;
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    jit_error(msg);
  }
  // Flags that stop the compiler before it links (-c, -E, -S, -fsyntax-only in
  // RISEC_CFLAGS) leave something else, or nothing, where the binary should be: an error
  // now, rather than a cache entry that fails to load later.
  if (!whole_elf_file(out))
    jit_error(compiler + " exited 0 but made no " + (shared ? "shared object" : "executable") +
              " from " + main_source +
              " (flags that stop before linking, such as -c, -E, -S or -fsyntax-only, in " +
              (options.cuda ? "RISEC_NVCCFLAGS" : "RISEC_CFLAGS") +
              "?)\ncommand: " + format_command(argv));
  if (std::rename(out.c_str(), final_path.c_str()) != 0)
    jit_error("cannot write '" + final_path + "': " + std::strerror(errno));
  art.compiler_output = r.out;
  return art;
}

bool valid_c_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

}  // namespace

std::string host_cpu() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model, flags;
  while (std::getline(in, line) && (model.empty() || flags.empty())) {
    if (model.empty() && line.rfind("model name", 0) == 0) model = line;
    if (flags.empty() && line.rfind("flags", 0) == 0) flags = line;
  }
  return model + "\n" + flags;
}

std::vector<std::string> c_compiler() {
  std::vector<std::string> words = split_words(env_or_empty("CC"), "CC");
  if (words.empty()) words.push_back("cc");
  if (words[0].empty())
    jit_error("CC=" + format_command({env_or_empty("CC")}) +
              " names no program: its first word is empty");
  return words;
}

std::vector<std::string> nvcc_compiler() {
  std::vector<std::string> words = split_words(env_or_empty("NVCC"), "NVCC");
  if (!words.empty()) {
    if (words[0].empty())
      jit_error("NVCC=" + format_command({env_or_empty("NVCC")}) +
                " names no program: its first word is empty");
    if (find_program(words[0]).empty())
      jit_error("$NVCC names '" + words[0] +
                "', which is not an executable: the CUDA target compiles with nvcc (the CUDA "
                "toolkit's compiler)");
    return words;
  }
  if (!find_program("nvcc").empty()) return {"nvcc"};
  if (!find_program("/usr/local/cuda/bin/nvcc").empty()) return {"/usr/local/cuda/bin/nvcc"};
  jit_error(
      "nvcc, the CUDA compiler, was not found (not in PATH nor /usr/local/cuda/bin): install the "
      "CUDA toolkit, or set $NVCC");
}

std::vector<std::string> compile_flags(const CompileOptions& options, bool shared_object) {
  if (options.cuda) {
    std::string arch = env_or_empty("RISEC_CUDA_ARCH");
    std::vector<std::string> f = {"-O3", "-std=c++17", "-arch=" + (arch.empty() ? "native" : arch)};
    if (shared_object) f.insert(f.end(), {"-shared", "-Xcompiler", "-fPIC"});
    for (auto& w : split_words(env_or_empty("RISEC_NVCCFLAGS"), "RISEC_NVCCFLAGS"))
      f.push_back(std::move(w));
    f.insert(f.end(), options.extra_flags.begin(), options.extra_flags.end());
    return f;
  }
  // gnu99: the generated code is C99 with GNU vector extensions, which GCC optimises
  // fully only in its GNU dialect (in strict -std=c99 mode the same vector code keeps
  // spilling to the stack, 3x slower on the mm ladder).
  // -fno-math-errno: generated code never reads errno, and with it sqrt on vectors is
  // one instruction instead of a call per lane.
  // -fno-trapping-math: generated code never unmasks floating-point exceptions, so no
  // operation can trap; without it GCC 12 leaves a lane loop scalar on AVX2 (no masked
  // instructions) when jump threading has moved an arithmetic operation under a
  // condition ("control flow in loop": the clamps of the vector exp in binomial and
  // blackscholes). It changes no result: rounding, NaNs and signed zeros are kept.
  std::vector<std::string> f = {
      "-O3",       "-march=native", "-ffp-contract=fast", "-fno-math-errno", "-fno-trapping-math",
      "-std=gnu99"};
  if (shared_object) {
    f.push_back("-shared");
    f.push_back("-fPIC");
  }
  if (options.openmp) {
    f.push_back("-fopenmp");
  } else {
    // Vector math lane loops run under `omp simd` (glibc's vector variants) without
    // the OpenMP runtime.
    f.push_back("-fopenmp-simd");
  }
  f.push_back("-DRISEC_OMP_SIMD");
  for (auto& w : split_words(env_or_empty("RISEC_CFLAGS"), "RISEC_CFLAGS"))
    f.push_back(std::move(w));
  f.insert(f.end(), options.extra_flags.begin(), options.extra_flags.end());
  return f;
}

std::vector<std::string> sanitizer_flags() {
  return {"-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer",
          "-g"};
}

std::string cache_dir() {
  std::string explicit_dir = env_or_empty("RISEC_CACHE_DIR");
  if (!explicit_dir.empty()) {
    // Absolute, so that the paths given to the compiler never start with '-' (a
    // relative "-dir" would be read as an option) and do not depend on its directory.
    std::error_code ec;
    const std::string dir = std::filesystem::absolute(explicit_dir, ec).lexically_normal();
    if (ec) jit_error("cannot use RISEC_CACHE_DIR '" + explicit_dir + "': " + ec.message());
    // A directory we may only read still serves what it holds (a cache prepared for
    // read-only use); a unit it lacks fails where the build would write it.
    if (!make_dirs(dir, false))
      jit_error("cannot use RISEC_CACHE_DIR '" + explicit_dir +
                "' as the cache of compiled code: " + std::strerror(errno));
    return dir;
  }
  std::string xdg = env_or_empty("XDG_CACHE_HOME");
  if (!xdg.empty() && xdg[0] == '/' && make_dirs(xdg + "/risec")) return xdg + "/risec";
  std::string home = env_or_empty("HOME");
  if (!home.empty() && make_dirs(home + "/.cache/risec")) return home + "/.cache/risec";
  std::string tmp = env_or_empty("TMPDIR");
  if (tmp.empty()) tmp = "/tmp";
  std::string fallback = tmp + "/risec-cache-" + std::to_string(::getuid());
  if (private_dir(fallback)) return fallback;
  jit_error("no usable directory for the cache of compiled code (set RISEC_CACHE_DIR)");
}

Artifact build_shared_object(const std::string& source, const CompileOptions& options) {
  return build({{options.cuda ? "unit.cu" : "unit.c", &source}}, options, true);
}

Artifact build_executable(const std::string& source, const std::string& entry,
                          const CompileOptions& options) {
  std::string main_src = standalone_main_source(entry);
  return build({{"unit.c", &source}, {"risec_main.c", &main_src}}, options, false);
}

// ---------------------------------------------------------------------------------
// Faults recorded for in-process calls
// ---------------------------------------------------------------------------------

namespace {

// Before the unit: the macros (not in CUDA's device pass, whose kernels print and
// trap) and the record, with no header included (the unit's feature macros come
// first). Valid C and C++ (a CUDA unit is C++).
const char* const kFaultPrelude =
    R"(/* risec: this unit is loaded into its caller's process, which a fault of the data or a
   failure of the device must not end: RISEC_BOUNDS_FAILED and RISEC_ARITHMETIC_FAILED
   record the first fault of a call, RISEC_DEVICE_FAILED a failure of the device's
   runtime (the host function then returns), for ENTRY__risec_call_faults (at the end)
   instead of abort() (runtime/jit.h). */
#ifndef __CUDA_ARCH__
#ifndef RISEC_BOUNDS_FAILED
#define RISEC_BOUNDS_FAILED(fn, what) risec_record_fault(1, (fn), (what))
#endif
#ifndef RISEC_ARITHMETIC_FAILED
#define RISEC_ARITHMETIC_FAILED(fn, what) risec_record_fault(1, (fn), (what))
#endif
#ifndef RISEC_DEVICE_FAILED
#define RISEC_DEVICE_FAILED(what) risec_record_fault(2, 0, (what))
#endif
#ifndef RISEC_ALLOC_FAILED
#define RISEC_ALLOC_FAILED(fn, what) \
  (__atomic_store_n(&risec_fault_now.stopped, 1, __ATOMIC_RELEASE), risec_record_fault(2, (fn), (what)))
#define RISEC_STOPPED() __atomic_load_n(&risec_fault_now.stopped, __ATOMIC_ACQUIRE)
#endif
#endif
struct risec_fault_record {
  int state;   /* 0: none, 1: being written, 2: text holds "fn: what" */
  int kind;    /* 1: a fault of the data, 2: a failure of the device or of memory */
  int stopped; /* an allocation failed: the function returns (RISEC_STOPPED) */
  char text[4096];
};
#ifdef _OPENMP
/* worker threads fault: one record, calls serialised (ENTRY__risec_call_faults) */
static struct risec_fault_record risec_fault_now;
#else
/* the caller's thread faults: a record per thread, calls concurrent */
static __thread struct risec_fault_record risec_fault_now;
#endif
static __attribute__((cold, noinline, unused)) void risec_record_fault(int kind, const char* fn,
                                                                        const char* what) {
  struct risec_fault_record* r = &risec_fault_now;
  int none = 0;
  unsigned n = 0;
  if (!__atomic_compare_exchange_n(&r->state, &none, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return; /* the first fault wins */
  r->kind = kind;
  for (; fn && *fn && n + 1 < sizeof r->text; ++fn) r->text[n++] = *fn;
  for (const char* sep = ": "; fn && *sep && n + 1 < sizeof r->text; ++sep) r->text[n++] = *sep;
  for (; what && *what && n + 1 < sizeof r->text; ++what) r->text[n++] = *what;
  r->text[n] = 0;
  __atomic_store_n(&r->state, 2, __ATOMIC_RELEASE);
}
)";

}  // namespace

std::string with_fault_recording(const std::string& source, const std::string& entry) {
  if (source.find("RISEC_BOUNDS_FAILED") == std::string::npos &&
      source.find("RISEC_ARITHMETIC_FAILED") == std::string::npos &&
      source.find("RISEC_DEVICE_FAILED") == std::string::npos &&
      source.find("RISEC_ALLOC_FAILED") == std::string::npos)
    return source;
  if (!valid_c_identifier(entry))
    internal_error("fault recording: '" + entry + "' is not a C identifier");
  const std::string fn = entry + "__risec_call";
  // After the unit: the entry that clears the record, calls and reads it. Under
  // OpenMP the record is the unit's, so a lock keeps calls apart; the parallel regions
  // have joined when the entry returns, so the text is complete.
  return std::string(kFaultPrelude) + source + R"(
/* risec: the in-process entry recording the call's fault (runtime/jit.h). */
#ifdef _OPENMP
#include <pthread.h>
static pthread_mutex_t risec_fault_lock = PTHREAD_MUTEX_INITIALIZER;
#endif
#ifdef __cplusplus
extern "C" {
#endif
int )" + fn +
         R"(_faults(void* const* buffers, const int* sizes, char* message, int capacity) {
  struct risec_fault_record* r = &risec_fault_now;
  int faulted, n = 0;
#ifdef _OPENMP
  pthread_mutex_lock(&risec_fault_lock);
#endif
  __atomic_store_n(&r->state, 0, __ATOMIC_RELEASE);
  __atomic_store_n(&r->stopped, 0, __ATOMIC_RELEASE);
  )" + fn +
         R"((buffers, sizes);
  faulted = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != 0 ? r->kind : 0;
  if (faulted)
    for (; r->text[n] && n + 1 < capacity; ++n) message[n] = r->text[n];
  if (capacity > 0) message[n] = 0;
  __atomic_store_n(&r->state, 0, __ATOMIC_RELEASE);
#ifdef _OPENMP
  pthread_mutex_unlock(&risec_fault_lock);
#endif
  return faulted;
}
#ifdef __cplusplus
}
#endif
)";
}

// ---------------------------------------------------------------------------------
// Module
// ---------------------------------------------------------------------------------

Module::Module(const std::string& path, const std::string& entry, bool keep_loaded) : path_(path) {
  ::dlerror();
  handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | (keep_loaded ? RTLD_NODELETE : 0));
  if (!handle_) {
    const char* e = ::dlerror();
    jit_error("cannot load '" + path + "': " + (e ? e : "unknown error"));
  }
  std::string sym = entry + "__risec_call";
  void* f = ::dlsym(handle_, sym.c_str());
  if (!f) {
    const char* e = ::dlerror();
    std::string msg =
        "'" + path + "' has no function '" + sym + "'" + (e ? std::string(": ") + e : "");
    ::dlclose(handle_);
    handle_ = nullptr;
    jit_error(msg);
  }
  fn_ = reinterpret_cast<void (*)(void* const*, const int*)>(f);
  release_ = reinterpret_cast<void (*)()>(::dlsym(handle_, (entry + "__risec_release").c_str()));
  faults_ = reinterpret_cast<int (*)(void* const*, const int*, char*, int)>(
      ::dlsym(handle_, (entry + "__risec_call_faults").c_str()));
}

Module::Module(Module&& o) noexcept
    : handle_(std::exchange(o.handle_, nullptr)),
      fn_(std::exchange(o.fn_, nullptr)),
      release_(std::exchange(o.release_, nullptr)),
      faults_(std::exchange(o.faults_, nullptr)),
      path_(std::move(o.path_)) {}

Module& Module::operator=(Module&& o) noexcept {
  if (this != &o) {
    unload();
    handle_ = std::exchange(o.handle_, nullptr);
    fn_ = std::exchange(o.fn_, nullptr);
    release_ = std::exchange(o.release_, nullptr);
    faults_ = std::exchange(o.faults_, nullptr);
    path_ = std::move(o.path_);
  }
  return *this;
}

Module::~Module() {
  unload();
}

void Module::unload() {
  if (release_) release_();
  release_ = nullptr;
  if (handle_) ::dlclose(handle_);
  handle_ = nullptr;
}

void* Module::symbol(const std::string& name) const {
  return handle_ ? ::dlsym(handle_, name.c_str()) : nullptr;
}

void Module::call(const std::vector<void*>& buffers, const std::vector<int>& sizes) const {
  if (!fn_) internal_error("calling an unloaded module");
  // The entry reads sizes[i] only for its size parameters; an empty list still
  // needs a valid pointer.
  static const int kNoSizes[1] = {0};
  const int* size_args = sizes.empty() ? kNoSizes : sizes.data();
  if (!faults_) {
    fn_(buffers.data(), size_args);
    return;
  }
  char message[4096];
  const int failed = faults_(buffers.data(), size_args, message, sizeof message);
  if (failed == 1) throw Error(ErrorKind::Fault, std::string("the program stopped: ") + message);
  if (failed) {
    // A failure of the device's runtime (runtime/jit.h): its own words.
    std::string text = message;
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    throw Error(ErrorKind::External, text);
  }
}

bool uses_openmp_runtime(const CompileOptions& options) {
  bool openmp = false;
  for (const std::string& f : compile_flags(options, true)) openmp |= f.rfind("-fopenmp", 0) == 0;
  return openmp;
}

void discard_unloadable(const std::string& path, const Error& e) {
  std::remove(path.c_str());
  std::string msg = std::string(e.what()) + " (not kept in the cache)";
  if (msg.find("has no function") != std::string::npos)
    msg += "; do the compiler's flags hide it (-fvisibility=hidden in RISEC_CFLAGS)?";
  jit_error(msg);
}

namespace {

Module load_built(const std::string& path, const std::string& entry, bool openmp) {
  try {
    return Module(path, entry, openmp);
  } catch (const Error& e) {
    discard_unloadable(path, e);
  }
}

}  // namespace

Module jit_compile(const std::string& source, const std::string& entry,
                   const CompileOptions& options, bool* cache_hit) {
  // OpenMP code (asked for, or through $RISEC_CFLAGS) must never be unloaded.
  bool openmp = uses_openmp_runtime(options);
  const std::string recording = with_fault_recording(source, entry);
  Artifact a = build_shared_object(recording, options);
  if (cache_hit) *cache_hit = a.cache_hit;
  if (!a.cache_hit) return load_built(a.path, entry, openmp);
  try {
    return Module(a.path, entry, openmp);
  } catch (const Error&) {
    // A damaged cache entry (e.g. copied between machines): build it again.
    std::remove(a.path.c_str());
    a = build_shared_object(recording, options);
    if (cache_hit) *cache_hit = a.cache_hit;
    return load_built(a.path, entry, openmp);
  }
}

// ---------------------------------------------------------------------------------
// Standalone executables
// ---------------------------------------------------------------------------------

std::string standalone_main_source(const std::string& entry) {
  if (!valid_c_identifier(entry))
    internal_error("standalone main: '" + entry + "' is not a C identifier");
  std::string fn = entry + "__risec_call";
  return R"(/* Generated by risec: a standalone driver for ')" + entry +
         R"(' (see src/runtime/jit.h).
 * usage: EXE OUTPUT_FILE OUTPUT_BYTES NUM_SIZES SIZE... INPUT_FILE...
 * Every buffer is allocated with its exact size, so that a sanitizer reports any
 * access past its end. */
#define _POSIX_C_SOURCE 200112L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void )" + fn +
         R"((void* const* buffers, const int* sizes);

static void* risec_alloc_exact(size_t bytes) {
  void* p = NULL;
  if (posix_memalign(&p, 64, bytes ? bytes : 1) != 0) return NULL;
  return p;
}

static void* risec_read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  long n;
  void* p;
  if (!f) return NULL;
  if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return NULL;
  }
  p = risec_alloc_exact((size_t)n);
  if (p && n > 0 && fread(p, 1, (size_t)n, f) != (size_t)n) {
    free(p);
    p = NULL;
  }
  fclose(f);
  return p;
}

int main(int argc, char** argv) {
  size_t out_bytes;
  int nsizes, ninputs, i, status = 0;
  int* sizes;
  void** buffers;
  FILE* out;
  if (argc < 4) {
    fprintf(stderr, "usage: %s OUTPUT_FILE OUTPUT_BYTES NUM_SIZES SIZE... INPUT_FILE...\n", argv[0]);
    return 2;
  }
  out_bytes = (size_t)strtoull(argv[2], NULL, 10);
  nsizes = atoi(argv[3]);
  if (nsizes < 0 || argc < 4 + nsizes) {
    fprintf(stderr, "%s: expected %d sizes\n", argv[0], nsizes);
    return 2;
  }
  ninputs = argc - 4 - nsizes;
  sizes = (int*)malloc(sizeof(int) * (size_t)(nsizes > 0 ? nsizes : 1));
  buffers = (void**)malloc(sizeof(void*) * (size_t)(ninputs + 1));
  if (!sizes || !buffers) {
    fprintf(stderr, "%s: out of memory\n", argv[0]);
    return 2;
  }
  for (i = 0; i < nsizes; ++i) sizes[i] = atoi(argv[4 + i]);
  buffers[0] = risec_alloc_exact(out_bytes);
  if (!buffers[0]) {
    fprintf(stderr, "%s: out of memory\n", argv[0]);
    return 2;
  }
  memset(buffers[0], 0, out_bytes);
  for (i = 0; i < ninputs; ++i) {
    buffers[1 + i] = risec_read_file(argv[4 + nsizes + i]);
    if (!buffers[1 + i]) {
      fprintf(stderr, "%s: cannot read '%s': %s\n", argv[0], argv[4 + nsizes + i], strerror(errno));
      return 2;
    }
  }
  )" + fn +
         R"((buffers, sizes);
  out = fopen(argv[1], "wb");
  if (!out || (out_bytes > 0 && fwrite(buffers[0], 1, out_bytes, out) != out_bytes) || fclose(out) != 0) {
    fprintf(stderr, "%s: cannot write '%s'\n", argv[0], argv[1]);
    status = 2;
  }
  for (i = 0; i <= ninputs; ++i) free(buffers[i]);
  free(buffers);
  free(sizes);
  return status;
}
)";
}

void Executable::call(void* output, size_t output_size, const std::vector<Bytes>& inputs,
                      const std::vector<int>& sizes) const {
  call(output, output_size, inputs, sizes, Options{});
}

void Executable::call(void* output, size_t output_size, const std::vector<Bytes>& inputs,
                      const std::vector<int>& sizes, const Options& options) const {
  TempDir dir("risec-run-");
  std::vector<std::string> argv = {path_, dir.path() + "/output.bin", std::to_string(output_size),
                                   std::to_string(sizes.size())};
  for (int s : sizes) argv.push_back(std::to_string(s));
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string p = dir.path() + "/input" + std::to_string(i) + ".bin";
    write_file(p, std::string_view(static_cast<const char*>(inputs[i].data), inputs[i].size));
    argv.push_back(p);
  }
  ProcessOptions po;
  po.timeout_s = options.timeout_s;
  ProcessResult r = run_process(argv, po);
  if (!r.ok()) {
    std::string msg =
        "the generated program failed (" + r.describe() + ")\ncommand: " + format_command(argv);
    std::string output_text = r.err + r.out;
    if (!output_text.empty()) msg += "\n" + output_text;
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    throw Error(ErrorKind::Internal, msg);
  }
  std::string bytes = read_file(dir.path() + "/output.bin");
  if (bytes.size() != output_size)
    internal_error("the generated program wrote " + std::to_string(bytes.size()) +
                   " bytes, expected " + std::to_string(output_size));
  if (output_size) std::memcpy(output, bytes.data(), output_size);
}

}  // namespace risec::runtime
