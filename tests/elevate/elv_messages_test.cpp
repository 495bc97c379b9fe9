// Error messages of traversals, rules and the .elv lexer (held-out findings): a bare
// rule under a traversal names its refusal where it was of its form, a predicate that
// holds nowhere says so, reorder([]) does not contradict itself, and the lexer never
// prints a raw byte.
#include <gtest/gtest.h>

#include "elevate/parser.h"
#include "rewrite_test_util.h"
#include "support/diagnostics.h"

namespace risec::elevate::testing {
namespace {

const char* kElvMsgProgram = R"(
def pr2 = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 =>
  zip(x)(y) |> reduce(fun(acc, p => (acc._1 + p._1, acc._2 * p._2 + acc._1)))((0.0f, 1.0f)) |> fun(q => q._1 + q._2))))
)";

const char* kElvMsgStencil = R"(
def st = depFun(n: Nat => fun(x: n.f32 =>
  x |> padCst(1)(2)(5.0f) |> slide(4)(1) |> map(fun(w => w |> reduce(fun(a, b => a * 0.5f + b))(1.0f)))))
)";

std::string elv_msg_failure(const std::string& strategy, const char* program,
                            const rise::SizeMap& sizes) {
  rise::Checked c = typed(program, sizes);
  Result r = parse_strategy(strategy)(c.expr);
  if (r.ok()) return "(succeeded)";
  return r.failure().reason;
}

TEST(ElvMessages, BareRuleUnderTraversalNamesItsRefusal) {
  for (const char* t : {"DFNF ; (expandReduce @ topDown)", "DFNF ; (expandReduce @ bottomUp)",
                        "DFNF ; everywhere(expandReduce)"}) {
    const std::string m = elv_msg_failure(t, kElvMsgProgram, {{"n", 8}});
    EXPECT_NE(m.find("uses its accumulator more than once"), std::string::npos) << t << ": " << m;
    EXPECT_EQ(m.find("at the root"), std::string::npos) << t << ": " << m;
  }
  const std::string w =
      elv_msg_failure("DFNF ; vectorizeWindows(4) @ topDown", kElvMsgStencil, {{"n", 18}});
  EXPECT_NE(w.find("not divisible by 4"), std::string::npos) << w;
  // A rule that is of its form nowhere still reports the root's mismatch.
  const std::string none =
      elv_msg_failure("mapMapFBeforeTranspose @ topDown", kElvMsgStencil, {{"n", 18}});
  EXPECT_NE(none.find("found no location"), std::string::npos) << none;
  EXPECT_NE(none.find("at the root"), std::string::npos) << none;
}

TEST(ElvMessages, PredicateThatHoldsNowhereSaysSo) {
  const std::string m = elv_msg_failure("DFNF ; lowerToC ; (mapSeq @ outermost(isApplied(isMap)))",
                                        kElvMsgStencil, {{"n", 18}});
  EXPECT_NE(m.find("isApplied(isMap) holds nowhere"), std::string::npos) << m;
  EXPECT_EQ(m.find("not an application"), std::string::npos) << m;
  const std::string f = elv_msg_failure(
      "DFNF ; lowerToC ; (mapSeq @ innermost(isFullyApplied(isMap)))", kElvMsgStencil, {{"n", 18}});
  EXPECT_NE(f.find("isFullyApplied(isMap) holds nowhere"), std::string::npos) << f;
}

TEST(ElvMessages, EmptyReorderIsNamedAsEmpty) {
  const char* nest =
      "def nest = depFun((n: Nat, m: Nat) => fun(a: n.m.f32 => a |> map(fun(r => r |> "
      "map(fun(v => v * 2.0f))))))";
  const std::string m = elv_msg_failure("DFNF ; reorder([])", nest, {{"n", 4}, {"m", 4}});
  EXPECT_NE(m.find("the permutation is empty"), std::string::npos) << m;
  const std::string three =
      elv_msg_failure("DFNF ; reorder([1, 2, 3])", nest, {{"n", 4}, {"m", 4}});
  EXPECT_NE(three.find("has 2 directly nested loops, the permutation needs 3"), std::string::npos)
      << three;
}

std::string elv_msg_lex_error(const std::string& text) {
  try {
    parse_strategy(text);
  } catch (const Error& e) {
    return e.message();
  }
  return "(parsed)";
}

TEST(ElvMessages, LexerNamesBadBytesAndCharactersWhole) {
  const std::string nul = elv_msg_lex_error(std::string("DFNF\0 ; lowerToC", 16));
  EXPECT_NE(nul.find("unexpected byte 0x00"), std::string::npos) << nul;
  EXPECT_EQ(nul.find('\0'), std::string::npos);
  const std::string uni = elv_msg_lex_error("let gr\xc3\xb6sse = lowerToC; gr\xc3\xb6sse");
  EXPECT_NE(uni.find("unexpected character '\xc3\xb6' (U+00F6"), std::string::npos) << uni;
  const std::string half = elv_msg_lex_error("DFNF ; \xc3");
  EXPECT_NE(half.find("unexpected byte 0xc3"), std::string::npos) << half;
  const std::string ascii = elv_msg_lex_error("DFNF ; $");
  EXPECT_NE(ascii.find("unexpected character '$'"), std::string::npos) << ascii;
}

TEST(ElvMessages, NearestNamePrefersTheSameNameInAnotherCase) {
  EXPECT_EQ(nearest_name("N", {"m", "n"}), "n");
  EXPECT_EQ(nearest_name("Rows", {"cols", "rows"}), "rows");
  EXPECT_EQ(nearest_name("valeu", {"value", "other"}), "value");
}

}  // namespace
}  // namespace risec::elevate::testing
