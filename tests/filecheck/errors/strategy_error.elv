// A strategy whose rule does not apply: located in the .elv file, with the term it
// was tried on, exit 1.
// RUN: %exit 1 %risec rewrite %inputs/scale.rise --size n=30 --strategy %s 2>&1 | FileCheck %s
// CHECK: strategy_error.elv:[[@LINE+1]]:12: error: strategy failed: vectorize(4): the length 30 is not divisible by 4
let main = vectorize(4) @ outermost(isApplied(isMap)) ; lowerToC;
