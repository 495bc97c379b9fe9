// risec's own f32 exp, log and tanh for the C and OpenMP backends (float_math.h).
// Each is a straight line of arithmetic, integer operations on the bits and selects,
// with no branch and no call, so that GCC's vectoriser takes a loop that calls it:
// exp by range reduction to |r| <= ln2/2 and a polynomial, log by splitting off the
// exponent and a series in s = f / (2 + f), tanh by a series near 0 and from exp
// elsewhere. The bit moves are memcpy (no aliasing questions); shifts are done on
// unsigned integers (no signed overflow on any input, NaN included: the code is also
// compiled under -fsanitize=undefined).
#include "codegen/c/float_math.h"

namespace risec::codegen {

namespace {

// exp(x) = 2^n e^r. n = round(x log2 e): adding 1.5 * 2^23 rounds the product to an
// integer, held in the low bits of the sum; n is taken from those bits (not by
// subtracting the constant again, which reassociation under -ffast-math would fold
// away). r = x - n ln 2 in two steps (ln 2's first part has 16 significant bits, so
// n times it is exact for |n| <= 255), |r| <= 0.347; e^r = 1 + r + r^2 q(r), q of
// degree 4 fitted for the least largest relative error on that interval (3.6e-9 with
// its coefficients rounded to float, where the Taylor polynomial of degree 7 it
// replaced, one multiply-add more, was at 7e-9). 2^n is applied as two factors 2^h and
// 2^(n-h) built in the exponent field, so that a result below 2^-126 is rounded once,
// into a subnormal, as the exact value would be. x is first clamped below at -104
// (exp rounds to +0 there; a NaN fails the comparison and flows through the arithmetic
// to a NaN). Above, n is clamped at 128 on the integer (one integer minimum, where a
// second float clamp cost a comparison and a blend per vector, three comparisons once
// GCC threaded the two clamps into each other: 12% of bilateral's time): past x = 89
// the sum's bits are no longer n (or the sum is inf), but every such x has
// n >= 128, r = x - 128 ln 2 > 0.27 and so e^r > 1.3, and the product overflows to
// +inf exactly as the clamp at 89 did (the same bits for all 2^32 inputs).
const char* kExpF32 = R"(static inline float risec_exp_f32(float x) {
  float c = x < -104.0f ? -104.0f : x;
  float t = c * 1.44269504f + 12582912.0f;
  uint32_t tb;
  memcpy(&tb, &t, sizeof tb);
  int32_t ni = (int32_t)(tb - 0x4B400000u);
  ni = ni < 128 ? ni : 128;
  float n = (float)ni;
  float r = c - n * 0.693145752f;
  r = r - n * 1.42860677e-06f;
  float p = 1.38145406e-3f;
  p = p * r + 8.36874545e-3f;
  p = p * r + 4.16683890e-2f;
  p = p * r + 1.66665211e-1f;
  p = p * r + 4.99999940e-1f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  int32_t h = ni >> 1;
  uint32_t b1 = (uint32_t)(h + 127) << 23, b2 = (uint32_t)(ni - h + 127) << 23;
  float s1, s2;
  memcpy(&s1, &b1, sizeof s1);
  memcpy(&s2, &b2, sizeof s2);
  return p * s1 * s2;
}
)";

// log(x) = k ln 2 + log(m), x = 2^k m with m in [2/3, 4/3): subtracting the bits of
// 2/3 from x's moves the exponent boundary there, so k is the shifted difference and
// m's bits are its low 23 bits plus those of 2/3 (a subnormal x is first scaled by
// 2^23 and k corrected). With f = m - 1 and s = f / (2 + f) (|s| <= 1/5),
// log(1 + f) = 2 atanh(s) = f - (f^2/2 - s (f^2/2 + R)), R = 2s^2/3 + 2s^4/5 + ...
// (Taylor terms up to s^8; the rest is below 4e-9 absolute): the large part f - f^2/2
// is formed last, so the rounding of the small corrections hardly shows. ln 2 is in
// two parts as for exp. Selects give the special values: log(+-0) = -inf,
// log(x < 0) = NaN, log(+inf) = +inf, log(NaN) = NaN.
const char* kLogF32 = R"(static inline float risec_log_f32(float x) {
  float y = x < 1.17549435e-38f ? x * 8388608.0f : x;
  int32_t i;
  memcpy(&i, &y, sizeof i);
  uint32_t d = (uint32_t)i - 0x3F2AAAABu;
  int32_t k = ((int32_t)d >> 23) - (x < 1.17549435e-38f ? 23 : 0);
  uint32_t mi = (d & 0x007FFFFFu) + 0x3F2AAAABu;
  float m;
  memcpy(&m, &mi, sizeof m);
  float f = m - 1.0f;
  float s = f / (2.0f + f);
  float z = s * s;
  float R = z * (0.666666667f + z * (0.4f + z * (0.285714286f + z * 0.222222222f)));
  float hf = 0.5f * f * f;
  float kf = (float)k;
  float r = kf * 0.693145752f + ((f - (hf - s * (hf + R))) + kf * 1.42860677e-06f);
  r = x == 0.0f ? -INFINITY : r;
  r = x < 0.0f ? NAN : r;
  r = x == INFINITY ? x : r;
  return x != x ? x : r;
}
)";

