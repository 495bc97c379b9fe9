// The C printer's types, literals and scalar operations (see c_printer.h): GCC/Clang
// vector-extension types for SIMD vectors, structs for pairs, math builtins with
// their float/double names and lane loops for vector math.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

#include "codegen/c/c_names.h"
#include "codegen/c/c_printer.h"
#include "codegen/c/float_math.h"

namespace risec::codegen {

namespace {
// The pragma line above a lane loop over the `lanes` lanes of a vector:
// RISEC_SIMD_LANES(n) (omp simd simdlen(n)) for a constant width, so that GCC
// vectorises the loop at the vector's own width. Without simdlen GCC picks its preferred
// width (256 bits on AVX-512 hosts) and a 16-float vector's loop became two 8-float
// halves put back together through the stack: a store-forwarding stall in every
// iteration of softmax's vectorised maximum, 30% of the kernel (docs/codegen.md).
std::string simd_lanes(const Nat& lanes) {
  // simdlen takes a power of two
  if (std::optional<int64_t> n = lanes.as_const(); n && *n >= 2 && (*n & (*n - 1)) == 0)
    return "RISEC_SIMD_LANES(" + std::to_string(*n) + ")";
  return "RISEC_SIMD_LOOP";
}
}  // namespace

const char* scalar_c(rise::ScalarKind k) {
  switch (k) {
    case rise::ScalarKind::Bool:
      return "bool";
    case rise::ScalarKind::I8:
      return "int8_t";
    case rise::ScalarKind::I16:
      return "int16_t";
    case rise::ScalarKind::I32:
      return "int32_t";
    case rise::ScalarKind::I64:
      return "int64_t";
    case rise::ScalarKind::U8:
      return "uint8_t";
    case rise::ScalarKind::U16:
      return "uint16_t";
    case rise::ScalarKind::U32:
      return "uint32_t";
    case rise::ScalarKind::U64:
      return "uint64_t";
    case rise::ScalarKind::F32:
      return "float";
    case rise::ScalarKind::F64:
      return "double";
  }
  return "?";
}

// Precedence of a Nat printed as C.
CExpr nat_expr(const Nat& n_in) {
  const Nat n = c_named(n_in);
  PrintedNats::note(n);
  std::string s = arith::print(n, arith::Syntax::C);
  int prec = kPrecAtom;
  switch (n.kind()) {
    case arith::Kind::Const:
      prec = (n.as_const() && *n.as_const() < 0) ? kPrecUnary : kPrecAtom;
      break;
    case arith::Kind::Var:
      prec = kPrecAtom;
      break;
    case arith::Kind::Sum:
      prec = s.find(" + ") != std::string::npos || s.find(" - ") != std::string::npos ? kPrecAdd
                                                                                      : kPrecMul;
      break;
    case arith::Kind::Prod:
    case arith::Kind::Div:
    case arith::Kind::Mod:
    case arith::Kind::ExactDiv:
      prec = kPrecMul;
      break;
    case arith::Kind::Select:
      prec = kPrecAtom;
      break;
    default:
      prec = kPrecPostfix;
      break;
  }
  if (!s.empty() && s[0] == '(' && s.back() == ')') prec = kPrecAtom;
  return CExpr{s, prec};
}

const char* const kSizeHelpers =
    "static inline __attribute__((unused)) size_t risec_size_mul(size_t a, size_t b) {\n"
    "  size_t r;\n"
    "  return __builtin_mul_overflow(a, b, &r) ? (size_t)-1 : r;\n"
    "}\n"
    "static inline __attribute__((unused)) size_t risec_size_add(size_t a, size_t b) {\n"
    "  size_t r;\n"
    "  return __builtin_add_overflow(a, b, &r) ? (size_t)-1 : r;\n"
    "}\n"
    "/* a - b where a >= b, unless a saturated */\n"
    "static inline __attribute__((unused)) size_t risec_size_sub(size_t a, size_t b) {\n"
    "  return a == (size_t)-1 ? a : a - b;\n"
    "}\n"
    "/* a / b (b >= 1), unless a saturated */\n"
    "static inline __attribute__((unused)) size_t risec_size_div(size_t a, size_t b) {\n"
    "  return a == (size_t)-1 ? a : a / b;\n"
    "}\n";

namespace {

std::string saturating_sum(const arith::Node& node);

// `n` as itself, in the index type, for its value (non-negative) as a size_t.
std::string unsigned_count(const Nat& n) {
  return "(size_t)(" + nat_expr(n).text + ")";
}

// `n`, provably non-negative, as a size_t expression that saturates at SIZE_MAX:
// products, sums, divisions, minima and maxima whose operands are provably
// non-negative too go through the helpers; any other term (one whose operands may be
// negative: the floor of (m - 3) / 3, a modulo, a power) is computed in the index type
// as before (a negative operand cast to size_t would read as huge).
std::string saturating_count(const Nat& n) {
  using arith::Kind;
  if (std::optional<int64_t> c = n.as_const(); c && *c >= 0) return "(size_t)" + std::to_string(*c);
  const arith::Node& node = n.node();
  const auto all_nonneg = [](const std::vector<Nat>& ts) {
    return std::all_of(ts.begin(), ts.end(),
                       [](const Nat& t) { return arith::provably_nonneg(t); });
  };
  switch (n.kind()) {
    case Kind::Prod: {
      if (!all_nonneg(node.args)) return unsigned_count(n);
      std::string out = saturating_count(node.args[0]);
      for (size_t i = 1; i < node.args.size(); ++i)
        out = "risec_size_mul(" + out + ", " + saturating_count(node.args[i]) + ")";
      return out;
    }
    case Kind::Div:
    case Kind::ExactDiv:
      if (!arith::provably_nonneg(node.args[0]) || !arith::provably_pos(node.args[1]))
        return unsigned_count(n);
      return "risec_size_div(" + saturating_count(node.args[0]) + ", " +
             saturating_count(node.args[1]) + ")";
    case Kind::Min:
    case Kind::Max: {
      if (!all_nonneg(node.args)) return unsigned_count(n);
      // a saturated operand stands for a number past every other, as it should here
      const std::string a = saturating_count(node.args[0]), b = saturating_count(node.args[1]);
      return "(" + a + (n.kind() == Kind::Min ? " < " : " > ") + b + " ? " + a + " : " + b + ")";
    }
    case Kind::Sum: {
      std::vector<Nat> monos;
      for (const auto& term : node.terms) monos.push_back(term.second);
      if (!all_nonneg(monos)) return unsigned_count(n);
      try {
        return saturating_sum(node);
      } catch (const arith::ArithError&) {  // coefficients past 64 bits: as it is
        return unsigned_count(n);
      }
    }
    default:
      return unsigned_count(n);
  }
}

// A sum of non-negative monomials (integer_sum): the terms' numerators added and
// subtracted (the sum is non-negative, so after adding every positive term each
// subtraction is too), then divided by the denominator once. Throws ArithError where
// integer_sum does.
std::string saturating_sum(const arith::Node& node) {
  const IntegerSum sum = integer_sum(node);
  std::string plus = sum.constant > 0 ? "(size_t)" + std::to_string(sum.constant) : "";
  std::vector<std::string> minus;
  if (sum.constant < 0)
    minus.push_back("(size_t)" + std::to_string(arith::checked_sub(0, sum.constant)));
  for (const auto& [c, mono] : sum.terms) {
    std::string term = saturating_count(mono);
    const int64_t magnitude = c < 0 ? arith::checked_sub(0, c) : c;
    if (magnitude != 1)
      term = "risec_size_mul((size_t)" + std::to_string(magnitude) + ", " + term + ")";
    if (c > 0)
      plus = plus.empty() ? term : "risec_size_add(" + plus + ", " + term + ")";
    else
      minus.push_back(term);
  }
  if (plus.empty()) plus = "(size_t)0";
  for (const std::string& m : minus) plus = "risec_size_sub(" + plus + ", " + m + ")";
  return sum.denominator == 1
             ? plus
             : "risec_size_div(" + plus + ", (size_t)" + std::to_string(sum.denominator) + ")";
}

}  // namespace

IntegerSum integer_sum(const arith::Node& sum) {
  IntegerSum out;
  int64_t d = sum.value.den();
  for (const auto& term : sum.terms) d = arith::lcm64(d, term.first.den());
  out.denominator = d;
  out.constant = arith::checked_mul(sum.value.num(), d / sum.value.den());
  for (const auto& [coef, mono] : sum.terms)
    out.terms.emplace_back(arith::checked_mul(coef.num(), d / coef.den()), mono);
  return out;
}

std::string size_bytes(const std::string& elem, const Nat& count) {
  if (std::optional<int64_t> c = count.as_const())
    return "sizeof(" + elem + ") * (size_t)" + std::to_string(*c);
  return "risec_size_mul(sizeof(" + elem + "), " + saturating_count(count) + ")";
}

std::string CPrinter::c_type(const Type& t) {
  switch (t->kind) {
    case TypeKind::Scalar:
      return scalar_c(t->scalar);
    case TypeKind::Index:
      return "int";
    case TypeKind::NatData:  // as the interpreter's, 64-bit (docs/codegen.md)
      return "int64_t";
    case TypeKind::Vector:
      return vector_type(t);
    case TypeKind::Pair:
      return pair_type(t);
    case TypeKind::Array:
      return c_type(leaf(t));
    default:
      internal_error("C backend: no C type for " + rise::print(t));
  }
}

Type CPrinter::leaf(const Type& t) {
  Type x = t;
  while (x->kind == TypeKind::Array) x = x->a;
  return x;
}

std::vector<Nat> CPrinter::dims(const Type& t) {
  std::vector<Nat> d;
  for (Type x = t; x->kind == TypeKind::Array; x = x->a) d.push_back(x->size);
  return d;
}

Nat CPrinter::count(const Type& t) {
  Nat c(1);
  for (const Nat& d : dims(t)) c = c * d;
  return c;
}

std::string CPrinter::vector_type(const Type& t) {
  if (t->a->kind != TypeKind::Scalar) internal_error("C backend: vector of non-scalar");
  auto lanes = t->size.as_const();
  if (!lanes)
    user_error("vector widths must be constants to generate C (vec[" + rise::print(t->a) + ", " +
               t->size.to_string() + "])");
  // A mask (vec[bool, n], from comparisons of vectors) has 32-bit lanes, 0 or -1: what
  // GCC's comparisons of f32 and i32 vectors give.
  const bool mask = t->a->scalar == rise::ScalarKind::Bool;
  const int bits = mask ? 32 : rise::scalar_bits(t->a->scalar);
  std::string elem = mask ? "int32_t" : scalar_c(t->a->scalar);
  std::string name =
      "risec_" + std::string(rise::scalar_name(t->a->scalar)) + "x" + std::to_string(*lanes);
  if (!typedefs_.count(name)) {
    typedefs_.insert(name);
    const int64_t esize = bits / 8;
    // C vector types have a power of two lanes: another width is the next power of two,
    // whose last lanes are padding (zero after a load, never stored).
    const auto padded = static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(*lanes)));
    std::string bytes = std::to_string(padded * esize);
    std::string def =
        "typedef " + elem + " " + name + " __attribute__((vector_size(" + bytes + ")));\n";
    if (padded != *lanes) {
      // Loads and stores move the lanes only (memcpy, a few moves for GCC).
      std::string used = std::to_string(*lanes * esize);
      def += "static inline " + name + " " + name + "_load(const " + elem + "* p) { " + name +
             " v = {0}; memcpy(&v, p, " + used + "); return v; }\n";
      def += "static inline " + name + " " + name + "_load_aligned(const " + elem +
             "* p) { return " + name + "_load(p); }\n";
      def += "static inline void " + name + "_store(" + elem + "* p, " + name +
             " v) { memcpy(p, &v, " + used + "); }\n";
    } else {
      // Loads and stores go through may_alias types (any alignment for the unaligned
      // ones), which GCC compiles to single vector moves.
      def += "typedef " + elem + " " + name + "_u __attribute__((vector_size(" + bytes +
             "), aligned(" + std::to_string(esize) + "), may_alias));\n";
      def += "typedef " + elem + " " + name + "_a __attribute__((vector_size(" + bytes +
             "), may_alias));\n";
      // Where the vector fits one register of the target (x86: 16 bytes, 32 with AVX,
      // 64 with AVX-512F), the loaded value passes through an empty asm that says it is
      // in a register. Without it GCC turns each use of a loaded vector into a memory
      // operand of its instruction, so a register block of C (mm, 4 rows x 4 vectors)
      // reloads each vector of B once per row: 16 loads per 16 FMAs instead of 4, which
      // on Zen 4 held the FMAs to about 0.8 of their rate
      // (bench/results/journal/2026-11-26-tune-mm-zen4.md). -DRISEC_FOLD_LOADS in
      // RISEC_CFLAGS turns it off.
      const std::string plain_load = "static inline " + name + " " + name + "_load(const " + elem +
                                     "* p) { return *(const " + name + "_u*)p; }\n" +
                                     "static inline " + name + " " + name + "_load_aligned(const " +
                                     elem + "* p) { return *(const " + name + "_a*)p; }\n";
      const int64_t vbytes = padded * esize;
      const char* reg_isa = vbytes == 64   ? "defined(__AVX512F__)"
                            : vbytes == 32 ? "defined(__AVX__)"
                            : vbytes == 16 ? "defined(__SSE2__)"
                                           : nullptr;
      if (reg_isa) {
        def += std::string("#if defined(__x86_64__) && ") + reg_isa +
               " && !defined(RISEC_FOLD_LOADS)\n";
        for (const char* suffix : {"_u", "_a"}) {
          def += "static inline " + name + " " + name +
                 (std::string(suffix) == "_u" ? "_load" : "_load_aligned") + "(const " + elem +
                 "* p) { " + name + " v = *(const " + name + suffix +
                 "*)p; __asm__(\"\" : \"+v\"(v)); return v; }\n";
        }
        def += "#else\n" + plain_load + "#endif\n";
      } else {
        def += plain_load;
      }
      const std::string plain_store = "static inline void " + name + "_store(" + elem + "* p, " +
                                      name + " v) { *(" + name + "_u*)p = v; }\n";
      // A vector wider than the target's registers (lanes * 2: 128 bytes on AVX-512, 64
      // on AVX2) has no machine mode: GCC stores it by writing its registers to the
      // stack and copying them out in smaller pieces, 20 cycles a store (layer norm's
      // vectorize(lanes * 2) output loop: a third slower than vectorize(lanes)). Stored
      // as its two halves (__builtin_shufflevector, GCC 12 and Clang), each is a register
      // store (or split again).
      if (!mask && vbytes >= 32) {
        const std::string half = vector_type(rise::vector_of(t->a, Nat(padded / 2)));
        std::string lo, hi;
        for (int64_t k = 0; k < padded; ++k) (k < padded / 2 ? lo : hi) += ", " + std::to_string(k);
        const std::string flag = name + "_SPLIT_STORE";
        def += std::string("#if defined(__x86_64__) && defined(__has_builtin)") +
               (vbytes == 64   ? " && !defined(__AVX512F__)"
                : vbytes == 32 ? " && !defined(__AVX__)"
                               : "") +
               "\n#if __has_builtin(__builtin_shufflevector)\n#define " + flag +
               "\n#endif\n#endif\n#ifdef " + flag + "\nstatic inline void " + name + "_store(" +
               elem + "* p, " + name + " v) { " + half + "_store(p, __builtin_shufflevector(v, v" +
               lo + ")); " + half + "_store(p + " + std::to_string(padded / 2) +
               ", __builtin_shufflevector(v, v" + hi + ")); }\n#else\n" + plain_store + "#endif\n";
      } else {
        def += plain_store;
      }
      // Every second element from p: lane l reads p[2 l] (a window of a slide with step 2
      // vectorised across windows: a downsampling). Two loads that together cover
      // p[0 .. 2 lanes - 2], never past the last element read, and one shuffle taking
      // the even elements of the first and the odd ones of the second (it starts an
      // element later); lane by lane without __builtin_shufflevector.
      if (!mask && padded >= 4) {
        std::string even, lanes_list;
        for (int64_t k = 0; k < padded; ++k) {
          even += ", " + std::to_string(k < padded / 2 ? 2 * k : 2 * k + 1);
          lanes_list += std::string(k ? ", " : "") + "p[" + std::to_string(2 * k) + "]";
        }
        const std::string flag = name + "_SHUFFLE";
        def += "#if defined(__has_builtin)\n#if __has_builtin(__builtin_shufflevector)\n#define " +
               flag + "\n#endif\n#endif\n#ifdef " + flag + "\nstatic inline " + name + " " + name +
               "_load_even(const " + elem + "* p) { return __builtin_shufflevector(" + name +
               "_load(p), " + name + "_load(p + " + std::to_string(padded - 1) + ")" + even +
               "); }\n#else\nstatic inline " + name + " " + name + "_load_even(const " + elem +
               "* p) { return (" + name + "){" + lanes_list + "}; }\n#endif\n";
      }
    }
    // A broadcast is a vector operation with a scalar operand, except for the vector
    // size x86 has a machine mode for but the target does not enable (32 bytes without
    // AVX, 64 without AVX-512F): GCC 12 builds `(v){0} + x` of that size lane by lane
    // through the stack (40x slower mm with vec[f32, 16] on AVX2), so there it lists
    // the scalar once per lane, which it compiles to broadcast instructions. (The list
    // is no general answer: on AVX-512 it makes 128-byte broadcasts from 32-byte pieces
    // that the 64-byte loads then wait for.)
    // bench/results/journal/2026-11-25-vectorize16-cliff.md.
    const int64_t nbytes = padded * esize;
    const char* isa = nbytes == 64 ? "__AVX512F__" : nbytes == 32 ? "__AVX__" : nullptr;
    const std::string head = "static inline " + name + " " + name + "_broadcast(" + elem +
                             " x) { return (" + name + "){";
    if (isa) {
      std::string copies;
      for (int64_t k = 0; k < padded; ++k) copies += k ? ", x" : "x";
      def += std::string("#if defined(__x86_64__) && !defined(") + isa + ")\n" + head + copies +
             "}; }\n#else\n";
    }
    // Sizes that are a register (16 bytes, or a mode listed above when enabled) broadcast
    // as `x - (v){0}`, which is x in every lane exactly (also -0.0), so GCC broadcasts x
    // directly; `(v){0} + x` made it add 0.0f to the scalar first (x + 0 is not x for
    // -0.0), one more instruction per broadcast. Wider vectors keep `(v){0} + x`, which
    // GCC splits into register-sized broadcasts better than the subtraction (mm's
    // parallel.elv, vec[f32, 32], on Zen 4: 83 against 50 ms in one loaded run).
    if (isa || nbytes == 16)
      def += "static inline " + name + " " + name + "_broadcast(" + elem + " x) { return x - (" +
             name + "){0}; }\n";
    else
      def += head + "0} + x; }\n";
    if (isa) def += "#endif\n";
    typedef_text_ += type_guarded(name, def);
  }
  return name;
}

