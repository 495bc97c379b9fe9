// Compiled f32 exp, log and tanh (risec's own helpers, codegen/c/float_math.h) against the
// interpreter, which computes them in double and rounds: many random inputs (every
// bit pattern class: NaN, infinities, zeros, subnormals, the overflow and underflow
// edges, ordinary values) through the default lowering and vectorised lane loops of
// several widths, on C and OpenMP, within the documented ulp bound, specials exact.
// And the loop of a compiled exp map is vectorised by the C compiler (the C library's
// expf, a call, kept it scalar), whatever the host's vector width.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "codegen/c/float_math.h"
#include "driver/commands.h"
#include "e2e_util.h"
#include "elevate/parser.h"
#include "runtime/jit.h"
#include "runtime/npy.h"
#include "runtime/process.h"
#include "support/random.h"

namespace risec::e2e {
namespace {

std::string math_program(const char* fn) {
  return std::string("def f = depFun((n: Nat) => fun(x: n.f32 => x |> map(fun(v => ") + fn +
         "(v)))))\n";
}

// n inputs from `seed`: a third arbitrary bit patterns (NaNs, infinities, subnormals
// and huge values among them), a third uniform over [-110, 100] (exp's whole finite
// range and both edges), a third positive over many binades (log's domain), with the
// special values at the front.
std::vector<float> inputs(int n, uint64_t seed) {
  std::vector<float> v = {
      0.0f,      -0.0f,           INFINITY,       -INFINITY,     NAN,        1.0f,
      -1.0f,     0x1p-149f,       -0x1p-149f,     0.625f,        -0.625f,    9.0f,
      0x1p-126f, 0x1.fffffep127f, 88.72283f,      88.72284f,     -87.33655f, -103.97208f,
      -104.5f,   0x1.555556p-1f,  0x1.555554p-1f, 0x1.555556p+0f};
  for (uint64_t i = 0; static_cast<int>(v.size()) < n; ++i) {
    uint64_t r = runtime::derive_seed(seed, i);
    uint32_t bits = static_cast<uint32_t>(r >> 32);
    float x = 0;
    switch (r % 3) {
      case 0:
        std::memcpy(&x, &bits, sizeof x);
        break;
      case 1:
        x = -110.0f + 210.0f * static_cast<float>(bits >> 8) / 16777216.0f;
        break;
      default:
        x = std::ldexp(1.0f + static_cast<float>(bits >> 9) / 8388608.0f,
                       static_cast<int>(r >> 8 & 0xFF) - 149);
    }
    v.push_back(x);
  }
  return v;
}

// The distance of got from want (floats) in units of want's last place; 0 when both
// are the same NaN-or-infinity class, infinite when only one is (or for zeros of
// opposite signs).
double ulp_distance(double got, double want) {
  if (std::isnan(want) || std::isnan(got))
    return std::isnan(want) && std::isnan(got) ? 0 : INFINITY;
  if (std::isinf(want) || std::isinf(got)) return want == got ? 0 : INFINITY;
  if (want == 0 && got == 0) return std::signbit(want) == std::signbit(got) ? 0 : INFINITY;
  double a = std::fabs(want);
  double ulp = a < 0x1p-126 ? 0x1p-149 : std::ldexp(1.0, std::ilogb(a) - 23);
  return std::fabs(got - want) / ulp;
}

std::string strategy(int w, const std::string& target) {
  if (w == 0) return "";
  std::string v = "(vectorize(" + std::to_string(w) + ") @ outermost(isFullyApplied(isMap)))";
  if (target == "openmp") v += " ; (parallel @ outermost(isFullyApplied(isMap)))";
  return v + " ; lowerToC";
}

TEST(FloatMathE2E, RandomInputsMatchTheInterpreterWithinTheUlpBound) {
  const int n = 4096;
  for (const char* fn : {"exp", "log", "tanh"}) {
    std::string file = write_scratch(std::string("float_math_") + fn + ".rise", math_program(fn));
    for (uint64_t seed : {1u, 2u, 3u}) {
      std::vector<float> xs = inputs(n, seed * 7919 + std::string(fn).size());
      runtime::NdArray a = runtime::make_array(runtime::DType::F32, {n});
      std::memcpy(a.as<float>(), xs.data(), sizeof(float) * n);
      std::string in = scratch_path(std::string("float_math_in_") + fn + ".npy");
      runtime::write_npy(in, a);
      for (const std::string target : {"c", "openmp"}) {
        for (int w : {0, 4, 8, 16}) {
          SCOPED_TRACE(std::string(fn) + " seed " + std::to_string(seed) + " " + target +
                       " width " + std::to_string(w));
          CheckOptions o;
          o.target = target;
          o.inputs = {{"x", in}};
          CheckReport r = run_and_compare(file, strategy(w, target), "n=" + std::to_string(n), o);
          std::vector<double> got = flat_values(r.execution.output), want = flat_values(r.expected);
          ASSERT_EQ(got.size(), want.size());
          int bad = 0;
          for (size_t i = 0; i < got.size(); ++i) {
            double d = ulp_distance(got[i], want[i]);
            if (d > codegen::kFloatMathMaxUlp && bad++ < 5)
              ADD_FAILURE() << fn << "(" << std::hexfloat << xs[i] << ") = " << got[i]
                            << ", the interpreter's " << want[i] << std::defaultfloat << " (" << d
                            << " ulp)";
          }
        }
      }
    }
  }
}

// The loop of `map(exp)` (log, tanh; default lowering) and the lane loops of
// vectorize(w) at widths 4, 8 and 16 are vectorised by GCC with risec's flags:
// -fopt-info-vec names the line of each vectorised loop. Checked for the loop holding the call in
// the entry, and for every lane loop (RISEC_SIMD_LOOP, RISEC_SIMD_LANES(n)); the vector
// size GCC picks is not.
TEST(FloatMathE2E, CompiledMathLoopsAreVectorised) {
  for (const char* fn : {"exp", "log", "tanh"}) {
    std::string file =
        write_scratch(std::string("float_math_vec_") + fn + ".rise", math_program(fn));
    for (int w : {0, 4, 8, 16}) {
      SCOPED_TRACE(std::string(fn) + " width " + std::to_string(w));
      rise::Program p = driver::load_program(file);
      rise::SizeMap sizes{{"n", 4096}};
      std::optional<elevate::Strategy> s;
      if (w) s = elevate::parse_strategy(strategy(w, "c"), "<strategy>");
      driver::CompileRequest req;
      req.program = &p;
      req.sizes = &sizes;
      req.strategy = s ? &*s : nullptr;
      req.target = "c";
      std::string src = driver::compile(req).unit.source;
      std::string helper = std::string("risec_") + fn + "_f32";
      // the lines to be vectorised: each lane loop's `for` (after its pragma), and
      // with no lanes, the `for` nearest above the entry's call of the helper
      // A lane loop in the #else of a whole-vector helper's guard (exp on 4, 8, 16
      // lanes with AVX-512 intrinsics, codegen::float_math_vector) is compiled only
      // where the guard is false on this compiler's target.
      std::vector<int> loops;
      std::istringstream lines(src);
      int at = 0, last_for = 0;
      bool in_entry = false, next_is_lane_loop = false, skip_fallback = false, skipped = false;
      FallbackLines fallback;
      for (std::string line; std::getline(lines, line);) {
        ++at;
        if (line.rfind("void f(", 0) == 0) in_entry = true;
        skip_fallback = fallback.skipped(line);
        if (line.find("for (") != std::string::npos) {
          last_for = at;
          if (next_is_lane_loop && !skip_fallback) loops.push_back(at);
          skipped = skipped || (next_is_lane_loop && skip_fallback);
        }
        const std::string trimmed = line.find_first_not_of(' ') != std::string::npos
                                        ? line.substr(line.find_first_not_of(' '))
                                        : std::string();
        next_is_lane_loop =
            trimmed == "RISEC_SIMD_LOOP" || trimmed.rfind("RISEC_SIMD_LANES(", 0) == 0;
        if (w == 0 && in_entry && line.find(helper + "(") != std::string::npos) {
          loops.push_back(last_for);
          break;
        }
      }
      ASSERT_TRUE(!loops.empty() || skipped) << src;
      if (skipped) {
        EXPECT_NE(src.find("_scalef_ps(p, n)"), std::string::npos) << src;
      }
      EXPECT_NE(src.find("static inline float " + helper + "(float x)"), std::string::npos);
      std::string path = scratch_path(std::string("float_math_vec_") + fn + ".c");
      std::ofstream(path) << src;
      std::vector<std::string> argv = runtime::c_compiler();
      for (const std::string& f : runtime::compile_flags({}, false)) argv.push_back(f);
      for (const char* f : {"-S", "-o", "/dev/null", "-fopt-info-vec-optimized"}) argv.push_back(f);
      argv.push_back(path);
      runtime::ProcessResult r = runtime::run_process(argv);
      if (!r.ok() && r.err.find("fopt-info") != std::string::npos)
        GTEST_SKIP() << "the C compiler does not take -fopt-info-vec (not GCC)";
      ASSERT_TRUE(r.ok()) << r.err;
      std::set<int> vectorised;
      const std::string mark = ": optimized: loop vectorized";
      for (size_t pos = r.err.find(mark); pos != std::string::npos;
           pos = r.err.find(mark, pos + 1)) {
        size_t bol = r.err.rfind('\n', pos);
        std::string head = r.err.substr(bol == std::string::npos ? 0 : bol + 1, pos - bol - 1);
        size_t c2 = head.rfind(':'), c1 = c2 == std::string::npos ? c2 : head.rfind(':', c2 - 1);
        if (c1 != std::string::npos) vectorised.insert(std::stoi(head.substr(c1 + 1, c2 - c1 - 1)));
      }
      for (int loop : loops)
        EXPECT_TRUE(vectorised.count(loop) || vectorised.count(loop + 1))
            << "the loop at line " << loop << " was not vectorised:\n"
            << r.err << "\n"
            << src;
    }
  }
}

}  // namespace
}  // namespace risec::e2e
