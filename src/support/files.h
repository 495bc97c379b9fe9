// The files risec writes (issue 32): every output of every command goes through
// write_output_files, the one place that
//  1. refuses (Usage, exit 2) an output that is the same file as an input of the
//     command: the identity of files (st_dev, st_ino) is compared, so a symbolic
//     link, a hard link, `./x` and `x` are all the same file; and
//  2. writes each output to a temporary file in the target's directory, flushes it to
//     disk (fsync) and renames it over the target, so that a write that fails half-way
//     (a full disk, a file size limit) leaves the old file as it was and no temporary
//     file behind (External, exit 4, naming the file and the system's reason).
// A target that exists and is not a regular file (/dev/null, /dev/stdout, a pipe) is
// written in place; a symbolic link is followed (the link stays, its target is
// replaced).
//
// Inputs are noted by the readers (note_input): the program, the strategy and the
// files it imports, --input and --bind files, the tuning database. They belong to the
// current InputScope: the command line opens one per command (tools/risec/main.cpp);
// outside any scope (the C++ API, the Python package) nothing is noted or compared.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace risec {

class InputScope {
 public:
  InputScope();
  ~InputScope();
  InputScope(const InputScope&) = delete;
  InputScope& operator=(const InputScope&) = delete;
};

// Notes the file at `path` as an input of the current scope; `role` says what it is
// in messages ("the program", "--db"). A path that does not exist is not noted.
void note_input(const std::string& path, const std::string& role);

// Refuses (risec::Error, Usage) a path that names several outputs by adding their
// extensions (`compile -o OUT` writes OUT.c, OUT.h) when it exists and is not a
// regular file (a directory, a device such as /dev/null): not a stem for files beside
// it. `option` is how the user gave it ("-o").
void check_output_stem(const std::string& path, const std::string& option);

// Refuses (risec::Error, Usage) an output file that is a directory, before the work
// that produces it (a device such as /dev/stdout is written in place). `option` is how
// the user gave it ("-o").
void check_output_file(const std::string& path, const std::string& option);

// Refuses (risec::Error, Usage) the first of `paths` that is the same file as a noted
// input, naming both: "the output 'x.elv' is the input 'x.elv' (--strategy) ...".
void check_outputs(const std::vector<std::string>& paths);

struct OutputFile {
  std::string path;
  std::string bytes;
};

// Checks every output (check_outputs) before writing any, then writes each one
// atomically (see above). risec::Error (External) when one cannot be written; the
// files written before it stay written, the failing one and those after it are as
// they were.
void write_output_files(const std::vector<OutputFile>& files);
void write_output_file(const std::string& path, std::string_view bytes);

}  // namespace risec