std::string CPrinter::type_guarded(const std::string& name, const std::string& text) {
  // A type's definition is the same wherever its name appears (the name spells the
  // element types and the lane count), so the headers of two programs included in one
  // file define it once (held-out R: a second typedef of a struct, or a second
  // definition of a static inline helper, is an error).
  return "#ifndef RISEC_DEFINED_" + name + "\n#define RISEC_DEFINED_" + name + "\n" + text +
         "#endif\n";
}

std::string CPrinter::pair_type(const Type& t) {
  std::string a = c_type(t->a), b = c_type(t->b);
  std::string name = "risec_pair_" + a + "_" + b;
  for (char& c : name)
    if (c == ' ' || c == '*') c = '_';
  if (!typedefs_.count(name)) {
    typedefs_.insert(name);
    typedef_text_ +=
        type_guarded(name, "typedef struct { " + a + " _1; " + b + " _2; } " + name + ";\n");
  }
  return name;
}

CExpr CPrinter::cond_expr(const arith::Cond& c) {
  const arith::Cond named = c_named(c);
  PrintedNats::note(named);
  std::string s = arith::print(named, arith::Syntax::C);
  return CExpr{s, kPrecOr};
}

CExpr CPrinter::vector_bits(CExpr v, const Type& to) {
  return c_cast(vector_type(to), std::move(v));  // GCC's vectors of one size convert so
}

