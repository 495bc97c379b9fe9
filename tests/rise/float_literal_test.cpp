// A floating-point literal is rounded to the nearest value of its type, as strtof and
// strtod round (docs/language.md): one too small for the type becomes a subnormal or
// ±0; only one too large (it would round to infinity) is a located error (issue 32:
// `1e-50f` was refused as out of range). A sweep of generated literal texts, each
// parsed and compared with the C library's own reading of the same digits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "rise/parser.h"

using namespace risec;
using namespace risec::rise;

namespace {

// The parsed literal's value, or nullopt (with the error message) when refused.
std::optional<double> parse_literal(const std::string& text, std::string& error) {
  try {
    Expr e = parse_expr(std::make_shared<SourceFile>(SourceFile{"t.rise", text}));
    EXPECT_EQ(e->kind, ExprKind::Literal) << text;
    return e->lit.f;
  } catch (const Error& err) {
    EXPECT_EQ(err.kind(), ErrorKind::User) << text;
    EXPECT_EQ(err.span().start().line, 1) << text;
    error = err.message();
    return std::nullopt;
  }
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// Digits and exponents around both ends of both types: the largest finite values, the
// subnormals and the values that round to zero, and ordinary ones in between.
std::vector<std::string> literal_texts() {
  const std::vector<std::string> mantissas = {"1",
                                              "1.0",
                                              "7",
                                              "7.1",
                                              "2.5",
                                              "3.4028235",
                                              "3.4028236",
                                              "1.4",
                                              "4.9",
                                              "1.7976931348623157",
                                              "1.7976931348623159",
                                              "0.5",
                                              "99.99"};
  std::vector<std::string> out;
  for (const std::string& m : mantissas)
    for (int e = -340; e <= 320; ++e) {
      if (e > -300 && e < -50 && e % 10 != 0) continue;
      if (e > 45 && e < 300 && e % 10 != 0) continue;
      out.push_back(m + "e" + std::to_string(e));
    }
  return out;
}

TEST(FloatLiteral, RoundsLikeStrtofAndStrtod) {
  size_t refused = 0, tiny = 0;
  for (const std::string& digits : literal_texts()) {
    for (bool f32 : {true, false}) {
      for (bool negative : {false, true}) {
        const std::string text = (negative ? "-" : "") + digits + (f32 ? "f" : "");
        const double want = f32 ? static_cast<double>(std::strtof(digits.c_str(), nullptr))
                                : std::strtod(digits.c_str(), nullptr);
        std::string error;
        std::optional<double> got = parse_literal(text, error);
        if (std::isinf(want)) {
          ++refused;
          EXPECT_FALSE(got) << text << " is beyond the largest " << (f32 ? "f32" : "f64");
          EXPECT_NE(error.find("out of range for " + std::string(f32 ? "f32" : "f64")),
                    std::string::npos)
              << text << ": " << error;
          continue;
        }
        ASSERT_TRUE(got) << text << ": " << error;
        if (std::fpclassify(want) == FP_SUBNORMAL || want == 0) ++tiny;
        EXPECT_TRUE(same_bits(*got, negative ? -want : want))
            << text << ": got " << *got << ", strtod/strtof give " << want;
      }
    }
  }
  // The sweep reaches both ends of both types.
  EXPECT_GT(refused, 0u);
  EXPECT_GT(tiny, 0u);
}

TEST(FloatLiteral, TheIssuesCases) {
  std::string error;
  EXPECT_EQ(parse_literal("1e-50f", error), 0.0);
  EXPECT_TRUE(std::signbit(*parse_literal("-1e-50f", error)));
  EXPECT_EQ(parse_literal("7e-46f", error), static_cast<double>(std::strtof("7e-46", nullptr)));
  EXPECT_EQ(parse_literal("1e-400", error), 0.0);
  EXPECT_EQ(parse_literal("1e-45f", error),
            static_cast<double>(std::numeric_limits<float>::denorm_min()));
  EXPECT_FALSE(parse_literal("1e39f", error));
  EXPECT_NE(error.find("'1e39f' is out of range for f32"), std::string::npos) << error;
  EXPECT_FALSE(parse_literal("1e309", error));
  EXPECT_NE(error.find("out of range for f64"), std::string::npos) << error;
}

}  // namespace
