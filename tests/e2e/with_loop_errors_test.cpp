// What a with-loop refuses, and how it says so (docs/guarantees.md: with-loop errors
// speak in the with-loop's terms). A held-out tester found: a genarray whose parts
// cover the shape took its element type from the bodies, never checking the default
// (`genarray([n], 0.0f)` with a body `1` gave n.i32); a partial cover refused it at
// `with {` as "expected _._ but found (n - 2).f32"; an index named twice ([i, i]) was
// accepted; and the side conditions of bounds ordered only for large sizes read
// "n - 2 >= 0 (this natType value)", which names neither the part nor the bounds.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

// The column (1-based) of the first `what` on line 2 of `text`.
size_t column_on_line2(const std::string& text, const std::string& what) {
  size_t line2 = text.find('\n') + 1;
  return text.find(what, line2) - line2 + 1;
}

// Every generator coverage (the whole shape, a part of it, stepped, modarray) with every
// pair of body and default element types: accepted exactly when the types agree, the
// values then the body's where the parts cover and the default's elsewhere; refused
// otherwise, at the body, naming both types.
TEST(WithLoopErrors, BodyAndDefaultElementTypesAgree) {
  struct Typed {
    const char* type;
    const char* one;   // a body of this type (value 1)
    const char* zero;  // a default of this type (value 0)
  };
  const Typed types[] = {{"f32", "1.0f", "0.0f"},
                         {"f64", "1.0", "0.0"},
                         {"i64", "1i64", "0i64"},
                         {"bool", "true", "false"}};
  struct Cover {
    const char* generator;
    std::vector<int> covered;  // of n = 5
  };
  const Cover covers[] = {{"([0] <= [i] < [n])", {1, 1, 1, 1, 1}},
                          {"([1] <= [i] < [n - 1])", {0, 1, 1, 1, 0}},
                          {"([0] <= [i] < [n] step [2])", {1, 0, 1, 0, 1}},
                          {"([0] <= [i] < [n] step [2] width [2])", {1, 1, 1, 1, 1}}};
  int k = 0;
  for (const Cover& c : covers)
    for (const Typed& body : types)
      for (const Typed& deflt : types)
        for (bool modarray : {false, true}) {
          const std::string text = std::string("def f = depFun(n: Nat => fun(a: n.") + deflt.type +
                                   " =>\n  with { " + c.generator + " : " + body.one + "; } : " +
                                   (modarray ? std::string("modarray(a)")
                                             : std::string("genarray([n], ") + deflt.zero + ")") +
                                   "))\n";
          SCOPED_TRACE(text);
          const std::string file = write_scratch("wl_types_" + std::to_string(k++) + ".rise", text);
          CliResult check = run_risec({"check", file});
          if (std::string(body.type) == deflt.type) {
            EXPECT_EQ(check.exit_code, 0) << show(check);
            if (modarray) continue;
            CliResult eval = run_risec({"eval", file, "--size", "n=5", "--full"});
            ASSERT_EQ(eval.exit_code, 0) << show(eval);
            // The values as eval prints them: 1 and 0, or true and false.
            const bool is_bool = std::string(body.type) == "bool";
            std::string want = std::string(deflt.type) + "(5,) = [";
            for (size_t i = 0; i < c.covered.size(); ++i)
              want += std::string(i ? ", " : "") +
                      (is_bool ? (c.covered[i] ? "true" : "false") : (c.covered[i] ? "1" : "0"));
            EXPECT_NE(eval.out.find(want + "]"), std::string::npos) << want << "\n" << show(eval);
            continue;
          }
          EXPECT_EQ(check.exit_code, 1) << show(check);
          const std::string at =
              "2:" + std::to_string(column_on_line2(text, std::string(": ") + body.one) + 2);
          EXPECT_NE(check.err.find(at + ": error"), std::string::npos) << at << "\n" << show(check);
          EXPECT_NE(
              check.err.find(std::string("expected ") + deflt.type + " but found " + body.type),
              std::string::npos)
              << show(check);
          EXPECT_NE(check.err.find(modarray ? "the modified array" : "the default"),
                    std::string::npos)
              << show(check);
        }
}

