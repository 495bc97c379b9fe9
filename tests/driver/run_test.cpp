// Tests of the pieces of `risec run` (driver/run.h): --flops expressions, the
// comparison behind --check, the inputs (identical to eval's), --input parsing.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "driver/commands.h"
#include "driver/run.h"
#include "rise/interp.h"
#include "rise/parser.h"
#include "support/diagnostics.h"
#include "support/random.h"

namespace risec::driver {
namespace {

using rise::Value;

TEST(SizeExpr, Arithmetic) {
  rise::SizeMap s = {{"n", 1024}, {"m", 512}, {"k", 3}};
  EXPECT_EQ(eval_size_expr("2*n*m*k", s), 2.0 * 1024 * 512 * 3);
  EXPECT_EQ(eval_size_expr(" 2 * (n + m) - k ", s), 2.0 * (1024 + 512) - 3);
  EXPECT_EQ(eval_size_expr("n^2", s), 1024.0 * 1024);
  EXPECT_EQ(eval_size_expr("n**2/m", s), 2048.0);
  EXPECT_EQ(eval_size_expr("-k + 10", s), 7.0);
  EXPECT_EQ(eval_size_expr("2^3^2", s), 512.0);  // right associative
  EXPECT_EQ(eval_size_expr("1.5e3", s), 1500.0);
  EXPECT_EQ(eval_size_expr("7", {}), 7.0);
}

TEST(SizeExpr, Errors) {
  rise::SizeMap s = {{"n", 4}};
  for (const char* bad : {"", "2*", "n m", "(n", "q*2", "n/0", "2 $ n", ")"}) {
    try {
      eval_size_expr(bad, s);
      ADD_FAILURE() << "no error for '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Usage) << bad;
      EXPECT_NE(e.message().find("--flops"), std::string::npos) << e.message();
    }
  }
  try {
    eval_size_expr("2*n*q", s);
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("'q' is not a size given with --size (sizes: n)"), std::string::npos)
        << e.message();
  }
}

rise::Type f32() {
  return rise::scalar(rise::ScalarKind::F32);
}
rise::Type arr(int64_t n, rise::Type t) {
  return rise::array(arith::Nat(n), std::move(t));
}

Value f32_array(std::vector<float> xs) {
  std::vector<Value> v;
  for (float x : xs) v.push_back(Value::f32(x));
  return rise::array_of(f32(), v);
}

TEST(Compare, CountsAndMaxError) {
  Value a = f32_array({1, 2, 3, 4});
  Value b = f32_array({1, 2.00001f, 3, 4.5f});
  Comparison c = compare_values(a, b, arr(4, f32()));
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.elements, 4);
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_NEAR(c.max_abs_error, 0.5, 1e-9);
  EXPECT_NE(c.first_mismatch.find("element [3]: 4 vs 4.5"), std::string::npos) << c.first_mismatch;
  Comparison loose = compare_values(a, b, arr(4, f32()), 0.2, 0);
  EXPECT_TRUE(loose.ok);
  EXPECT_EQ(loose.mismatches, 0);
  EXPECT_TRUE(loose.first_mismatch.empty());
}

TEST(Compare, NaNsInfinitiesIntegersPairs) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(compare_values(f32_array({nan, inf}), f32_array({nan, inf}), arr(2, f32())).ok);
  EXPECT_FALSE(compare_values(f32_array({nan}), f32_array({1}), arr(1, f32())).ok);
  EXPECT_FALSE(compare_values(f32_array({inf}), f32_array({-inf}), arr(1, f32())).ok);
  rise::Type i32 = rise::scalar(rise::ScalarKind::I32);
  rise::Type pt = rise::pair(f32(), i32);
  Value p = Value::pair(Value::f32(1), Value::integer(rise::ScalarKind::I32, 5));
  Value q = Value::pair(Value::f32(1), Value::integer(rise::ScalarKind::I32, 6));
  Comparison c = compare_values(p, q, pt, 1, 1);  // integers are exact whatever the tolerance
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.elements, 2);
  EXPECT_NE(c.first_mismatch.find("._2"), std::string::npos) << c.first_mismatch;
}