// tanh(x): for |x| < 0.625 its Taylor series x + x^3 P(x^2) up to x^19 (the next term
// is below 4e-9 relative there; -0 is returned as itself, which x + ... would turn
// into +0); above, 1 - 2 / (e^(2|x|) + 1) with risec_exp_f32, where the quotient is at
// most 0.44 so the subtraction loses no accuracy, and x's sign. Both are computed and
// one is selected. e^(2|x|) overflowing to inf gives 1, exactly as tanh rounds there;
// a NaN flows through the exp.
const char* kTanhF32 = R"(static inline float risec_tanh_f32(float x) {
  float a = fabsf(x);
  float z = x * x;
  float p = -2.391291142e-04f;
  p = p * z + 5.900274409e-04f;
  p = p * z - 1.455834387e-03f;
  p = p * z + 3.592128037e-03f;
  p = p * z - 8.863235530e-03f;
  p = p * z + 2.186948854e-02f;
  p = p * z - 5.396825397e-02f;
  p = p * z + 1.333333333e-01f;
  p = p * z - 3.333333333e-01f;
  float small = x + x * z * p;
  float big = 1.0f - 2.0f / (risec_exp_f32(2.0f * a) + 1.0f);
  big = x < 0.0f ? -big : big;
  float r = a < 0.625f ? small : big;
  return x == 0.0f ? x : r;
}
)";

// exp on a whole vector of 16, 8 or 4 f32 lanes with x86 intrinsics: kExpF32's steps
// one instruction each (the clamp at -104 is vmaxps, whose NaN rule, the second
// operand, is the select's), and 2^n applied by vscalefps, which multiplies by 2^n
// with one rounding, subnormal results included, in place of the two factors' six
// integer operations and two multiplications (the lane loop of the scalar helper
// took 23% more time in bilateral's window vectors). The contractions are the ones
// GCC makes of kExpF32 with FMA, so the result is the scalar helper's, bit for bit,
// for all 2^32 inputs (checked exhaustively on the AVX-512 Xeon). `P` is the
// intrinsics' prefix, `V`/`I` the float and integer vector types. Without AVX-512
// (`scalef` false: AVX2 with FMA), when every lane has n >= -125 (x above about -87.0:
// no subnormal result) 2^n is one factor built in the exponent field (of 2p and
// 2^(n-1), below, so that n = 128 is a normal factor too), one multiplication rounded
// as the scalar helper's second one is; a vector with a lane below takes the scalar
// helper's two factors, built with the integer instructions and multiplied in its
// order (the first halved for the doubled p). Either way its results bit for bit
// (every 97th input in the tests and vectors mixing both kinds of lane, all 2^32 with
// RISEC_FULL_ULP_SWEEP=1, on a Zen 3). The lane loop GCC makes of the scalar helper
// took about 5% more time in bilateral's tuned schedule on that Zen 3 than the two
// factors in intrinsics, and those 17% more than the one factor with its test (one
// thread, CPU time, minima of 5 interleaved rounds: 16.9 against 14.5 ms).
std::string exp_f32_vector(const std::string& P, const std::string& V, const std::string& I,
                           const std::string& type, const std::string& fn, bool scalef = true) {
  auto set = [&](const std::string& v) { return P + "_set1_ps(" + v + ")"; };
  // always inlined: the slow path of the AVX2 form made GCC call it from bilateral's 25
  // taps (every vector register is caller-saved: 4% more time there)
  std::string t =
      "static inline __attribute__((always_inline)) " + type + " " + fn + "(" + type + " a0) {\n";
  t += "  " + V + " c = " + P + "_max_ps(" + set("-104.0f") + ", (" + V + ")a0);\n";
  t += "  " + V + " t = " + P + "_fmadd_ps(c, " + set("1.44269504f") + ", " + set("12582912.0f") +
       ");\n";
  t += "  " + I + " ni = " + P + "_min_epi32(" + P + "_sub_epi32(" + P + "_castps_si" +
       V.substr(3, 3) + "(t), " + P + "_set1_epi32(0x4B400000)), " + P + "_set1_epi32(128));\n";
  t += "  " + V + " n = " + P + "_cvtepi32_ps(ni);\n";
  t += "  " + V + " r = " + P + "_fnmadd_ps(n, " + set("0.693145752f") + ", c);\n";
  t += "  r = " + P + "_fnmadd_ps(n, " + set("1.42860677e-06f") + ", r);\n";
  // without vscalefps, p is computed doubled (each coefficient times 2: every rounding
  // scales with it, so the bits are twice the scalar helper's p) and 2^n applied as
  // 2^(n-1), whose one factor is normal for n in [-125, 128]
  const std::string twice = scalef ? "" : "2.0f * ";
  t += "  " + V + " p = " + set(twice + "1.38145406e-3f") + ";\n";
  for (const char* k :
       {"8.36874545e-3f", "4.16683890e-2f", "1.66665211e-1f", "4.99999940e-1f", "1.0f", "1.0f"})
    t += "  p = " + P + "_fmadd_ps(p, r, " + set(twice + k) + ");\n";
  if (scalef) {
    t += "  return (" + type + ")" + P + "_scalef_ps(p, n);\n}\n";
    return t;
  }
  const std::string bits = V.substr(3, 3), as_float = P + "_castsi" + bits + "_ps(";
  auto power = [&](const std::string& e, const std::string& bias) {
    return as_float + P + "_slli_epi32(" + P + "_add_epi32(" + e + ", " + P + "_set1_epi32(" +
           bias + ")), 23))";
  };
  t += "  if (__builtin_expect(" + P + "_movemask_ps(" + as_float + P + "_cmpgt_epi32(" + P +
       "_set1_epi32(-125), ni))) == 0, 1))\n";
  t += "    return (" + type + ")" + P + "_mul_ps(p, " + power("ni", "126") + ");\n";
  t += "  " + I + " h = " + P + "_srai_epi32(ni, 1);\n";
  t += "  " + V + " s1 = " + power("h", "126") + ";\n";
  t += "  " + V + " s2 = " + power(P + "_sub_epi32(ni, h)", "127") + ";\n";
  t += "  return (" + type + ")" + P + "_mul_ps(" + P + "_mul_ps(p, s1), s2);\n}\n";
  return t;
}

}  // namespace

