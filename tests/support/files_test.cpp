// The output writer of support/files.h (issue 32, item 7): a write that fails
// half-way (a file size limit, standing in for a full disk) leaves the old file
// byte for byte and no temporary file; an output that is the same file as an input,
// however spelled (./x, a/../x, an absolute path, a symbolic or hard link), is
// refused; outside an InputScope nothing is compared.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "risec/error.h"
#include "support/files.h"

namespace risec {
namespace {

namespace fs = std::filesystem;

// A fresh folder for one test.
class Folder {
 public:
  Folder() {
    std::string t = (fs::temp_directory_path() / "risec-files-XXXXXX").string();
    path_ = ::mkdtemp(t.data());
  }
  ~Folder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path_)) out.push_back(e.path().filename());
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  std::string path_;
};

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_plain(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// write_output_file(path, bytes) in a child process whose files may not grow beyond
// `limit` bytes (RLIMIT_FSIZE, as `ulimit -f`): 0 when it wrote, 4 when it threw an
// External error, 1 otherwise.
int write_with_limit(const std::string& path, const std::string& bytes, rlim_t limit) {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);  // as tools/risec/main.cpp: EFBIG instead of a kill
    struct rlimit rl {
      limit, limit
    };
    ::setrlimit(RLIMIT_FSIZE, &rl);
    int code = 1;
    try {
      write_output_file(path, bytes);
      code = 0;
    } catch (const Error& e) {
      code = e.kind() == ErrorKind::External ? 4 : 1;
    } catch (...) {
    }
    ::_exit(code);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Many old files, new contents and limits: the target holds either its old bytes
// (and the write reported an error) or all of the new ones; never a part, and the
// folder holds nothing else.
TEST(OutputFiles, AFailedWriteLeavesTheOldFileIntact) {
  std::mt19937 rng(32);
  for (int i = 0; i < 60; ++i) {
    Folder dir;
    const std::string target = dir / "out.c";
    auto text = [&](size_t n) {
      std::string s(n, ' ');
      for (char& c : s) c = static_cast<char>('a' + rng() % 26);
      return s;
    };
    const std::string old_text = text(rng() % 3000);
    const std::string new_text = text(rng() % 6000);
    const rlim_t limit = 512 + rng() % 4096;
    SCOPED_TRACE("old " + std::to_string(old_text.size()) + " B, new " +
                 std::to_string(new_text.size()) + " B, limit " + std::to_string(limit) + " B");
    write_plain(target, old_text);
    const int code = write_with_limit(target, new_text, limit);
    if (new_text.size() <= limit) {
      EXPECT_EQ(code, 0);
      EXPECT_EQ(read(target), new_text);
    } else {
      EXPECT_EQ(code, 4);
      EXPECT_EQ(read(target), old_text);
    }
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.c"});
  }
}

TEST(OutputFiles, AFailedWriteOfANewFileLeavesNothing) {
  Folder dir;
  EXPECT_EQ(write_with_limit(dir / "new.npy", std::string(10000, 'x'), 1024), 4);
  EXPECT_TRUE(dir.entries().empty());
}

// A set of files (compile's OUT.c, OUT.h, OUT.cl) of which one is a directory: none
// is written.
TEST(OutputFiles, ASetWithADirectoryWritesNone) {
  Folder dir;
  fs::create_directory(dir / "out.h");
  EXPECT_THROW(write_output_files({{dir / "out.c", "int x;\n"}, {dir / "out.h", "int y;\n"}}),
               Error);
  EXPECT_FALSE(fs::exists(dir / "out.c"));
}

TEST(OutputFiles, ErrorsNameTheFileAndTheReason) {
  Folder dir;
  try {
    write_output_file(dir / "missing/x.c", "int x;\n");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::External);
    EXPECT_NE(e.message().find("missing/x.c"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("No such file or directory"), std::string::npos) << e.message();
  }
  try {
    write_output_file(dir.path(), "x");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("is a directory"), std::string::npos) << e.message();
  }
  if (fs::exists("/dev/full")) {
    try {
      write_output_file("/dev/full", "x");
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::External);
      EXPECT_NE(e.message().find("No space left"), std::string::npos) << e.message();
    }
  }
}

TEST(OutputFiles, ReplacingKeepsPermissionsLinksAndDevices) {
  Folder dir;
  const std::string target = dir / "t.h";
  write_plain(target, "old");
  ::chmod(target.c_str(), 0640);
  fs::create_symlink("t.h", dir / "link.h");
  write_output_file(dir / "link.h", "new");
  EXPECT_TRUE(fs::is_symlink(dir / "link.h"));
  EXPECT_EQ(read(target), "new");
  struct stat st;
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  write_output_file("/dev/null", "discarded");  // a device is written, not replaced
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

// Every spelling of an input is refused inside a scope, naming both paths; other
// files are written; after the scope, nothing is refused.
TEST(OutputFiles, OutputsThatAreInputsAreRefusedHoweverSpelled) {
  Folder dir;
  fs::create_directory(dir / "sub");
  const std::string input = dir / "prog.rise";
  write_plain(input, "def f = 1\n");
  fs::create_symlink(input, dir / "sym.rise");
  fs::create_symlink(dir / "sym.rise", dir / "sym2.rise");
  fs::create_hard_link(input, dir / "hard.rise");
  const std::string cwd = fs::current_path();
  fs::current_path(dir.path());
  const std::vector<std::string> spellings = {input,
                                              "prog.rise",
                                              "./prog.rise",
                                              "sub/../prog.rise",
                                              "./sub/.././prog.rise",
                                              dir / "sub/../prog.rise",
                                              "sym.rise",
                                              "sym2.rise",
                                              "hard.rise",
                                              dir / "./hard.rise"};
  {
    InputScope scope;
    note_input("prog.rise", "the program");
    for (const std::string& out : spellings) {
      SCOPED_TRACE(out);
      try {
        write_output_files({{dir / "fine.c", "ok"}, {out, "clobbered"}});
        ADD_FAILURE() << "no error";
      } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_NE(e.message().find("'" + out + "'"), std::string::npos) << e.message();
        EXPECT_NE(e.message().find("'prog.rise' (the program)"), std::string::npos) << e.message();
      }
      EXPECT_FALSE(fs::exists(dir / "fine.c"));  // checked before anything is written
      EXPECT_EQ(read(input), "def f = 1\n");
    }
    write_output_file("other.c", "ok");
    EXPECT_EQ(read(dir / "other.c"), "ok");
  }
  write_output_file("./sym.rise", "def f = 2\n");  // no scope: nothing is compared
  EXPECT_EQ(read(input), "def f = 2\n");
  fs::current_path(cwd);
}

}  // namespace
}  // namespace risec
