// lane(i) (docs/language.md, an extension of the spec): one lane of a vector. Type
// checking refuses an index that is not below the width, located (exit 1), keeps a
// side condition for a symbolic width and refuses a non-constant index; the
// interpreter reads the lane (tests/rise/interp_test.cpp); generated C, OpenMP and OpenCL read it
// as the interpreter does, OpenCL as the component v.sI (it has no subscript on vectors).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "e2e_util.h"
#include "rise/check.h"
#include "rise/parser.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

rise::Program lane_parse(const std::string& text) {
  return rise::parse_program(std::make_shared<SourceFile>(SourceFile{"lane.rise", text}));
}

// Every lane of a 4-wide (or w-wide) vector, in an expression, in a map.
std::string lanes_program(const std::string& map, int w, int a, int b, int c) {
  auto l = [](int i) { return "lane(" + std::to_string(i) + ")"; };
  return "def f = depFun(n: Nat => fun(x: n.vec[f32, " + std::to_string(w) + "] => x |> " + map +
         "(fun(v => " + l(a) + "(v) + " + l(b) + "(v) * (v |> " + l(c) +
         ") - lane(0)(v * vectorFromScalar(2.0f))))))\n";
}

TEST(Lane, AnIndexAtOrBeyondTheWidthIsRefusedLocated) {
  for (int w : {2, 4, 8}) {
    for (int i = 0; i <= w + 1; ++i) {
      std::string text = lanes_program("map", w, 0, i, 1);
      std::string err;
      try {
        rise::check_program(lane_parse(text), "");
      } catch (const Error& e) {
        err = e.message();
        EXPECT_EQ(e.kind(), ErrorKind::User);
        // at the call lane(i), the second lane of the body
        EXPECT_EQ(e.span().start().line, 1);
        EXPECT_EQ(static_cast<size_t>(e.span().start().col), text.find("+ lane(") + 3) << text;
      }
      if (i < w)
        EXPECT_EQ(err, "") << text;
      else
        EXPECT_EQ(err, "lane " + std::to_string(i) + " is out of range for a vector of " +
                           std::to_string(w) + " lanes")
            << text;
    }
  }
}

TEST(Lane, TheCommandLineRefusesAnOutOfRangeLaneWithExitCode1) {
  std::string path = write_scratch("lane_bad.rise", lanes_program("map", 4, 0, 4, 1));
  CliResult r = run_risec({"check", path});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_NE(r.err.find("lane_bad.rise:1:"), std::string::npos) << show(r);
  EXPECT_NE(r.err.find("lane 4 is out of range for a vector of 4 lanes"), std::string::npos)
      << show(r);
}

TEST(Lane, ASymbolicWidthBecomesASideCondition) {
  const std::string text =
      "def f = depFun((n: Nat, m: Nat) => fun(x: n.vec[f32, m] => x |> map(fun(v => "
      "lane(2)(v)))))";
  rise::Checked c = rise::check_program(lane_parse(text), "");
  bool found = false;
  for (const rise::SideCondition& sc : c.conditions) found = found || sc.describe() == "m - 3 >= 0";
  EXPECT_TRUE(found);
  rise::SizeMap ok{{"n", 2}, {"m", 4}}, bad{{"n", 2}, {"m", 2}};
  EXPECT_NO_THROW(rise::check_program(lane_parse(text), "", &ok));
  EXPECT_THROW(rise::check_program(lane_parse(text), "", &bad), Error);
}

TEST(Lane, TheIndexMustBeAConstant) {
  const std::string text =
      "def f = depFun((n: Nat) => fun(x: 4.vec[f32, 4] => x |> map(fun(v => lane(n)(v)))))";
  try {
    rise::check_program(lane_parse(text), "");
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User);
    EXPECT_NE(e.message().find("constant lane index"), std::string::npos) << e.message();
    EXPECT_GT(e.span().start().line, 0);
  }
}

TEST(Lane, GeneratedCodeMatchesTheInterpreterOnEveryTarget) {
  const std::string path = write_scratch("lanes.rise", lanes_program("map", 4, 0, 3, 2));
  EXPECT_TRUE(compile_and_check(path, "", "n=64", "c"));
  EXPECT_TRUE(compile_and_check(path, "(parallel @ outermost(isApplied(isMap))) ; lowerToC", "n=64",
                                "openmp"));
  const std::string ocl = "(mapGlobal(0) @ outermost(isApplied(isMap))) ; lowerToC";
  EXPECT_TRUE(compile_and_check(path, ocl, "n=64", "opencl"));
  // OpenCL reads constant lanes as components, C subscripts its vector types
  CheckReport r = run_and_compare(path, ocl, "n=64", CheckOptions{.target = "opencl"});
  EXPECT_NE(r.compiled.unit.kernel_source.find(".s3"), std::string::npos);
  EXPECT_EQ(r.compiled.unit.kernel_source.find("[3]"), std::string::npos);
  CheckReport c = run_and_compare(path, "", "n=64");
  EXPECT_NE(c.compiled.unit.source.find("[3]"), std::string::npos);
  // 8 and 16 lanes: .s7, .sf
  const std::string wide = write_scratch("lanes16.rise", lanes_program("map", 16, 15, 7, 9));
  CheckReport w = run_and_compare(wide, ocl, "n=32", CheckOptions{.target = "opencl"});
  EXPECT_TRUE(w.comparison.ok);
  EXPECT_NE(w.compiled.unit.kernel_source.find(".sf"), std::string::npos);
  EXPECT_TRUE(compile_and_check(wide, "", "n=32", "c"));
}

TEST(Lane, TheExamplesReadLanesWithLane) {
  for (const char* file : {"examples/md/md.rise", "examples/nbody/nbody.rise"}) {
    CliResult r = run_risec({"print", file});
    EXPECT_EQ(r.exit_code, 0) << show(r);
    EXPECT_NE(r.out.find("lane("), std::string::npos) << file;
    EXPECT_EQ(r.out.find("asScalar"), std::string::npos) << file;
  }
}

}  // namespace
}  // namespace risec::e2e
