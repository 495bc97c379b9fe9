// The autoscheduler's space never holds a candidate that moves a guarded partial
// operation out of its guard (docs/guarantees.md, "Partial operations stay under their
// guards"): for programs whose integer division runs only under `select(d != 0)` (the
// held-out tester's finding 02: `explore` hoisted a dividing reduction before the
// loop), every candidate of the c space runs at d = 0 and computes what the
// interpreter computes.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "candidate_compile.h"
#include "driver/autoschedule.h"
#include "driver/run.h"
#include "rise/parser.h"
#include "support/files.h"

namespace risec::driver {
namespace {

TEST(GuardedSpace, NoCandidateDividesOutsideTheGuard) {
  const std::vector<std::string> programs = {
      // a reduction dividing by d, invariant in the loop, under the guard
      "def hz2 = depFun((n: Nat, m: Nat) => fun(x: n.i32 => fun(ys: m.i32 => fun(d: i32 =>\n"
      "  x |> map(fun(v => select(d != 0)(v + (ys |> map(fun(y => y / d)) |> "
      "reduce(add)(0)))(v)))))))\n",
      // a scalar division, twice (cse and hoist apply)
      "def hz = depFun((n: Nat, m: Nat) => fun(x: n.i32 => fun(ys: m.i32 => fun(d: i32 =>\n"
      "  x |> map(fun(v => select(d != 0)(v + 100 / d + 100 / d)(v - (ys |> "
      "reduce(add)(0)))))))))\n",
  };
  const rise::SizeMap sizes = {{"n", 16}, {"m", 8}};
  for (size_t pi = 0; pi < programs.size(); ++pi) {
    rise::Program p = rise::parse_program(std::make_shared<SourceFile>(
        SourceFile{"guarded" + std::to_string(pi) + ".rise", programs[pi]}));
    rise::Checked high = rise::check_program(p, "", &sizes);
    std::vector<rise::Value> inputs = make_inputs(high, {}, 5);
    ASSERT_EQ(inputs.size(), 3u);
    inputs[2] = rise::Value::integer(rise::ScalarKind::I32, 0);  // d = 0: the guard is false
    rise::Value expected = interpret(high, inputs);
    const rise::Type type = entry_result_type(high);
    SpaceOptions o;
    o.target = "c";
    o.tiles = {4};
    o.explore_variants = 3;
    ScheduleSpace space = build_space(high, o);
    ASSERT_GT(space.candidates.size(), 1u);
    for (const ScheduleCandidate& c : space.candidates) {
      SCOPED_TRACE(programs[pi] + c.label() + "\n" + c.strategy_text());
      // no candidate hoists the division (or a reduction containing it) out of the select
      EXPECT_EQ(c.strategy_text().find("hoist(isApplied(isApplied(isPrimitive(div)))"),
                std::string::npos);
      try {
        Compiled compiled = compile_candidate(p, sizes, "c", c);
        Execution ex = execute(compiled, sizes, inputs);
        Comparison cmp = compare_values(ex.output, expected, type);
        EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
      } catch (const Error& e) {
        ADD_FAILURE() << "stopped: " << e.what();
      }
    }
  }
}

}  // namespace
}  // namespace risec::driver
