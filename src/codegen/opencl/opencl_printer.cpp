// The OpenCL printer (see opencl_printer.h): the kernel language's hooks and the
// unit in opencl_printer.cpp, the host function in opencl_host.cpp.
#include "codegen/opencl/opencl_printer.h"

#include <cctype>
#include <cmath>
#include <sstream>

namespace risec::codegen::opencl {

using dpia::LoopKind;

namespace {

// The C99 names generated code uses, in OpenCL C: fixed-width integers, the libm
// spellings with an `f` suffix (OpenCL's math builtins are overloaded instead), and
// the helpers' failure hooks (a kernel cannot print or abort).
std::string kernel_prelude() {
  std::string s =
      "typedef char int8_t;\ntypedef uchar uint8_t;\ntypedef short int16_t;\n"
      "typedef ushort uint16_t;\ntypedef int int32_t;\ntypedef uint uint32_t;\n"
      "typedef long int64_t;\ntypedef ulong uint64_t;\n"
      "#define INT8_MIN CHAR_MIN\n#define INT16_MIN SHRT_MIN\n#define INT32_MIN INT_MIN\n"
      "#define INT64_MIN LONG_MIN\n#define INT8_MAX CHAR_MAX\n#define INT16_MAX SHRT_MAX\n"
      "#define INT32_MAX INT_MAX\n#define INT64_MAX LONG_MAX\n#define UINT8_MAX UCHAR_MAX\n"
      "#define UINT16_MAX USHRT_MAX\n#define UINT32_MAX UINT_MAX\n#define UINT64_MAX ULONG_MAX\n"
      "#define RISEC_ARITHMETIC_FAILED(fn, what) ((void)0)\n#define RISEC_SIMD_LOOP\n"
      "#define RISEC_SIMD_LANES(n)\n"
      "#define llabs abs\n#define fabsf fabs\n#define fmodf fmod\n";
  for (const rise::PrimitiveInfo& p : rise::primitives())
    if (p.family == rise::Family::Math) s += "#define " + p.name + "f " + p.name + "\n";
  return s;
}

}  // namespace

// ------------------------------------------------------------ hooks
std::string OpenCLPrinter::vector_type(const Type& t) {
  auto lanes = t->size.as_const();
  // a mask (vec[bool, n]) is intN, lanes 0 or -1, what OpenCL's comparisons give
  const bool mask = t->a->kind == TypeKind::Scalar && t->a->scalar == rise::ScalarKind::Bool;
  const char* elem = mask                             ? "int"
                     : t->a->kind == TypeKind::Scalar ? gpu::vector_scalar(t->a->scalar)
                                                      : nullptr;
  if (!lanes || !elem || (*lanes != 2 && *lanes != 3 && *lanes != 4 && *lanes != 8 && *lanes != 16))
    user_error("OpenCL has no vector type for " + rise::print(t) +
               " (2, 3, 4, 8 or 16 lanes of a number type)");
  std::string n = std::to_string(*lanes);
  std::string name = elem + n;
  if (typedefs_.insert(name).second) {
    // Where the memory is a scalar array (asVector), vloadN/vstoreN; an array of
    // vectors is a typed pointer (float4*) and needs neither. Macros, as vloadN and
    // vstoreN take a pointer into any address space; the expressions they are given
    // have their commas in parentheses (c_compound), and the last argument takes
    // the rest of the list (__VA_ARGS__), commas and all.
    vector_text_ += "#define " + name + "_load(...) vload" + n + "(0, (__VA_ARGS__))\n";
    vector_text_ += "#define " + name + "_load_aligned(...) vload" + n + "(0, (__VA_ARGS__))\n";
    vector_text_ += "#define " + name + "_store(p, ...) vstore" + n + "((__VA_ARGS__), 0, (p))\n";
    // every second element (CPrinter::read_resolved's lanes two apart): the even lanes of
    // two loads, the second an element later, which read nothing past the last lane
    if (*lanes == 4 || *lanes == 8 || *lanes == 16)
      vector_text_ += "#define " + name + "_load_even(...) ((" + name + ")(vload" + n +
                      "(0, (__VA_ARGS__)).even, vload" + n + "(0, (__VA_ARGS__) + " +
                      std::to_string(*lanes - 1) + ").odd))\n";
    vector_text_ += "#define " + name + "_broadcast(...) ((" + name + ")(__VA_ARGS__))\n";
    host_vector_text_ += "typedef cl_" + name + " " + name + ";\n";
    host_vectors_.insert(name);
  }
  return name;
}

// OpenCL C's NAN (and in some implementations INFINITY) is as_float(...), not a
// constant expression: a table's initialiser divides by zero instead, which Clang
// folds. In an expression a NaN is read from a volatile variable: a NaN that the
// kernel compiler can see as a constant reaching exp or tanh makes PoCL (LLVM) drop
// the kernel's stores (its builtins turn the NaN into poison), so no NaN literal is
// ever visible to it; an infinity is harmless and stays INFINITY.
CExpr OpenCLPrinter::nonfinite_literal(double v, bool f64) {
  const std::string one = f64 ? "1.0" : "1.0f", zero = f64 ? "0.0" : "0.0f";
  if (in_table_)
    return c_atom("(" +
                  std::string(std::isnan(v) ? zero
                              : v > 0       ? one
                                            : "-" + one) +
                  " / " + zero + ")");
  // OpenCL's INFINITY is a float: an f64 one is converted, or fmax(x, -INFINITY) of a
  // double is ambiguous (held-out N F1: the kernels did not build).
  if (!std::isnan(v))
    return c_atom(std::string(v > 0 ? "" : "(-") + (f64 ? "(double)INFINITY" : "INFINITY") +
                  (v > 0 ? "" : ")"));
  const std::string type = f64 ? "double" : "float", fn = "risec_nan_" + type;
  if (nan_helpers_.insert(fn).second)
    helper_text_ += "static inline " + type + " " + fn + "(void) { volatile " + type +
                    " risec_v = " + (f64 ? "(double)NAN" : "NAN") + "; return risec_v; }\n";
  return c_call(fn, {});
}

// A constant lane is the component v.s0 .. v.sf (OpenCL C has no subscript on
// vectors); a lane known only at run time keeps v[i] (a Clang extension).
CExpr OpenCLPrinter::vector_lane(CExpr v, const Nat& i) {
  auto k = i.as_const();
  if (!k || *k < 0 || *k > 15) return CPrinter::vector_lane(std::move(v), i);
  return c_member(std::move(v), std::string("s") + "0123456789abcdef"[*k]);
}

namespace {
// The width of a lane of `k` in bits (a mask lane: 32).
int lane_bits(rise::ScalarKind k) {
  return k == rise::ScalarKind::Bool ? 32 : rise::scalar_bits(k);
}
}  // namespace

// OpenCL's comparison of vectors has integer lanes (0 or -1) as wide as the operands'.
CExpr OpenCLPrinter::vector_compare(CExpr cmp, const Type& arg_vt, const Type& mask_t) {
  std::string mt = vector_type(mask_t);
  if (lane_bits(arg_vt->a->scalar) == 32) return cmp;
  return c_call("convert_" + mt, {cmp});
}

// OpenCL's select(b, a, m) takes lanes of a where m's lane has its top bit set; m's
// lanes must be as wide as a's.
CExpr OpenCLPrinter::vector_blend(const Type& vt, const std::vector<CExpr>& args) {
  vector_type(vt);
  CExpr m = args[0];
  int bits = lane_bits(vt->a->scalar);
  if (bits != 32) {
    const char* li = bits == 8 ? "char" : bits == 16 ? "short" : "long";
    m = c_call("convert_" + std::string(li) + vt->size.to_string(), {m});
  }
  return c_call("select", {args[2], args[1], m});  // OpenCL's select, not a primitive
}

CExpr OpenCLPrinter::mask_reduction(bool all, const Type& mask_t, CExpr m) {
  vector_type(mask_t);
  return c_call(all ? "all" : "any", {std::move(m)});  // OpenCL's, not a primitive
}

CExpr OpenCLPrinter::vector_math(const rise::PrimitiveInfo& op, const Type& vt,
                                 const std::vector<CExpr>& args) {
  std::string type = vector_type(vt);
  // abs, fmin and fmax of integer lanes (held-out M F14: C's scalar forms did not
  // compile): OpenCL's abs gives unsigned lanes, reinterpreted as the signed type, so the
  // least value is its own absolute value as in the interpreter; min and max compare.
  if (vt->a->kind == TypeKind::Scalar && rise::is_integer(vt->a->scalar)) {
    const char* kSelect = "select";  // OpenCL's builtin, not a primitive
    // abs in the unsigned lanes of the width: -x where x < 0 (PoCL's abs of an int4 let
    // the kernel compiler assume the result non-negative, and a division of it was
    // wrong at the least value: held-out N F5)
    if (op.is(rise::PrimId::Abs)) {
      if (rise::is_unsigned_int(vt->a->scalar)) return args[0];
      std::string ut = vector_type(rise::vector(rise::unsigned_of(vt->a->scalar), vt->size));
      CExpr u = c_call("as_" + ut, args);
      CExpr neg = c_binary(c_cast(ut, c_atom("0")), "-", u, kPrecAdd);
      return c_call(
          "as_" + type,
          {c_call(kSelect, {u, neg, c_binary(args[0], "<", c_cast(type, c_atom("0")), kPrecRel)})});
    }
    if (op.is(rise::PrimId::Fmin) || op.is(rise::PrimId::Fmax))
      return c_call(op.is(rise::PrimId::Fmin) ? "min" : "max", args);  // OpenCL's, not primitives
  }
  return math_call(op, vt->a, args);  // the builtins take vectors too (the `f` names alias)
}

CExpr OpenCLPrinter::loop_start(LoopKind kind, int dim) {
  const char* id = kind == LoopKind::WorkGroup ? "get_group_id"
                   : kind == LoopKind::Local   ? "get_local_id"
                                               : "get_global_id";
  return c_call(id, {c_atom(std::to_string(dim))});
}

CExpr OpenCLPrinter::loop_step(LoopKind kind, int dim) {
  const char* size = kind == LoopKind::WorkGroup ? "get_num_groups"
                     : kind == LoopKind::Local   ? "get_local_size"
                                                 : "get_global_size";
  return c_call(size, {c_atom(std::to_string(dim))});
}

std::string OpenCLPrinter::kernel_array(dpia::Space space, const std::string& elem,
                                        const std::string& name, int64_t n) {
  return (space == dpia::Space::Local ? "__local " : "") + elem + " " + name + "[" +
         std::to_string(n) + "]";
}

std::string OpenCLPrinter::global_param(const std::string& type, const std::string& name,
                                        bool written) {
  return "__global " + std::string(written ? "" : "const ") + type + "* restrict " + name;
}

// A kernel cannot print or abort: the first failed index check (compare-and-swap on
// the code) records its code, value and bound in the fault buffer, which the host
// reads after the launches and reports (opencl_host.cpp); the index used is 0, so
// that no access goes out of bounds meanwhile.
std::string OpenCLPrinter::index_check_helper() {
  return "#define risec_index(v, n, kind) risec_index_cl((v), (n), (kind), risec_fault)\n"
         "int risec_index_cl(long v, long n, int kind, __global long* f) {\n"
         "  if ((ulong)v >= (ulong)n) {\n"
         "    if (atomic_cmpxchg((volatile __global int*)f, 0, kind) == 0) { f[1] = v; f[2] = n; "
         "}\n"
         "    return 0;\n  }\n  return (int)v;\n}\n"
         "#define risec_nat(v, kind) risec_nat_cl((v), (kind), risec_fault)\n"
         "long risec_nat_cl(long v, int kind, __global long* f) {\n"
         "  if (v < 0) {\n"
         "    if (atomic_cmpxchg((volatile __global int*)f, 0, kind) == 0) { f[1] = "
         "v; f[2] = LONG_MAX; }\n"
         "    return 0;\n  }\n  return v;\n}\n";
}

CUnit OpenCLPrinter::print_opencl_unit(const std::string& entry_name, const CommandP& program,
                                       const std::string& output, const Type& out_dt,
                                       const std::vector<dpia::Input>& inputs,
                                       const std::vector<std::string>& sizes) {
  CUnit u;
  u.uses_opencl = true;
  std::string kernels = this->kernels(u, entry_name, program, output, out_dt, inputs, sizes);
  std::ostringstream cl;
  cl << "/* Generated by risec " RISEC_VERSION " from '" << entry_name
     << "': OpenCL C kernels, launched in order by " << u.name << " (" << u.name
     << ".c). Do not edit. */\n";
  std::string all = typedef_text_ + helper_text_ + foreign_text_ + kernels;
  if (all.find("double") != std::string::npos)
    cl << "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  cl << kernel_prelude() << index_helpers(idx_type_) << vector_text_ << typedef_text_ << "\n";
  if (!helper_text_.empty()) cl << helper_text_ << "\n";
  if (uses_index_checks_) cl << kBoundsCodes << index_check_helper() << "\n";
  if (!foreign_text_.empty()) cl << foreign_text_ << "\n";
  cl << table_text_ << kernels;
  u.kernel_source = cl.str();
  kernel_source_ = u.kernel_source;
  std::string sig = signature(u, output, out_dt, inputs, sizes);
  u.source = host_text(entry_name, sig, output, out_dt, inputs, sizes);
  // The vector types of the interface are OpenCL's host types, spelled as CL/cl.h
  // spells them (cl_float4...): the header declares no name `float4` of its own, which
  // would collide with a user's type of that name (held-out Q) and, before C11, with
  // the same typedef in another risec header. CL/cl.h comes with the OpenCL version the
  // host unit asks for unless the including file chose one (cl_version.h prints a
  // note when none is set).
  const std::string host_types =
      host_vector_text_.empty()
          ? std::string()
          : "#ifndef CL_TARGET_OPENCL_VERSION\n#define CL_TARGET_OPENCL_VERSION 120\n#endif\n"
            "#include <CL/cl.h>\n";
  u.header = header_text(entry_name, host_vector_names(sig),
                         host_types + host_vector_names(typedef_text_), out_dt, inputs, sizes);
  return u;
}

std::string OpenCLPrinter::host_vector_names(const std::string& text) const {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (!ident(text[i])) {
      out += text[i++];
      continue;
    }
    size_t end = i;
    while (end < text.size() && ident(text[end])) ++end;
    const std::string word = text.substr(i, end - i);
    out += (host_vectors_.count(word) ? "cl_" : "") + word;
    i = end;
  }
  return out;
}

}  // namespace risec::codegen::opencl
