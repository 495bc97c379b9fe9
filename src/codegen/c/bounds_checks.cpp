// Bounds checks of data-dependent indices (see docs/architecture.md, "Bounds checks").
// An idx[n] value is in [0, n) by construction wherever it is made: a literal or a
// loop index is proven so, and the places where one is made from data are checked
// here, once, where the value is computed:
//   - natAsIndex(n)(v) and cast(v): idx[n] of a value that is not a proven Nat, and a
//     cast of a signed integer to natType (not negative);
//   - index arithmetic (add, sub, mul, div, mod on indices) not proven in bounds;
//   - inputs of idx[n] (and natType) elements: the whole array once, on entry, before
//     any loop runs (a hoisted check; the host does it for the GPU targets).
// idx, gather, scatter and update take their indices as idx[n] values of the array's
// own n, so every access through them is in bounds once these hold. A failure reports
// the interpreter's text through RISEC_BOUNDS_FAILED(function, what), by default a
// message on stderr and abort(), which risec run reports as the program's error
// ("the program stopped: f: natAsIndex(4): 7 is out of range", exit 4); code loaded
// in-process (the C++ Kernel, Python) is compiled with the macro recording the fault
// for an Error after the call (runtime::with_fault_recording), which is why every
// check site goes on with a safe value after its report. The GPU
// printers override the kernel-side helper: a kernel records the first failure in a
// fault buffer that the host reads back (OpenCL), or prints and traps (CUDA).
// CGenOptions::bounds_checks = false (--no-bounds-checks) prints none of them.
#include "codegen/c/c_names.h"
#include "codegen/c/c_printer.h"

namespace risec::codegen {

// The codes of the failures, the same in kernels and on the host.
const char* const kBoundsCodes = R"(#define RISEC_IDX_NAT_AS_INDEX 1
#define RISEC_IDX_CAST 2
#define RISEC_IDX_INPUT 3
#define RISEC_IDX_NAT_INPUT 4
#define RISEC_IDX_ADD 5
#define RISEC_IDX_SUB 6
#define RISEC_IDX_MUL 7
#define RISEC_IDX_DIV 8
#define RISEC_IDX_MOD 9
#define RISEC_IDX_NAT_CAST 10
#define RISEC_IDX_NAT_AS_INDEX_OF_CAST 11
#define RISEC_IDX_CAST_OF_CAST 12
#define RISEC_ARITH_DIV_ZERO 13
#define RISEC_ARITH_MOD_ZERO 14
#define RISEC_ARITH_DIV_OVERFLOW 15
#define RISEC_ARITH_MOD_OVERFLOW 16
#define RISEC_IDX_NAT_CAST_U64 17
#define RISEC_IDX_NAT_SUB 18
)";