// NaN and infinities against other values (the held-out tester's `--check` said "max
// abs error 0" for them): random arrays with some non-finite elements, on either side,
// against a count made here; the summary names them, never a finite error of 0 alone.
TEST(Compare, NonFiniteMismatchesAreCountedAndNamed) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {nan, inf, -inf};
  std::mt19937 rng(20261129);
  for (int k = 0; k < 200; ++k) {
    const int n = 1 + static_cast<int>(rng() % 12);
    std::vector<float> a, b;
    int64_t mismatches = 0, odd = 0, finite_off = 0;
    int64_t first_odd = -1;
    for (int i = 0; i < n; ++i) {
      float x = static_cast<float>(rng() % 5), y = x;
      switch (rng() % 6) {
        case 0:
          x = specials[rng() % 3];
          break;
        case 1:
          y = specials[rng() % 3];
          break;
        case 2:
          x = y = specials[rng() % 3];  // the same NaN or infinity matches
          break;
        case 3:
          y = x + 1.0f;  // a finite mismatch of 1
          break;
        default:
          break;
      }
      const bool same = std::isnan(x) ? std::isnan(y) : x == y;
      const bool nonfinite = !std::isfinite(x) || !std::isfinite(y);
      if (!same) {
        ++mismatches;
        if (nonfinite) {
          if (odd++ == 0) first_odd = i;
        } else {
          ++finite_off;
        }
      }
      a.push_back(x);
      b.push_back(y);
    }
    Comparison c = compare_values(f32_array(a), f32_array(b), arr(n, f32()), 0, 0);
    SCOPED_TRACE(k);
    EXPECT_EQ(c.mismatches, mismatches);
    EXPECT_EQ(c.nonfinite_mismatches, odd);
    EXPECT_EQ(c.ok, mismatches == 0);
    const std::string summary = error_summary(c);
    if (odd == 0) {
      EXPECT_EQ(summary.find("NaN"), std::string::npos) << summary;
      continue;
    }
    EXPECT_NE(c.first_nonfinite.find("element [" + std::to_string(first_odd) + "]: "),
              std::string::npos)
        << c.first_nonfinite;
    EXPECT_NE(summary.find("NaN or infinite against a different value"), std::string::npos)
        << summary;
    if (finite_off == 0) {
      EXPECT_EQ(summary.find("max abs error"), std::string::npos) << summary;
    } else {
      EXPECT_NE(summary.find(std::to_string(odd) + " of them"), std::string::npos) << summary;
      EXPECT_NE(summary.find("(first: " + c.first_nonfinite + ")"), std::string::npos) << summary;
      EXPECT_NE(summary.find("max abs error of the others 1"), std::string::npos) << summary;
    }
  }
  // The tester's case: a single NaN against 1.
  Comparison one = compare_values(f32_array({1, nan, 3}), f32_array({1, 1, 3}), arr(3, f32()));
  EXPECT_EQ(one.mismatches, 1);
  EXPECT_EQ(error_summary(one),
            "it is NaN or infinite against a different value, which no "
            "finite error measures");
  EXPECT_NE(one.first_mismatch.find("element [1]"), std::string::npos) << one.first_mismatch;
}

rise::Program run_parse(const std::string& text) {
  return rise::parse_program(std::make_shared<SourceFile>(SourceFile{"<test>", text}));
}

TEST(Inputs, SameAsEval) {
  rise::Program p = run_parse(
      "def f = depFun((n: Nat) => fun(a: Array[n, f32] => fun(s: f32 => fun(b: Array[n, idx[5]] =>"
      " a |> map(fun(x => x * s))))))");
  rise::SizeMap sizes = {{"n", 6}};
  rise::Checked c = rise::check_program(p, "", &sizes);
  std::vector<EntryParam> params = entry_parameters(c);
  ASSERT_EQ(params.size(), 3u);
  EXPECT_EQ(params[0].name, "a");
  EXPECT_EQ(params[2].name, "b");
  std::vector<Value> in = make_inputs(c, {}, 42);
  ASSERT_EQ(in.size(), 3u);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_TRUE(
        rise::values_equal(in[i], rise::random_input(params[i].type, runtime::derive_seed(42, i))))
        << i;
  EXPECT_FALSE(rise::values_equal(in[0], make_inputs(c, {}, 43)[0]));
  EXPECT_EQ(rise::print(entry_result_type(c)), "6.f32");
  try {
    make_inputs(c, {{"q", "x.npy"}}, 0);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
  }
  try {
    make_inputs(c, {{"a", "/nonexistent/a.npy"}}, 0);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("--input a=/nonexistent/a.npy"), std::string::npos) << e.message();
  }
}

TEST(Inputs, MissingSizes) {
  rise::Program p = run_parse("def f = depFun((n: Nat) => fun(a: Array[n, f32] => a))");
  rise::Checked c = rise::check_program(p);
  try {
    entry_parameters(c);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User);
    EXPECT_NE(e.message().find("size n has no value"), std::string::npos) << e.message();
  }
}

TEST(Inputs, InputOptions) {
  auto m = parse_input_options({"a=x.npy", "b=dir/y=z.npy"});
  EXPECT_EQ(m.at("a"), "x.npy");
  EXPECT_EQ(m.at("b"), "dir/y=z.npy");
  for (std::vector<std::string> bad :
       {std::vector<std::string>{"a"}, {"=x"}, {"a="}, {"a=x", "a=y"}})
    EXPECT_THROW(parse_input_options(bad), Error);
}

}  // namespace
}  // namespace risec::driver
