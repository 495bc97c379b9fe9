// Fuzz target: the .rise parser and the type checker on arbitrary text. Invariants:
// only user-facing errors, and every program that parses prints back to text that
// parses to the same program (the printer's promise, rise/printer.h).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "rise/check.h"
#include "rise/parser.h"
#include "rise/printer.h"

using namespace risec;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  rise::Program program;
  try {
    program = rise::parse_program(fuzz::source("fuzz.rise", text));
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Internal) fuzz::bug("internal error: " + format_error(e), text);
    return 0;
  } catch (const std::exception& e) {
    fuzz::bug(std::string("uncaught exception: ") + e.what(), text);
  }

  // The printer round-trips.
  const std::string printed = rise::print_program(program);
  rise::Program again;
  try {
    again = rise::parse_program(fuzz::source("printed.rise", printed));
  } catch (const Error& e) {
    fuzz::bug("the printed program does not parse: " + format_error(e) + "\nprinted:\n" + printed,
              text);
  }
  if (again.defs.size() != program.defs.size())
    fuzz::bug("printing changed the number of definitions:\n" + printed, text);
  for (size_t i = 0; i < program.defs.size(); ++i) {
    const rise::Definition& a = program.defs[i];
    const rise::Definition& b = again.defs[i];
    if (a.name != b.name || (a.body == nullptr) != (b.body == nullptr) ||
        (a.body && !rise::alpha_equal(a.body, b.body)))
      fuzz::bug("printing changed definition '" + a.name + "':\n" + printed, text);
  }

  // Every definition type-checks or is rejected with a user error (a few, to keep
  // each run short).
  for (size_t i = 0; i < program.defs.size() && i < 4; ++i) {
    const rise::Definition& d = program.defs[program.defs.size() - 1 - i];
    if (!d.body) continue;
    fuzz::guarded(text, [&] { rise::check_program(program, d.name); });
  }
  return 0;
}