// The host's report of a failure with the interpreter's text.
const char* const kBoundsHostHelper = R"RISEC(#include <stdio.h>
#ifndef RISEC_BOUNDS_FAILED
#define RISEC_BOUNDS_FAILED(fn, what) (fprintf(stderr, "%s: %s\n", fn, what), abort())
#endif
__attribute__((cold, noinline)) static void risec_bounds_fail(const char* fn, int kind,
                                                              long long v, long long n) {
  static const char* const ops[] = {"add", "sub", "mul", "div", "mod"};
  char what[160];
  (void)fn; /* a RISEC_BOUNDS_FAILED of the user's may not use it */
  /* an integer division or modulo in a kernel (OpenCL): v the bits, n 1 when signed,
     reported as the C target's checked division does */
  if (kind >= RISEC_ARITH_DIV_ZERO && kind <= RISEC_ARITH_MOD_OVERFLOW) {
    const int div = kind == RISEC_ARITH_DIV_ZERO || kind == RISEC_ARITH_DIV_OVERFLOW;
    if (kind <= RISEC_ARITH_MOD_ZERO)
      snprintf(what, sizeof what, "integer %s by zero (%c%lld)", div ? "division" : "modulo",
               n ? 'i' : 'u', v);
    else
      snprintf(what, sizeof what, "integer overflow: the least i%lld %s -1", v,
               div ? "divided by" : "modulo");
#ifndef RISEC_ARITHMETIC_FAILED
#define RISEC_ARITHMETIC_FAILED(fn, what) (fprintf(stderr, "%s: %s\n", fn, what), abort())
#endif
    RISEC_ARITHMETIC_FAILED(fn, what);
    return;
  }
  /* natAsIndex(n)(cast(v)) of a signed v, checked at once: the cast fails first */
  if ((kind == RISEC_IDX_NAT_AS_INDEX_OF_CAST || kind == RISEC_IDX_CAST_OF_CAST) && v < 0)
    kind = RISEC_IDX_NAT_CAST;
  else if (kind == RISEC_IDX_NAT_AS_INDEX_OF_CAST)
    kind = RISEC_IDX_NAT_AS_INDEX;
  else if (kind == RISEC_IDX_CAST_OF_CAST)
    kind = RISEC_IDX_CAST;
  if (kind == RISEC_IDX_NAT_AS_INDEX)
    snprintf(what, sizeof what, "natAsIndex(%lld): %lld is out of range", n, v);
  else if (kind == RISEC_IDX_CAST)
    snprintf(what, sizeof what, "cast: %lld is out of range for idx[%lld]", v, n);
  else if (kind == RISEC_IDX_INPUT)
    snprintf(what, sizeof what, "input value %lld is out of range for idx[%lld]", v, n);
  else if (kind == RISEC_IDX_NAT_CAST)
    snprintf(what, sizeof what, "cast: the negative value %lld to natType", v);
  else if (kind == RISEC_IDX_NAT_CAST_U64)
    snprintf(what, sizeof what, "cast: %llu does not fit in natType", (unsigned long long)v);
  else if (kind == RISEC_IDX_NAT_SUB)
    snprintf(what, sizeof what, "natType arithmetic: sub gives the negative value %lld", v);
  else if (kind == RISEC_IDX_NAT_INPUT)
    snprintf(what, sizeof what, "natType input value %lld is negative", v);
  else
    snprintf(what, sizeof what, "index arithmetic: %s gives %lld, out of range for idx[%lld]",
             ops[(kind - RISEC_IDX_ADD) % 5], v, n);
  RISEC_BOUNDS_FAILED(fn, what);
}
)RISEC";

std::string CPrinter::index_check_helper() {
  return "static inline int risec_index(int64_t v, int64_t n, int kind) {\n"
         "  if (__builtin_expect((uint64_t)v >= (uint64_t)n, 0)) {\n"
         "    risec_bounds_fail(" +
         c_string(function_name_) +
         ", kind, v, n);\n"
         "    return 0;\n  }\n  return (int)v;\n}\n"
         // A signed integer cast to natType: not negative, and 64-bit as natType values are.
         "static inline int64_t risec_nat(int64_t v, int kind) {\n"
         "  if (__builtin_expect(v < 0, 0)) {\n"
         "    risec_bounds_fail(" +
         c_string(function_name_) +
         ", kind, v, INT64_MAX);\n"
         "    return 0;\n  }\n  return v;\n}\n";
}

namespace {
const char* index_op_code(PrimId op) {
  switch (op) {
    case PrimId::Add:
      return "RISEC_IDX_ADD";
    case PrimId::Sub:
      return "RISEC_IDX_SUB";
    case PrimId::Mul:
      return "RISEC_IDX_MUL";
    case PrimId::Div:
      return "RISEC_IDX_DIV";
    default:
      return "RISEC_IDX_MOD";
  }
}
}  // namespace

