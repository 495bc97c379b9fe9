// The risec command line: argument parsing, then calls into the driver library.
#include <cstdio>
#include <cstring>
#include <string>

namespace {

const char* kHelp =
    "risec " RISEC_VERSION
    " - a compiler for RISE array programs with ELEVATE rewrite strategies\n"
    "\n"
    "usage: risec <command> [options]\n"
    "\n"
    "commands:\n"
    "  --help       show this help\n"
    "  --version    print the version\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::fputs(kHelp, stdout);
    return argc < 2 ? 2 : 0;
  }
  if (std::strcmp(argv[1], "--version") == 0) {
    std::printf("risec %s\n", RISEC_VERSION);
    return 0;
  }
  std::fprintf(stderr, "risec: error: unknown command '%s' (see risec --help)\n", argv[1]);
  return 2;
}