std::vector<FloatMathVector> float_math_vector(rise::PrimId id, rise::ScalarKind k, int64_t lanes,
                                               const std::string& type, const std::string& fn) {
  if (id != rise::PrimId::Exp || k != rise::ScalarKind::F32) return {};
  // vscalefps is AVX-512F (its 256- and 128-bit forms AVX-512VL); the FMA forms are
  // FMA's, which every AVX-512 processor has but the compiler flags may not say. The
  // 256-bit integer operations of the AVX2 form are AVX2's (its 128-bit ones SSE4.1's,
  // which AVX2 implies).
  const std::string x86 = "(defined(__x86_64__) || defined(__i386__)) && defined(__FMA__)";
  const std::string avx512 = x86 + " && defined(__AVX512F__)";
  const std::string avx2 = x86 + " && defined(__AVX2__)";
  if (lanes == 16) return {{avx512, exp_f32_vector("_mm512", "__m512", "__m512i", type, fn)}};
  if (lanes == 8)
    return {{avx512 + " && defined(__AVX512VL__)",
             exp_f32_vector("_mm256", "__m256", "__m256i", type, fn)},
            {avx2, exp_f32_vector("_mm256", "__m256", "__m256i", type, fn, false)}};
  if (lanes == 4)
    return {{avx512 + " && defined(__AVX512VL__)",
             exp_f32_vector("_mm", "__m128", "__m128i", type, fn)},
            {avx2, exp_f32_vector("_mm", "__m128", "__m128i", type, fn, false)}};
  return {};
}

std::optional<FloatMathHelper> float_math_helper(rise::PrimId id, rise::ScalarKind k) {
  if (k != rise::ScalarKind::F32) return std::nullopt;
  if (id == rise::PrimId::Exp) return FloatMathHelper{"risec_exp_f32", kExpF32};
  if (id == rise::PrimId::Log) return FloatMathHelper{"risec_log_f32", kLogF32};
  if (id == rise::PrimId::Tanh)
    return FloatMathHelper{"risec_tanh_f32", kTanhF32, {rise::PrimId::Exp}};
  return std::nullopt;
}

std::string float_math_definitions(rise::PrimId id, rise::ScalarKind k) {
  std::optional<FloatMathHelper> h = float_math_helper(id, k);
  if (!h) return "";
  std::string text;
  for (rise::PrimId u : h->uses) text += float_math_helper(u, k)->text;
  return text + h->text;
}

}  // namespace risec::codegen
