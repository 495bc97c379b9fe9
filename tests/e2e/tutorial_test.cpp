// Every lesson of docs/tutorial/ runs as it is written. A lesson is NN-name.md with its
// files in NN-name/; the commands are taken from the Markdown itself, so the text and
// the test cannot drift apart:
//
// - each line of a ```sh block that starts with `risec ` is a command (a line ending in
//   `\` continues on the next); it runs with build/risec, in a scratch copy of the
//   lesson's folder (what a reader gets after `cd docs/tutorial/NN-name`), and must
//   exit 0, or N when its comment says `# exit N`;
// - a ```text block right after a ```sh block of one command is what that command
//   prints: each of its lines must appear in the output (stdout, then stderr), in
//   order; a line holding `...` only needs to start an output line with the text
//   before the `...` (times, what depends on the machine and long results are
//   abbreviated so);
// - `risec run --target cuda` needs an NVIDIA GPU: those commands are a test of their
//   own (TutorialCuda), skipped, saying why, without a GPU or nvcc (exit 4);
// - every .rise and .elv file of the lesson's folder is used by a command, and every
//   strategy is run with --check or tuned.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "build_info.h"
#include "e2e_util.h"
#include "runtime/process.h"

namespace risec::e2e {
namespace {

namespace fs = std::filesystem;

fs::path tutorial_dir() {
  return fs::path(RISEC_SOURCE_DIR) / "docs" / "tutorial";
}

// The lessons: NN-name for every NN-name.md of docs/tutorial/, in order.
std::vector<std::string> lessons() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(tutorial_dir(), ec)) {
    const std::string f = e.path().filename().string();
    if (std::regex_match(f, std::regex("[0-9][0-9]-[a-z0-9-]+\\.md")))
      out.push_back(f.substr(0, f.size() - 3));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string tutorial_read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Command {
  int line = 0;                   // in the Markdown file
  std::string text;               // as written, continuation lines joined
  std::vector<std::string> args;  // after `risec`
  int expected_exit = 0;
  std::vector<std::string> expected_output;  // the ```text block after it
};

// Words of a command line: blanks separate them, '...' and "..." quote.
std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> words;
  std::string cur;
  bool have = false;
  char quote = 0;
  for (char c : s) {
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      have = true;
    } else if (c == ' ' || c == '\t') {
      if (have) words.push_back(cur);
      cur.clear();
      have = false;
    } else {
      cur += c;
      have = true;
    }
  }
  if (have) words.push_back(cur);
  return words;
}

// The commands of a lesson's Markdown text.
std::vector<Command> parse_commands(const std::string& md) {
  std::vector<std::string> lines;
  std::istringstream in(md);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::vector<Command> cmds;
  int sh_block_commands = 0;  // commands of the last ```sh block, -1 after other text
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l == "```sh") {
      sh_block_commands = 0;
      for (++i; i < lines.size() && lines[i] != "```"; ++i) {
        if (lines[i].rfind("risec ", 0) != 0) continue;
        Command c;
        c.line = static_cast<int>(i) + 1;
        std::string text = lines[i];
        while (!text.empty() && text.back() == '\\' && i + 1 < lines.size()) {
          text.pop_back();
          text += " " + lines[++i];
        }
        std::string comment;
        const size_t hash = text.find(" #");
        if (hash != std::string::npos) {
          comment = text.substr(hash + 2);
          text = text.substr(0, hash);
        }
        std::smatch m;
        if (std::regex_search(comment, m, std::regex("exit ([0-9]+)")))
          c.expected_exit = std::stoi(m[1]);
        c.text = text;
        c.args = split_words(text.substr(6));
        cmds.push_back(c);
        ++sh_block_commands;
      }
      continue;
    }
    if (l == "```text" && sh_block_commands == 1) {
      for (++i; i < lines.size() && lines[i] != "```"; ++i)
        if (!lines[i].empty()) cmds.back().expected_output.push_back(lines[i]);
      sh_block_commands = -1;
      continue;
    }
    if (!l.empty()) sh_block_commands = -1;
  }
  return cmds;
}