CExpr CPrinter::nonfinite_literal(double v, bool /*f64*/) {
  if (std::isnan(v)) return c_atom("NAN");
  return c_atom(v > 0 ? "INFINITY" : "(-INFINITY)");
}

CExpr CPrinter::literal(const ExpressionP& e, const Path& p) {
  const Type& t = e->dt;
  if (t->kind == TypeKind::Vector && p.empty()) {
    Expression scalar_lit = *e;
    scalar_lit.dt = t->a;
    if (t->a->scalar == rise::ScalarKind::Bool)  // a mask's lanes are 0 or -1
      return c_call(vector_type(t) + "_broadcast", {c_atom(e->lit.i ? "-1" : "0")});
    return c_call(vector_type(t) + "_broadcast", {literal(dpia::ex_make(scalar_lit), {})});
  }
  rise::ScalarKind k = t->kind == TypeKind::Scalar
                           ? t->scalar
                           : (t->kind == TypeKind::Vector ? t->a->scalar : e->lit.scalar);
  char buf[64];
  switch (k) {
    case rise::ScalarKind::F32: {
      float f = static_cast<float>(e->lit.f);
      if (!std::isfinite(f)) return nonfinite_literal(f, false);
      std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(f));
      std::string s = buf;
      if (s.find_first_of(".e") == std::string::npos) s += ".0";
      s += "f";
      return CExpr{s, s[0] == '-' ? kPrecUnary : kPrecAtom};
    }
    case rise::ScalarKind::F64: {
      double d = e->lit.f;
      if (!std::isfinite(d)) return nonfinite_literal(d, true);
      std::snprintf(buf, sizeof buf, "%.17g", d);
      std::string s = buf;
      if (s.find_first_of(".e") == std::string::npos) s += ".0";
      return CExpr{s, s[0] == '-' ? kPrecUnary : kPrecAtom};
    }
    case rise::ScalarKind::Bool:
      return c_atom(e->lit.i ? "true" : "false");
    // 64-bit literals with the L/UL suffix (long is 64 bits in LP64 C and C++, and
    // in OpenCL C, which has no INT64_C), cast to the target's name of the type; the
    // least i64 is not a literal of its own.
    case rise::ScalarKind::I64:
      if (e->lit.i == std::numeric_limits<int64_t>::min())
        return c_atom(std::string("((") + scalar_c(k) + ")(-9223372036854775807L - 1))");
      return c_cast(scalar_c(k),
                    CExpr{std::to_string(e->lit.i) + "L", e->lit.i < 0 ? kPrecUnary : kPrecAtom});
    case rise::ScalarKind::U64:
      return c_cast(scalar_c(k), c_atom(std::to_string(static_cast<uint64_t>(e->lit.i)) + "UL"));
    case rise::ScalarKind::U32:
      return c_atom(std::to_string(static_cast<uint32_t>(e->lit.i)) + "u");
    default: {
      std::string s = std::to_string(e->lit.i);
      if (k == rise::ScalarKind::I32 || k == rise::ScalarKind::I16 || k == rise::ScalarKind::I8)
        return CExpr{s, s[0] == '-' ? kPrecUnary : kPrecAtom};
      return c_cast(scalar_c(k), CExpr{s, s[0] == '-' ? kPrecUnary : kPrecAtom});
    }
  }
}

