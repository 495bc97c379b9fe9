// Strategy files (`.elv`, spec/strategies.md): parsing and evaluation to a
// Strategy. `let` definitions (optionally with parameters) are expanded at each use;
// names are looked up in the file's lets, then in the library (elevate/library.h).
//
// A `let` body extends to the next `;` that is followed by `let` or by the end of
// the file. The file's strategy is the one written after the last `let`; when the
// file ends with a `let` (its `;` being the last token), the file's strategy is that
// last definition.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "elevate/strategy.h"
#include "support/diagnostics.h"

namespace risec::elevate {

// Limits on a strategy file (docs/strategies.md, "Limits"); beyond them the file is
// refused with a located "nesting too deep" error. Sequences and choices of any
// length (`a ; b ; ...`) are not nesting: they are lists.
inline constexpr int kMaxStrategyNesting = 200;     // nested parentheses and arguments
inline constexpr int kMaxLetExpansion = 64;         // lets whose bodies use lets, ...
inline constexpr size_t kMaxPermutationLength = 8;  // `permutations([...])`: 8! orders
inline constexpr size_t kMaxImportDepth = 16;       // files importing files importing ...
inline constexpr size_t kMaxImportBytes = 1 << 20;  // an imported file's size

// A tunable parameter declared by `param NAME in [V1, V2, ...];` before the lets
// (spec/strategies.md, "Tunable parameters"): its name, its candidate values in the
// order written, and where it is declared.
//
// Our extension (docs/strategies.md): `param (N1, ..., Nk) in permutations([V1, ...,
// Vk]);` declares k parameters that together take a permutation of the list, one
// value each, all distinct (a loop order for `reorder`). Each name is a parameter
// here with the whole list as its values; `group` numbers the declaration (the
// names of one share it, -1 for a plain parameter) and `position` is the name's
// place in it, so its default is values[position] (the list as written).
struct StrategyParam {
  std::string name;
  std::vector<int64_t> values;
  Span span;
  int group = -1;
  size_t position = 0;

  int64_t default_value() const { return values[group < 0 ? 0 : position]; }
};
// Values chosen for parameters, by name (`--param ti=32,v=16`). `lanes` may be given
// too: it overrides the detected width of the machine (support/cpu.h).
using ParamValues = std::map<std::string, int64_t>;

// Our extension (docs/strategies.md): `constraint EXPR;` after the parameters it uses
// (and before the lets) restricts the points of the space to those where EXPR, a
// condition over the parameters, `lanes` and integer literals, holds. `text` is EXPR
// as written and `span` where it is.
struct ConstraintExpr;
struct StrategyConstraint {
  std::string text;
  Span span;
  std::shared_ptr<const ConstraintExpr> expr;

  // Whether the constraint holds for these values (every parameter it uses and
  // `lanes` given). A division or modulo by zero, or an overflow, in a part that is
  // evaluated (&& and || stop early) makes it false.
  bool holds(const ParamValues& values) const;
};

// A template's declarations: its parameters and constraints, in order.
struct StrategyDeclarations {
  std::vector<StrategyParam> params;
  std::vector<StrategyConstraint> constraints;
};

// Our extension (docs/strategies.md, "Imports"): `import "PATH";` statements, first in
// a file, make the lets of another strategy file (and of the files it imports) visible
// to the file's lets, before them: a let of the file redefines an imported name. PATH is
// relative to the importing file's directory (to the current directory for a strategy
// given as text). The imported files' parameters, constraints and strategies are not
// imported: an imported let uses the importing file's parameters of the same names.
// The files a strategy file imports, directly or not, each once, in the order their
// lets are seen (Errors: a file that cannot be read, an import cycle, located at the
// import).
std::vector<SourceRef> strategy_imports(const SourceRef& src);

// The file's text with its imports' paths made absolute (unchanged without imports).
std::string with_absolute_imports(const SourceRef& src);

// Imported files read from the given texts rather than from disk while the object
// lives (absolute paths as the import resolves them): a tuning record carries the texts
// its imports had when it was measured (driver/tuned.cpp). One per thread at a time.
class ImportTexts {
 public:
  explicit ImportTexts(std::map<std::string, std::string> texts);
  ~ImportTexts();
  ImportTexts(const ImportTexts&) = delete;
  ImportTexts& operator=(const ImportTexts&) = delete;

 private:
  std::map<std::string, std::string> texts_;
  const std::map<std::string, std::string>* previous_;
};

// The parameters a strategy file declares, in order (syntax errors are located User
// errors: a repeated parameter, an empty or repeated value list, a reserved name).
std::vector<StrategyParam> strategy_params(const SourceRef& src);
// The parameters and the constraints (syntax, unknown names and type errors in a
// constraint are located User errors).
StrategyDeclarations strategy_declarations(const SourceRef& src);

// The first constraint that `values` (complete: every parameter and `lanes`)
// violates, or null.
const StrategyConstraint* violated_constraint(const std::vector<StrategyConstraint>& constraints,
                                              const ParamValues& values);

// "ti=32,v=16" texts (repeatable) as values. Usage errors: a malformed item, a
// parameter given twice.
ParamValues parse_param_values(const std::vector<std::string>& texts);

// Check `values` against the declared parameters and fill in the rest with each
// parameter's default (default_value()). Usage errors name an unknown parameter (with
// the nearest declared name), a value not in the parameter's list (listing it), or
// the names of a permutation whose values (given or defaults) are not a permutation.
ParamValues complete_param_values(const std::vector<StrategyParam>& params,
                                  const ParamValues& values);

// The strategy file's text with the parameters' values substituted: the declarations
// (parameters and constraints) removed and every use replaced by its value (`lanes` stays, unless
// given).
std::string substitute_params(const SourceRef& src, const ParamValues& values);

// Parse and evaluate a strategy file. Errors (syntax, unknown names with a
// suggestion, wrong argument counts or kinds) are risec::Error (User) located in
// the file. A strategy built this way reports failures located at the call in
// the file that failed (Failure::where).
// `values` chooses the parameters' values (complete_param_values checks them; a
// parameter not given takes its default). The point must satisfy the constraints: a
// violation is a Usage error naming the constraint when `values` gives a parameter,
// else (the default point) a User error located at the constraint.
Strategy parse_strategy_file(const SourceRef& src, const ParamValues& values = {});

// Convenience: a strategy from text (the name is used in messages).
Strategy parse_strategy(const std::string& text, const std::string& name = "<strategy>");

}  // namespace risec::elevate
