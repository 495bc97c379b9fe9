// A with-loop's index names as numbers (docs/language.md, "With-loops"): natAsScalar of
// index arithmetic (`natAsScalar(i / 2)`, which a held-out tester found refused as
// "'i__3' is a run-time value") is the expression's value, and an index used where a
// size is expected is refused naming it as written, never by the desugaring's fresh
// name. Random index expressions over i and j (+ - * / % with positive constants)
// are evaluated by the interpreter and here directly.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rise/check.h"
#include "rise/interp.h"
#include "rise/parser.h"
#include "support/random.h"

namespace risec::rise {
namespace {

struct IndexExpr {
  std::string text;
  std::function<int64_t(int64_t, int64_t)> value;
};

// An expression over i and j whose value is a natural number for i, j >= 0: + and *,
// / and % by positive constants, and the subtraction of a constant just added.
IndexExpr random_index(runtime::Rng& rng, int depth) {
  if (depth == 0 || rng.below(3) == 0) {
    switch (rng.below(3)) {
      case 0:
        return {"i", [](int64_t i, int64_t) { return i; }};
      case 1:
        return {"j", [](int64_t, int64_t j) { return j; }};
      default: {
        int64_t c = rng.below(5);
        return {std::to_string(c), [c](int64_t, int64_t) { return c; }};
      }
    }
  }
  IndexExpr a = random_index(rng, depth - 1);
  const int64_t c = 1 + rng.below(4);
  const std::string cs = std::to_string(c);
  switch (rng.below(5)) {
    case 0: {
      IndexExpr b = random_index(rng, depth - 1);
      return {"(" + a.text + " + " + b.text + ")",
              [a, b](int64_t i, int64_t j) { return a.value(i, j) + b.value(i, j); }};
    }
    case 1: {
      IndexExpr b = random_index(rng, depth - 1);
      return {"(" + a.text + " * " + b.text + ")",
              [a, b](int64_t i, int64_t j) { return a.value(i, j) * b.value(i, j); }};
    }
    case 2:
      return {"(" + a.text + " / " + cs + ")",
              [a, c](int64_t i, int64_t j) { return a.value(i, j) / c; }};
    case 3:
      return {"(" + a.text + " % " + cs + ")",
              [a, c](int64_t i, int64_t j) { return a.value(i, j) % c; }};
    default:
      return {"((" + a.text + " + " + cs + ") - " + cs + ")", a.value};
  }
}

Checked index_check_text(const std::string& name, const std::string& text, const SizeMap& sizes) {
  auto src = std::make_shared<SourceFile>(SourceFile{name, text});
  return check_program(parse_program(src), "", &sizes);
}

TEST(WithLoopIndex, NatAsScalarOfIndexArithmeticIsItsValue) {
  runtime::Rng rng(4242);
  for (int k = 0; k < 60; ++k) {
    IndexExpr e = random_index(rng, 3);
    const int64_t n = 2 + rng.below(5), m = 2 + rng.below(5);
    const bool fold = k % 3 == 0;
    const std::string text =
        "def f = depFun((n: Nat, m: Nat) => fun(a: n.m.f32 =>\n  with {\n"
        "    ([0, 0] <= [i, j] < [n, m]) : natAsScalar(" +
        e.text + ") * 1.0f;\n  } : " + (fold ? "fold(add, 0.0f)" : "genarray([n, m], -1.0f)") +
        "))\n";
    SCOPED_TRACE(text);
    Checked c =
        index_check_text("wl_index_" + std::to_string(k) + ".rise", text, {{"n", n}, {"m", m}});
    EntrySignature sig = entry_signature(c.type);
    Interpreter interp;
    Value v = interp.run(c.expr, {random_input(sig.params.at(0), 1)});
    double sum = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) {
        const double want = static_cast<double>(e.value(i, j));
        sum += want;
        if (!fold) {
          EXPECT_EQ(v.at(i).at(j).to_double(), want) << "at " << i << ", " << j;
        }
      }
    if (fold) {
      EXPECT_EQ(v.to_double(), sum);
    }
  }
}

// The tester's body, and indices where a size is expected: the message names `i`.
TEST(WithLoopIndex, ErrorsNameTheIndexAsWritten) {
  Checked c = index_check_text("wl_idx.rise",
                               "def wli = depFun(n: Nat => fun(a: (3*n).f32 =>\n  with {\n"
                               "    ([0] <= [i] < [n]) : a[3*i] + a[(3*i + 2) % (3*n)] * "
                               "natAsScalar(i / 2);\n  } : genarray([n], 0.0f)))\n",
                               {{"n", 4}});
  EXPECT_TRUE(c.expr);
  for (const std::string body :
       {"a |> take(i) |> reduce(add)(0.0f)", "a |> split(i + 1) |> join |> reduce(add)(0.0f)"}) {
    const std::string text =
        "def f = depFun(n: Nat => fun(a: n.f32 =>\n  with {\n    ([1] <= [i] < [n]) : " + body +
        ";\n  } : genarray([n], 0.0f)))\n";
    SCOPED_TRACE(text);
    try {
      index_check_text("wl_size.rise", text, {{"n", 4}});
      ADD_FAILURE() << "an index accepted as a size";
    } catch (const Error& e) {
      EXPECT_NE(e.message().find("'i'"), std::string::npos) << e.message();
      EXPECT_EQ(e.message().find("__"), std::string::npos) << e.message();
      EXPECT_NE(e.message().find("natAsScalar(i / 2)"), std::string::npos) << e.message();
      EXPECT_TRUE(e.span().known());
    }
  }
}

}  // namespace
}  // namespace risec::rise