bool CPrinter::is_float_type(const Type& t) {
  if (t->kind == TypeKind::Scalar) return rise::is_float(t->scalar);
  if (t->kind == TypeKind::Vector) return rise::is_float(t->a->scalar);
  return false;
}

namespace {

// The value of a scalar f32 or f64 expression made only of literals, the
// arithmetic operators and the math builtins, computed as the interpreter does
// (each step rounded to the type; the builtins' primitives.def functions); none for
// anything else.
std::optional<double> constant_float(const ExpressionP& e) {
  if (e->dt->kind != TypeKind::Scalar ||
      (e->dt->scalar != rise::ScalarKind::F32 && e->dt->scalar != rise::ScalarKind::F64))
    return std::nullopt;
  const bool f32 = e->dt->scalar == rise::ScalarKind::F32;
  auto round = [&](double v) { return f32 ? static_cast<double>(static_cast<float>(v)) : v; };
  if (e->kind == Expression::Lit) return round(e->lit.f);
  if (!e->prim || e->foreign ||
      (e->kind != Expression::Unary && e->kind != Expression::Binary &&
       e->kind != Expression::Call))
    return std::nullopt;
  std::vector<double> a;
  for (const ExpressionP& x : e->args) {
    std::optional<double> v = constant_float(x);
    if (!v) return std::nullopt;
    a.push_back(*v);
  }
  const rise::PrimitiveInfo& op = *e->prim;
  if (a.size() == 1 && op.is(PrimId::Neg)) return -a[0];
  if (a.size() == 1 && op.math1) return round(op.math1(a[0]));
  if (a.size() != 2) return std::nullopt;
  if (op.math2) return round(op.math2(a[0], a[1]));
  if (f32) {
    const float x = static_cast<float>(a[0]), y = static_cast<float>(a[1]);
    if (op.is(PrimId::Add)) return x + y;
    if (op.is(PrimId::Sub)) return x - y;
    if (op.is(PrimId::Mul)) return x * y;
    if (op.is(PrimId::Div)) return x / y;
    if (op.is(PrimId::Mod)) return std::fmod(x, y);
    return std::nullopt;
  }
  if (op.is(PrimId::Add)) return a[0] + a[1];
  if (op.is(PrimId::Sub)) return a[0] - a[1];
  if (op.is(PrimId::Mul)) return a[0] * a[1];
  if (op.is(PrimId::Div)) return a[0] / a[1];
  if (op.is(PrimId::Mod)) return std::fmod(a[0], a[1]);
  return std::nullopt;
}

}  // namespace

CExpr CPrinter::scalar_op(const ExpressionP& e, const Path& p) {
  // A constant subexpression whose value is NaN (inff * 0.0f, exp(nan), a peeled
  // padCst(nan) border in tanh) is printed as the target's NaN literal
  // (nonfinite_literal): on OpenCL no NaN may be visible to the kernel compiler as a
  // constant (docs/codegen.md, "Non-finite literals").
  if (std::optional<double> v = constant_float(e); v && std::isnan(*v))
    return nonfinite_literal(*v, e->dt->scalar == rise::ScalarKind::F64);
  // A lane of a vector operation is the operation on the lanes.
  std::vector<CExpr> args;
  for (const ExpressionP& a : e->args) {
    bool vec_arg = a->dt->kind == TypeKind::Vector;
    args.push_back(read(a, vec_arg ? p : Path{}));
    // natType values are 64-bit (the interpreter's int64_t), but a Nat term is printed
    // in the unit's index type: an operation on one computes in int64_t, so that
    // `indexAsNat(i) * 1000000000` does not wrap at 2^31.
    if (a->kind == Expression::Nat && a->dt->kind == TypeKind::NatData)
      args.back() = c_cast("int64_t", args.back());
  }
  bool vector = e->dt->kind == TypeKind::Vector && p.empty();
  Type elem_t = e->dt->kind == TypeKind::Vector && !p.empty() ? e->dt->a : e->dt;
  Type arg_t = e->args.empty() ? e->dt : e->args[0]->dt;
  if (arg_t->kind == TypeKind::Vector && !p.empty()) arg_t = arg_t->a;
  // Integer +, -, * and negation wrap, as in the interpreter. C computes 8- and 16-bit
  // integers in int: their result is brought back to its type before anything uses it,
  // or (u8)(a - b) / 2 would divide a negative int.
  // 32- and 64-bit signed ones are computed in the unsigned type of their width and
  // converted back: C's signed overflow is undefined, the interpreter wraps.
  const bool int_scalar =
      !vector && elem_t->kind == TypeKind::Scalar && rise::is_integer(elem_t->scalar);
  const bool narrow = int_scalar && rise::scalar_bits(elem_t->scalar) < 32;
  const bool signed_wide = int_scalar && !narrow && rise::is_signed_int(elem_t->scalar);
  auto wrap = [&](CExpr r) { return narrow ? c_cast(scalar_c(elem_t->scalar), r) : r; };
  // The unsigned type they compute in (8- and 16-bit ones in uint32_t too: promoted to
  // int, the product of two uint16_t 65535s overflows it).
  const std::string u = elem_t->scalar == rise::ScalarKind::I64 ? "uint64_t" : "uint32_t";
  auto wrapping = [&](const char* op, int prec) {
    if (!signed_wide && !narrow) return wrap(c_binary(args[0], op, args[1], prec));
    return c_cast(scalar_c(elem_t->scalar),
                  c_binary(c_cast(u, args[0]), op, c_cast(u, args[1]), prec));
  };
  if (std::optional<CExpr> checked = checked_index(e, args)) return *checked;
  // The operator of the primitive's row (rise/primitives.def), on vectors its vector
  // spelling (casts, selects and foreign calls have no row).
  const char* c_op = !e->prim ? nullptr : vector ? e->prim->c_vector_op : e->prim->c_op;
  const bool wraps = e->prim && e->prim->has(rise::kWraps);
  // Whole vectors of signed integers likewise, in the unsigned vector type of their
  // lanes (held-out N F6: GCC folded v * 2 / 2 to v on i32 vectors, which wraps in the
  // interpreter).
  if (vector && wraps && c_op && e->dt->a->kind == TypeKind::Scalar &&
      rise::is_signed_int(e->dt->a->scalar) &&
      (e->kind == Expression::Unary || e->kind == Expression::Binary)) {
    Type ut = rise::vector(rise::unsigned_of(e->dt->a->scalar), e->dt->size);
    std::vector<CExpr> bits;
    for (const CExpr& a : args) bits.push_back(vector_bits(a, ut));
    return vector_bits(e->kind == Expression::Unary
                           ? c_unary(c_op, bits[0])
                           : c_binary(bits[0], c_op, bits[1], c_precedence(e->prim->c_prec)),
                       e->dt);
  }
  switch (e->kind) {
    case Expression::Unary:
      if (c_op && wraps && signed_wide)
        return c_cast(scalar_c(elem_t->scalar), c_unary(c_op, c_cast(u, args[0])));
      if (c_op) return wraps ? wrap(c_unary(c_op, args[0])) : c_unary(c_op, args[0]);
      if (e->prim->is(PrimId::Any) || e->prim->is(PrimId::All))
        return mask_reduction(e->prim->is(PrimId::All), e->args[0]->dt, args[0]);
      break;
    case Expression::Binary:
      // Integer division and modulo, of scalars or whole vectors, fail located.
      if ((e->prim->is(PrimId::Div) || e->prim->is(PrimId::Mod)) && !is_float_type(arg_t) &&
          (arg_t->kind == TypeKind::Scalar || (vector && arg_t->kind == TypeKind::Vector)) &&
          !safe_divisor(e->args[1],
                        arg_t->kind == TypeKind::Vector ? arg_t->a->scalar : arg_t->scalar))
        return c_call(checked_division(*e->prim, arg_t), args);
      // natType division and modulo by a value that may be 0: the i64 helper (natType
      // values are int64_t), as the interpreter fails alike.
      if ((e->prim->is(PrimId::Div) || e->prim->is(PrimId::Mod)) &&
          arg_t->kind == TypeKind::NatData &&
          !(e->args[1]->kind == Expression::Nat && arith::provably_pos(e->args[1]->idx)))
        return c_call(checked_division(*e->prim, rise::scalar(rise::ScalarKind::I64)), args);
      // C's % is for integers: fmod (a math function) for floats.
      if (e->prim->is(PrimId::Mod) && is_float_type(arg_t)) {
        if (vector) return vector_math(*e->prim, e->dt, args);
        return math_call(*e->prim, arg_t, args);
      }
      if (!c_op) break;
      if (e->prim->compares()) {
        CExpr cmp = c_binary(args[0], c_op, args[1], c_precedence(e->prim->c_prec));
        return vector ? vector_compare(cmp, arg_t, e->dt) : cmp;
      }
      if (wraps) return wrapping(c_op, c_precedence(e->prim->c_prec));
      return c_binary(args[0], c_op, args[1], c_precedence(e->prim->c_prec));
    case Expression::Call:
      if (e->foreign) return c_call(foreign_function(*e->foreign), args);
      if (std::optional<CExpr> m = cpu_min_max(*e, vector ? e->dt : elem_t, args)) return *m;
      if (vector) return vector_math(*e->prim, e->dt, args);
      return math_call(*e->prim, elem_t, args);
    case Expression::Select:
      if (vector && e->args[0]->dt->kind == TypeKind::Vector) return vector_blend(e->dt, args);
      return c_cond(args[0], args[1], args[2]);
    case Expression::Cast:
      // Float to integer saturates (NaN gives 0) as in the interpreter; C's conversion
      // of a value out of range is undefined (x86 gives the least value).
      if (!vector && elem_t->kind == TypeKind::Scalar && rise::is_integer(elem_t->scalar) &&
          arg_t->kind == TypeKind::Scalar && rise::is_float(arg_t->scalar))
        return c_call(int_from_double(elem_t->scalar), {c_cast("double", args[0])});
      return c_cast(c_type(elem_t), args[0]);
    default:
      break;
  }
  internal_error("C backend: no C form for the scalar operation " + dpia::print(e));
}

