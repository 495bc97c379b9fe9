// Running external programs without a shell, and private temporary directories (see
// process.h).
#include "runtime/process.h"

#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/diagnostics.h"

extern char** environ;

namespace risec::runtime {

namespace {

[[noreturn]] void process_error(const std::string& msg) {
  throw Error(ErrorKind::External, msg);
}

// Closes a file descriptor when it goes out of scope.
struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

void make_pipe(Fd& read_end, Fd& write_end) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0)
    process_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  read_end.fd = p[0];
  write_end.fd = p[1];
}

// The environment of the child: ours with `extra` entries replacing same-named ones.
std::vector<std::string> child_environment(const std::vector<std::string>& extra) {
  std::vector<std::string> out;
  auto name_of = [](const std::string& e) { return e.substr(0, e.find('=')); };
  for (char** e = environ; e && *e; ++e) {
    std::string entry = *e;
    bool replaced = false;
    for (const std::string& x : extra) replaced |= name_of(x) == name_of(entry);
    if (!replaced) out.push_back(entry);
  }
  for (const std::string& x : extra) out.push_back(x);
  return out;
}

std::vector<char*> c_strings(std::vector<std::string>& words) {
  std::vector<char*> out;
  out.reserve(words.size() + 1);
  for (std::string& w : words) out.push_back(w.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

std::string ProcessResult::describe() const {
  if (timed_out) return "timed out";
  if (signal != 0) {
    const char* name = ::strsignal(signal);
    return "killed by signal " + std::to_string(signal) +
           (name ? std::string(" (") + name + ")" : "");
  }
  return "exit status " + std::to_string(exit_code);
}

std::string format_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& w : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !w.empty();
    for (char c : w)
      plain &=
          std::isalnum(static_cast<unsigned char>(c)) || std::strchr("-_=./,:+@%", c) != nullptr;
    if (plain) {
      out += w;
      continue;
    }
    out += '\'';
    for (char c : w) {
      if (c == '\'')
        out += "'\\''";
      else
        out += c;
    }
    out += '\'';
  }
  return out;
}

namespace {

// The process groups of the programs running with a timeout (each leads its own group):
// kill_running_process_groups kills them from a signal handler, so only atomics.
std::atomic<pid_t> running_groups[64];

// Registers a group while it runs (none when the table is full).
struct RunningGroup {
  std::atomic<pid_t>* slot = nullptr;
  explicit RunningGroup(pid_t pgid) {
    for (auto& s : running_groups) {
      pid_t empty = 0;
      if (s.compare_exchange_strong(empty, pgid)) {
        slot = &s;
        return;
      }
    }
  }
  RunningGroup(const RunningGroup&) = delete;
  RunningGroup& operator=(const RunningGroup&) = delete;
  ~RunningGroup() {
    if (slot) slot->store(0);
  }
};

}  // namespace

