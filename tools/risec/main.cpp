// The risec command line (spec/cli.md): the commands of driver/cli.h, which parse
// their own options and call into the driver library. Every error reaches the user
// as `file:line:col: error: ...` with the exit code of its kind; nothing here aborts.
#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "driver/cli.h"
#include "runtime/process.h"
#include "support/diagnostics.h"
#include "support/files.h"
#include "support/stack.h"
#include "support/words.h"

namespace {

// SIGINT, SIGTERM, SIGHUP: the programs risec runs with a time limit (the C compiler
// under RISEC_COMPILE_TIMEOUT) lead process groups of their own, which Ctrl-C does not
// reach; they are killed, then risec dies of the signal as it would have.
extern "C" void on_termination_signal(int sig) {
  risec::runtime::kill_running_process_groups();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

const char* kVersionLine = "risec " RISEC_VERSION;

void print_help() {
  std::printf(
      "%s - a compiler for RISE array programs with ELEVATE rewrite strategies\n\n"
      "usage: risec <command> [options]\n\ncommands:\n",
      kVersionLine);
  for (const risec::driver::Command& c : risec::driver::commands())
    std::printf("  %s\n", c.synopsis.c_str());
  std::printf(
      "\nrisec <command> --help describes a command. Exit codes: 0 success, 1 the program or\n"
      "strategy is wrong, 2 bad usage, 3 --check found a mismatch, 4 an external tool\n"
      "failed or memory ran out, 70 internal error.\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_help();
    return 2;
  }
  std::string first = argv[1];
  if (first == "--help" || first == "-h" || first == "help") {
    print_help();
    return 0;
  }
  if (first == "--version") {
    std::printf("%s\n", kVersionLine);
    return 0;
  }
  try {
    const risec::driver::Command* c = risec::driver::find_command(first);
    if (!c)
      throw risec::Error(risec::ErrorKind::Usage,
                         "unknown command '" + first + "' (see risec --help)");
    const std::vector<std::string> args(argv + 2, argv + argc);
    if (risec::driver::wants_help(args)) {
      std::printf("%s", c->help.c_str());
      return 0;
    }
    // The files the command reads are its inputs, which no output may overwrite; a
    // write beyond the file size limit fails (EFBIG, a located error) rather than
    // killing risec (support/files.h).
    risec::InputScope inputs;
    // Messages name options as the command line spells them (support/words.h).
    risec::InterfaceScope words(risec::Interface::CommandLine);
    std::signal(SIGXFSZ, SIG_IGN);
    for (int sig : {SIGINT, SIGTERM, SIGHUP})
      if (std::signal(sig, on_termination_signal) == SIG_IGN) std::signal(sig, SIG_IGN);
    // The compiler's recursive passes run on a large stack (support/stack.h).
    return risec::run_with_large_stack([&] { return c->run(args); });
  } catch (const risec::Error& e) {
    std::cerr << risec::format_error(e);
    return risec::exit_code(e.kind());
  } catch (const std::bad_alloc&) {
    // risec's own memory (not the generated program's, which reports its allocation
    // failures itself): a resource limit, exit 4 as the program's own (spec/cli.md).
    const char* doing = risec::current_activity();
    std::cerr << "risec: error: risec ran out of memory"
              << (doing ? std::string(" while ") + doing : std::string())
              << " (try smaller sizes, or raise the memory limit)\n";
    return risec::exit_code(risec::ErrorKind::Fault);
  } catch (const std::exception& e) {
    std::cerr << "risec: internal error: " << e.what() << "\n";
    return 70;
  }
}
