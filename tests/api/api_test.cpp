// The public C++ API (include/risec/risec.h), used only through its header as an
// embedding program would: parsing and checking, strategies from text, files and
// C++ combinators, code for each target, calling compiled kernels on caller-owned
// buffers, and errors carrying the command line's located messages and kinds.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "risec/risec.h"

namespace {

// A private cache of compiled code, removed at exit (unless one is already set).
const bool kPrivateCache = [] {
  if (std::getenv("RISEC_CACHE_DIR")) return false;
  static std::string dir = (std::filesystem::temp_directory_path() / "risec-api-XXXXXX").string();
  if (!::mkdtemp(dir.data())) return false;
  ::setenv("RISEC_CACHE_DIR", dir.c_str(), 1);
  std::atexit([] { std::filesystem::remove_all(dir); });
  return true;
}();

std::string path(const std::string& rel) {
  return std::string(RISEC_SOURCE_DIR) + "/" + rel;
}

const char* kScal = R"(def scal = depFun(n: Nat =>
  fun(alpha: f32 => fun(x: n.f32 =>
    x |> map(fun(xi => alpha * xi)))))
)";

// Any Error thrown by `f`, or a failed test.
template <class F>
risec::Error error_of(F f) {
  try {
    f();
  } catch (const risec::Error& e) {
    return e;
  }
  ADD_FAILURE() << "no risec::Error thrown";
  return risec::Error(risec::ErrorKind::Internal, "none");
}

TEST(Api, ParseCheckAndPrint) {
  risec::Program p = risec::Program::parse(kScal, "scal.rise");
  EXPECT_EQ(p.definitions(), std::vector<std::string>{"scal"});
  risec::Function f = p.check();
  EXPECT_EQ(f.name(), "scal");
  EXPECT_EQ(f.type(), "(n: Nat) -> f32 -> n.f32 -> n.f32");
  EXPECT_NE(f.print().find("def scal = "), std::string::npos);
  EXPECT_EQ(p.check("scal", {{"n", 8}}).type(), "f32 -> 8.f32 -> 8.f32");
  // A program from a file, with a side condition on a symbolic size.
  risec::Function mm = risec::Program::load(path("examples/mm/mm.rise")).check();
  EXPECT_NE(mm.type().find("n: Nat"), std::string::npos) << mm.type();
}

TEST(Api, ErrorsAreLocatedWithTheCommandLinesKinds) {
  // A type error: located in the named source, kind User (exit code 1).
  risec::Error e = error_of(
      [] { risec::Program::parse("def f = fun(x: f32 => x + true)\n", "bad.rise").check(); });
  EXPECT_EQ(e.kind(), risec::ErrorKind::User);
  EXPECT_EQ(risec::exit_code(e.kind()), 1);
  ASSERT_TRUE(e.span().known());
  EXPECT_EQ(e.span().start().line, 1);
  std::string text = risec::format_error(e);
  EXPECT_EQ(text.rfind("bad.rise:1:", 0), 0u) << text;
  EXPECT_NE(text.find("^"), std::string::npos) << text;
  // A syntax error in a strategy is located in the strategy text.
  risec::Error s = error_of([] { risec::Strategy::parse("let main = topDown(;\n", "s.elv"); });
  EXPECT_EQ(s.kind(), risec::ErrorKind::User);
  EXPECT_EQ(risec::format_error(s).rfind("s.elv:1:", 0), 0u) << risec::format_error(s);
  // Unknown entries, rules and targets; a file that cannot be read.
  EXPECT_EQ(error_of([] { risec::Program::parse(kScal).check("nope"); }).kind(),
            risec::ErrorKind::Usage);
  EXPECT_EQ(error_of([] { risec::Strategy::library("noSuchRule"); }).kind(),
            risec::ErrorKind::User);
  risec::CompileOptions o;
  o.target = "fortran";
  risec::Error t = error_of([&] { risec::compile(risec::Program::parse(kScal), o); });
  EXPECT_EQ(t.kind(), risec::ErrorKind::Usage);
  EXPECT_NE(t.message().find("fortran"), std::string::npos);
  EXPECT_EQ(error_of([] { risec::Program::load("/no/such/file.rise"); }).kind(),
            risec::ErrorKind::User);
}

