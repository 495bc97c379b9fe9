// risec's own f32 exp, log and tanh (codegen/c/float_math.h) against the C library's double
// functions, whose results rounded to float are what the interpreter computes: a
// sweep over the float bit patterns (every 97th by default, all 2^32 with
// RISEC_FULL_ULP_SWEEP=1, about a minute per function) must stay within the
// documented ulp bound, and every special value (NaN, infinities, zeros, subnormals,
// the overflow and underflow edges) must come out as the C library's does. The helper
// is compiled as generated code is, with risec's own C flags, in a loop that GCC
// vectorises, so the vector code is what is measured.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "codegen/c/float_math.h"
#include "runtime/jit.h"
#include "runtime/process.h"

using namespace risec;

namespace {

// The sweep: the helper over blocks of bit patterns (a loop GCC vectorises), each
// result compared with the double function's. Prints "MAXULP <ulp> AT <x>" and one
// line "SPECIAL x got want" per special value the helper gets wrong (a NaN or an
// infinity where the C library's rounded result has none, or the other way round, or
// a zero of the other sign).
const char* kSweep = R"(
#include <stdio.h>
#include <stdlib.h>
static void apply(float* restrict out, const float* restrict in, int n) {
  for (int i = 0; i < n; ++i) out[i] = FN(in[i]);
}
static double ulp_of(double v) {
  v = fabs(v);
  if (v < 0x1p-126) return 0x1p-149;
  int e;
  frexp(v, &e);
  return ldexp(1.0, e - 24);
}
static double worst = 0;
static float worst_x = 0;
static void check(const float* in, const float* out, int n) {
  for (int j = 0; j < n; ++j) {
    double ref = REF((double)in[j]);
    float want = (float)ref, got = out[j];
    if (want == 0 && got == 0 && signbit(want) != signbit(got))
      printf("SPECIAL %a %a %a\n", in[j], got, want);
    if (isnan(want) || isnan(got) || isinf(want) || isinf(got)) {
      if (!(isnan(want) && isnan(got)) && want != got)
        printf("SPECIAL %a %a %a\n", in[j], got, want);
      continue;
    }
    double err = fabs((double)got - ref) / ulp_of(ref);
    if (err > worst) worst = err, worst_x = in[j];
  }
}
int main(int argc, char** argv) {
  unsigned long long step = strtoull(argv[1], 0, 10);
  static float in[4096], out[4096];
  static const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 1.0f, -1.0f,
      0x1p-149f, -0x1p-149f, 0x1p-126f, 0x1.fffffep-127f, 0x1.fffffep127f, -0x1.fffffep127f,
      88.72283f, 88.72284f, 89.0f, 89.5f, -87.33654f, -87.33655f, -103.27893f, -103.97208f,
      -104.0f, -104.5f, 2.0f, 0.5f, 0x1.555556p-1f, 0x1.555554p-1f, 0x1.555556p+0f,
      /* exp's sum x log2 e + 1.5 * 2^23 leaves the integers near here, and is inf above */
      2907270.0f, 2907272.0f, 0x1p24f, 1e30f, -1e30f, 1e38f, -0x1p24f};
  int ns = sizeof specials / sizeof specials[0];
  apply(out, specials, ns);
  check(specials, out, ns);
  for (unsigned long long base = 0; base < (1ull << 32); base += 4096 * step) {
    int n = 0;
    for (unsigned long long b = base; b < base + 4096 * step && b < (1ull << 32); b += step) {
      unsigned u = (unsigned)b;
      memcpy(&in[n++], &u, sizeof u);
    }
    apply(out, in, n);
    check(in, out, n);
  }
  printf("MAXULP %.4f AT %a\n", worst, worst_x);
  return 0;
}
)";

struct Sweep {
  double max_ulp = -1;
  std::string at, specials, output;
};

