// Tests of the pieces of `risec run` (driver/run.h): --flops expressions, the
// comparison behind --check, the inputs (identical to eval's), --input parsing.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>

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

rise::Program parse(const std::string& text) {
  return rise::parse_program(std::make_shared<SourceFile>(SourceFile{"<test>", text}));
}

TEST(Inputs, SameAsEval) {
  rise::Program p = parse(
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
  rise::Program p = parse("def f = depFun((n: Nat) => fun(a: Array[n, f32] => a))");
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