TEST(Api, AFailingStrategyNamesItsRule) {
  risec::Function f = risec::Program::parse(kScal, "scal.rise").check();
  risec::Error e = error_of([&] { f.rewrite(risec::Strategy::library("mapFusion")); });
  EXPECT_EQ(e.kind(), risec::ErrorKind::User);
  EXPECT_NE(e.message().find("strategy failed: mapFusion"), std::string::npos) << e.message();
}

// Sets $RISEC_LANES (the documented override of the machine's vector width) for one
// test, so that expectations written for 16 lanes hold on AVX2 and AVX-512 hosts alike.
class SixteenLanes {
 public:
  SixteenLanes() {
    if (const char* v = ::getenv("RISEC_LANES")) saved_ = v;
    ::setenv("RISEC_LANES", "16", 1);
  }
  ~SixteenLanes() {
    if (saved_.empty())
      ::unsetenv("RISEC_LANES");
    else
      ::setenv("RISEC_LANES", saved_.c_str(), 1);
  }

 private:
  std::string saved_;
};

TEST(Api, StrategiesFromTextFilesAndCombinatorsAgree) {
  using namespace risec::strategies;
  SixteenLanes lanes;  // vector16.elv says `vectorize(lanes)`
  risec::Program p = risec::Program::load(path("examples/scal/scal.rise"));
  risec::Strategy text = risec::Strategy::parse(
      "let main = (vectorize(16) @ outermost(isApplied(isMap))) ; lowerToC;");
  risec::Strategy file = risec::Strategy::load(path("examples/scal/vector16.elv"));
  risec::Strategy built =
      outermost(risec::Strategy::library("isApplied", {risec::Strategy::library("isMap")}),
                risec::Strategy::library("vectorize", {16})) >>
      lower_to_c();
  std::vector<std::string> codes;
  for (const risec::Strategy& s : {text, file, built}) {
    risec::CompileOptions o;
    o.strategy = s;
    codes.push_back(risec::compile(p, o).code());
  }
  EXPECT_EQ(codes[0], codes[1]);
  EXPECT_EQ(codes[0], codes[2]);
  EXPECT_NE(codes[0].find("16"), std::string::npos);
  // Rewriting gives the program the strategy produced.
  std::string low = p.check().rewrite(built).print();
  EXPECT_NE(low.find("mapSeq"), std::string::npos) << low;
  // lchoice and try: the first alternative fails, the second applies.
  risec::Function f = p.check().rewrite(try_(risec::Strategy::library("mapFusion")) >>
                                        (risec::Strategy::library("mapFusion") | lower_to_c()));
  EXPECT_NE(f.print().find("mapSeq"), std::string::npos);
}

TEST(Api, SourceForEachTarget) {
  risec::Program p = risec::Program::parse(kScal);
  for (const char* target : {"c", "openmp", "opencl"}) {
    risec::CompileOptions o;
    o.target = target;
    if (std::string(target) == "openmp")
      o.strategy = risec::Strategy::load(path("examples/scal/parallel_vector16.elv"));
    if (std::string(target) == "opencl")
      o.strategy = risec::Strategy::load(path("examples/scal/global.elv"));
    risec::Source s = risec::compile(p, o);
    EXPECT_EQ(s.name(), "scal");
    EXPECT_EQ(s.target(), target);
    EXPECT_EQ(s.size_parameters(), std::vector<std::string>{"n"});
    ASSERT_EQ(s.inputs().size(), 2u);
    EXPECT_EQ(s.inputs()[1].name, "x");
    EXPECT_EQ(s.inputs()[1].type, "n.f32");
    EXPECT_EQ(s.output().type, "n.f32");
    EXPECT_EQ(s.output().element, risec::ScalarType::F32);
    EXPECT_NE(s.header().find("void scal("), std::string::npos);
    EXPECT_FALSE(s.dpia().empty());
    EXPECT_EQ(s.kernels().empty(), std::string(target) != "opencl");
    if (std::string(target) == "openmp") {
      EXPECT_NE(s.code().find("#pragma omp parallel for"), std::string::npos);
    }
  }
}