std::string rtrim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

// Whether every expected line appears in `output`, in order; else the first missing.
std::string missing_line(const std::vector<std::string>& expected, const std::string& output) {
  std::vector<std::string> got;
  std::istringstream in(output);
  for (std::string l; std::getline(in, l);) got.push_back(rtrim(l));
  size_t at = 0;
  for (const std::string& raw : expected) {
    const std::string want = rtrim(raw);
    const size_t dots = want.find("...");
    const std::string prefix = dots == std::string::npos ? want : want.substr(0, dots);
    bool found = false;
    for (; at < got.size() && !found; ++at)
      found = dots == std::string::npos ? got[at] == want : got[at].rfind(prefix, 0) == 0;
    if (!found) return want;
  }
  return "";
}

bool has_word(const std::vector<std::string>& args, const std::string& w) {
  return std::find(args.begin(), args.end(), w) != args.end();
}

class Tutorial : public ::testing::TestWithParam<std::string> {};

TEST(TutorialIndex, HasLessonsAndListsThem) {
  const std::vector<std::string> all = lessons();
  EXPECT_GE(all.size(), 5u);
  const std::string index = tutorial_read_text(tutorial_dir() / "README.md");
  for (const std::string& l : all)
    EXPECT_NE(index.find("(" + l + ".md)"), std::string::npos)
        << "docs/tutorial/README.md does not link " << l << ".md";
}

bool is_cuda_run(const Command& c) {
  return has_word(c.args, "run") && has_word(c.args, "cuda");
}

// Runs the lesson's commands that `select` accepts, each checked as the header says.
// Returns the CUDA runs skipped for want of a GPU or nvcc, with the reason.
std::vector<std::string> run_lesson(const std::string& lesson,
                                    const std::function<bool(const Command&)>& select) {
  const fs::path folder = tutorial_dir() / lesson;
  const std::vector<Command> cmds =
      parse_commands(tutorial_read_text(tutorial_dir() / (lesson + ".md")));
  // A fresh copy per run: outputs (-o, --db) land there, never in the source tree.
  const fs::path work = fs::path(scratch_path("tutorial-" + lesson));
  fs::remove_all(work);
  fs::copy(folder, work, fs::copy_options::recursive);
  std::vector<std::string> skipped;
  for (const Command& c : cmds) {
    if (!select(c)) continue;
    SCOPED_TRACE(lesson + ".md:" + std::to_string(c.line) + ": " + c.text);
    std::vector<std::string> argv = {risec::test::risec_binary()};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    runtime::ProcessOptions po;
    po.cwd = work.string();
    po.timeout_s = 300;
    const runtime::ProcessResult p = runtime::run_process(argv, po);
    const int code = p.signal == 0 && !p.timed_out ? p.exit_code : -1;
    const std::string output = p.out + p.err;
    if (is_cuda_run(c) && code == 4 &&
        (output.find("no CUDA GPU") != std::string::npos ||
         output.find("nvcc") != std::string::npos)) {
      skipped.push_back(c.text + "\n    (" + output.substr(0, output.find('\n')) + ")");
      continue;
    }
    EXPECT_EQ(code, c.expected_exit) << "stdout:\n" << p.out << "\nstderr:\n" << p.err;
    if (code != c.expected_exit) break;  // later commands may need this one's files
    const std::string missing = missing_line(c.expected_output, output);
    EXPECT_EQ(missing, "") << "the lesson shows this line, which the command did not print "
                              "(in this order):\n"
                           << missing << "\noutput:\n"
                           << output;
  }
  return skipped;
}