// Whether an integer division by `d` can never fail: a literal (or a vector of one
// literal) other than 0 (and, for a signed type, other than -1, which overflows on the
// least value).
bool CPrinter::safe_divisor(const ExpressionP& d, rise::ScalarKind k) {
  if (d->kind == Expression::Broadcast) return safe_divisor(d->args[0], k);
  if (d->kind != Expression::Lit || d->dt->kind != TypeKind::Scalar) return false;
  return d->lit.i != 0 && (!rise::is_signed_int(k) || d->lit.i != -1);
}

// Integer division and modulo whose divisor may be 0 (or -1 on the least value), of
// scalars or lane-wise of vectors (a C vector division by a zero lane is SIGFPE too):
// a helper that reports the fault through RISEC_ARITHMETIC_FAILED(function, what) (by
// default a message on stderr and abort(); risec run reports it as the program's
// error; in-process it is recorded and the helper returns 0: runtime/jit.h,
// with_fault_recording) instead of C's undefined behaviour, which the C compiler may turn into
// anything. The interpreter raises the same errors (rise/value.h).
std::string CPrinter::checked_division(const rise::PrimitiveInfo& op, const Type& t) {
  const bool vec = t->kind == TypeKind::Vector;
  const rise::ScalarKind k = vec ? t->a->scalar : t->scalar;
  bool div = op.is(PrimId::Div);
  std::string ty = vec ? vector_type(t) : scalar_c(k);
  // risec_div_i32, risec_div_i32x4 (whatever the target calls the vector type: OpenCL's
  // is int4)
  std::string name = "risec_" + op.name + "_" + rise::scalar_name(k) +
                     (vec ? "x" + std::to_string(*t->size.as_const()) : "");
  if (!arith_helpers_.insert(name).second) return name;
  std::string fn = "\"" + function_name_ + "\"";
  if (arith_helpers_.insert("RISEC_ARITHMETIC_FAILED").second)
    helper_text_ +=
        "#ifndef RISEC_ARITHMETIC_FAILED\n#include <stdio.h>\n#define "
        "RISEC_ARITHMETIC_FAILED(fn, what) (fprintf(stderr, \"%s: %s\\n\", fn, what), "
        "abort())\n#endif\n";
  std::string what = div ? "division" : "modulo";
  const std::string o = div ? "/" : "%";
  // The checks on one scalar pair and its result: of lane `l` of vectors, each lane
  // written as the target accesses a constant lane (a[3], a.w, a.s3: CUDA's vector
  // structs and OpenCL C have no subscript with a variable lane).
  std::string fail = vec ? "return a;" : "return 0;";
  // A kernel that cannot stop (OpenCL) records the failure in the fault buffer of the
  // index checks instead, for the host to report with the same text (kBoundsHostHelper):
  // the helper takes the buffer, a macro of the helper's name passing the kernel's.
  const std::string fault = division_fault_param();
  const int bits = rise::scalar_bits(k);
  const std::string sgn = rise::is_signed_int(k) ? "1" : "0";
  auto failed = [&](bool overflow, const std::string& text) {
    if (fault.empty()) return "RISEC_ARITHMETIC_FAILED(" + fn + ", \"" + text + "\"); ";
    const int code = (overflow ? 15 : 13) + (div ? 0 : 1);  // RISEC_ARITH_* (kBoundsCodes)
    return "risec_arith_fault(risec_fault, " + std::to_string(code) + ", " + std::to_string(bits) +
           ", " + sgn + "); ";
  };
  if (!fault.empty() && arith_helpers_.insert("risec_arith_fault").second)
    helper_text_ += "void risec_arith_fault(" + fault +
                    ", int kind, long bits, long sgn) {\n"
                    "  if (atomic_cmpxchg((volatile __global int*)risec_fault, 0, kind) == 0) {\n"
                    "    risec_fault[1] = bits;\n    risec_fault[2] = sgn;\n  }\n}\n";
  auto lane_checks = [&](const std::string& a, const std::string& b, const std::string& pad) {
    std::string checks =
        pad + "if (" + b + " == 0) { " +
        failed(false, "integer " + what + " by zero (" + rise::scalar_name(k) + ")") + fail +
        " }\n";
    if (rise::is_signed_int(k)) {
      // the least value written out (OpenCL C has no INT64_MIN): -(2^(bits-1) - 1) - 1
      std::string least = std::string("((") + scalar_c(k) + ")(-" +
                          std::to_string((uint64_t{1} << (bits - 1)) - 1) + ") - 1)";
      checks += pad + "if (" + b + " == -1 && " + a + " == " + least + ") { " +
                failed(true, std::string("integer overflow: the least ") + rise::scalar_name(k) +
                                 " " + (div ? "divided by" : "modulo") + " -1") +
                fail + " }\n";
    }
    return checks;
  };
  if (!fault.empty()) {
    fault_helpers_.push_back(name);
    helper_text_ += "#define " + name + "(a, b) " + name + "_f((a), (b), risec_fault)\n";
  }
  helper_text_ += "static inline " + ty + " " + name + (fault.empty() ? "" : "_f") + "(" + ty +
                  " a, " + ty + " b" + (fault.empty() ? "" : ", " + fault) + ") {\n";
  if (vec) {
    // Lane by lane: a vector of 5 or 3 lanes is stored in one of 8 or 4, whose
    // padding lanes hold anything (zeros: a whole-vector a / b would trap on them).
    helper_text_ += "  " + ty + " r = a;\n";
    for (int64_t l = 0; l < *t->size.as_const(); ++l) {
      auto lane = [&](const char* v) { return vector_lane(c_atom(v), Nat(l)).text; };
      helper_text_ += lane_checks(lane("a"), lane("b"), "  ") + "  " + lane("r") + " = " +
                      lane("a") + " " + o + " " + lane("b") + ";\n";
    }
    helper_text_ += "  return r;\n}\n";
  } else {
    helper_text_ += lane_checks("a", "b", "  ") + "  return a " + o + " b;\n}\n";
  }
  return name;
}