TEST(Api, KernelRunsOnCallerBuffersGenericInTheSizes) {
  risec::Kernel k = risec::jit(risec::Program::parse(kScal));
  for (int64_t n : {1, 7, 100}) {
    std::vector<float> x(n), y(n, -1.0f);
    std::iota(x.begin(), x.end(), 1.0f);
    float alpha = 2.5f;
    EXPECT_EQ(k.bytes("x", {{"n", n}}), size_t(n) * 4);
    const std::vector<float>& cx = x;  // inputs may be const
    k(y, {risec::Buffer(&alpha, 1), cx}, {{"n", n}});
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(y[i], alpha * x[i]) << "n " << n << " i " << i;
  }
}

// An input may be called `output`: bytes() names it, output_bytes() the result, and
// the kernel runs with it (issue 32).
TEST(Api, OutputBytesIsTheResultWhateverTheInputsAreCalled) {
  for (int64_t n : {1, 3, 17}) {
    risec::Kernel k = risec::jit(
        risec::Program::parse("def f = depFun(n: Nat => fun(output: n.i32 => fun(v: f64 =>\n"
                              "  output |> reduceSeq(fun(a, x => a + 1.0f))(0.0f))))\n"));
    risec::Sizes sz = {{"n", n}};
    EXPECT_EQ(k.bytes("output", sz), size_t(n) * 4) << n;
    EXPECT_EQ(k.bytes("v", sz), size_t(8));
    EXPECT_EQ(k.output_bytes(sz), size_t(4));
    std::vector<int32_t> in(static_cast<size_t>(n), 1);
    double v = 0.5;
    float r = 0;
    k(risec::Buffer(&r, 1), {in, risec::Buffer(&v, 1)}, sz);
    EXPECT_EQ(r, static_cast<float>(n));
  }
  // Without an input of that name, "output" still names the result.
  risec::Kernel s = risec::jit(risec::Program::parse(kScal));
  EXPECT_EQ(s.bytes("output", {{"n", 5}}), s.output_bytes({{"n", 5}}));
  EXPECT_EQ(s.output_bytes({{"n", 5}}), size_t(20));
}

TEST(Api, KernelWithAStrategyOnEachCpuTarget) {
  // dot: a reduction to a scalar, parallel and vectorised on OpenMP.
  risec::Program p = risec::Program::load(path("examples/dot/dot.rise"));
  const int64_t n = 1024;
  std::vector<float> x(n), y(n);
  double want = 0;
  for (int64_t i = 0; i < n; ++i) {
    x[i] = float(i % 17) / 8;
    y[i] = float(i % 5) - 2;
    want += double(x[i]) * y[i];
  }
  for (const char* target : {"c", "openmp"}) {
    risec::CompileOptions o;
    o.target = target;
    o.sizes = {{"n", n}};  // specialised: the kernel takes no size argument
    if (std::string(target) == "openmp")
      o.strategy = risec::Strategy::load(path("examples/dot/parallel_vector16.elv"));
    risec::Kernel k = risec::jit(p, o);
    EXPECT_TRUE(k.source().size_parameters().empty());
    float got = 0;
    k(risec::Buffer(&got, 1), {x, y});
    EXPECT_NEAR(got, want, 1e-3 * std::fabs(want)) << target;
    k(risec::Buffer(&got, 1), {x, y}, {{"n", n}});  // repeating a fixed size is fine
  }
}

