// Outputs written atomically and never over an input (see files.h).
#include "support/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>

#include "support/diagnostics.h"

namespace risec {

namespace {

struct Identity {
  dev_t dev;
  ino_t ino;
};

std::optional<Identity> identity(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return Identity{st.st_dev, st.st_ino};
}

struct NotedInput {
  Identity id;
  std::string path;
  std::string role;
};

// The scopes open, innermost last; each holds its inputs. Guarded by `mutex`: strategy
// imports may be read by the tuner's compile threads.
std::mutex mutex;
std::vector<std::vector<NotedInput>> scopes;

[[noreturn]] void cannot_write(const std::string& path, const std::string& why, int err) {
  throw Error(ErrorKind::External, "cannot write '" + path + "': " + why +
                                       (err ? std::string(": ") + std::strerror(err) : ""));
}

// A path that does not exist yet in `dir`, created (O_EXCL) with the mode a new file
// gets (0666 less the umask); its descriptor, and the path in `tmp`.
int create_temporary(const std::string& dir, const std::string& name, std::string* tmp) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    *tmp = dir + "/." + name + ".risec-" + std::to_string(::getpid()) + "-" +
           std::to_string(counter++);
    int fd = ::open(tmp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

bool write_all(int fd, std::string_view bytes) {
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

// Writes to a target that is not a regular file (a device, a pipe): in place.
void write_in_place(const std::string& path, std::string_view bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) cannot_write(path, "cannot open it", errno);
  bool ok = write_all(fd, bytes);
  int err = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) cannot_write(path, "the write failed", err);
}

void write_atomically(const std::string& path, std::string_view bytes) {
  if (path.empty()) cannot_write(path, "the name is empty", 0);
  // A symbolic link stays: its target is what is replaced.
  std::string target = path;
  char resolved[PATH_MAX];
  struct stat st;
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && ::realpath(path.c_str(), resolved)) target = resolved;
  if (exists && S_ISDIR(st.st_mode)) cannot_write(path, "it is a directory", 0);
  if (exists && !S_ISREG(st.st_mode)) return write_in_place(path, bytes);
  const size_t slash = target.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : target.substr(0, slash));
  const std::string name = slash == std::string::npos ? target : target.substr(slash + 1);
  std::string tmp;
  int fd = create_temporary(dir, name, &tmp);
  if (fd < 0) cannot_write(path, "cannot create a file in '" + dir + "'", errno);
  auto fail = [&](const std::string& why) {
    int err = errno;
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    cannot_write(path, why, err);
  };
  // A file replaced keeps its permissions.
  if (exists && ::fchmod(fd, st.st_mode & 07777) != 0) fail("cannot set its permissions");
  if (!write_all(fd, bytes)) fail("the write failed (the old file, if any, is unchanged)");
  if (::fsync(fd) != 0) fail("the write failed (the old file, if any, is unchanged)");
  int closed = ::close(fd);
  fd = -1;
  if (closed != 0) fail("the write failed (the old file, if any, is unchanged)");
  if (::rename(tmp.c_str(), target.c_str()) != 0) fail("cannot replace it");
  // The rename itself on disk (best effort: some file systems refuse to sync a folder).
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace

InputScope::InputScope() {
  std::lock_guard<std::mutex> lock(mutex);
  scopes.emplace_back();
}

InputScope::~InputScope() {
  std::lock_guard<std::mutex> lock(mutex);
  scopes.pop_back();
}

void note_input(const std::string& path, const std::string& role) {
  std::lock_guard<std::mutex> lock(mutex);
  if (scopes.empty()) return;
  if (auto id = identity(path)) scopes.back().push_back({*id, path, role});
}

// An output written through a temporary file beside it (a new file, or a regular file
// replaced) needs its directory to exist and be writable: refused before the work that
// produces it, as the write would fail after it (External, exit 4).
static void check_output_directory(const std::string& path, const std::string& option) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return;  // a device: in place
  const size_t slash = path.find_last_of('/');
  const std::string dir =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error(ErrorKind::External, option + " " + path + ": cannot be written: the directory " +
                                         dir + " does not exist");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw Error(ErrorKind::External, option + " " + path + ": cannot be written: the directory " +
                                         dir + " is not writable (" + std::strerror(errno) + ")");
}

void check_output_stem(const std::string& path, const std::string& option) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode))
    return check_output_directory(path, option);
  throw Error(ErrorKind::Usage, option + " " + path + ": it is " +
                                    (S_ISDIR(st.st_mode) ? "a directory" : "not a regular file") +
                                    ", but it names the files to write (" + path + ".c, " + path +
                                    ".h, ...); name a file");
}

void check_output_file(const std::string& path, const std::string& option) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw Error(ErrorKind::Usage, option + " " + path + ": it is a directory; name a file");
  check_output_directory(path, option);
}

void check_outputs(const std::vector<std::string>& paths) {
  std::lock_guard<std::mutex> lock(mutex);
  if (scopes.empty()) return;
  for (const std::string& path : paths) {
    auto id = identity(path);
    if (!id) continue;
    for (const NotedInput& in : scopes.back())
      if (in.id.dev == id->dev && in.id.ino == id->ino)
        throw Error(ErrorKind::Usage,
                    "the output '" + path + "' is the same file as the input '" + in.path + "' (" +
                        in.role + "); risec does not overwrite its inputs: choose another output");
  }
}

void write_output_files(const std::vector<OutputFile>& files) {
  std::vector<std::string> paths;
  for (const OutputFile& f : files) paths.push_back(f.path);
  check_outputs(paths);
  // A set of files is written whole or not at all where that can be known before:
  // one that is a directory stops them all before the first is written.
  for (const OutputFile& f : files) {
    struct stat st;
    if (::stat(f.path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      cannot_write(f.path, "it is a directory", 0);
  }
  for (const OutputFile& f : files) write_atomically(f.path, f.bytes);
}

void write_output_file(const std::string& path, std::string_view bytes) {
  check_outputs({path});
  write_atomically(path, bytes);
}

}  // namespace risec
