// Issue 11: deep, large or hostile inputs never crash risec, never hang it and never
// make it allocate without bound. Each test generates many inputs of one class
// (nesting depths from 10 to 100,000 for every nesting construct of .rise and .elv
// files, definitions that double at each level, sizes around 2^31..2^63, .npy files
// that are truncated, endless or announce huge shapes) and runs the risec binary:
// the result is a success or a clear error with the documented exit code, never a
// signal or an internal error (70).
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "../driver/sanitized_sample.h"
#include "build_info.h"
#include "e2e_util.h"

namespace risec::e2e {
namespace {

// Under AddressSanitizer every frame is several times larger and slower to unwind;
// the deepest cases are scaled down there (docs/cli.md, "Limits", says the limits
// are the same: the scaled cases are refused by the same checks).
std::vector<int> depths() {
  const int kDeepest = risec::test::sanitized_build() ? 10000 : 100000;
  std::vector<int> out;
  for (int d = 10; d <= kDeepest; d *= 10) out.push_back(d);
  return out;
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  out.reserve(s.size() * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// Succeeds, or fails with exit 1 and a located "too deep"/"too long" message.
::testing::AssertionResult works_or_too_deep(const CliResult& r, const std::string& file) {
  if (r.exit_code == 0) return ::testing::AssertionSuccess();
  static const std::regex located(
      R"(^[^\n]*:\d+:\d+: error: [^\n]*(too deep|too deeply|too long))");
  if (r.exit_code == 1 && std::regex_search(r.err, located) &&
      r.err.find(file) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "exit " << r.exit_code << ", stderr:\n"
                                       << r.err.substr(0, 2000);
}

struct Construct {
  const char* name;
  std::function<std::string(int)> program;  // a whole .rise file at depth d
};

std::string entry(const std::string& body) {
  return "def f = depFun(n: Nat => fun(x: n.f32 => " + body + "))\n";
}

const std::vector<Construct>& rise_constructs() {
  static const std::vector<Construct> all = {
      {"pipe", [](int d) { return entry("x" + repeat(" |> map(fun(v => v + 1.0f))", d)); }},
      {"parens",
       [](int d) {
         return entry("x |> map(fun(v => " + repeat("(", d) + "v" + repeat(")", d) + "))");
       }},
      {"lambdas",
       [](int d) {
         return entry("x |> map(fun(v => " + repeat("(fun(y => ", d) + "y" + repeat("))(v)", d) +
                      "))");
       }},
      {"plus", [](int d) { return entry("x |> map(fun(v => v" + repeat(" + 1.0f", d) + "))"); }},
      {"minus", [](int d) { return entry("x |> map(fun(v => " + repeat("-", d) + "v))"); }},
      {"compose",
       [](int d) {
         std::string f = "fun(v => v + 1.0f)";
         return entry("x |> map(" + f + repeat(" >> " + f, d - 1) + ")");
       }},
      {"arrays",
       [](int d) {
         return entry("x |> map(fun(v => " + repeat("[", d) + "v" + repeat("]", d) + "))");
       }},
      {"lets",
       [](int d) { return entry("x |> map(fun(v => " + repeat("let a = v in ", d) + "a))"); }},
      {"nat_sum",
       [](int d) {
         return "def f = depFun(n: Nat => fun(x: (n" + repeat(" + 1", d) + ").f32 => x))\n";
       }},
      {"nat_parens",
       [](int d) {
         return "def f = depFun(n: Nat => fun(x: " + repeat("(", d) + "n" + repeat(")", d) +
                ".f32 => x))\n";
       }},
      {"array_types",
       [](int d) {
         return "def f = depFun(n: Nat => fun(x: " + repeat("1.", d) + "n.f32 => x))\n";
       }},
      {"definitions",
       [](int d) {
         std::string s = "def g0 = fun(v: f32 => v + 1.0f)\n";
         for (int i = 1; i <= d; ++i)
           s += "def g" + std::to_string(i) + " = fun(v: f32 => g" + std::to_string(i - 1) +
                "(v))\n";
         return s + entry("x |> map(g" + std::to_string(d) + ")");
       }},
  };
  return all;
}

TEST(DepthLimits, EveryRiseConstructAtEveryDepthChecksOrIsTooDeep) {
  for (const Construct& c : rise_constructs()) {
    for (int d : depths()) {
      SCOPED_TRACE(std::string(c.name) + " at depth " + std::to_string(d));
      std::string path = write_scratch(std::string("deep_") + c.name + ".rise", c.program(d));
      CliResult r = run_risec({"check", path});
      EXPECT_TRUE(works_or_too_deep(r, path));
      // Shallow programs of every kind work (so the limits are not too tight).
      if (d <= 100) {
        EXPECT_EQ(r.exit_code, 0) << r.err;
      }
    }
  }
}

TEST(DepthLimits, DeepProgramsPrintRewriteAndEvaluate) {
  // Past parsing: printing, the strategy traversals and the interpreter walk the
  // deepest trees the parser accepts. Under the sanitizers (about 6 times slower
  // here) each construct at depths 10 and 300, and every other one at 2500, in turn
  // (driver/sanitized_sample.h).
  std::string id = write_scratch("id.elv", "id\n");
  size_t index = 0;
  for (const Construct& c : rise_constructs()) {
    const bool deepest = !risec::test::sanitized_sample() || index++ % 2 == 0;
    for (int d : {10, 300, 2500}) {
      if (d == 2500 && !deepest) continue;
      SCOPED_TRACE(std::string(c.name) + " at depth " + std::to_string(d));
      std::string path = write_scratch(std::string("deep2_") + c.name + ".rise", c.program(d));
      EXPECT_TRUE(works_or_too_deep(run_risec({"print", "--types", path}), path));
      EXPECT_TRUE(
          works_or_too_deep(run_risec({"rewrite", path, "--strategy", id, "--size", "n=2"}), path));
      EXPECT_TRUE(works_or_too_deep(run_risec({"eval", path, "--size", "n=2"}), path));
    }
  }
}

TEST(DepthLimits, EveryStrategyConstructAtEveryDepthAppliesOrIsTooDeep) {
  std::string program = write_scratch("small.rise", entry("x |> map(fun(v => v + 1.0f))"));
  const std::vector<std::pair<const char*, std::function<std::string(int)>>> constructs = {
      {"sequence", [](int d) { return repeat("id ; ", d) + "id\n"; }},
      {"choice", [](int d) { return repeat("fail <+ ", d) + "id\n"; }},
      {"parens", [](int d) { return repeat("(", d) + "id" + repeat(")", d) + "\n"; }},
      {"try", [](int d) { return repeat("try(", d) + "id" + repeat(")", d) + "\n"; }},
      {"at", [](int d) { return "id" + repeat(" @ topDown", 1) + repeat(" ; id", d) + "\n"; }},
      {"lets",
       [](int d) {
         std::string s = "let s0 = id ;\n";
         for (int i = 1; i < d; ++i)
           s += "let s" + std::to_string(i) + " = s" + std::to_string(i - 1) + " ;\n";
         return s;
       }},
      {"let_sequence",
       [](int d) {
         std::string s = "let s0 = id ;\n";
         for (int i = 1; i < d; ++i)
           s += "let s" + std::to_string(i) + " = s" + std::to_string(i - 1) + " ; s" +
                std::to_string(i - 1) + " ;\n";
         return s;
       }},
  };
  for (const auto& [name, make] : constructs) {
    for (int d : depths()) {
      // Lets expand at each use: a long chain is refused quickly at the 65th level,
      // but 100,000 let lines take a while only to be parsed; 10,000 show the same.
      if (std::string(name).rfind("let", 0) == 0 && d > 10000) continue;
      SCOPED_TRACE(std::string(name) + " at depth " + std::to_string(d));
      std::string path = write_scratch(std::string("deep_") + name + ".elv", make(d));
      CliResult r = run_risec({"rewrite", program, "--strategy", path});
      EXPECT_TRUE(works_or_too_deep(r, path));
      if (d <= 10 || std::string(name) == "sequence" || std::string(name) == "choice") {
        EXPECT_EQ(r.exit_code, 0) << r.err;
      }
    }
  }
}

// Long programs: chains of thousands of maps, lets and definitions (each used once)
// compile with work about linear in their length. Each phase (parsing, inference,
// the strategy, DPIA translation and its passes, C generation) used to be quadratic
// or worse somewhere (1,000 maps took 10 s, 8,000 would take hours); at the lengths
// below a quadratic phase would run far past ctest's timeout, so finishing is the
// check (bench/common/chain_timing.sh prints the times). The generated C is checked
// to hold one loop per map, and a shorter chain runs against the interpreter.
std::string map_chain(int n) {
  return entry("x" + repeat(" |> map(fun(v => v + 1.0f))", n));
}
std::string let_chain(int n) {
  std::string body;
  for (int i = 0; i < n; ++i)
    body += "let a" + std::to_string(i) + " = map(fun(v => v + 1.0f))(" +
            (i == 0 ? std::string("x") : "a" + std::to_string(i - 1)) + ") in ";
  return entry(body + "a" + std::to_string(n - 1));
}
std::string definition_chain(int n) {
  std::string s = "def m0 = fun(x => x)\n";
  for (int i = 1; i <= n; ++i)
    s += "def m" + std::to_string(i) + " = fun(x => m" + std::to_string(i - 1) +
         "(x) |> map(fun(v => v + 1.0f)))\n";
  return s + entry("m" + std::to_string(n) + "(x)");
}

size_t limits_count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(LongChains, MapsLetsAndDefinitionsCompile) {
  const std::vector<std::pair<const char*, std::function<std::string(int)>>> kinds = {
      {"maps", map_chain}, {"lets", let_chain}, {"definitions", definition_chain}};
  for (const auto& [name, make] : kinds) {
    // The longest of each kind the limits allow (docs/cli.md, "Limits"); under
    // AddressSanitizer, whose frames are several times larger, what its 60 MiB stack
    // holds.
    int longest = risec::test::sanitized_build() ? (std::string(name) == "maps" ? 1500 : 1000)
                                                 : (std::string(name) == "maps"   ? 9990
                                                    : std::string(name) == "lets" ? 4000
                                                                                  : 2040);
    for (int n : {10, 100, 1000, longest}) {
      SCOPED_TRACE(std::string(name) + ", " + std::to_string(n) + " maps");
      std::string path = write_scratch(std::string("chain_") + name + ".rise", make(n));
      // --no-simplify: this checks the lowering's loop per map and linear time; the
      // default lowering would fuse a short let chain into one loop first.
      CliResult r = run_risec({"compile", path, "--size", "n=64", "--no-simplify"});
      ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 2000);
      // One loop per map (a let's result is copied into the output by one more).
      size_t loops = limits_count(r.out, "for (");
      EXPECT_TRUE(loops == static_cast<size_t>(n) || loops == static_cast<size_t>(n) + 1) << loops;
    }
  }
}

TEST(LongChains, ChainsComputeWhatTheInterpreterDoes) {
  for (const auto& make : {map_chain, let_chain, definition_chain}) {
    std::string path = write_scratch("chain_run.rise", make(300));
    CliResult r = run_risec({"run", path, "--size", "n=16", "--check"});
    EXPECT_EQ(r.exit_code, 0) << r.err.substr(0, 2000);
  }
}

TEST(LongChains, ChainsBeyondTheLimitsAreRefusedLocated) {
  // One past each documented limit (docs/cli.md, "Limits"): located errors, exit 1.
  for (const auto& [program, limit] :
       std::vector<std::pair<std::string, std::string>>{{map_chain(10001), "10000"},
                                                        {definition_chain(2049), "2048"},
                                                        {let_chain(4097), "4096"}}) {
    std::string path = write_scratch("chain_limit.rise", program);
    CliResult r = run_risec({"check", path});
    EXPECT_TRUE(works_or_too_deep(r, path));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find(limit), std::string::npos) << r.err.substr(0, 2000);
    // The maps and lets are one line of up to 250,000 characters: an error shows only
    // the part around the error, "..." marking the cuts.
    for (size_t at = 0, next; at < r.err.size(); at = next + 1) {
      next = r.err.find('\n', at);
      if (next == std::string::npos) next = r.err.size();
      EXPECT_LE(next - at, 400u) << r.err.substr(at, 400);
    }
    if (program.find('\n') + 1 == program.size()) {
      EXPECT_NE(r.err.find("..."), std::string::npos) << r.err.substr(0, 2000);
    }
  }
}

// def d0 = fun(x: f32 => x + 1.0f); def d<i> = fun(x: f32 => d<i-1>(d<i-1>(x))): the
// inlined entry has 2^depth copies of d0.
std::string limits_doubling(int depth) {
  std::string s = "def d0 = fun(x: f32 => x + 1.0f)\n";
  for (int i = 1; i <= depth; ++i) {
    std::string prev = "d" + std::to_string(i - 1);
    s += "def d" + std::to_string(i) + " = fun(x: f32 => " + prev + "(" + prev + "(x)))\n";
  }
  return s + entry("x |> map(fun(v => d" + std::to_string(depth) + "(v)))");
}

TEST(SizeLimits, DoublingDefinitionsCheckOrAreRefusedAtOnce) {
  for (int depth = 0; depth <= 40; ++depth) {
    SCOPED_TRACE("depth " + std::to_string(depth));
    std::string path = write_scratch("doubling.rise", limits_doubling(depth));
    CliResult r = run_risec({"check", path});
    if (depth <= 8) {
      EXPECT_EQ(r.exit_code, 0) << r.err;
    } else if (depth >= 12) {
      // 2^12 copies of d0 are more than the limit on inlined nodes.
      EXPECT_EQ(r.exit_code, 1) << r.err;
      EXPECT_NE(r.err.find("too large once its definitions are inlined"), std::string::npos)
          << r.err;
      EXPECT_NE(r.err.find(path + ":"), std::string::npos) << r.err;
    } else {
      EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
    }
  }
  // Shared definitions used once each are not multiplied: a long chain is fine.
  std::string chain = "def c0 = fun(x: f32 => x + 1.0f)\n";
  for (int i = 1; i <= 60; ++i)
    chain += "def c" + std::to_string(i) + " = fun(x: f32 => c" + std::to_string(i - 1) +
             "(x) * 2.0f)\n";
  std::string path = write_scratch("chain.rise", chain + entry("x |> map(c60)"));
  CliResult r = run_risec({"eval", path, "--size", "n=3"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(SizeLimits, HugeSizesAreRefusedBeforeAllocating) {
  // With a 1 GiB limit every size from 2^28 f32 elements on is too much for the
  // input alone, whatever the machine; the sizes reach 2^63 - 1 without any
  // overflow in risec's arithmetic.
  const std::vector<std::string> env = {"RISEC_MAX_MEMORY=1G"};
  // Under the sanitizers (whose undefined-behaviour checks watch that arithmetic) every
  // third power and the last two (driver/sanitized_sample.h): 284 runs of risec are
  // 35 s there.
  std::vector<int64_t> sizes;
  for (int k = 28; k <= 62; ++k) {
    if (risec::test::sanitized_sample() && k % 3 != 1 && k < 61) continue;
    sizes.push_back(int64_t{1} << k);
    sizes.push_back((int64_t{1} << k) + 1);
  }
  sizes.push_back(INT64_MAX);
  for (int64_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::string s = std::to_string(n);
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"eval", "examples/asum/asum.rise", "--size", "n=" + s},
             {"eval", "examples/mm/mm.rise", "--size", "n=" + s + ",m=" + s + ",k=" + s},
             {"eval", "examples/mm/mm.rise", "--size", "n=2,m=2,k=" + s},
             {"run", "examples/mm/mm.rise", "--size", "n=" + s + ",m=2,k=2", "--check"},
         }) {
      CliResult r = run_risec(args, env);
      EXPECT_EQ(r.exit_code, 2) << r.err;
      EXPECT_NE(r.err.find("more than the memory limit of 1073741824 bytes"), std::string::npos)
          << r.err;
    }
  }
  // Small sizes stay fine under the same limit.
  CliResult ok = run_risec({"eval", "examples/asum/asum.rise", "--size", "n=1000"}, env);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  CliResult bad =
      run_risec({"eval", "examples/asum/asum.rise", "--size", "n=10"}, {"RISEC_MAX_MEMORY=lots"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("RISEC_MAX_MEMORY"), std::string::npos) << bad.err;
}

// `compile` allocates nothing, but the code it writes must be able to index every
// value: an n.m.f32 of 2^61 elements or more (2^63 bytes) would overflow the 64-bit
// flat index, so such sizes are refused (exit 2) whichever factor is large; one step
// below, the code compiles with 64-bit loops.
TEST(SizeLimits, ValuesBeyondSixtyFourBitIndicesAreRefusedByCompile) {
  const std::string mm = "examples/mm/mm.rise";
  int refused = 0;
  for (int a = 1; a <= 60; a += 3) {
    for (int total : {60, 61}) {  // log2 of the elements of the n.m result (or input)
      const int b = total - a;
      const std::string n = std::to_string(int64_t{1} << a), m = std::to_string(int64_t{1} << b);
      SCOPED_TRACE("n = 2^" + std::to_string(a) + ", m = 2^" + std::to_string(b));
      for (const std::string& sizes : {"n=" + n + ",m=" + m + ",k=2", "n=2,m=" + m + ",k=" + n}) {
        CliResult r = run_risec({"compile", mm, "--size", sizes, "-o", scratch_path("huge")});
        if (total == 60) {
          EXPECT_EQ(r.exit_code, 0) << sizes << ": " << r.err;
        } else {
          EXPECT_EQ(r.exit_code, 2) << sizes << ": " << r.err;
          EXPECT_NE(r.err.find("64-bit signed indices"), std::string::npos) << r.err;
          ++refused;
        }
      }
    }
  }
  EXPECT_EQ(refused, 40);
}

// A version 1.0 .npy header for `shape` (a Python tuple's text) of f32.
std::string npy_header(const std::string& shape) {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + dict.size() + 1) % 64) dict += ' ';
  dict += '\n';
  std::string h = "\x93NUMPY";
  h += '\x01';
  h += '\x00';
  h += static_cast<char>(dict.size() & 0xff);
  h += static_cast<char>(dict.size() >> 8);
  return h + dict;
}

TEST(SizeLimits, InputFilesAreReadOnlyAsFarAsTheirShape) {
  const std::vector<std::string> env = {"RISEC_MAX_MEMORY=1G"};
  auto eval_with = [&](const std::string& file, int n) {
    return run_risec({"eval", "examples/asum/asum.rise", "--size", "n=" + std::to_string(n),
                      "--input", "x=" + file},
                     env);
  };
  // Endless or special files.
  for (const char* dev : {"/dev/zero", "/dev/null", "/dev/urandom"}) {
    CliResult r = eval_with(dev, 8);
    EXPECT_EQ(r.exit_code, 1) << dev << ": " << r.err;
    EXPECT_NE(r.err.find(dev), std::string::npos) << r.err;
  }
  // Headers announcing shapes beyond the limit (up to more than 2^64 bytes).
  for (const std::string& shape :
       {std::string("(268435457,)"), std::string("(1000000000000,)"),
        std::string("(9223372036854775807,)"), std::string("(4294967296, 4294967296)"),
        std::string("(65536, 65536, 65536)"), std::string("(3037000500, 3037000500, 2)")}) {
    SCOPED_TRACE(shape);
    std::string path = write_scratch("huge.npy", npy_header(shape) + std::string(64, '\0'));
    CliResult r = eval_with(path, 8);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("more than the memory limit"), std::string::npos) << r.err;
  }
  // Every truncation of a good file, and good files with extra bytes.
  std::string good = npy_header("(8,)") + std::string(32, '\0');
  for (size_t len = 0; len < good.size(); len += 3) {
    SCOPED_TRACE("truncated to " + std::to_string(len));
    CliResult r = eval_with(write_scratch("trunc.npy", good.substr(0, len)), 8);
    EXPECT_EQ(r.exit_code, 1) << r.err;
  }
  for (size_t extra : {1, 7, 4096, 1 << 20}) {
    CliResult r = eval_with(write_scratch("long.npy", good + std::string(extra, '\0')), 8);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("oversized"), std::string::npos) << r.err;
  }
  CliResult ok = eval_with(write_scratch("good.npy", good), 8);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

}  // namespace
}  // namespace risec::e2e