TEST(Api, KernelOnOpenCL) {
  // The host function launches the kernels on the installed platform (PoCL here).
  // In a child process: the OpenCL platform's own allocations, alive until exit,
  // would be reported as leaks of this test binary under LeakSanitizer.
  risec::CompileOptions o;
  o.target = "opencl";
  o.strategy = risec::Strategy::load(path("examples/scal/global.elv"));
  risec::Source source = risec::compile(risec::Program::parse(kScal), o);
  std::fflush(nullptr);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int status = 0;
    try {
      risec::Kernel k(source);
      std::vector<float> x(64), y(64);
      std::iota(x.begin(), x.end(), -10.0f);
      float alpha = -3;
      k(y, {risec::Buffer(&alpha, 1), x}, {{"n", 64}});
      for (size_t i = 0; i < x.size(); ++i)
        if (y[i] != alpha * x[i]) status = 1;
    } catch (const risec::Error& e) {
      std::fprintf(stderr, "%s", risec::format_error(e).c_str());
      status = 2;
    }
    ::_exit(status);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: a wrong element, 2: an error (on stderr)";
}

TEST(Api, KernelRefusesMismatchedBuffersAndSizes) {
  risec::Kernel k = risec::jit(risec::Program::parse(kScal));
  std::vector<float> x(8), y(8);
  float alpha = 1;
  std::vector<double> wrong_type(8);
  std::vector<float> short_x(7);
  auto usage = [](auto f) {
    risec::Error e = error_of(f);
    EXPECT_EQ(e.kind(), risec::ErrorKind::Usage) << e.message();
    return e.message();
  };
  risec::Sizes n8 = {{"n", 8}};
  EXPECT_NE(usage([&] {
              k(y, {risec::Buffer(&alpha, 1), wrong_type}, n8);
            }).find("holds f64"),
            std::string::npos);
  EXPECT_NE(usage([&] {
              k(y, {risec::Buffer(&alpha, 1), short_x}, n8);
            }).find("28 bytes"),
            std::string::npos);
  EXPECT_NE(usage([&] { k(y, {x}, n8); }).find("takes 2 input(s), 1 given"), std::string::npos);
  EXPECT_NE(usage([&] {
              k(y, {risec::Buffer(&alpha, 1), x});
            }).find("size n has no value"),
            std::string::npos);
  EXPECT_NE(usage([&] {
              k(y, {risec::Buffer(&alpha, 1), x}, {{"n", 8}, {"m", 2}});
            }).find("no size parameter 'm'"),
            std::string::npos);
  EXPECT_NE(usage([&] {
              k(y, {risec::Buffer(&alpha, 1), x}, {{"n", 0}});
            }).find("positive"),
            std::string::npos);
  EXPECT_NE(usage([&] { k.bytes("z", n8); }).find("no parameter 'z'"), std::string::npos);
  // A size breaking the program's condition is refused before the code runs (the
  // generated code would abort the process).
  SixteenLanes lanes;
  risec::CompileOptions o;
  o.strategy = risec::Strategy::load(path("examples/scal/vector16.elv"));
  risec::Kernel v = risec::jit(risec::Program::parse(kScal, "scal.rise"), o);
  std::vector<float> x20(20), y20(20);
  std::string m = usage([&] { v(y20, {risec::Buffer(&alpha, 1), x20}, {{"n", 20}}); });
  EXPECT_NE(m.find("n = 20"), std::string::npos) << m;
  EXPECT_NE(m.find("16 divides n"), std::string::npos) << m;
  EXPECT_NE(m.find("scal.rise:"), std::string::npos) << m;
  std::vector<float> x32(32), y32(32, -1.0f);
  v(y32, {risec::Buffer(&alpha, 1), x32}, {{"n", 32}});
  EXPECT_EQ(y32[31], 0.0f);
  // Raw bytes are checked by size only.
  k(risec::Buffer(static_cast<void*>(y.data()), y.size() * 4),
    {risec::Buffer(static_cast<void*>(&alpha), 4), x}, n8);
}

