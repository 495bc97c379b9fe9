// Bounds checks of data-dependent indices (issue 32, item 5; codegen/c/bounds_checks.cpp):
// for each way a program makes an index from data (natAsIndex read through idx, a
// histogram written through update, gather, scatter, a cast to idx[m], index
// arithmetic, a negative value cast to natType) and each target (c, openmp, opencl on
// PoCL), random data in range gives what the interpreter gives (`run --check`), and
// data with one value out of range stops the program with exit 4 and the interpreter's
// own message. --no-bounds-checks really removes the checks (the shape of the code),
// checks proven unnecessary are not emitted, and inputs of indices are checked once on
// entry. Also item 8: bound data of thousands of values is one static table (a few
// statements, not one per value) and repeatN ends at once when nothing changes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "build_info.h"
#include "e2e_util.h"
#include "runtime/npy.h"
#include "support/random.h"

namespace risec::e2e {
namespace {

struct Case {
  const char* name;
  const char* program;  // entry f over sizes n, m and data xs: n.i32 (and x: m.f32, y: n.f32)
  // In-range values are [lo, hi(m)); out of range is one value below lo or at least
  // `bad_from(m)`.
  int lo;
  int (*hi)(int m);
  int (*bad_from)(int m);
  bool gpu_only = false;
};

int whole(int m) {
  return m;
}
int half(int m) {
  return (m + 1) / 2;
}

const Case kCases[] = {
    {"idx", R"(def f = depFun((n: Nat, m: Nat) => fun(xs: n.i32 => fun(x: m.f32 =>
  xs |> map(fun(v => idx(natAsIndex(m)(cast(v)))(x) * 2.0f)))))
)",
     0, whole, whole},
    {"histogram", R"(def f = depFun((n: Nat, m: Nat) => fun(xs: n.i32 =>
  xs |> reduceSeq(fun(acc, v =>
    update(natAsIndex(m)(cast(v)))(idx(natAsIndex(m)(cast(v)))(acc) + 1)(acc)))
    (generate(fun(i => 0)))))
)",
     0, whole, whole},
    {"gather", R"(def f = depFun((n: Nat, m: Nat) => fun(xs: n.i32 => fun(x: m.f32 =>
  gather(xs |> map(fun(v => natAsIndex(m)(cast(v)))))(x) |> map(fun(a => a + 1.0f)))))
)",
     0, whole, whole},
    {"scatter", R"(def f = depFun((n: Nat, m: Nat) => fun(xs: n.i32 => fun(y: n.f32 =>
  scatter(xs |> map(fun(v => natAsIndex(m)(cast(v)))))(y |> map(fun(a => a * 3.0f))))))
)",
     0, whole, whole},
    {"cast", R"(def f = depFun((n: Nat, m: Nat) => fun(xs: n.i32 => fun(x: m.f32 =>
  xs |> map(fun(v => idx(cast(v):idx[m])(x))))))
)",
     0, whole, whole},
    {"arithmetic", R"(def f = depFun((n: Nat, m: Nat) => fun(xs: n.i32 => fun(x: m.f32 =>
  xs |> map(fun(v => idx(add(natAsIndex(m)(cast(v)))(natAsIndex(m)(cast(v))))(x))))))
)",
     0, half, half},
    {"mapGlobal", R"(def f = depFun((n: Nat, m: Nat) => fun(xs: n.i32 => fun(x: m.f32 =>
  xs |> mapGlobal(0)(fun(v => idx(natAsIndex(m)(cast(v)))(x) - 1.0f)))))
)",
     0, whole, whole, /*gpu_only=*/true},
};

// A .npy file of i32 values.
std::string npy_i32(const std::string& name, const std::vector<int32_t>& values) {
  runtime::NdArray a =
      runtime::make_array(runtime::DType::I32, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) a.as<int32_t>()[i] = values[i];
  std::string path = scratch_path(name + ".npy");
  runtime::write_npy(path, a);
  return path;
}

