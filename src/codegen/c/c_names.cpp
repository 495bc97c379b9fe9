// Names in generated C (see c_names.h).
#include "codegen/c/c_names.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <iterator>
#include <map>
#include <string_view>

#include "codegen/c/c_backend.h"

namespace risec::codegen {

namespace {

// Identifiers of the C library, libm, libmvec, libgomp and their headers (sorted).
const char* const kLibraryNames[] = {
#include "codegen/c/c_reserved_names.inc"
};

// OpenCL C's builtin functions, types and macros (opencl_names.inc, made by
// scripts/gen_c_reserved_names.sh opencl; sorted): kernels see them, the host does not.
const char* const kOpenCLNames[] = {
#include "codegen/c/opencl_names.inc"
};

// Keywords of C89 to C23 and GNU C (some are also in the list above as macros).
const char* const kKeywords[] = {
    "_Alignas",     "_Alignof",   "_Atomic",   "_BitInt",        "_Bool",         "_Complex",
    "_Generic",     "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local", "alignas",
    "alignof",      "asm",        "auto",      "bool",           "break",         "case",
    "char",         "const",      "constexpr", "continue",       "default",       "do",
    "double",       "else",       "enum",      "extern",         "false",         "float",
    "for",          "goto",       "if",        "inline",         "int",           "long",
    "main",         "nullptr",    "register",  "restrict",       "return",        "short",
    "signed",       "sizeof",     "static",    "static_assert",  "struct",        "switch",
    "thread_local", "true",       "typedef",   "typeof",         "typeof_unqual", "union",
    "unsigned",     "void",       "volatile",  "while"};

// OpenCL C's keywords and type names, and the builtins generated kernels call: the
// OpenCL target prints the same names into kernels (codegen/opencl).
// prim-names: off (C, OpenCL and CUDA words)
const char* const kOpenCLWords[] = {
    "barrier",         "constant",     "event_t",      "get_global_id",
    "get_global_size", "get_group_id", "get_local_id", "get_local_size",
    "get_num_groups",  "global",       "half",         "kernel",
    "local",           "private",      "read_only",    "read_write",
    "sampler_t",       "uchar",        "uint",         "ulong",
    "ushort",          "write_only",   "all",          "any"};
// prim-names: on

// OpenCL C's vector types (float4, uchar16, ...) and conversions (convert_int4,
// as_float, ...), which kernels name.
bool opencl_vector_or_conversion(const std::string& name) {
  if (name.rfind("convert_", 0) == 0 || name.rfind("as_", 0) == 0) return true;
  for (const char* t : {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float",
                        "double", "half", "bool"}) {
    std::string base = t;
    if (name.size() <= base.size() || name.compare(0, base.size(), base) != 0) continue;
    std::string n = name.substr(base.size());
    if (n == "2" || n == "3" || n == "4" || n == "8" || n == "16") return true;
  }
  return false;
}

// C++ keywords and the CUDA built-ins and types generated .cu files use: the CUDA
// target prints the same names into C++ (codegen/cuda).
// prim-names: off (C, OpenCL and CUDA words)
const char* const kCudaWords[] = {
    "and",       "bitand",      "bitor",      "blockDim",     "blockIdx",    "catch",
    "char16_t",  "char32_t",    "char8_t",    "class",        "compl",       "concept",
    "consteval", "constinit",   "const_cast", "co_await",     "co_return",   "co_yield",
    "decltype",  "delete",      "dim3",       "dynamic_cast", "explicit",    "export",
    "float2",    "float4",      "friend",     "gridDim",      "make_float2", "make_float4",
    "mutable",   "namespace",   "new",        "noexcept",     "not",         "not_eq",
    "operator",  "or",          "or_eq",      "protected",    "public",      "reinterpret_cast",
    "requires",  "static_cast", "template",   "this",         "threadIdx",   "throw",
    "try",       "typeid",      "typename",   "using",        "virtual",     "warpSize",
    "wchar_t",   "xor",         "xor_eq"};
// prim-names: on

// The OpenCL and CUDA host and device APIs (clSetKernelArg, cl_mem, CL_SUCCESS,
// CLK_LOCAL_MEM_FENCE, cudaMalloc, cudaSuccess, cuLaunchKernel, image2d_t) and macro
// constants by their convention (FLT_MAX, INT_MIN, CHAR_MIN: capitals, digits and an
// underscore): names the OpenCL host code, kernels and .cu files may see.
bool gpu_api_or_macro(const std::string& name) {
  auto upper_or_underscore = [&](size_t i) {
    return i < name.size() && (std::isupper(static_cast<unsigned char>(name[i])) || name[i] == '_');
  };
  if (name.rfind("cl", 0) == 0 && upper_or_underscore(2)) return true;
  if (name.rfind("CL", 0) == 0 || name.rfind("CU", 0) == 0) return true;
  if (name.rfind("cuda", 0) == 0 && upper_or_underscore(4)) return true;
  if (name.rfind("cu", 0) == 0 && upper_or_underscore(2)) return true;
  if (name.rfind("image", 0) == 0 && name.size() > 7 && name.compare(name.size() - 2, 2, "_t") == 0)
    return true;
  bool macro = name.find('_') != std::string::npos;
  for (char c : name)
    macro = macro && (std::isupper(static_cast<unsigned char>(c)) ||
                      std::isdigit(static_cast<unsigned char>(c)) || c == '_');
  return macro;
}

bool starts_with_ci(const std::string& s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  return true;
}

bool valid_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

bool sorted_member(const char* const* begin, const char* const* end, const std::string& name) {
  return std::binary_search(begin, end, name,
                            [](std::string_view a, std::string_view b) { return a < b; });
}

// Reserved in host code (C, the OpenCL and CUDA hosts): all but OpenCL C's own names.
bool host_name_reserved(const std::string& name) {
  if (name.empty() || name[0] == '_' || starts_with_ci(name, "risec")) return true;
  for (const char* k : kKeywords)
    if (name == k) return true;
  for (const char* k : kOpenCLWords)
    if (name == k) return true;
  if (opencl_vector_or_conversion(name) || gpu_api_or_macro(name)) return true;
  for (const char* k : kCudaWords)
    if (name == k) return true;
  return sorted_member(std::begin(kLibraryNames), std::end(kLibraryNames), name);
}

}  // namespace

bool c_keyword(const std::string& name) {
  // The macros math.h and stddef.h define, besides the keywords and built-in names of
  // C, OpenCL C and CUDA C++ (the lists above).
  static const char* const kMacros[] = {"NAN",       "INFINITY", "HUGE_VAL",
                                        "HUGE_VALF", "NULL",     "errno"};
  const auto in = [&](const auto& list) {
    return std::find(std::begin(list), std::end(list), name) != std::end(list);
  };
  return name != "main" && (in(kKeywords) || in(kOpenCLWords) || in(kCudaWords) || in(kMacros));
}

bool c_name_reserved(const std::string& name) {
  return host_name_reserved(name) ||
         sorted_member(std::begin(kOpenCLNames), std::end(kOpenCLNames), name);
}

std::string c_entry_name(const std::string& name) {
  // The entry is a host function: OpenCL C's builtins (dot, min) do not clash with it.
  if (valid_identifier(name) && !host_name_reserved(name)) return name;
  std::string plain;
  for (char c : name) plain += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return "risec_entry_" + plain;
}

std::string bounded_identifier(const std::string& name, size_t max) {
  if (name.size() <= max) return name;
  uint64_t h = 14695981039346656037ull;  // 64-bit FNV-1a
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  static const char* const kHex = "0123456789abcdef";
  std::string tail = "_";
  for (int i = 15; i >= 0; --i) tail += kHex[(h >> (4 * i)) & 15];
  return name.substr(0, max - tail.size()) + tail;
}

std::string c_foreign_name(const std::string& name) {
  std::string plain;
  for (char c : name) plain += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return "risec_foreign_" + plain;
}

arith::Nat c_named(const arith::Nat& n) {
  bool any = false;
  for (const auto& [name, v] : arith::free_vars(n))
    any = any || (valid_identifier(name) && c_identifier(name) != name);
  if (!any) return n;
  return arith::substitute_fn(n, [](const arith::Nat& v) -> std::optional<arith::Nat> {
    const std::string& name = v.var_name();
    if (!valid_identifier(name) || c_identifier(name) == name) return std::nullopt;
    return arith::Nat::var(c_identifier(name), v.node().lo, v.node().hi);
  });
}

namespace {
void cond_vars(const arith::Cond& c, std::map<std::string, arith::Nat>& out) {
  const arith::CondNode& n = c.node();
  for (const arith::Nat& x : {n.a, n.b})
    for (const auto& [name, v] : arith::free_vars(x)) out.emplace(name, v);
  for (const arith::Cond& a : n.args) cond_vars(a, out);
}
}  // namespace

arith::Cond c_named(const arith::Cond& c) {
  std::map<std::string, arith::Nat> vars;
  cond_vars(c, vars);
  arith::Substitution s;
  for (const auto& [name, v] : vars)
    if (valid_identifier(name) && c_identifier(name) != name)
      s.emplace(name, arith::Nat::var(c_identifier(name), v.node().lo, v.node().hi));
  return s.empty() ? c : arith::substitute(c, s);
}

}  // namespace risec::codegen