// The helper computing fmax (max) or fmin of two floats of kind k as the C library
// does, with a comparison and a select that GCC vectorises: a NaN operand gives the
// other one, and of equal operands the second is returned (as x86's maxss, glibc's
// fmaxf on x86-64; +0 and -0 compare equal, so a zero's sign may differ from another
// library's, never its value).
std::string CPrinter::float_min_max(bool max, rise::ScalarKind k) {
  std::string name = std::string("risec_") + (max ? "fmax_" : "fmin_") + rise::scalar_name(k);
  if (!arith_helpers_.insert(name).second) return name;
  std::string t = scalar_c(k);
  helper_text_ += "static inline " + t + " " + name + "(" + t + " x, " + t +
                  " y) { return y != y ? x : (x " + (max ? ">" : "<") + " y ? x : y); }\n";
  return name;
}

// fmax and fmin of floats on the CPU targets. fmax(x, y) with x never NaN is (y > x ? y
// : x): a NaN y fails the comparison and gives x, as the library's fmax; GCC compiles it
// to one maxss/maxps (x86's max returns its second operand when the comparison fails).
// Of equal zeros it returns x, the library helper y: only a zero's sign may differ,
// which C leaves unspecified (docs/codegen.md). On vectors: a lane loop of that; without
// an operand known not to be NaN, the library helper's rule in compares and blends of
// whole vectors (GCC does not vectorise a lane loop of risec_fmax_f32).
std::optional<CExpr> CPrinter::cpu_min_max(const Expression& e, const Type& t,
                                           const std::vector<CExpr>& args) {
  if (opts_.target.backend != dpia::Target::Backend::C &&
      opts_.target.backend != dpia::Target::Backend::OpenMP)
    return std::nullopt;
  if (e.foreign || !e.prim || args.size() != 2 ||
      !(e.prim->is(PrimId::Fmax) || e.prim->is(PrimId::Fmin)))
    return std::nullopt;
  const Type elem = t->kind == TypeKind::Vector ? t->a : t;
  if (elem->kind != TypeKind::Scalar || !rise::is_float(elem->scalar)) return std::nullopt;
  const bool max = e.prim->is(PrimId::Fmax);
  const std::string op = max ? "fmax" : "fmin", gt = max ? ">" : "<";  // not a primitive
  const int nn = not_nan_.operand(e);
  if (nn < 0) {
    if (t->kind != TypeKind::Vector) return c_call(float_min_max(max, elem->scalar), args);
    std::string vt = vector_type(t);
    std::string fn = vt + "_" + op + "_blend";
    if (typedefs_.insert(fn).second) {
      Type mask_t = rise::vector_of(rise::scalar(rise::ScalarKind::Bool), t->size);
      CExpr x = c_atom("x"), y = c_atom("y");
      CExpr nan = vector_compare(c_binary(y, "!=", y, kPrecEq), t, mask_t);
      CExpr pick = vector_compare(c_binary(x, gt, y, kPrecRel), t, mask_t);
      CExpr r = vector_blend(t, {nan, x, vector_blend(t, {pick, x, y})});
      helper_text_ += "static inline " + vt + " " + fn + "(" + vt + " x, " + vt +
                      " y) {\n  return " + r.text + ";\n}\n";
    }
    return c_call(fn, args);
  }
  std::string name = "risec_" + op + "_not_nan_" + rise::scalar_name(elem->scalar);
  if (arith_helpers_.insert(name).second) {
    std::string s = scalar_c(elem->scalar);
    helper_text_ += "static inline " + s + " " + name + "(" + s + " x, " + s + " y) { return y " +
                    gt + " x ? y : x; }\n";
  }
  std::vector<CExpr> ordered = {args[static_cast<size_t>(nn)], args[static_cast<size_t>(1 - nn)]};
  if (t->kind != TypeKind::Vector) return c_call(name, ordered);
  std::string vt = vector_type(t);
  std::string fn = vt + "_" + op + "_not_nan";
  if (typedefs_.insert(fn).second)
    helper_text_ += "static inline " + vt + " " + fn + "(" + vt + " x, " + vt + " y) {\n  " + vt +
                    " r;\n  " + simd_lanes(t->size) + "\n  for (int l = 0; l < " +
                    t->size.to_string() + "; ++l) r[l] = " + name +
                    "(x[l], y[l]);\n  return r;\n}\n";
  return c_call(fn, ordered);
}

// The helper that converts a double to the integer type k as the interpreter does
// (rise/value.h, Value::from_double): truncated, saturated, NaN as 0.
std::string CPrinter::int_from_double(rise::ScalarKind k) {
  std::string name = std::string("risec_from_double_") + rise::scalar_name(k);
  if (!arith_helpers_.insert(name).second) return name;
  std::string t = scalar_c(k);
  std::string bits = std::to_string(rise::scalar_bits(k));
  bool uns = rise::is_unsigned_int(k);
  std::string lo = uns ? "0" : "INT" + bits + "_MIN";
  std::string hi = (uns ? "UINT" : "INT") + bits + "_MAX";
  // 2^bits (unsigned) or 2^(bits-1) (signed) is exact in double; at or above it, hi.
  std::string limit = std::string("0x1p") + (uns ? bits : std::to_string(rise::scalar_bits(k) - 1));
  helper_text_ +=
      "static inline " + t + " " + name + "(double d) {\n  if (d != d) return 0;\n" +
      "  d = trunc(d);\n  if (d >= " + limit + ") return " + hi + ";\n" +
      (uns ? "  if (d <= 0) return 0;\n" : "  if (d < -" + limit + ") return " + lo + ";\n") +
      "  return (" + t + ")d;\n}\n";
  return name;
}

// A foreign function: defined once in the unit, static, under its reserved name (so
// that neither the library nor the entry can capture it); its parameters keep the
// user's names, which its C body uses.
std::string CPrinter::foreign_function(const rise::ForeignFun& f) {
  std::string name = c_foreign_name(f.name);
  if (!foreigns_.insert(name).second) return name;
  std::string params;
  for (size_t i = 0; i < f.params.size(); ++i) {
    // Its body names the parameters as declared: a C keyword cannot be one (held-out
    // I: the C compiler's error, exit 4, instead of this one).
    if (c_keyword(f.params[i]))
      user_error(
          "the parameter '" + f.params[i] + "' of the foreign function '" + f.name +
              "' is a keyword, built-in name or macro of C, OpenCL C or CUDA C++: its body is C "
              "code that names its parameters, so rename it (in the body too)",
          f.span);
    params += (i ? ", " : "") + c_type(f.param_types[i]) + " " + f.params[i];
  }
  if (f.params.empty()) params = "void";
  foreign_text_ += "static " + c_type(f.result) + " " + name + "(" + params + ") " + f.body + "\n";
  return name;
}

