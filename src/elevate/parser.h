// Strategy files (`.elv`, spec/strategies.md): parsing and evaluation to a
// Strategy. `let` definitions (optionally with parameters) are expanded at each use;
// names are looked up in the file's lets, then in the library (elevate/library.h).
//
// A `let` body extends to the next `;` that is followed by `let` or by the end of
// the file. The file's strategy is the one written after the last `let`; when the
// file ends with a `let` (its `;` being the last token), the file's strategy is that
// last definition.
#pragma once

#include "elevate/strategy.h"
#include "support/diagnostics.h"

namespace risec::elevate {

// Limits on a strategy file (docs/strategies.md, "Limits"); beyond them the file is
// refused with a located "nesting too deep" error. Sequences and choices of any
// length (`a ; b ; ...`) are not nesting: they are lists.
inline constexpr int kMaxStrategyNesting = 200;  // nested parentheses and arguments
inline constexpr int kMaxLetExpansion = 64;      // lets whose bodies use lets, ...

// Parse and evaluate a strategy file. Errors (syntax, unknown names with a
// suggestion, wrong argument counts or kinds) are risec::Error (User) located in
// the file. A strategy built this way reports failures located at the call in
// the file that failed (Failure::where).
Strategy parse_strategy_file(const SourceRef& src);

// Convenience: a strategy from text (the name is used in messages).
Strategy parse_strategy(const std::string& text, const std::string& name = "<strategy>");

}  // namespace risec::elevate
