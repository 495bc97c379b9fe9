// The errors risec reports, public because the C++ API throws them: one hierarchy
// for the whole compiler (the command line prints the same objects). An Error has a
// kind, which decides the command line's exit code (exit_code), a message, an
// optional source location (Span) and an optional note; format_error renders it as
// `file:line:col: error: message`, the source line and a caret, as clang does.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

namespace risec {

// A source text with its name, shared by every span that points into it.
struct SourceFile {
  std::string name;
  std::string text;
};
using SourceRef = std::shared_ptr<const SourceFile>;

struct LineCol {
  int line = 0;  // 1-based; 0 means unknown
  int col = 0;   // 1-based, in bytes
};

// A half-open byte range [begin, end) in a source file; file == nullptr means
// "no location" (for example a term built through the C++ API).
struct Span {
  SourceRef file;
  unsigned begin = 0;
  unsigned end = 0;

  bool known() const { return file != nullptr; }
  LineCol start() const;
  // The span covering both (same file assumed; an unknown side is ignored).
  static Span merge(const Span& a, const Span& b);
};

// What went wrong decides the exit code (spec/cli.md).
enum class ErrorKind {
  User,      // 1: the program or strategy is wrong (parse, type, rewrite, memory)
  Usage,     // 2: bad command-line usage (API: a bad argument, e.g. an unknown target)
  Mismatch,  // 3: --check found a mismatch
  External,  // 4: an external tool failed (C compiler, OpenCL driver)
  Fault,     // 4: generated code called in this process faulted on its data (an index
             //    out of range, an integer division by zero): risec run's "the program
             //    stopped"
  Internal,  // 70: a bug in risec
};

int exit_code(ErrorKind kind);

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string message, Span span = {}, std::string note = {})
      : std::runtime_error(message),
        kind_(kind),
        message_(std::move(message)),
        span_(std::move(span)),
        note_(std::move(note)) {}

  ErrorKind kind() const { return kind_; }
  const std::string& message() const { return message_; }
  const Span& span() const { return span_; }
  // Extra text printed after the caret line (a subterm, a suggestion).
  const std::string& note() const { return note_; }
  // A copy with a location, for errors raised deep down without one.
  Error at(const Span& s) const { return Error(kind_, message_, s, note_); }
  Error with_note(std::string n) const { return Error(kind_, message_, span_, std::move(n)); }

 private:
  ErrorKind kind_;
  std::string message_;
  Span span_;
  std::string note_;
};

// `file:line:col` of the span's start; "" for an unknown span.
std::string location(const Span& span);

// `file:line:col: error: message`, the source line and a caret under the span, then
// the note. Without a location: `risec: error: message`.
std::string format_error(const Error& e);

}  // namespace risec