// A math builtin (or float `mod`) on a scalar of type t: the C library function of the
// row's name (with the `f` suffix for f32), except where C spells it differently.
CExpr CPrinter::math_call(const rise::PrimitiveInfo& op, const Type& t,
                          const std::vector<CExpr>& args) {
  bool f32 = t->kind == TypeKind::Scalar && t->scalar == rise::ScalarKind::F32;
  bool flt = t->kind == TypeKind::Scalar && rise::is_float(t->scalar);
  std::string sfx = f32 ? "f" : "";
  const std::string c_sqrt = "sqrt";  // C's function, not a primitive
  // fmax and fmin of integers (an integer max reduction) compare; C has no function.
  if (!flt && (op.is(PrimId::Fmax) || op.is(PrimId::Fmin)))
    return c_cond(c_binary(args[0], op.is(PrimId::Fmax) ? ">" : "<", args[1], kPrecRel), args[0],
                  args[1]);
  // The type check lets only abs, fmin and fmax take integers (rise::infer).
  if (!flt && !op.is(PrimId::Abs))
    internal_error("C backend: " + op.name + " of " + rise::print(t) + " is not C's");
  // (fmax and fmin of floats on the CPU targets: cpu_min_max, before any of this)
  if (op.is(PrimId::Rsqrt))
    return c_binary(c_atom(f32 ? "1.0f" : "1.0"), "/", c_call(c_sqrt + sfx, args), kPrecMul);
  if (op.is(PrimId::Abs)) {
    if (flt) return c_call("fabs" + sfx, args);
    if (rise::is_unsigned_int(t->scalar)) return args[0];
    // In the unsigned type of the width, converted back: the least value is its own
    // absolute value, as in the interpreter (C's abs of it is undefined).
    std::string u = scalar_c(rise::unsigned_of(t->scalar));
    return c_cast(scalar_c(t->scalar),
                  c_cond(c_binary(args[0], "<", c_atom("0"), kPrecRel),
                         c_unary("-", c_cast(u, args[0])), c_cast(u, args[0])));
  }
  if (op.is(PrimId::Mod)) return c_call("fmod" + sfx, args);
  // exp, log and tanh of f32 on the CPU: risec's own branch-free helpers, which GCC inlines
  // and vectorises (float_math.h); the C library's are calls it cannot.
  if (t->kind == TypeKind::Scalar && (opts_.target.backend == dpia::Target::Backend::C ||
                                      opts_.target.backend == dpia::Target::Backend::OpenMP))
    if (std::optional<FloatMathHelper> h = float_math_helper(op.id, t->scalar)) {
      for (rise::PrimId u : h->uses)
        if (std::optional<FloatMathHelper> d = float_math_helper(u, t->scalar))
          if (arith_helpers_.insert(d->name).second) helper_text_ += d->text;
      if (arith_helpers_.insert(h->name).second) helper_text_ += h->text;
      return c_call(h->name, args);
    }
  return c_call(op.name + sfx, args);
}

// ---- masks: comparisons of vectors give vec[bool, n], 32-bit lanes of 0 or -1

namespace {
// Whether glibc's libmvec (2.35 and later, every x86-64 ISA variant) has vector
// variants of the C math function `fn` (float or double: `expf` or `exp`). fabs, sqrt,
// floor, ceil, round, trunc, fmin and fmax have none.
bool libmvec_has(const std::string& fn) {
  // prim-names: off (C library functions, some named like RISE's math primitives)
  static const char* const kNames[] = {"acos", "acosh", "asin",  "asinh", "atan",  "atan2", "atanh",
                                       "cbrt", "cos",   "cosh",  "erf",   "erfc",  "exp",   "exp10",
                                       "exp2", "expm1", "hypot", "log",   "log10", "log1p", "log2",
                                       "pow",  "sin",   "sinh",  "tan",   "tanh"};
  // prim-names: on
  const std::string base =
      !fn.empty() && fn.back() == 'f' && fn != "erf" /* not a primitive */ ? fn.substr(
                                                                                 0, fn.size() - 1)
                                                                           : fn;
  for (const char* n : kNames)
    if (base == n) return true;
  return false;
}

// The signed integer type as wide as a lane of `k` (a mask lane is 32 bits).
std::string lane_int(rise::ScalarKind k) {
  int bits = k == rise::ScalarKind::Bool ? 32 : rise::scalar_bits(k);
  return "int" + std::to_string(bits) + "_t";
}
}  // namespace

// GCC's comparison of two vectors has integer lanes as wide as the operands'; the mask
// type has 32-bit lanes, so other widths are converted (lane values 0 and -1 kept).
CExpr CPrinter::vector_compare(CExpr cmp, const Type& arg_vt, const Type& mask_t) {
  std::string mt = vector_type(mask_t);
  if (lane_int(arg_vt->a->scalar) == "int32_t") return cmp;
  return c_call("__builtin_convertvector", {cmp, c_atom(mt)});
}

// select on a mask: the lanes of a where the mask is set, else of b: a lane loop under
// omp simd, else bit operations on the lanes as integers (GCC's C has no ?: on
// vectors), which compile to and/andnot/or or a blend instruction.
CExpr CPrinter::vector_blend(const Type& vt, const std::vector<CExpr>& args) {
  std::string name = vector_type(vt);
  std::string fn = name + "_blend";
  if (typedefs_.insert(fn).second) {
    Type mask_t = rise::vector_of(rise::scalar(rise::ScalarKind::Bool), vt->size);
    std::string mt = vector_type(mask_t);
    std::string li = lane_int(vt->a->scalar);
    auto lanes = vt->size.as_const();
    int bits = vt->a->scalar == rise::ScalarKind::Bool ? 32 : rise::scalar_bits(vt->a->scalar);
    // as many lanes as the vector type, padding included (docs/targets.md, "Widths that
    // are not a power of two")
    const auto padded = static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(*lanes)));
    std::string bytes = std::to_string(padded * bits / 8);
    std::string m = li == "int32_t" ? "m" : "__builtin_convertvector(m, I)";
    // Under omp simd the blend is a lane loop of ?:, which GCC vectorises into a masked
    // move that it then folds into the arithmetic producing a lane (AVX-512: one
    // merge-masked add instead of two xors after it, a shorter dependency chain).
    helper_text_ += "static inline " + name + " " + fn + "(" + mt + " m, " + name + " a, " + name +
                    " b) {\n#if defined(_OPENMP) || defined(RISEC_OMP_SIMD)\n  " + name +
                    " r;\n  " + simd_lanes(rise::Nat(padded)) + "\n  for (int l = 0; l < " +
                    std::to_string(padded) +
                    "; ++l) r[l] = m[l] ? a[l] : b[l];\n  return r;\n#else\n  typedef " + li +
                    " I __attribute__((vector_size(" + bytes + ")));\n  I k = " + m +
                    ";\n  return (" + name + ")(((I)a & k) | ((I)b & ~k));\n#endif\n}\n";
  }
  return c_call(fn, args);
}