std::optional<CExpr> CPrinter::checked_index(const ExpressionP& e, const std::vector<CExpr>& args) {
  if (!opts_.bounds_checks) return std::nullopt;
  // A signed integer cast to natType must not be negative, nor a u64 2^63 or more (a
  // negative int64_t: natType values are int64_t); natAsIndex of it checks the rest.
  if (e->dt->kind == TypeKind::NatData && e->kind == Expression::Cast) {
    const Type& from = e->args[0]->dt;
    if (from->kind != TypeKind::Scalar) return std::nullopt;
    const bool u64 = from->scalar == rise::ScalarKind::U64;
    if (!u64 && !rise::is_signed_int(from->scalar)) return std::nullopt;
    uses_index_checks_ = true;
    return c_call("risec_nat", {c_cast("int64_t", args[0]),
                                c_atom(u64 ? "RISEC_IDX_NAT_CAST_U64" : "RISEC_IDX_NAT_CAST")});
  }
  // natType subtraction must not go below 0 (the other operations of natType values
  // cannot).
  if (e->dt->kind == TypeKind::NatData && e->kind == Expression::Binary && e->prim &&
      e->prim->is(PrimId::Sub) && args.size() == 2) {
    uses_index_checks_ = true;
    return c_call("risec_nat", {c_binary(c_cast("int64_t", args[0]), "-", args[1], kPrecAdd),
                                c_atom("RISEC_IDX_NAT_SUB")});
  }
  if (e->dt->kind != TypeKind::Index) return std::nullopt;
  const Nat& n = e->dt->size;
  CExpr value;
  std::string code;
  if (e->kind == Expression::Cast) {
    const Type& from = e->args[0]->dt;
    // An index of a bound no larger is in range already.
    if (from->kind == TypeKind::Index && arith::provably_le(from->size, n)) return std::nullopt;
    if (from->kind != TypeKind::Index && from->kind != TypeKind::NatData &&
        (from->kind != TypeKind::Scalar || !rise::is_integer(from->scalar)))
      return std::nullopt;
    value = c_cast("int64_t", args[0]);
    const bool nat_as_index = e->prim && e->prim->is(PrimId::NatAsIndex);
    code = nat_as_index ? "RISEC_IDX_NAT_AS_INDEX" : "RISEC_IDX_CAST";
    // Of a signed integer cast to natType (natAsIndex(m)(cast(v))): one check of v,
    // which reports the cast's failure for a negative v (one comparison, not two).
    const ExpressionP& inner = e->args[0];
    if (inner->kind == Expression::Cast && inner->dt->kind == TypeKind::NatData &&
        inner->args[0]->dt->kind == TypeKind::Scalar &&
        rise::is_signed_int(inner->args[0]->dt->scalar)) {
      value = c_cast("int64_t", read(inner->args[0], {}));
      code = nat_as_index ? "RISEC_IDX_NAT_AS_INDEX_OF_CAST" : "RISEC_IDX_CAST_OF_CAST";
    }
  } else if (e->kind == Expression::Binary && args.size() == 2) {
    value =
        c_binary(c_cast("int64_t", args[0]), e->prim->c_op, args[1], c_precedence(e->prim->c_prec));
    code = index_op_code(e->prim->id);
  } else {
    return std::nullopt;
  }
  uses_index_checks_ = true;
  return c_call("risec_index", {value, nat_expr(n), c_atom(code)});
}

std::string CPrinter::input_index_checks(const std::vector<dpia::Input>& inputs) {
  if (!opts_.bounds_checks) return "";
  std::string out;
  for (const auto& in : inputs)
    for (const BufferPart& p : buffer_parts(in.name)) {
      const bool index = p.leaf->kind == TypeKind::Index;
      if (!index && p.leaf->kind != TypeKind::NatData) continue;
      const std::string n = index ? nat_expr(p.leaf->size).text : "INT64_MAX";
      const std::string code = index ? "RISEC_IDX_INPUT" : "RISEC_IDX_NAT_INPUT";
      out += "  for (int64_t risec_i = 0; risec_i < (int64_t)(" + nat_expr(p.count).text +
             "); ++risec_i) {\n    int64_t risec_v = ((const " +
             std::string(index ? "int" : "int64_t") + "*)" + part_address(in.name, p, false) +
             ")[risec_i];\n    if (risec_v < 0 || risec_v >= " + n + ") { risec_bounds_fail(" +
             c_string(function_name_) + ", " + code + ", risec_v, " + n + "); return; }\n  }\n";
    }
  return out;
}

}  // namespace risec::codegen
