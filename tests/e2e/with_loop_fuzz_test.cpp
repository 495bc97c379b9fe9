// Random with-loops (docs/language.md, "With-loops"): bounds that may be negative, beyond
// the shape, inverted or symbolic (n - 2), steps that need not divide the range, widths,
// and several parts that may overlap. Each is compiled to C and run at random sizes,
// specialised (--size) and generic (sizes checked on entry), and must either
//   - agree with the interpreter, and with the with-loop's meaning computed here
//     directly from the bounds (SaC: the indices lb + k*step + w < ub, w < width), or
//   - be refused with a located error (exit 1): specialised at check time, generic at
//     check time or by its precondition on entry.
// A with-loop whose parts leave the shape (or, for a fold, start below 0), have lb > ub,
// or overlap must be refused; a valid one may be refused only for a documented
// limitation (bounds that cannot be ordered, a stepped part sharing a slab).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "e2e_util.h"
#include "support/random.h"
#include "with_loop_gen.h"

namespace risec::e2e {
namespace {

bool located(const Error& e, const std::string& file) {
  return e.kind() == ErrorKind::User && e.span().known() && e.span().start().line > 0 &&
         e.span().file && e.span().file->name.find(file) != std::string::npos;
}

TEST(WithLoopFuzz, CompiledCodeAgreesWithTheMeaningOrIsRefusedLocated) {
  runtime::Rng rng(20261128);
  int accepted = 0, refused_valid = 0, refused_invalid = 0;
  const int kCases = 80;
  for (int k = 0; k < kCases; ++k) {
    fuzz::WithLoopCase c = fuzz::random_with_loop([&](int64_t bound) { return rng.below(bound); });
    std::string name = "wl_fuzz_" + std::to_string(k) + ".rise";
    std::string text = c.program();
    std::string file = write_scratch(name, text);
    std::vector<std::vector<std::vector<int64_t>>> sets;
    bool valid = c.index_sets(sets);
    SCOPED_TRACE(text + "\nsizes " + c.sizes() + (valid ? " (valid)" : " (invalid)"));
    bool ok = false;
    try {
      CheckReport r = run_and_compare(file, "", c.sizes());
      ok = true;
      EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch;
      EXPECT_TRUE(valid) << "accepted a with-loop that leaves its shape or overlaps";
      if (valid) {
        std::vector<double> want = c.reference(sets, flat_values(r.inputs.at(0)));
        std::vector<double> got = flat_values(r.expected);
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-3) << i;
      }
      ++accepted;
    } catch (const Error& e) {
      EXPECT_TRUE(located(e, name)) << "not a located error: " << e.message();
      ++(valid ? refused_valid : refused_invalid);
    }
    if (k % 2) continue;
    // Generic code: the same verdict, the sizes' conditions checked on entry.
    CheckOptions generic;
    generic.generic = true;
    try {
      CheckReport r = run_and_compare(file, "", c.sizes(), generic);
      EXPECT_TRUE(ok) << "generic code ran where the specialised program was refused";
      EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch;
    } catch (const Error& e) {
      EXPECT_FALSE(ok) << "generic code failed where the specialised program ran: " << e.message();
      bool precondition =
          e.kind() == ErrorKind::Internal && e.message().find("precondition") != std::string::npos;
      EXPECT_TRUE(precondition || located(e, name)) << e.message();
    }
  }
  // Both outcomes are exercised.
  EXPECT_GE(accepted, kCases / 5);
  EXPECT_GE(refused_invalid, kCases / 10);
  std::printf("with-loop fuzz: %d accepted, %d refused (invalid), %d refused (valid)\n", accepted,
              refused_invalid, refused_valid);
}

}  // namespace
}  // namespace risec::e2e