// The message of `risec eval`'s located error: the text after "error: " on its line.
std::string interpreter_message(const CliResult& r) {
  size_t at = r.err.find("error: ");
  if (at == std::string::npos) return "";
  at += 7;
  return r.err.substr(at, r.err.find('\n', at) - at);
}

TEST(BoundsChecks, GeneratedCasesMatchTheInterpreterAndFailWithItsMessage) {
  int trial = 0;
  for (const Case& c : kCases) {
    const std::string path = write_scratch(std::string("bounds_") + c.name + ".rise", c.program);
    for (const char* target : {"c", "openmp", "opencl"}) {
      if (c.gpu_only && std::string(target) != "opencl") continue;
      // Two random inputs each; under the sanitizers the first (build_info.h), the same
      // sizes as in the Release run, whose compiled programs the run finds in the cache.
      const int rounds = static_cast<int>(risec::test::per_build(2, 1));
      for (int round = 0; round < 2; ++round, ++trial) {
        if (round >= rounds) continue;
        const uint64_t seed = runtime::derive_seed(32, static_cast<uint64_t>(trial));
        auto draw = [&](uint64_t k, int below) {
          return static_cast<int>(runtime::derive_seed(seed, k) % static_cast<uint64_t>(below));
        };
        const int n = 3 + draw(1, 30), m = 2 + draw(2, 15);
        std::vector<int32_t> xs;
        for (int i = 0; i < n; ++i)
          xs.push_back(c.lo + draw(10 + static_cast<uint64_t>(i), c.hi(m) - c.lo));
        const std::string sizes = "n=" + std::to_string(n) + ",m=" + std::to_string(m);
        std::vector<std::string> common = {"--size", sizes, "--target", target};
        if (std::string(target) == "openmp")
          common.insert(common.end(),
                        {"--strategy", write_scratch("bounds_par.elv",
                                                     "try(parallel @ outermost(isApplied(isMap)))"
                                                     " ; lowerToC")});
        const std::string where = std::string(c.name) + " " + target + " " + sizes;
        // In range: the interpreter's result.
        {
          std::vector<std::string> args = {"run", path, "--check", "--input",
                                           "xs=" + npy_i32("ok" + std::to_string(trial), xs)};
          args.insert(args.end(), common.begin(), common.end());
          CliResult r = run_risec(args);
          EXPECT_EQ(r.exit_code, 0) << where << "\n" << show(r);
        }
        // One value out of range (below the range, or at or above its end): exit 4 with
        // the interpreter's message.
        std::vector<int32_t> bad = xs;
        bad[static_cast<size_t>(draw(3, n))] =
            round == 0 ? c.lo - 1 - draw(4, 5) : c.bad_from(m) + draw(5, 5);
        const std::string bad_file = "xs=" + npy_i32("bad" + std::to_string(trial), bad);
        CliResult ev = run_risec({"eval", path, "--size", sizes, "--input", bad_file});
        const std::string msg = interpreter_message(ev);
        ASSERT_FALSE(msg.empty()) << where << "\n" << show(ev);
        std::vector<std::string> args = {"run", path, "--input", bad_file};
        args.insert(args.end(), common.begin(), common.end());
        CliResult r = run_risec(args);
        EXPECT_EQ(r.exit_code, 4) << where << "\n" << show(r);
        EXPECT_NE(r.err.find("the program stopped: f: " + msg), std::string::npos)
            << where << ": expected the interpreter's message '" << msg << "'\n"
            << show(r);
      }
    }
  }
}

// The named case of the issue: a histogram with fewer bins than values wrote past its
// output and exited 0.
TEST(BoundsChecks, AHistogramWithTooFewBinsStops) {
  const std::string path = write_scratch("bounds_hist.rise", kCases[1].program);
  const std::string xs = "xs=" + npy_i32("hist", {0, 1, 2, 3, 7, 1});
  CliResult r = run_risec({"run", path, "--size", "n=6,m=4", "--input", xs});
  EXPECT_EQ(r.exit_code, 4) << show(r);
  EXPECT_NE(r.err.find("the program stopped: f: natAsIndex(4): 7 is out of range"),
            std::string::npos)
      << show(r);
}