// Every command but the CUDA runs (TutorialCuda below), and the lesson's files.
TEST_P(Tutorial, EveryCommandRunsAsShown) {
  const std::string lesson = GetParam();
  const fs::path folder = tutorial_dir() / lesson;
  ASSERT_TRUE(fs::is_directory(folder)) << "the lesson's folder " << folder << " is missing";
  const std::vector<Command> cmds =
      parse_commands(tutorial_read_text(tutorial_dir() / (lesson + ".md")));
  ASSERT_FALSE(cmds.empty()) << lesson << ".md shows no ```sh block with a risec command";

  std::set<std::string> used, checked;
  for (const Command& c : cmds) {
    for (const std::string& a : c.args) {
      const std::string name = fs::path(a).filename().string();
      if (fs::exists(folder / a)) used.insert(name);
      if (fs::path(a).extension() == ".elv" &&
          ((has_word(c.args, "run") && has_word(c.args, "--check")) || has_word(c.args, "tune")))
        checked.insert(name);
    }
  }
  for (const auto& e : fs::directory_iterator(folder)) {
    const std::string name = e.path().filename().string();
    const std::string ext = e.path().extension().string();
    if (ext != ".rise" && ext != ".elv") continue;
    EXPECT_TRUE(used.count(name)) << lesson << "/" << name << " is used by no command";
    if (ext == ".elv") {
      EXPECT_TRUE(checked.count(name))
          << lesson << "/" << name << " is neither run with --check nor tuned";
    }
  }

  run_lesson(lesson, [](const Command& c) { return !is_cuda_run(c); });
}

// The lessons' `risec run --target cuda` commands: they need an NVIDIA GPU and nvcc,
// and are skipped, saying so, without them.
TEST(TutorialCuda, RunsAsShownWhereThereIsAGpu) {
  std::vector<std::string> skipped;
  int runs = 0;
  for (const std::string& lesson : lessons()) {
    for (const Command& c : parse_commands(tutorial_read_text(tutorial_dir() / (lesson + ".md"))))
      runs += is_cuda_run(c);
    for (const std::string& s : run_lesson(lesson, is_cuda_run))
      skipped.push_back(lesson + ": " + s);
  }
  EXPECT_GT(runs, 0) << "no lesson runs a CUDA kernel";
  if (!skipped.empty()) {
    std::string why;
    for (const std::string& s : skipped) why += "\n  " + s;
    GTEST_SKIP() << "no NVIDIA GPU or no nvcc on this machine; skipped:" << why;
  }
}

INSTANTIATE_TEST_SUITE_P(Lessons, Tutorial, ::testing::ValuesIn(lessons()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// The extraction itself, on a made-up lesson.
TEST(TutorialParse, CommandsOutputsAndExitCodes) {
  const std::string md =
      "text\n```sh\ncd somewhere\nrisec check a.rise\n```\n```text\n(n: Nat) -> f32\n```\n"
      "```sh\nrisec run a.rise --strategy s.elv \\\n  --size n=4 --check   # exit 3\n"
      "risec eval \"b c.rise\"\n```\n```text\nnot an output: two commands above\n```\n";
  const std::vector<Command> cmds = parse_commands(md);
  ASSERT_EQ(cmds.size(), 3u);
  EXPECT_EQ(cmds[0].args, (std::vector<std::string>{"check", "a.rise"}));
  EXPECT_EQ(cmds[0].expected_output, (std::vector<std::string>{"(n: Nat) -> f32"}));
  EXPECT_EQ(cmds[1].args, (std::vector<std::string>{"run", "a.rise", "--strategy", "s.elv",
                                                    "--size", "n=4", "--check"}));
  EXPECT_EQ(cmds[1].expected_exit, 3);
  EXPECT_TRUE(cmds[1].expected_output.empty());
  EXPECT_EQ(cmds[2].args, (std::vector<std::string>{"eval", "b c.rise"}));
  EXPECT_TRUE(cmds[2].expected_output.empty());
  EXPECT_EQ(missing_line({"a", "time: ... ms", "c"}, "a\nb\ntime: 0.1 ms\nc\n"), "");
  EXPECT_EQ(missing_line({"c", "a"}, "a\nc\n"), "a");  // order matters
  EXPECT_EQ(missing_line({"check: passed"}, "check: passed (4 elements)\n"), "check: passed");
}

}  // namespace
}  // namespace risec::e2e
