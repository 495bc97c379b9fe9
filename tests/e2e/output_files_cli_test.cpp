// Outputs of the command line never overwrite inputs and are never half-written
// (issue 32, item 7; support/files.h): `tune -o` equal to `--db`, `-o`/`--output`
// equal to the program, the strategy, a file the strategy imports, an --input or
// --bind array, or one of compile's derived outputs (-o mv writes mv.c and mv.h) is a
// usage error (exit 2) naming both, and the input is unchanged; a write beyond the
// file size limit (a full disk) is exit 4 with the old output intact.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "build_info.h"
#include "e2e_util.h"
#include "runtime/npy.h"

namespace risec::e2e {
namespace {

namespace fs = std::filesystem;

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string copy_of(const std::string& example, const std::string& name) {
  return write_scratch(name, read(source_path(example)));
}

// Runs risec with `args` and the input refused as output: exit 2, a message naming
// the output and the input, and the input's bytes unchanged.
void expect_refused(const std::vector<std::string>& args, const std::string& output,
                    const std::string& input) {
  SCOPED_TRACE(args[0] + " -o " + output);
  const std::string before = read(input);
  CliResult r = run_risec(args);
  EXPECT_EQ(r.exit_code, 2) << show(r);
  EXPECT_NE(r.err.find("the output '" + output + "' is the same file as the input"),
            std::string::npos)
      << show(r);
  EXPECT_NE(r.err.find("does not overwrite its inputs"), std::string::npos) << show(r);
  EXPECT_EQ(read(input), before);
}

TEST(OutputFilesCli, TuneOutputEqualToTheDatabaseIsRefusedBeforeTheSearch) {
  const std::string db = scratch_path("study.db");
  const std::string tmpl = write_scratch("t.elv", "param t in [1, 2];\nlet main = lowerToC;\n");
  const std::vector<std::string> base = {"tune",       "examples/mv/mv.rise",
                                         "--strategy", tmpl,
                                         "--size",     "n=64,m=32",
                                         "--budget",   "1",
                                         "--db",       db};
  // A first run makes the study; then -o naming it (as written, or spelled otherwise).
  CliResult first = run_risec(base);
  ASSERT_EQ(first.exit_code, 0) << show(first);
  for (const std::string& out : {db, fs::path(db).parent_path().string() + "/./study.db"}) {
    std::vector<std::string> args = base;
    args.insert(args.end(), {"-o", out});
    expect_refused(args, out, db);
  }
}

TEST(OutputFilesCli, OutputsEqualToInputsAreRefused) {
  const std::string prog = copy_of("examples/mv/mv.rise", "prog.c");  // compile -o prog: prog.c
  const std::string strat = write_scratch("lib.elv", "let s = lowerToC;\n");
  const std::string top = write_scratch("top.elv", "import \"lib.elv\";\nlet main = s;\n");
  runtime::write_npy(scratch_path("M.npy"), runtime::make_array(runtime::DType::F32, {4, 3}));
  const std::string m = scratch_path("M.npy");
  const std::string x = scratch_path("x.npy");
  runtime::write_npy(x, runtime::make_array(runtime::DType::F32, {3}));
  const std::string stem = prog.substr(0, prog.size() - 2);
  expect_refused({"compile", prog, "-o", stem}, prog, prog);
  EXPECT_FALSE(fs::exists(stem + ".h"));  // nothing written when one output is an input
  expect_refused({"compile", prog, "--strategy", top, "-o", prog}, prog, prog);
  expect_refused({"graph", prog, "--strategy", top, "-o", strat}, strat, strat);
  for (const char* cmd : {"eval", "run"}) {
    expect_refused({cmd, prog, "--input", "M=" + m, "--size", "n=4,m=3", "--output", m}, m, m);
    expect_refused({cmd, prog, "--bind", "x=" + x, "--size", "n=4,m=3", "--output", x}, x, x);
  }
  // A symbolic link to the program is the program.
  const std::string link = scratch_path("link.c");
  fs::create_symlink(prog, link);
  expect_refused({"compile", prog, "-o", scratch_path("link")}, link, prog);
}

// risec with the file size limit `limit` (RLIMIT_FSIZE, as `ulimit -f`): a full disk.
int run_limited(const std::vector<std::string>& args, rlim_t limit) {
  pid_t pid = ::fork();
  if (pid == 0) {
    struct rlimit rl {
      limit, limit
    };
    ::setrlimit(RLIMIT_FSIZE, &rl);
    std::vector<char*> argv;
    std::string bin = risec::test::risec_binary();
    argv.push_back(bin.data());
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (::chdir(RISEC_SOURCE_DIR) != 0) ::_exit(120);
    ::freopen("/dev/null", "w", stderr);
    ::execv(bin.c_str(), argv.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(OutputFilesCli, AWriteThatFailsHalfWayKeepsTheOldOutput) {
  const std::string c = write_scratch("big.c", "/* the old code */\n");
  const std::string h = write_scratch("big.h", "/* the old header */\n");
  const std::string npy = write_scratch("big.npy", "old array\n");
  const std::string stem = c.substr(0, c.size() - 2);
  EXPECT_EQ(run_limited({"compile", "examples/mv/mv.rise", "--size", "n=64,m=32", "-o", stem}, 512),
            4);
  EXPECT_EQ(read(c), "/* the old code */\n");
  EXPECT_EQ(read(h), "/* the old header */\n");
  EXPECT_EQ(run_limited({"eval", "examples/mv/mv.rise", "--size", "n=4096,m=2", "-o", npy}, 4096),
            4);
  EXPECT_EQ(read(npy), "old array\n");
  for (const auto& e : fs::directory_iterator(fs::path(c).parent_path()))
    EXPECT_EQ(e.path().filename().string().find(".risec-"), std::string::npos) << e.path();
  // Without the limit the same commands replace them.
  CliResult r = run_risec({"compile", "examples/mv/mv.rise", "--size", "n=64,m=32", "-o", stem});
  EXPECT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(read(c).find("void mv("), std::string::npos);
}

}  // namespace
}  // namespace risec::e2e
