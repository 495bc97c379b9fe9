// The subcommands of the risec command line (docs/cli.md), each with its options
// declared once in cli.cpp: a flag, the name of its value, its help text and the field
// of the command's struct (options.h) it sets. The parser, `risec CMD --help`, the
// synopsis of `risec --help` and the list of options a command accepts are made from
// those declarations, so they cannot disagree; an option the command does not declare
// is a usage error (exit 2) naming it.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace risec::driver {

struct Command {
  std::string name;                // "tune"
  std::string synopsis;            // "risec tune FILE.rise [--strategy TEMPLATE.elv] ..."
  std::string help;                // the text of `risec NAME --help`
  std::vector<std::string> flags;  // every option it accepts, "-o" and "--help" included
  // Parses the arguments after the command's name (throws risec::Error Usage), then
  // runs the command and returns its exit code; `parse` only parses.
  std::function<int(const std::vector<std::string>&)> run;
  std::function<void(const std::vector<std::string>&)> parse;
};

// Every command, in the order `risec --help` lists them.
const std::vector<Command>& commands();
// The command named `name`, or null.
const Command* find_command(const std::string& name);
// Whether the arguments ask for help (`--help` or `-h` anywhere).
bool wants_help(const std::vector<std::string>& args);

}  // namespace risec::driver
