// An integer literal without a suffix takes its type from its context; a value that
// type cannot hold is a located error at the literal, not a silent wrap (issue 32's
// held-out findings: `x + 300` with x: u8 added 44). Checked at both ends of every
// integer type, in several positions (an operand, a reduction's initial value, a
// select's branch).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rise/check.h"
#include "rise/parser.h"

using namespace risec;
using namespace risec::rise;

namespace {

// "" when the program checks, else the message of its located user error.
std::string range_error_of(const std::string& text) {
  try {
    auto src = std::make_shared<SourceFile>(SourceFile{"t.rise", text});
    check_program(parse_program(src), "", nullptr);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User) << text;
    EXPECT_GT(e.span().start().line, 0) << text << ": " << e.message();
    return e.message();
  }
  return "";
}

struct Range {
  const char* type;
  int64_t lo, hi;
};

TEST(IntLiteralRange, EveryIntegerTypeAtBothEnds) {
  const std::vector<Range> ranges = {{"i8", -128, 127},
                                     {"u8", 0, 255},
                                     {"i16", -32768, 32767},
                                     {"u16", 0, 65535},
                                     {"i32", -2147483648LL, 2147483647LL},
                                     {"u32", 0, 4294967295LL},
                                     {"u64", 0, INT64_MAX}};
  const std::vector<std::string> positions = {"a |> map(fun(x => x + LIT))",
                                              "a |> reduce(add)(LIT)",
                                              "a |> map(fun(x => select(x == x)(x)(LIT)))"};
  for (const Range& r : ranges) {
    for (const std::string& pos : positions) {
      auto program = [&](int64_t v) {
        std::string body = pos;
        body.replace(body.find("LIT"), 3, std::to_string(v));
        return std::string("def f = depFun(n: Nat => fun(a: n.") + r.type + " => " + body + "))\n";
      };
      EXPECT_EQ(range_error_of(program(r.lo)), "") << r.type << " " << pos;
      EXPECT_EQ(range_error_of(program(r.hi)), "") << r.type << " " << pos;
      if (r.hi < INT64_MAX) {
        std::string m = range_error_of(program(r.hi + 1));
        EXPECT_NE(m.find("does not fit in " + std::string(r.type)), std::string::npos)
            << r.type << " " << pos << ": " << m;
      }
      std::string m = range_error_of(program(r.lo - 1));
      EXPECT_NE(m.find("does not fit in " + std::string(r.type)), std::string::npos)
          << r.type << " " << pos << ": " << m;
    }
  }
}

}  // namespace
