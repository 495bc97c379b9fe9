// Name resolution and type inference for whole programs: the entry point the
// driver and the tests use. Definitions are inlined at each use (so unannotated
// definitions are polymorphic), the prelude is consulted after the user's file,
// and sizes given with --size specialise the program before anything else.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "rise/expr.h"

namespace risec::rise {

// A side condition the checker needs and cannot decide symbolically, checked again
// once sizes are known: 4 | n for `split(4)` on an n-array (Divides), or n - 4 >= 0
// for `take(4)` on it (NonNegative: a size the checker solved for must not be
// negative).
struct SideCondition {
  enum class Kind { Divides, NonNegative } kind = Kind::Divides;
  arith::Divisibility divides;  // Divides
  arith::Nat value;             // NonNegative: value >= 0
  std::string primitive;        // the primitive that needs it
  Span span;

  // "4 divides n", "n - 4 >= 0"
  std::string describe() const;
  bool same(const SideCondition& o) const {
    return kind == o.kind && (kind == Kind::Divides ? divides == o.divides : value == o.value);
  }
};

using SizeMap = std::map<std::string, int64_t>;

struct Checked {
  Expr expr;  // fully typed; no Annotation nodes; dependent applications explicit
  Type type;
  std::vector<SideCondition> conditions;
  // The sizes substituted by check_program (none: every size symbolic); strategies see
  // them (elevate::Env::sizes, `tunedAt`).
  SizeMap sizes;
};

// Resolve names and infer the type of the definition `entry` (the last definition
// when empty). With `sizes`, the entry's leading dependent size parameters named in
// the map are applied (partial evaluation of the sizes) and side conditions are
// checked; sizes left out stay symbolic. Throws risec::Error (User) with a span.
Checked check_program(const Program& program, const std::string& entry = "",
                      const SizeMap* sizes = nullptr);

// The User error "the program has no definitions" for an empty program (or one of
// comments only), located at the start of its file (FILE:1:1); nothing otherwise.
// Every entry point that needs a definition calls it.
void require_definitions(const Program& program);

// Infer the type of a closed expression (no definitions), e.g. one built by a
// rewrite rule. Throws risec::Error.
Checked infer_expr(const Expr& e);

// The parsed prelude (spec: map2D, zip2D, slide2D, padClamp2D, padCst2D, dot, sum).
const Program& prelude();

}  // namespace risec::rise