// Sizes the entry does not have are errors naming the nearest one, in the API's words
// (sizes["nn"], never the command line's --size), at every call that takes sizes
// (issue 32, item 9).
TEST(Api, UnknownSizesAreNamedInTheApisWords) {
  risec::Program p = risec::Program::parse(kScal);
  std::vector<std::pair<std::string, std::function<void()>>> calls = {
      {"check",
       [&] {
         p.check("", {{"nn", 8}});
       }},
      {"compile",
       [&] {
         risec::compile(p, {.sizes = {{"nn", 8}}});
       }},
      {"kernel", [&] {
         std::vector<float> x(8), y(8);
         float alpha = 1;
         risec::jit(p)(y, {risec::Buffer(&alpha, 1), x}, {{"nn", 8}});
       }}};
  for (const auto& [what, call] : calls) {
    SCOPED_TRACE(what);
    risec::Error e = error_of(call);
    EXPECT_EQ(e.kind(), risec::ErrorKind::Usage) << e.message();
    EXPECT_NE(e.message().find("'nn'"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("did you mean 'n'?"), std::string::npos) << e.message();
    EXPECT_EQ(e.message().find("--"), std::string::npos) << e.message();
  }
  risec::Error e = error_of([&] { p.check("", {{"n", 0}}); });
  EXPECT_NE(e.message().find("sizes[\"n\"] = 0: sizes must be positive"), std::string::npos)
      << e.message();
}

TEST(Api, CompilerFailureIsExternal) {
  // A C compiler that fails: the Error says so with kind External (exit code 4).
  const char* old = std::getenv("CC");
  std::string saved = old ? old : "";
  ::setenv("CC", "false", 1);
  risec::Error e = error_of([] {
    risec::Program p = risec::Program::parse(
        "def twice = depFun(n: Nat => fun(x: n.i32 => x |> map(fun(v => v + v))))\n");
    risec::jit(p);
  });
  if (old)
    ::setenv("CC", saved.c_str(), 1);
  else
    ::unsetenv("CC");
  EXPECT_EQ(e.kind(), risec::ErrorKind::External) << e.message();
  EXPECT_EQ(risec::exit_code(e.kind()), 4);
}

// CompileOptions::tuned (docs/tuning.md, "Results reused"): a database without a
// record for the program gives the default lowering's code; with a strategy it is a
// Usage error in the C++ API's words.
TEST(Api, TunedWithoutARecordIsTheDefaultLowering) {
  risec::Program p = risec::Program::parse(kScal, "scal.rise");
  const std::string db = std::string(std::getenv("RISEC_CACHE_DIR")) + "/api_tuned.db";
  std::filesystem::remove(db);
  risec::CompileOptions plain;
  plain.sizes = {{"n", 64}};
  risec::CompileOptions tuned = plain;
  tuned.tuned = true;
  tuned.tuning_db = db;
  EXPECT_EQ(risec::compile(p, tuned).code(), risec::compile(p, plain).code());
  EXPECT_FALSE(std::filesystem::exists(db));  // looking up creates no database
  tuned.strategy = risec::Strategy::library("lowerToC");
  risec::Error e = error_of([&] { risec::compile(p, tuned); });
  EXPECT_EQ(e.kind(), risec::ErrorKind::Usage);
  EXPECT_NE(std::string(e.what()).find("leave CompileOptions::strategy unset"), std::string::npos)
      << e.what();
}

TEST(Api, Version) {
  EXPECT_EQ(risec::version(), RISEC_VERSION);
}

}  // namespace

// Issue 32: parameters named like what risec generates (a size `i2`, an input `tmp1`)
// are not shadowed by the generic code's loop counter and temporary.
TEST(Api, KernelParametersNamedLikeGeneratedNames) {
  const char* text = R"(def f = depFun(i2: Nat => fun(tmp1: i2.f32 => fun(y: i2.f32 =>
  zip(tmp1)(y) |> map(fun(p => p._1 * p._2)) |> reduceSeq(fun(a => fun(v => a + v)))(0.0f)))))";
  risec::Kernel k = risec::jit(risec::Program::parse(text));
  for (int64_t n : {1, 5, 33}) {
    std::vector<float> x(n), y(n);
    std::iota(x.begin(), x.end(), 1.0f);
    std::iota(y.begin(), y.end(), 2.0f);
    float out = -1.0f, want = 0.0f;
    for (int64_t i = 0; i < n; ++i) want += x[i] * y[i];
    const std::vector<float>& cx = x;
    const std::vector<float>& cy = y;
    k(risec::Buffer(&out, 1), {cx, cy}, {{"i2", n}});
    EXPECT_EQ(out, want) << "n " << n;
  }
}