// natAsScalar of an index alone leaves the element type open: the default fixes it.
TEST(WithLoopErrors, TheDefaultFixesAnOpenElementType) {
  const char* const generators[] = {"([0] <= [i] < [n])", "([1] <= [i] < [n])",
                                    "([0] <= [i] < [n] step [2])"};
  int k = 0;
  for (const char* g : generators) {
    SCOPED_TRACE(g);
    const std::string file =
        write_scratch("wl_open_" + std::to_string(k++) + ".rise",
                      std::string("def f = depFun(n: Nat => fun(a: n.f32 =>\n  with { ") + g +
                          " : natAsScalar(i * i); } : genarray([n], 0i64)))\n");
    CliResult check = run_risec({"check", file});
    EXPECT_EQ(check.exit_code, 0) << show(check);
    EXPECT_NE(check.out.find("n.i64"), std::string::npos) << show(check);
    CliResult run = run_risec({"run", file, "--size", "n=7", "--check"});
    EXPECT_EQ(run.exit_code, 0) << show(run);
    EXPECT_NE(run.out.find("check: passed"), std::string::npos) << show(run);
  }
}

// An index name given twice in one generator is refused at its second occurrence.
TEST(WithLoopErrors, AnIndexNameTwice) {
  const char* const names[] = {"[i, i]", "[i, j, i]", "[j, i, i]"};
  const char* const shapes[] = {"[n, n]", "[n, n, n]", "[n, n, n]"};
  for (size_t k = 0; k < 3; ++k) {
    const std::string ns = names[k];
    const size_t rank = ns == "[i, i]" ? 2 : 3;
    std::string zeros = rank == 2 ? "[0, 0]" : "[0, 0, 0]";
    const std::string text = std::string("def f = depFun(n: Nat => fun(a: n.f32 =>\n  with { (") +
                             zeros + " <= " + ns + " < " + shapes[k] + ") : 1.0f; } : genarray(" +
                             shapes[k] + ", 0.0f)))\n";
    SCOPED_TRACE(text);
    const std::string file = write_scratch("wl_twice_" + std::to_string(k) + ".rise", text);
    CliResult check = run_risec({"check", file});
    EXPECT_EQ(check.exit_code, 1) << show(check);
    const size_t second = text.find("i", text.find("i", text.find(ns)) + 1);
    const std::string at = "2:" + std::to_string(second - (text.find('\n') + 1) + 1);
    EXPECT_NE(check.err.find(at + ": error: the index name 'i' is given twice"), std::string::npos)
        << at << "\n"
        << show(check);
  }
}

// The side conditions of bounds ordered only for large sizes name the parts (as
// written) and the order they need, with and without the sizes, for genarray,
// modarray and fold.
TEST(WithLoopErrors, SideConditionsNameTheParts) {
  const char* const ops[] = {"genarray([n], 0.0f)", "modarray(a)",
                             "fold(fun(x => fun(y => x + y)), 0.0f)"};
  int k = 0;
  for (const char* op : ops) {
    const std::string text = std::string(
                                 "def f = depFun(n: Nat => fun(a: n.f32 =>\n"
                                 "  with { ([0] <= [i] < [1]) : 0.0f; ([1] <= [i] < [n - 1]) : "
                                 "a[i]; ([n - 1] <= [i] < [n]) : 0.0f; } : ") +
                             op + "))\n";
    SCOPED_TRACE(text);
    const std::string file = write_scratch("wl_side_" + std::to_string(k++) + ".rise", text);
    CliResult check = run_risec({"check", file});
    EXPECT_EQ(check.exit_code, 0) << show(check);
    EXPECT_NE(check.out.find("requires: n - 2 >= 0 (in the with-loop, the part"), std::string::npos)
        << show(check);
    EXPECT_NE(check.out.find("([1] <= [i] < [n - 1])"), std::string::npos) << show(check);
    EXPECT_EQ(check.out.find("natType"), std::string::npos) << show(check);
    CliResult eval = run_risec({"eval", file, "--size", "n=1"});
    EXPECT_EQ(eval.exit_code, 1) << show(eval);
    EXPECT_NE(eval.err.find("in the with-loop, the part"), std::string::npos) << show(eval);
    EXPECT_NE(eval.err.find("1 <= n - 1"), std::string::npos) << show(eval);
    EXPECT_EQ(eval.err.find("natType"), std::string::npos) << show(eval);
    CliResult ok = run_risec({"eval", file, "--size", "n=2"});
    EXPECT_EQ(ok.exit_code, 0) << show(ok);
  }
}

}  // namespace
}  // namespace risec::e2e