Sweep sweep(rise::PrimId id, const char* ref, unsigned long long step) {
  std::optional<codegen::FloatMathHelper> h = codegen::float_math_helper(id, rise::ScalarKind::F32);
  EXPECT_TRUE(h.has_value());
  if (!h) return {};
  std::string dir = ::testing::TempDir() + "/risec_float_math_" + std::to_string(::getpid());
  std::string src = dir + "_" + h->name + ".c", exe = dir + "_" + h->name + ".exe";
  std::ofstream(src) << "#include <stdint.h>\n#include <string.h>\n#include <math.h>\n"
                     << codegen::float_math_definitions(id, rise::ScalarKind::F32) << "#define FN "
                     << h->name << "\n#define REF " << ref << "\n"
                     << kSweep;
  std::vector<std::string> argv = runtime::c_compiler();
  for (const std::string& f : runtime::compile_flags({}, false)) argv.push_back(f);
  for (const std::string& f : {std::string("-o"), exe, src, std::string("-lm")}) argv.push_back(f);
  runtime::ProcessResult c = runtime::run_process(argv);
  EXPECT_TRUE(c.ok()) << c.err;
  Sweep s;
  if (!c.ok()) return s;
  runtime::ProcessResult r = runtime::run_process({exe, std::to_string(step)});
  std::remove(src.c_str());
  std::remove(exe.c_str());
  EXPECT_TRUE(r.ok()) << r.describe() << r.err;
  s.output = r.out;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("SPECIAL ", 0) == 0) s.specials += line + "\n";
    char at[64] = {0};
    if (std::sscanf(line.c_str(), "MAXULP %lf AT %63s", &s.max_ulp, at) == 2) s.at = at;
  }
  return s;
}

unsigned long long sweep_step() {
  const char* full = std::getenv("RISEC_FULL_ULP_SWEEP");
  return full && std::string(full) == "1" ? 1 : 97;
}

TEST(FloatMath, ExpWithinTheDocumentedUlpEverywhere) {
  Sweep s = sweep(rise::PrimId::Exp, "exp", sweep_step());
  EXPECT_GE(s.max_ulp, 0) << s.output;
  EXPECT_LE(s.max_ulp, codegen::kFloatMathMaxUlp) << "at " << s.at;
  EXPECT_EQ(s.specials, "");
  std::printf("exp: max %.4f ulp at %s\n", s.max_ulp, s.at.c_str());
}

TEST(FloatMath, LogWithinTheDocumentedUlpEverywhere) {
  Sweep s = sweep(rise::PrimId::Log, "log", sweep_step());
  EXPECT_GE(s.max_ulp, 0) << s.output;
  EXPECT_LE(s.max_ulp, codegen::kFloatMathMaxUlp) << "at " << s.at;
  EXPECT_EQ(s.specials, "");
  std::printf("log: max %.4f ulp at %s\n", s.max_ulp, s.at.c_str());
}

TEST(FloatMath, TanhWithinTheDocumentedUlpEverywhere) {
  Sweep s = sweep(rise::PrimId::Tanh, "tanh", sweep_step());
  EXPECT_GE(s.max_ulp, 0) << s.output;
  EXPECT_LE(s.max_ulp, codegen::kFloatMathMaxUlp) << "at " << s.at;
  EXPECT_EQ(s.specials, "");
  std::printf("tanh: max %.4f ulp at %s\n", s.max_ulp, s.at.c_str());
}

// Only f32 exp, log and tanh have helpers: f64 and the other functions call the C library.
TEST(FloatMath, OnlyF32ExpLogAndTanh) {
  EXPECT_FALSE(codegen::float_math_helper(rise::PrimId::Exp, rise::ScalarKind::F64));
  EXPECT_FALSE(codegen::float_math_helper(rise::PrimId::Sin, rise::ScalarKind::F32));
  EXPECT_TRUE(codegen::float_math_helper(rise::PrimId::Log, rise::ScalarKind::F32));
  // tanh calls exp, whose definition comes first
  std::string tanh = codegen::float_math_definitions(rise::PrimId::Tanh, rise::ScalarKind::F32);
  EXPECT_LT(tanh.find("risec_exp_f32(float x)"), tanh.find("risec_tanh_f32(float x)"));
}