void kill_running_process_groups() noexcept {
  for (auto& s : running_groups) {
    const pid_t g = s.load();
    if (g > 0) ::kill(-g, SIGKILL);
  }
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  if (argv.empty() || argv[0].empty()) process_error("run_process: no program to run");
  std::vector<std::string> args = argv;
  std::vector<char*> c_args = c_strings(args);
  std::vector<std::string> env = child_environment(options.env);
  std::vector<char*> c_env = c_strings(env);
  const bool own_group = options.timeout_s > 0;
  const std::string& cwd = options.cwd;
  const bool merge_stderr = options.merge_stderr;

  Fd out_r, out_w, err_r, err_w;
  make_pipe(out_r, out_w);
  make_pipe(err_r, err_w);
  Fd devnull(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (devnull.fd < 0) process_error(std::string("cannot open /dev/null: ") + std::strerror(errno));

  // posix_spawn rather than fork: glibc starts the child in the caller's address space
  // until it execs, so the caller's page tables are not copied, a cost that grows with
  // the caller's memory (a process under AddressSanitizer, with its shadow and
  // quarantine, is large: the sanitizer run's CLI tests, which start risec hundreds of
  // times, took about a tenth less time). The child changes directory, takes the
  // pipes as its output (dup2 clears their close-on-exec flag) and, with a timeout,
  // leads a process group of its own, so that the whole group can be killed; a failed
  // exec or chdir comes back as posix_spawn's error.
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  if (::posix_spawn_file_actions_init(&actions) != 0 || ::posix_spawnattr_init(&attr) != 0)
    process_error("cannot start '" + argv[0] + "': out of memory");
  struct Release {
    posix_spawn_file_actions_t* a;
    posix_spawnattr_t* b;
    ~Release() {
      ::posix_spawn_file_actions_destroy(a);
      ::posix_spawnattr_destroy(b);
    }
  } release{&actions, &attr};
  int rc = 0;
  if (!cwd.empty()) rc = ::posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  if (rc == 0) rc = ::posix_spawn_file_actions_adddup2(&actions, devnull.fd, 0);
  if (rc == 0) rc = ::posix_spawn_file_actions_adddup2(&actions, out_w.fd, 1);
  if (rc == 0)
    rc = ::posix_spawn_file_actions_adddup2(&actions, merge_stderr ? out_w.fd : err_w.fd, 2);
  if (rc == 0 && own_group) {
    rc = ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    if (rc == 0) rc = ::posix_spawnattr_setpgroup(&attr, 0);
  }
  if (rc != 0) process_error("cannot start '" + argv[0] + "': " + std::strerror(rc));
  pid_t pid = 0;
  rc = ::posix_spawnp(&pid, c_args[0], &actions, &attr, c_args.data(), c_env.data());
  if (rc != 0) {
    // ENOENT for a file that is there: the kernel did not find the interpreter its
    // first line names (a script whose #! names a program that is not installed).
    std::string why = std::strerror(rc);
    // (A name without '/' was searched in PATH: not found there.)
    struct stat st;
    const bool relative = argv[0][0] != '/' && !cwd.empty();
    const bool there = argv[0].find('/') != std::string::npos &&
                       ::stat((relative ? cwd + "/" + argv[0] : argv[0]).c_str(), &st) == 0;
    if (rc == ENOENT && there)
      why += " (the file is there: is the interpreter its #! line names missing?)";
    else if (rc == EACCES && there && S_ISDIR(st.st_mode))
      why += " (it is a directory)";
    else if (rc == ENOEXEC)
      why += " (not a program this system can run: a script needs a #! line)";
    process_error("cannot run '" + argv[0] + "'" +
                  (cwd.empty() ? std::string("") : " in '" + cwd + "'") + ": " + why);
  }
  out_w.reset();
  err_w.reset();
  std::optional<RunningGroup> running;
  if (own_group) running.emplace(pid);

  ProcessResult r;
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(options.timeout_s));
  pollfd fds[2] = {{out_r.fd, POLLIN, 0}, {err_r.fd, POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_count = 2;
  char buf[65536];
  auto read_from = [&](int i) {
    ssize_t k = ::read(fds[i].fd, buf, sizeof buf);
    if (k > 0) {
      sinks[i]->append(buf, static_cast<size_t>(k));
    } else if (k == 0 || (errno != EINTR && errno != EAGAIN)) {
      fds[i].fd = -1;
      --open_count;
    }
    return k > 0;
  };
  int status = 0;
  bool reaped = false;
  while (open_count > 0) {
    // The child is also looked at every 100 ms: a process it left behind (a compiler
    // wrapper's background server, `sleep 60 &`) may hold the pipes open after it
    // exited, and its result is the child's, not that process's.
    int wait_ms = 100;
    if (own_group) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) {
        ::kill(-pid, SIGKILL);
        r.timed_out = true;
        break;
      }
      wait_ms = static_cast<int>(std::min<int64_t>(left.count() + 1, wait_ms));
    }
    int n = ::poll(fds, 2, wait_ms);
    if (n < 0) {
      if (errno == EINTR) continue;
      ::kill(own_group ? -pid : pid, SIGKILL);
      break;
    }
    for (int i = 0; i < 2; ++i)
      if (fds[i].fd >= 0 && fds[i].revents != 0) read_from(i);
    if (n == 0 && ::waitpid(pid, &status, WNOHANG) == pid) {
      // Exited with the pipes still open: what is already in them, then done.
      reaped = true;
      for (int i = 0; i < 2; ++i) {
        if (fds[i].fd < 0) continue;
        ::fcntl(fds[i].fd, F_SETFL, ::fcntl(fds[i].fd, F_GETFL) | O_NONBLOCK);
        for (int reads = 0; reads < 64 && fds[i].fd >= 0 && read_from(i); ++reads) {
        }
      }
      break;
    }
  }
  while (!reaped && ::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) process_error(std::string("waitpid: ") + std::strerror(errno));
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  if (r.timed_out) r.signal = 0;
  return r;
}

std::string make_temp_dir(const std::string& prefix, const std::string& parent) {
  std::string base = parent;
  if (base.empty()) {
    const char* t = std::getenv("TMPDIR");
    base = t && *t ? t : "/tmp";
  }
  std::string templ = base + "/" + prefix + "XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data()))
    process_error("cannot create a temporary directory in '" + base + "': " + std::strerror(errno));
  return std::string(buf.data());
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) process_error("cannot read '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) process_error("cannot read '" + path + "'");
  return ss.str();
}

void write_file(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) process_error("cannot write '" + path + "': " + std::strerror(errno));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) process_error("cannot write '" + path + "'");
}

std::vector<std::string> split_words(std::string_view text, std::string_view what) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;  // a word has begun (it may be empty: '')
  char quote = 0;        // the open quote, if any
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote == '\'') {
      if (c == '\'')
        quote = 0;
      else
        cur += c;
    } else if (quote == '"') {
      if (c == '"') {
        quote = 0;
      } else if (c == '\\' && i + 1 < text.size() &&
                 std::string_view("\"\\$`").find(text[i + 1]) != std::string_view::npos) {
        cur += text[++i];
      } else {
        cur += c;
      }
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) out.push_back(std::move(cur));
      cur.clear();
      in_word = false;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < text.size()) {
      cur += text[++i];
      in_word = true;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (quote)
    process_error(std::string("unclosed ") + (quote == '"' ? "double" : "single") + " quote in " +
                  (what.empty() ? std::string() : std::string(what) + "=") +
                  format_command({std::string(text)}));
  if (in_word) out.push_back(std::move(cur));
  return out;
}

}  // namespace risec::runtime