// A float cast to an index or natType has no meaning (the interpreter refuses it when
// it runs): compiling it is a located error, not a C conversion.
TEST(BoundsChecks, AFloatCastToAnIndexIsRefusedLocated) {
  for (const char* body : {"idx(cast(v):idx[m])(x)", "idx(natAsIndex(m)(cast(v):natType))(x)"}) {
    const std::string path = write_scratch(
        "bounds_float.rise",
        std::string("def f = depFun((n: Nat, m: Nat) => fun(xs: n.f32 => fun(x: m.f32 =>\n"
                    "  xs |> map(fun(v => ") +
            body + ")))))");
    CliResult r = run_risec({"compile", path, "--size", "n=4,m=4"});
    EXPECT_EQ(r.exit_code, 1) << show(r);
    EXPECT_NE(r.err.find("bounds_float.rise:2:"), std::string::npos) << show(r);
    EXPECT_NE(r.err.find("cast it to an integer type first"), std::string::npos) << show(r);
  }
}

// The shape of the code: checks where an index is made from data, none with
// --no-bounds-checks, none where the index is proven in range, and inputs of indices
// checked once on entry (before any loop), on every target's host.
TEST(BoundsChecks, TheOptOutRemovesEveryCheckAndProvenIndicesHaveNone) {
  for (const Case& c : kCases) {
    const std::string path = write_scratch(std::string("shape_") + c.name + ".rise", c.program);
    const std::string target = c.gpu_only ? "opencl" : "c";
    CliResult on = run_risec({"compile", path, "--size", "n=8,m=5", "--target", target});
    ASSERT_EQ(on.exit_code, 0) << show(on);
    EXPECT_NE(on.out.find("risec_index("), std::string::npos) << c.name << "\n" << on.out;
    CliResult off =
        run_risec({"compile", path, "--size", "n=8,m=5", "--target", target, "--no-bounds-checks"});
    ASSERT_EQ(off.exit_code, 0) << show(off);
    EXPECT_EQ(off.out.find("risec_index"), std::string::npos) << c.name << "\n" << off.out;
    EXPECT_EQ(off.out.find("risec_bounds_fail"), std::string::npos) << c.name << "\n" << off.out;
    EXPECT_EQ(off.out.find("risec_fault"), std::string::npos) << c.name << "\n" << off.out;
  }
  // natAsIndex of a loop index proven in range: nothing to check.
  const std::string proven =
      write_scratch("shape_proven.rise",
                    "def f = depFun((n: Nat) => fun(x: n.f32 =>\n"
                    "  generate(fun(i: idx[n] => idx(natAsIndex(n)(indexAsNat(i)))(x)))))");
  CliResult p = run_risec({"compile", proven, "--size", "n=8"});
  ASSERT_EQ(p.exit_code, 0) << show(p);
  EXPECT_EQ(p.out.find("risec_index"), std::string::npos) << p.out;
  // Inputs of indices: one loop on entry, before the computation, in the host code of
  // every target; gather through them needs no other check.
  const std::string input =
      write_scratch("shape_input.rise",
                    "def f = depFun((n: Nat, m: Nat) => fun(ixs: n.idx[m] => fun(x: m.f32 =>\n"
                    "  gather(ixs)(x) |> map(fun(a => a * 2.0f)))))");
  for (const char* target : {"c", "openmp", "opencl"}) {
    CliResult on = run_risec({"compile", input, "--size", "n=8,m=5", "--target", target});
    ASSERT_EQ(on.exit_code, 0) << show(on);
    EXPECT_EQ(occurrences(on.out, "RISEC_IDX_INPUT, risec_v"), 1) << target << "\n" << on.out;
    EXPECT_EQ(on.out.find("risec_index("), std::string::npos) << target << "\n" << on.out;
    CliResult off = run_risec(
        {"compile", input, "--size", "n=8,m=5", "--target", target, "--no-bounds-checks"});
    EXPECT_EQ(off.out.find("RISEC_IDX_INPUT, risec_v"), std::string::npos) << off.out;
  }
}