// The whole-vector exp (x86 intrinsics, codegen::float_math_vector) returns the scalar
// helper's bits for every input swept (every 97th bit pattern, all 2^32 with
// RISEC_FULL_ULP_SWEEP=1), the special values and vectors mixing lanes with and without
// a subnormal result (the AVX2 form's two paths), at 16, 8 and 4 lanes, compiled with
// risec's flags; skipped where the compiler's target lacks the instructions (the
// generated code then uses the lane loop of the scalar helper, which is that helper).
const char* kVectorSweep = R"(
#include <stdio.h>
#include <stdlib.h>
static unsigned long long diffs = 0, n = 0;
#if RISEC_VECTOR_ON
static void compare(vt v) {
  vt r = vexp(v);
  for (int l = 0; l < LANES; ++l) {
    float want = risec_exp_f32(v[l]), got = r[l];
    unsigned a, c;
    memcpy(&a, &want, 4);
    memcpy(&c, &got, 4);
    ++n;
    if (a != c && !(want != want && got != got) && diffs++ < 5)
      printf("DIFF %a %a %a\n", v[l], got, want);
  }
}
#endif
int main(int argc, char** argv) {
#if !RISEC_VECTOR_ON
  printf("OFF\n");
  return 0;
#else
  unsigned long long step = strtoull(argv[1], 0, 10);
  static const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 89.0f, 89.5f,
      88.72283f, 88.72284f, -87.33654f, -103.97208f, -104.0f, -104.5f, 2907272.0f, 1e30f, -1e30f,
      /* around n = -125 and -126, where the AVX2 form's two paths meet, and n = 128 */
      -86.98f, -86.99f, -87.0f, -87.3f, -87.68f, -87.69f, -88.0f, -100.0f, 88.0f, 88.38f};
  int ns = sizeof specials / sizeof specials[0];
  for (unsigned long long b = 0; b < (1ull << 32) + ns * step; b += step * LANES) {
    vt v;
    for (int l = 0; l < LANES; ++l) {
      unsigned long long i = b / step + l;
      unsigned u = (unsigned)((b + l * step) & 0xFFFFFFFFu);
      float x;
      memcpy(&x, &u, sizeof x);
      v[l] = i < (unsigned long long)ns ? specials[i] : x;
    }
    compare(v);
  }
  /* vectors mixing lanes with a subnormal (or zero) result and lanes without, in
     every pattern of the first 8 lanes */
  for (int i = 0; i < 4096; ++i) {
    vt v;
    for (int l = 0; l < LANES; ++l)
      v[l] = ((i >> (l % 8)) & 1) ? -86.0f - 0.0047f * (float)i : 1.0f - 0.0213f * (float)i;
    compare(v);
  }
  printf("COMPARED %llu DIFFS %llu\n", n, diffs);
  return 0;
#endif
}
)";

TEST(FloatMath, WholeVectorExpIsTheScalarHelperBitForBit) {
  for (int lanes : {16, 8, 4}) {
    const std::vector<codegen::FloatMathVector> forms =
        codegen::float_math_vector(rise::PrimId::Exp, rise::ScalarKind::F32, lanes, "vt", "vexp");
    ASSERT_FALSE(forms.empty());
    // each form on its own (an AVX-512 machine has AVX2's instructions too)
    for (size_t form = 0; form < forms.size(); ++form) {
      SCOPED_TRACE("lanes " + std::to_string(lanes) + ", form " + std::to_string(form));
      const codegen::FloatMathVector* v = &forms[form];
      std::string dir = ::testing::TempDir() + "/risec_float_vec_" + std::to_string(::getpid());
      std::string src = dir + std::to_string(lanes) + "_" + std::to_string(form) + ".c",
                  exe = dir + std::to_string(lanes) + "_" + std::to_string(form) + ".exe";
      std::ofstream(src) << "#include <stdint.h>\n#include <string.h>\n#include <math.h>\n"
                         << "typedef float vt __attribute__((vector_size(" << 4 * lanes
                         << ")));\n#define LANES " << lanes << "\n"
                         << codegen::float_math_definitions(rise::PrimId::Exp,
                                                            rise::ScalarKind::F32)
                         << "#if " << v->guard << "\n#include <immintrin.h>\n"
                         << v->text
                         << "#define RISEC_VECTOR_ON 1\n#else\n#define RISEC_VECTOR_ON 0\n#endif\n"
                         << kVectorSweep;
      std::vector<std::string> argv = runtime::c_compiler();
      for (const std::string& f : runtime::compile_flags({}, false)) argv.push_back(f);
      for (const std::string& f : {std::string("-o"), exe, src, std::string("-lm")})
        argv.push_back(f);
      runtime::ProcessResult c = runtime::run_process(argv);
      ASSERT_TRUE(c.ok()) << c.err;
      runtime::ProcessResult r = runtime::run_process({exe, std::to_string(sweep_step())});
      std::remove(src.c_str());
      std::remove(exe.c_str());
      ASSERT_TRUE(r.ok()) << r.describe() << r.err;
      if (r.out.rfind("OFF", 0) == 0) {
        std::printf("lanes %d: the compiler's target has no %s\n", lanes, v->guard.c_str());
        continue;
      }
      unsigned long long n = 0, diffs = 1;
      ASSERT_EQ(std::sscanf(r.out.substr(r.out.find("COMPARED")).c_str(),
                            "COMPARED %llu DIFFS %llu", &n, &diffs),
                2)
          << r.out;
      EXPECT_GT(n, (1ull << 32) / sweep_step() / 2);
      EXPECT_EQ(diffs, 0u) << r.out;
    }
  }
}

