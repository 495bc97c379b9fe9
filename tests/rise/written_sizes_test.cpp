// Sizes are checked where they are written (docs/language.md, "Types and sizes"):
// every size name written in a program is bound by a depFun around it (or by a binder
// of the type itself), every array length, index range and size argument is >= 0 and
// every vector has at least one lane. Constants are decided at check time (located
// errors); symbolic sizes become side conditions. Generated over many types, sizes and
// positions, with the expectation computed here.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "rise/check.h"
#include "rise/parser.h"
#include "support/random.h"

using namespace risec;
using namespace risec::rise;

namespace {

Checked sizes_check_text(const std::string& text, const SizeMap* sizes = nullptr) {
  auto src = std::make_shared<SourceFile>(SourceFile{"t.rise", text});
  return check_program(parse_program(src), "", sizes);
}

// "" when the program checks, else the message; every error is a located user error.
std::string sizes_error_of(const std::string& text, const SizeMap* sizes = nullptr) {
  try {
    sizes_check_text(text, sizes);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User) << text;
    EXPECT_GT(e.span().start().line, 0) << text << ": " << e.message();
    return e.message();
  }
  return "";
}

TEST(WrittenSizes, IssueCases) {
  // A size bound nowhere.
  EXPECT_NE(sizes_error_of("def f = depFun(n: Nat => fun(y: n.f32 => fun(x: k.f32 => x)))")
                .find("the size 'k' is bound nowhere"),
            std::string::npos);
  EXPECT_NE(sizes_error_of("def f = depFun(n: Nat => fun(x: n.f32 => indexAsNat(lidx(2, k))))")
                .find("the size 'k' is bound nowhere"),
            std::string::npos);
  // ... but a binder of the type itself binds it.
  EXPECT_EQ(sizes_error_of("def f = depFun(n: Nat => fun(h: (k: Nat) -> k.f32 => h(n)))"), "");
  // A vector of 0 lanes.
  EXPECT_NE(sizes_error_of("def f = fun(x: vec[f32, 0] => x)").find("at least 1 lane"),
            std::string::npos);
  // Empty arrays and index types are types (a program may build them).
  EXPECT_EQ(sizes_error_of("def f = fun(x: 4.f32 => x |> take(0))"), "");
}

// x: T over one size n, T one of the written forms, with n - c for a random c; and a
// size argument take(n - c). Expected verdict from the value of n - c.
TEST(WrittenSizes, NegativeSizesAreRefusedOrConditions) {
  runtime::Rng rng(32);
  const std::vector<std::string> forms = {"(S).f32", "idx[S]", "vec[f32, S]", "4.(S).f32",
                                          "((S).f32, f32)"};
  for (int k = 0; k < 200; ++k) {
    const std::string& form = forms[rng.below(forms.size())];
    int c = static_cast<int>(rng.below(5));
    int64_t n = 1 + rng.below(5);
    std::string size = "n - " + std::to_string(c);
    std::string type = form;
    type.replace(type.find('S'), 1, size);
    bool vec = form.find("vec") != std::string::npos;
    std::string text = "def f = depFun(n: Nat => fun(x: " + type + " => x))";
    if (rng.below(4) == 0) {
      vec = false;
      text = "def f = depFun(n: Nat => fun(x: (n + 4).f32 => x |> take(" + size + ")))";
    }
    SCOPED_TRACE(text + " n=" + std::to_string(n));
    int64_t least = vec ? 1 : 0;
    SizeMap sizes{{"n", n}};
    std::string err = sizes_error_of(text, &sizes);
    if (n - c >= least)
      EXPECT_EQ(err, "");
    else
      EXPECT_NE(err, "");
    // Generic: a side condition n - c - least >= 0 unless it always holds (n >= 1).
    Checked g = sizes_check_text(text);
    bool has = false;
    for (const SideCondition& sc : g.conditions)
      has = has || sc.describe().find(">= 0") != std::string::npos;
    EXPECT_EQ(has, c + least > 1) << (g.conditions.empty() ? "" : g.conditions[0].describe());
  }
}

// Random types over sizes n (bound) and k (bound or not): refused exactly when k is
// used and not bound.
TEST(WrittenSizes, UnboundNamesAreRefused) {
  runtime::Rng rng(6);
  for (int t = 0; t < 200; ++t) {
    bool bind_k = rng.below(2) == 0;
    bool use_k = false;
    std::function<std::string(int)> type = [&](int depth) -> std::string {
      std::string s = rng.below(3) == 0 ? "k" : "n";
      int64_t form = depth > 2 ? 0 : rng.below(4);
      use_k = use_k || (s == "k" && form != 2);
      switch (form) {
        case 0:
          return "(" + s + " + 1).f32";
        case 1:
          return "idx[" + s + "]";
        case 2:
          return "(" + type(depth + 1) + ", " + type(depth + 1) + ")";
        default:
          return s + "." + type(depth + 1);
      }
    };
    std::string ty = type(0);
    std::string binders = bind_k ? "(n: Nat, k: Nat)" : "n: Nat";
    std::string text = "def f = depFun(" + binders + " => fun(x: " + ty + " => x))";
    SCOPED_TRACE(text);
    std::string err = sizes_error_of(text);
    if (use_k && !bind_k)
      EXPECT_NE(err.find("the size 'k' is bound nowhere"), std::string::npos) << err;
    else
      EXPECT_EQ(err, "");
  }
}

// lidx(k, n): the value is a size in scope, specialised with the others.
TEST(WrittenSizes, IndexLiteralValuesAreSizesInScope) {
  const std::string text = "def f = depFun((n: Nat, k: Nat) => fun(x: n.f32 => x[lidx(k, n)]))";
  for (int64_t n = 1; n <= 6; ++n)
    for (int64_t k = 1; k <= 6; ++k) {
      SizeMap sizes{{"n", n}, {"k", k}};
      std::string err = sizes_error_of(text, &sizes);
      EXPECT_EQ(err.empty(), k < n) << "n=" << n << " k=" << k << ": " << err;
    }
  Checked g = sizes_check_text(text);
  ASSERT_EQ(g.conditions.size(), 1u);
  EXPECT_EQ(g.conditions[0].describe(), "n - k - 1 >= 0");
}

}  // namespace
