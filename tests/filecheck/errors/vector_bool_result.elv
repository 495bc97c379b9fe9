// vectorizeRemainder over a map returning bool: named as the rule written (not the
// vectorize it is built on), and saying that vectors of bool are not supported (bool
// is a scalar).
// RUN: %exit 1 %risec rewrite %inputs/boolout.rise --size n=33 --strategy %s 2>&1 | FileCheck %s
// CHECK: vector_bool_result.elv:[[@LINE+2]]:13: error: strategy failed: vectorizeRemainder(4): the function's result is bool: vectors of bool are not supported
// CHECK-NOT: not a scalar
let main = (vectorizeRemainder(4) @ outermost(isFullyApplied(isMap))) ; lowerToC;
