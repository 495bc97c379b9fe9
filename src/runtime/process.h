// Running external programs (the C compiler, sanitizer-built standalone programs)
// without a shell: posix_spawnp with an argument vector, stdin from /dev/null, stdout
// and stderr captured. Also the few file-system helpers the runtime needs (private
// temporary directories made with mkdtemp, whole-file reads and writes).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace risec::runtime {

struct ProcessOptions {
  // Extra environment entries "NAME=VALUE" (replacing inherited ones of that name).
  std::vector<std::string> env;
  // Kill the program (and its process group) after this many seconds; 0: no limit.
  double timeout_s = 0;
  // Working directory of the program; empty: ours.
  std::string cwd;
  // Its stderr into the pipe of its stdout: ProcessResult::out holds both, in the order
  // written (a compiler's messages), and err stays empty.
  bool merge_stderr = false;
};

struct ProcessResult {
  int exit_code = -1;      // the exit status when the program exited normally
  int signal = 0;          // the signal that ended it, else 0
  bool timed_out = false;  // killed after ProcessOptions::timeout_s
  std::string out;         // everything it wrote on stdout
  std::string err;         // everything it wrote on stderr

  bool ok() const { return !timed_out && signal == 0 && exit_code == 0; }
  // "exit status 1", "killed by signal 11 (Segmentation fault)", "timed out after 5 s".
  std::string describe() const;
};

// Runs argv[0] (searched in PATH when it has no '/') with the arguments argv[1..].
// Throws risec::Error (External) when the program cannot be started at all
// ("cannot run 'cc': No such file or directory"); any exit status is a result.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// Kills (SIGKILL) the process groups of the programs run_process is running with a
// timeout: each leads a group of its own so that a timeout kills what it started, and
// so a terminal's Ctrl-C, or a signal sent to the caller's group, does not reach it.
// Async-signal-safe: the command line's handler of SIGINT, SIGTERM and SIGHUP calls it
// before risec dies of the signal (tools/risec/main.cpp).
void kill_running_process_groups() noexcept;

// A command line for messages: the words separated by spaces, quoted where needed.
std::string format_command(const std::vector<std::string>& argv);

// A new private (0700) directory `parent/prefixXXXXXX` made with mkdtemp; parent
// defaults to $TMPDIR or /tmp. Throws risec::Error (External) when it cannot.
std::string make_temp_dir(const std::string& prefix, const std::string& parent = "");

// Removes a directory tree made by make_temp_dir when it goes out of scope.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix, const std::string& parent = "")
      : path_(make_temp_dir(prefix, parent)) {}
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Whole-file I/O; errors are risec::Error (External) naming the path.
std::string read_file(const std::string& path);
void write_file(const std::string& path, std::string_view bytes);

// The words of `text` (for $CC, $NVCC, $RISEC_CFLAGS and $RISEC_NVCCFLAGS), split at
// whitespace as a POSIX shell splits them, without expansions: '...' keeps everything
// inside, "..." keeps everything but a backslash before " \ $ or `, and a backslash
// outside quotes keeps the next character. An unclosed quote is an error (External)
// that names `what` (the variable, "RISEC_CFLAGS") when given.
std::vector<std::string> split_words(std::string_view text, std::string_view what = {});

}  // namespace risec::runtime