// Only f32 exp has whole-vector forms, at 16, 8 and 4 lanes, each guarded by the
// instruction sets it uses: AVX-512's (vscalefps) first, then, at 8 and 4 lanes, AVX2's
// with FMA (one factor of 2^n, and the two factors where a lane has a subnormal result).
TEST(FloatMath, WholeVectorFormsOnlyWhereDefined) {
  using rise::PrimId;
  using rise::ScalarKind;
  for (int lanes : {16, 8, 4}) {
    auto forms = codegen::float_math_vector(PrimId::Exp, ScalarKind::F32, lanes, "T", "f");
    ASSERT_EQ(forms.size(), lanes == 16 ? 1u : 2u);
    const codegen::FloatMathVector& v = forms[0];
    EXPECT_NE(v.guard.find("__AVX512F__"), std::string::npos);
    EXPECT_EQ(v.guard.find("__AVX512VL__") != std::string::npos, lanes != 16) << v.guard;
    EXPECT_NE(v.text.find("_scalef_ps(p, n)"), std::string::npos) << v.text;
    EXPECT_NE(v.text.find("static inline __attribute__((always_inline)) T f(T a0)"),
              std::string::npos)
        << v.text;
    if (lanes == 16) continue;
    const codegen::FloatMathVector& a = forms[1];
    EXPECT_NE(a.guard.find("__AVX2__"), std::string::npos) << a.guard;
    EXPECT_NE(a.guard.find("__FMA__"), std::string::npos) << a.guard;
    EXPECT_EQ(a.guard.find("__AVX512"), std::string::npos) << a.guard;
    EXPECT_EQ(a.text.find("scalef"), std::string::npos) << a.text;
    EXPECT_NE(a.text.find("_mul_ps(p, s1), s2)"), std::string::npos) << a.text;
    EXPECT_NE(a.text.find("_cmpgt_epi32(" + std::string(lanes == 8 ? "_mm256" : "_mm") +
                          "_set1_epi32(-125), ni)"),
              std::string::npos)
        << a.text;
  }
  EXPECT_TRUE(codegen::float_math_vector(PrimId::Exp, ScalarKind::F32, 2, "T", "f").empty());
  EXPECT_TRUE(codegen::float_math_vector(PrimId::Exp, ScalarKind::F32, 32, "T", "f").empty());
  EXPECT_TRUE(codegen::float_math_vector(PrimId::Exp, ScalarKind::F64, 8, "T", "f").empty());
  EXPECT_TRUE(codegen::float_math_vector(PrimId::Log, ScalarKind::F32, 16, "T", "f").empty());
  EXPECT_TRUE(codegen::float_math_vector(PrimId::Tanh, ScalarKind::F32, 16, "T", "f").empty());
}

}  // namespace
