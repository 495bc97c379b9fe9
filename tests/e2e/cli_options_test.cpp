// Each command's options come from one declaration (driver/cli.h): `risec CMD --help`
// lists exactly the options CMD accepts, every option of another command is refused
// with a usage error naming it (exit 2), and docs/cli.md shows each command's help as
// the binary prints it.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "driver/cli.h"
#include "e2e_util.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

struct Listed {
  std::string flag;
  bool takes_value = false;
};

// The options a help text lists: the lines of its "options:" part that start with a
// flag. Their left column is 28 wide ("  -o, --output FILE" then the text); a longer
// one has the line to itself.
std::vector<Listed> listed_options(const std::string& help) {
  std::vector<Listed> out;
  std::istringstream in(help.substr(help.find("\noptions:\n") + 10));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("  -", 0) != 0) continue;
    const bool text_beside = line.size() > 28 && line.substr(26, 2) == "  ";
    std::istringstream left(text_beside ? line.substr(0, 28) : line);
    std::vector<std::string> w;
    for (std::string x; left >> x;) w.push_back(x);
    const bool alias = w[0].back() == ',';
    if (alias) w[0].pop_back();
    const bool value = w.size() > (alias ? 2u : 1u);
    out.push_back({w[0], value});
    if (alias) out.push_back({w[1], value});
  }
  return out;
}

std::vector<std::string> args_for(const driver::Command& c, const Listed& o) {
  std::vector<std::string> args;
  if (c.name != "rules") args.push_back("examples/mv/mv.rise");
  args.push_back(o.flag);
  if (o.takes_value) args.push_back("x");
  return args;
}

TEST(CliOptions, HelpListsExactlyTheOptionsAccepted) {
  std::set<std::string> every_flag;
  for (const driver::Command& c : driver::commands())
    every_flag.insert(c.flags.begin(), c.flags.end());
  for (const driver::Command& c : driver::commands()) {
    SCOPED_TRACE(c.name);
    CliResult h = run_risec({c.name, "--help"});
    ASSERT_EQ(h.exit_code, 0) << show(h);
    EXPECT_EQ(h.out, c.help);
    const std::vector<Listed> listed = listed_options(h.out);
    std::set<std::string> flags;
    for (const Listed& o : listed) flags.insert(o.flag);
    EXPECT_EQ(flags, std::set<std::string>(c.flags.begin(), c.flags.end()));
    // Each one listed is accepted (its value, where it takes one, is not checked here).
    for (const Listed& o : listed) {
      if (o.flag == "--help" || o.flag == "-h") continue;
      try {
        c.parse(args_for(c, o));
      } catch (const Error& e) {
        ADD_FAILURE() << o.flag << ": " << e.what();
      }
    }
    // Each option of another command is refused, naming the option and the command.
    for (const std::string& f : every_flag) {
      if (flags.count(f)) continue;
      try {
        c.parse(args_for(c, {f, false}));
        ADD_FAILURE() << f << " accepted";
      } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Usage);
        EXPECT_EQ(std::string(e.what()),
                  "risec " + c.name + " does not take " + f + " (see risec " + c.name + " --help)");
      }
    }
  }
}

// Through the binary: the exit code and the message of an option of another command,
// an unknown one, a switch given a value and a value missing.
TEST(CliOptions, UsageErrorsThroughTheBinary) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"tune", "examples/mv/mv.rise", "--param", "v=8"},
       "risec tune does not take --param (see risec tune --help)"},
      {{"check", "examples/mv/mv.rise", "--tuned"}, "risec check does not take --tuned"},
      {{"rules", "--size", "n=4"}, "risec rules does not take --size"},
      {{"print", "examples/mv/mv.rise", "--frobnicate"},
       "unknown option '--frobnicate' for risec print"},
      {{"run", "examples/mv/mv.rise", "--check=yes"}, "--check takes no value"},
      {{"compile", "examples/mv/mv.rise", "--size"}, "--size needs a value"},
      {{"rules", "extra"}, "unexpected argument 'extra'"},
      {{"eval"}, "risec eval needs a FILE.rise argument"},
  };
  for (const Case& c : cases) {
    CliResult r = run_risec(c.args);
    EXPECT_EQ(r.exit_code, 2) << show(r);
    EXPECT_NE(r.err.find(c.message), std::string::npos) << show(r);
  }
}

// The top-level help's synopsis of each command names every option the command takes.
TEST(CliOptions, SynopsisNamesEveryOption) {
  CliResult h = run_risec({"--help"});
  ASSERT_EQ(h.exit_code, 0) << show(h);
  for (const driver::Command& c : driver::commands()) {
    EXPECT_NE(h.out.find("  " + c.synopsis + "\n"), std::string::npos) << c.name;
    for (const std::string& f : c.flags) {
      if (f == "--help" || f == "-h" || f == "--output") continue;  // -o stands for --output
      const bool named = c.synopsis.find("[" + f + " ") != std::string::npos ||
                         c.synopsis.find("[" + f + "]") != std::string::npos ||
                         c.synopsis.find(" " + f + " ") != std::string::npos;
      EXPECT_TRUE(named) << c.name << " " << f << ": " << c.synopsis;
    }
  }
}

// docs/cli.md shows each command's --help as the binary prints it.
TEST(CliOptions, DocsShowTheHelp) {
  std::ifstream in(source_path("docs/cli.md"));
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const driver::Command& c : driver::commands())
    EXPECT_NE(doc.find("$ risec " + c.name + " --help\n" + c.help + "```"), std::string::npos)
        << "docs/cli.md lacks the current `risec " << c.name
        << " --help` (scripts/cli_help.sh prints the section)";
}

}  // namespace
}  // namespace risec::e2e