// any/all lanes of a mask: a lane loop that ORs (ANDs) them.
CExpr CPrinter::mask_reduction(bool all, const Type& mask_t, CExpr m) {
  std::string name = vector_type(mask_t);
  std::string fn = name + (all ? "_all" : "_any");
  if (typedefs_.insert(fn).second) {
    auto lanes = mask_t->size.as_const();
    if (lanes && *lanes >= 2 && std::has_single_bit(static_cast<uint64_t>(*lanes))) {
      // No padding lanes: the mask's bytes as 64-bit words, combined by a loop over
      // memory, which GCC vectorises into a few ORs (ANDs) of halves; a loop over the
      // lanes of the vector value became an extract per lane (45 instructions for 16
      // lanes, more than a Mandelbrot step).
      // On x86, masks of one register (4, 8 or 16 lanes of 32 bits) are tested by one
      // instruction instead (vptestmd + kortest on AVX-512, vptest on AVX, SSE4.1):
      // the loop still took 20 instructions for 16 lanes, more than the Mandelbrot step
      // it guards in an early-exit loop.
      std::string words = std::to_string(*lanes / 2);
      std::string test;
      if (*lanes == 16)
        test = "defined(__AVX512F__)\n  return _mm512_test_epi32_mask((__m512i)m, (__m512i)m) " +
               std::string(all ? "== 0xFFFF" : "!= 0");
      else if (*lanes == 8)
        test = std::string("defined(__AVX__)\n  return ") +
               (all ? "_mm256_movemask_ps((__m256)m) == 0xFF"
                    : "!_mm256_testz_si256((__m256i)m, (__m256i)m)");
      else if (*lanes == 4)
        test = std::string("defined(__SSE4_1__)\n  return ") +
               (all ? "_mm_movemask_ps((__m128)m) == 0xF"
                    : "!_mm_testz_si128((__m128i)m, (__m128i)m)");
      if (!test.empty())
        helper_text_ +=
            "#if defined(__x86_64__) || defined(__i386__)\n#include <immintrin.h>\n#endif\n";
      helper_text_ += "static inline bool " + fn + "(" + name + " m) {\n";
      if (!test.empty())
        helper_text_ += "#if (defined(__x86_64__) || defined(__i386__)) && " + test + ";\n#else\n";
      helper_text_ += "  uint64_t w[" + words + "];\n  memcpy(w, &m, sizeof m);\n  uint64_t r = " +
                      (all ? "~(uint64_t)0" : "0") + ";\n  for (int i = 0; i < " + words +
                      "; ++i) r " + (all ? "&" : "|") + "= w[i];\n  return r " +
                      (all ? "== ~(uint64_t)0" : "!= 0") + ";\n";
      if (!test.empty()) helper_text_ += "#endif\n";
      helper_text_ += "}\n";
    } else {
      // A width padded to a power of two: only the first lanes count.
      helper_text_ += "static inline bool " + fn + "(" + name +
                      " m) {\n  int32_t r = " + (all ? "-1" : "0") + ";\n  for (int l = 0; l < " +
                      mask_t->size.to_string() + "; ++l) r " + (all ? "&" : "|") +
                      "= m[l];\n  return r != 0;\n}\n";
    }
  }
  return c_call(fn, {std::move(m)});
}

CExpr CPrinter::vector_lane(CExpr v, const Nat& i) {
  return c_index(std::move(v), nat_expr(i));
}

// A math function on a vector: a lane loop the C compiler vectorises (f32 exp, log and
// tanh call risec's own helpers, which it inlines: float_math.h).
CExpr CPrinter::vector_math(const rise::PrimitiveInfo& op, const Type& vt,
                            const std::vector<CExpr>& args) {
  std::string name = vector_type(vt);
  std::string fn = name + "_" + (op.is(PrimId::Mod) ? std::string("fmod") : op.name);
  if (!typedefs_.count(fn)) {
    typedefs_.insert(fn);
    std::string lanes = vt->size.to_string(), simd = simd_lanes(vt->size);
    std::string elem = scalar_c(vt->a->scalar);
    std::string params, call_args;
    for (size_t i = 0; i < args.size(); ++i) {
      params += (i ? ", " : "") + name + " a" + std::to_string(i);
      call_args += (i ? ", " : "") + std::string("a") + std::to_string(i) + "[l]";
    }
    std::vector<CExpr> lane_args;
    for (size_t i = 0; i < args.size(); ++i)
      lane_args.push_back(c_atom("a" + std::to_string(i) + "[l]"));
    CExpr body = math_call(op, vt->a, lane_args);
    const rise::ScalarKind k = vt->a->scalar;
    if (op.is(PrimId::Exp) && k == rise::ScalarKind::F64) {
      // glibc's vector exp leaves its vector path for lanes whose result is near or past
      // the type's range (|x| > 708 for double, 87.3 for float) and calls the scalar exp
      // lane by lane, eight to ten times the cost of the whole vector (log-domain weights
      // that underflow hit it on most calls). Such lanes compute exp(x/2)^2 instead, with
      // x/2 clamped to the fast range: the square underflows to 0 or overflows to inf
      // where exp(x) does, and NaN lanes still take glibc's path.
      std::string lim = "700.0", clamp = "1400.0", half = "0.5",
                  big = "(a0[l] > " + lim + " || a0[l] < -" + lim + ")";
      helper_text_ += "static inline " + name + " " + fn + "(" + name + " a0) {\n  " + name +
                      " y, r;\n  " + simd + "\n  for (int l = 0; l < " + lanes + "; ++l) {\n    " +
                      elem + " x = a0[l] < -" + clamp + " ? -" + clamp + " : a0[l];\n    x = x > " +
                      clamp + " ? " + clamp + " : x;\n    y[l] = " + big + " ? x * " + half +
                      " : x;\n  }\n  " + simd + "\n  for (int l = 0; l < " + lanes +
                      "; ++l) r[l] = " + math_call(op, vt->a, {c_atom("y[l]")}).text + ";\n  " +
                      simd + "\n  for (int l = 0; l < " + lanes + "; ++l) r[l] = " + big +
                      " ? r[l] * r[l] : r[l];\n  return r;\n}\n";
    } else {
      // A lane loop calling risec's own scalar helper (f32 exp, log, tanh) has it
      // inlined whatever the caller's size (flatten: in a function of 25 vector taps,
      // GCC's inlining limits left a call per lane, a scalar loop): bilateral
      // vectorised across its windows took 21.7 ms of CPU with calls and 256-bit
      // halves, 11.9 ms so.
      const bool own = body.text.rfind("risec_", 0) == 0;
      std::string loop = "static inline " + std::string(own ? "__attribute__((flatten)) " : "") +
                         name + " " + fn + "(" + params + ") {\n  " + name + " r;\n  " + simd +
                         "\n  for (int l = 0; l < " + lanes + "; ++l) r[l] = " + body.text +
                         ";\n  return r;\n}\n";
      // Where the machine has the instructions, the whole vector by intrinsics (f32 exp:
      // one vscalefps for 2^n with AVX-512, integer instructions with AVX2;
      // float_math.h), the same results as risec's own scalar helper; the lane loop
      // otherwise (and wherever the scalar function is not ours:
      // the GPU targets keep their builtins).
      std::vector<FloatMathVector> whole;
      if (auto n = vt->size.as_const(); n && own) whole = float_math_vector(op.id, k, *n, name, fn);
      for (size_t w = 0; w < whole.size(); ++w)
        helper_text_ += std::string(w == 0 ? "#if " : "#elif ") + whole[w].guard +
                        "\n#include <immintrin.h>\n" + whole[w].text;
      helper_text_ += whole.empty() ? loop : "#else\n" + loop + "#endif\n";
    }
    // The scalar function's vector variants (glibc's libmvec) for the lane loop.
    std::string c_fn = body.text.substr(0, body.text.find('('));
    // Only for the functions libmvec has: a declared variant that does not exist is an
    // undefined symbol at load time wherever GCC cannot inline the function instead
    // (floorf at -march=x86-64, without SSE4.1's roundps: `_ZGVbN4v_floorf`).
    if (libmvec_has(c_fn) && !simd_decls_.count(c_fn)) {
      simd_decls_.insert(c_fn);
      std::string proto =
          elem + " " + c_fn + "(" + elem + (args.size() == 2 ? ", " + elem : "") + ")";
      simd_text_ += "#pragma omp declare simd notinbranch\n" + proto + ";\n";
    }
    (void)elem;
    (void)call_args;
  }
  return c_call(fn, args);
}

}  // namespace risec::codegen