// Item 8: --bind of thousands of values is one static table, read in place: the code
// stays a few statements whatever the number of values (it was one statement per value
// in C and one kernel per value in OpenCL), and computes what the interpreter does.
TEST(BoundData, ThousandsOfValuesAreOneStaticTable) {
  const std::string path =
      write_scratch("bind_big.rise",
                    "def f = depFun((n: Nat) => fun(w: n.f32 => fun(x: n.f32 =>\n"
                    "  zip(w)(x) |> map(fun(p => p._1 * p._2)))))");
  // Under the sanitizers the size that is not a power of two alone (build_info.h).
  const std::vector<int> ns =
      risec::test::sanitized_sample() ? std::vector<int>{4000} : std::vector<int>{4096, 4000, 1024};
  for (int n : ns) {
    runtime::NdArray a = runtime::make_array(runtime::DType::F32, {n});
    for (int i = 0; i < n; ++i) a.as<float>()[i] = static_cast<float>(i % 7) - 2.5f;
    const std::string w = scratch_path("w" + std::to_string(n) + ".npy");
    runtime::write_npy(w, a);
    const std::string sizes = "n=" + std::to_string(n);
    for (const char* target : {"c", "opencl"}) {
      CliResult c =
          run_risec({"compile", path, "--size", sizes, "--bind", "w=" + w, "--target", target});
      ASSERT_EQ(c.exit_code, 0) << show(c);
      const bool cl = std::string(target) == "opencl";
      EXPECT_NE(
          c.out.find(cl ? "__constant float risec_table_" : "static const float risec_table_"),
          std::string::npos)
          << target << " " << n;
      // Statements: lines ending in ';' (the table's values end in ',').
      EXPECT_LT(occurrences(c.out, ";\n"), 400) << target << " " << n;
      if (cl) {
        // Each kernel is printed twice (the kernels' listing and the host's copy): at
        // most two, the parallel map and one work item storing the values left over
        // (one kernel for all of them, not one a value).
        EXPECT_LE(occurrences(c.out, "__kernel void"), 4) << n;
      }
      CliResult r = run_risec(
          {"run", path, "--size", sizes, "--bind", "w=" + w, "--target", target, "--check"});
      EXPECT_EQ(r.exit_code, 0) << target << " " << n << "\n" << show(r);
    }
  }
}

// Item 8: repeatN stops when a step changes nothing (repeatN(2^31 - 1, id) ran for
// minutes), and its count is 64-bit: 2^32 + 1 steps of a rule that applies twice
// convert both maps (a count truncated to int would have been 1).
TEST(RepeatN, EndsWhenNothingChangesAndCountsAre64Bit) {
  const std::string prog =
      write_scratch("repeatn.rise", "def f = fun(x: 4.4.f32 => x |> map(map(fun(a => a + 1.0f))))");
  CliResult r = run_risec(
      {"rewrite", prog, "--strategy", write_scratch("repeatn_id.elv", "repeatN(2147483647, id)")});
  EXPECT_EQ(r.exit_code, 0) << show(r);
  r = run_risec({"rewrite", prog, "--strategy",
                 write_scratch("repeatn_big.elv", "repeatN(4294967297, try(topDown(mapSeq)))")});
  EXPECT_EQ(r.exit_code, 0) << show(r);
  EXPECT_EQ(occurrences(r.out, "mapSeq"), 2) << r.out;
  EXPECT_EQ(r.out.find("map("), std::string::npos) << r.out;
  r = run_risec({"rewrite", prog, "--strategy",
                 write_scratch("repeatn_huge.elv", "repeatN(99999999999999999999, id)")});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_NE(r.err.find("repeatn_huge.elv:1:"), std::string::npos) << show(r);
}

}  // namespace
}  // namespace risec::e2e
