// The CUDA printer (see cuda_printer.h): the kernel language's hooks and the unit in
// cuda_printer.cpp, the host function in cuda_host.cpp.
#include "codegen/cuda/cuda_printer.h"

#include <functional>
#include <sstream>

namespace risec::codegen::cuda {

using dpia::LoopKind;

namespace {

// CUDA's name of a number type in its vector types (float4, int2, longlong2, ...).
std::string cuda_scalar(rise::ScalarKind k) {
  const char* name = gpu::vector_scalar(k);
  if (!name) return "";
  std::string s = name;
  return s == "long" || s == "ulong" ? s + "long" : s;
}

const char* const kLanes[] = {"x", "y", "z", "w"};

// The dimension's member of CUDA's dim3 built-ins.
std::string axis(int dim) {
  return std::string(".") + "xyz"[dim];
}

// What the kernels need besides CUDA's headers: C's `restrict`, the helpers' hooks
// (a failed integer division in a kernel prints and traps: the launch fails and the
// host reports it), and a lane of a vector chosen at run time.
const char* const kPrelude = R"(#include <cuda_runtime.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define restrict __restrict__
#define RISEC_SIMD_LOOP
#define RISEC_SIMD_LANES(n)
#ifdef __CUDA_ARCH__
#define RISEC_ARITHMETIC_FAILED(fn, what) (printf("%s: %s\n", (fn), (what)), __trap())
#endif
template <class V>
__device__ __forceinline__ auto& risec_lane(V& v, int i) { return (&v.x)[i]; }
template <class V>
__device__ __forceinline__ auto risec_lane(const V& v, int i) { return (&v.x)[i]; }
template <int B>
__device__ __forceinline__ unsigned risec_thread(unsigned id) {
  if constexpr (B > 0) __builtin_assume(id < (unsigned)B);
  return id;
}
)";

// The index helpers for 32-bit kernels (dual_width_kernels): templates, so that a call
// with two ints takes them and one with an int64_t the unit's int64_t functions (a
// second set of int overloads would make a call mixing int64_t and int ambiguous).
const char* const kNarrowIndexHelpers =
    R"(template <class T> __host__ __device__ inline T risec_min(T a, T b) { return a < b ? a : b; }
template <class T> __host__ __device__ inline T risec_max(T a, T b) { return a > b ? a : b; }
template <class T> __host__ __device__ inline T risec_floordiv(T a, T b) { T q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }
template <class T> __host__ __device__ inline T risec_floormod(T a, T b) { T r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
template <class T> __host__ __device__ inline T risec_pow(T b, T e) { T r = 1; while (e-- > 0) r *= b; return r; }
)";

// C helpers (index arithmetic, checked division, foreign functions, conversions)
// callable from kernels and from the host function alike; inline rather than static
// inline, which nvcc reports when unused.
std::string host_device(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("static inline ", 0) == 0)
      line.replace(0, 14, "inline __host__ __device__ ");
    else if (line.rfind("static ", 0) == 0)
      line.insert(7, "__host__ __device__ ");
    out += line + "\n";
  }
  return out;
}

}  // namespace

// A kernel whose block size the program fixes is a template over it: the instance
// for that size (the host launches it when the block has that size) strides its
// thread loops by constants and tells the compiler the thread ids' bounds, so that
// the loops copying tiles unroll (their loads in flight together); the instance
// <0, 0, 0> reads blockDim, for any other launch.
void CudaPrinter::begin_kernel(const gpu::LaunchInfo& info) {
  info_ = info;
  block_template_ = info.block[0] > 0;
}

std::string CudaPrinter::kernel_prefix() const {
  return (block_template_ ? "template <int RISEC_BX, int RISEC_BY, int RISEC_BZ>\n" : "") +
         kernel_head();
}

// Full unrolling of a thread loop of at most 16 iterations at the fixed block size.
void CudaPrinter::before_parallel_loop(const Command& loop, std::vector<CStmtP>& out) {
  if (!block_template_ || loop.loop != LoopKind::Local) return;
  auto n = loop.n.as_const();
  int64_t b = info_.block[loop.dim];
  if (n && b > 0 && (*n + b - 1) / b <= 16) out.push_back(c_pragma("unroll"));
}

namespace {
const char* const kBlockParam[] = {"RISEC_BX", "RISEC_BY", "RISEC_BZ"};
}  // namespace

CExpr CudaPrinter::loop_start(LoopKind kind, int dim) {
  std::string a = axis(dim);
  if (kind == LoopKind::WorkGroup) return c_atom("blockIdx" + a);
  if (kind == LoopKind::Local && block_template_)
    return c_call(std::string("risec_thread<") + kBlockParam[dim] + ">", {c_atom("threadIdx" + a)});
  if (kind == LoopKind::Local) return c_atom("threadIdx" + a);
  return c_binary(c_binary(c_atom("blockIdx" + a), "*", c_atom("blockDim" + a), kPrecMul), "+",
                  c_atom("threadIdx" + a), kPrecAdd);
}

CExpr CudaPrinter::loop_step(LoopKind kind, int dim) {
  std::string a = axis(dim);
  if (kind == LoopKind::WorkGroup) return c_atom("gridDim" + a);
  if (kind == LoopKind::Local && block_template_) {
    std::string b = kBlockParam[dim];
    return c_atom("(" + b + " > 0 ? " + b + " : (int)blockDim" + a + ")");
  }
  if (kind == LoopKind::Local) return c_atom("blockDim" + a);
  return c_binary(c_atom("gridDim" + a), "*", c_atom("blockDim" + a), kPrecMul);
}

// 16-byte aligned, so that aligned vector loads (float4) may read them.
std::string CudaPrinter::kernel_array(dpia::Space space, const std::string& elem,
                                      const std::string& name, int64_t n) {
  return (space == dpia::Space::Local ? "__shared__ " : "") + std::string("__align__(16) ") + elem +
         " " + name + "[" + std::to_string(n) + "]";
}

namespace {

// The bytes of an element of a local array, by its C type, to decide between static
// and dynamic shared memory; 16 (the widest vector) for a type not listed, which can
// only make a kernel use dynamic shared memory where static would do.
int64_t cuda_element_bytes(const std::string& elem) {
  static const std::pair<const char*, int64_t> known[] = {
      {"float", 4},   {"int", 4},     {"int32_t", 4},  {"uint32_t", 4}, {"unsigned", 4},
      {"double", 8},  {"int64_t", 8}, {"uint64_t", 8}, {"float2", 8},   {"int2", 8},
      {"float4", 16}, {"int4", 16},   {"double2", 16}, {"bool", 1},     {"int8_t", 1},
      {"uint8_t", 1}, {"char", 1},    {"int16_t", 2},  {"uint16_t", 2}, {"short", 2},
  };
  for (const auto& [name, bytes] : known)
    if (elem == name) return bytes;
  return 16;
}

// Static shared memory is limited to 48 KiB per block.
constexpr int64_t kStaticSharedLimit = 48 * 1024;

}  // namespace

// Up to 48 KiB, static __shared__ arrays; beyond, the arrays are parts of one
// dynamic (extern __shared__) buffer, 16-byte aligned each, whose size the host sets
// at the launch after raising the kernel's limit to it
// (cudaFuncAttributeMaxDynamicSharedMemorySize; up to the device's opt-in limit).
std::vector<std::string> CudaPrinter::local_memory(const std::vector<LocalArray>& arrays,
                                                   Launch& l) {
  int64_t total = 0;
  for (const LocalArray& a : arrays) total += (a.n * cuda_element_bytes(a.elem) + 15) / 16 * 16;
  if (total <= kStaticSharedLimit) return GpuPrinter::local_memory(arrays, l);
  std::vector<std::string> out = {"extern __shared__ __align__(16) unsigned char risec_shared[]"};
  std::string offset = "0";
  for (const LocalArray& a : arrays) {
    out.push_back(a.elem + "* const " + a.name + " = (" + a.elem + "*)(risec_shared + " + offset +
                  ")");
    offset =
        "(" + offset + " + (sizeof(" + a.elem + ") * " + std::to_string(a.n) + " + 15) / 16 * 16)";
    l.dynamic_local_names +=
        (l.dynamic_local_names.empty() ? "" : ", ") + a.name + "[" + std::to_string(a.n) + "]";
  }
  l.dynamic_local = "(size_t)" + offset;
  return out;
}

std::string CudaPrinter::global_param(const std::string& type, const std::string& name,
                                      bool written) {
  return (written ? "" : "const ") + type + "* __restrict__ " + name;
}

std::string CudaPrinter::vector_type(const Type& t) {
  auto lanes = t->size.as_const();
  // a mask (vec[bool, n]) is intN, lanes 0 or -1
  const bool mask = t->a->kind == TypeKind::Scalar && t->a->scalar == rise::ScalarKind::Bool;
  const rise::ScalarKind sk = mask ? rise::ScalarKind::I32 : t->a->scalar;
  std::string elem = t->a->kind == TypeKind::Scalar ? cuda_scalar(sk) : "";
  bool wide = !elem.empty() && rise::scalar_bits(sk) == 64;
  if (!lanes || elem.empty() || (*lanes != 2 && *lanes != 4) || (wide && *lanes == 4))
    user_error("CUDA has no vector type for " + rise::print(t) +
               " (2 or 4 lanes of a number type; 2 of a 64-bit one)");
  const int64_t n = *lanes;
  std::string name = elem + std::to_string(n);
  if (!typedefs_.insert(name).second) return name;
  std::string e = scalar_c(sk);
  // comparisons give masks: declared before the operators that return them
  std::string mt = vector_type(rise::vector_of(rise::scalar(rise::ScalarKind::Bool), t->size));
  // make_float4(f(0), f(1), ...) for a lane expression f of the lane's index.
  auto make = [&](const std::function<std::string(int64_t)>& lane) {
    std::string s = "make_" + name + "(";
    for (int64_t l = 0; l < n; ++l) s += (l ? ", " : "") + lane(l);
    return s + ")";
  };
  const std::string fn = "inline __device__ ";
  std::string& v = vector_text_;
  v += fn + name + " " + name + "_load(const " + e + "* p) { return " +
       make([](int64_t l) { return "p[" + std::to_string(l) + "]"; }) + "; }\n";
  v += fn + name + " " + name + "_load_aligned(const " + e + "* p) { return *(const " + name +
       "*)p; }\n";
  v += fn + name + " " + name + "_load_even(const " + e + "* p) { return " +
       make([](int64_t l) { return "p[" + std::to_string(2 * l) + "]"; }) + "; }\n";
  v += fn + "void " + name + "_store(" + e + "* p, " + name + " v) {";
  for (int64_t l = 0; l < n; ++l) v += " p[" + std::to_string(l) + "] = v." + kLanes[l] + ";";
  v += " }\n";
  v += fn + name + " " + name + "_broadcast(" + e + " x) { return " +
       make([](int64_t) { return std::string("x"); }) + "; }\n";
  // CUDA's vector types have no arithmetic: lane-wise operators (% of integers: the
  // C backend prints a division or modulo by a constant other than 0 and -1 as the
  // operator, any other through a checked helper).
  // Integer lanes add, subtract, multiply and negate in an unsigned type, which wraps as
  // the interpreter does (C++'s signed overflow is undefined).
  std::vector<const char*> ops = {"+", "-", "*", "/"};
  if (rise::is_integer(sk)) ops.push_back("%");
  // (8- and 16-bit lanes in uint32_t: promoted to int, a product of two uint16_t could
  // overflow it)
  const std::string u = "(" +
                        std::string(scalar_c(rise::scalar_bits(sk) < 32 ? rise::ScalarKind::U32
                                                                        : rise::unsigned_of(sk))) +
                        ")";
  auto operand = [&](const std::string& x, const std::string& op) {
    return rise::is_integer(sk) && op != "/" && op != "%" ? u + x : x;
  };
  for (const char* op : ops)
    v += fn + name + " operator" + op + "(" + name + " a, " + name + " b) { return " +
         make([&](int64_t l) {
           return "(" + e + ")(" + operand("a." + std::string(kLanes[l]), op) + " " + op + " " +
                  operand("b." + std::string(kLanes[l]), op) + ")";
         }) +
         "; }\n";
  v += fn + name + " operator-(" + name + " a) { return " + make([&](int64_t l) {
         return "(" + e + ")(-" + operand("a." + std::string(kLanes[l]), "-") + ")";
       }) +
       "; }\n";
  // masks: lane-wise comparisons (0 or -1), blends, ~, any/all
  for (const char* op : {"<", ">", "=="})
    v += fn + mt + " operator" + op + "(" + name + " a, " + name + " b) { return make_" + mt + "(" +
         [&] {
           std::string lanes_text;
           for (int64_t l = 0; l < n; ++l)
             lanes_text += std::string(l ? ", " : "") + "-(int)(a." + kLanes[l] + " " + op + " b." +
                           kLanes[l] + ")";
           return lanes_text;
         }() +
         "); }\n";
  v += fn + name + " risec_blend(" + mt + " m, " + name + " a, " + name + " b) { return " +
       make([&](int64_t l) {
         return "m." + std::string(kLanes[l]) + " ? a." + kLanes[l] + " : b." + kLanes[l];
       }) +
       "; }\n";
  if (name == mt) {
    v += fn + name + " operator~(" + name + " a) { return " +
         make([&](int64_t l) { return "~a." + std::string(kLanes[l]); }) + "; }\n";
    for (const char* f : {"any", "all"}) {  // CUDA's functions, not a primitive
      std::string test;
      for (int64_t l = 0; l < n; ++l)
        test += std::string(l ? (f[1] == 'n' ? " || " : " && ") : "") + "m." + kLanes[l] + " != 0";
      v += fn + "bool risec_" + f + "(" + name + " m) { return " + test + "; }\n";
    }
  }
  return name;
}

// The comparison operators above give the mask type already.
CExpr CudaPrinter::vector_compare(CExpr cmp, const Type&, const Type& mask_t) {
  vector_type(mask_t);
  return cmp;
}

CExpr CudaPrinter::vector_blend(const Type& vt, const std::vector<CExpr>& args) {
  vector_type(vt);
  return c_call("risec_blend", args);
}

CExpr CudaPrinter::mask_reduction(bool all, const Type& mask_t, CExpr m) {
  vector_type(mask_t);
  return c_call(all ? "risec_all" : "risec_any", {std::move(m)});
}

// A constant lane is the member v.x .. v.w; a lane known only at run time is
// risec_lane(v, i).
CExpr CudaPrinter::vector_lane(CExpr v, const Nat& i) {
  auto k = i.as_const();
  if (k && *k >= 0 && *k < 4) return c_member(std::move(v), kLanes[*k]);
  return c_call("risec_lane", {std::move(v), nat_expr(i)});
}

// CUDA's math functions take scalars: a helper applying one lane by lane.
CExpr CudaPrinter::vector_math(const rise::PrimitiveInfo& op, const Type& vt,
                               const std::vector<CExpr>& args) {
  std::string name = vector_type(vt);
  std::string fn = name + "_" + (op.is(PrimId::Mod) ? std::string("fmod") : op.name);
  if (typedefs_.insert(fn).second) {
    std::string params, lanes;
    for (size_t i = 0; i < args.size(); ++i)
      params += (i ? ", " : "") + name + " a" + std::to_string(i);
    for (int64_t l = 0; l < *vt->size.as_const(); ++l) {
      std::vector<CExpr> lane_args;
      for (size_t i = 0; i < args.size(); ++i)
        lane_args.push_back(c_atom("a" + std::to_string(i) + "." + kLanes[l]));
      lanes += (l ? ", " : "") + math_call(op, vt->a, lane_args).text;
    }
    vector_text_ += "inline __device__ " + name + " " + fn + "(" + params + ") { return make_" +
                    name + "(" + lanes + "); }\n";
  }
  return c_call(fn, args);
}

// The first failed index check in a kernel records its code, value and bound in the
// device variable risec_fault (compare-and-swap on the code), which the host reads
// after the launches and reports (cuda_host.cpp); the index used is 0, so that no
// access goes out of bounds meanwhile.
std::string CudaPrinter::index_check_helper() {
  return "__device__ long long risec_fault[3];\n"
         "__device__ inline int risec_index(int64_t v, int64_t n, int kind) {\n"
         "  if ((uint64_t)v >= (uint64_t)n) {\n"
         "    if (atomicCAS((unsigned long long*)&risec_fault[0], 0ull, (unsigned long "
         "long)kind) == 0ull) {\n"
         "      risec_fault[1] = v;\n      risec_fault[2] = n;\n    }\n"
         "    return 0;\n  }\n  return (int)v;\n}\n"
         "__device__ inline int64_t risec_nat(int64_t v, int kind) {\n"
         "  if (v < 0) {\n"
         "    if (atomicCAS((unsigned long long*)&risec_fault[0], 0ull, (unsigned long "
         "long)kind) == 0ull) {\n"
         "      risec_fault[1] = v;\n      risec_fault[2] = INT64_MAX;\n    }\n"
         "    return 0;\n  }\n  return v;\n}\n";
}

CUnit CudaPrinter::print_cuda_unit(const std::string& entry_name, const CommandP& program,
                                   const std::string& output, const Type& out_dt,
                                   const std::vector<dpia::Input>& inputs,
                                   const std::vector<std::string>& sizes) {
  CUnit u;
  u.uses_cuda = true;
  std::string kernels = this->kernels(u, entry_name, program, output, out_dt, inputs, sizes);
  std::string sig = signature(u, output, out_dt, inputs, sizes);
  std::ostringstream cu;
  cu << "/* Generated by risec " RISEC_VERSION " from '" << entry_name
     << "': CUDA kernels and the host function " << u.name
     << " that launches them in order. Do not edit. */\n";
  cu << kPrelude << "\n" << host_device(index_helpers(idx_type_));
  if (dual_width_) cu << kNarrowIndexHelpers;
  if (!sizes.empty()) cu << kPreconditionHelper;
  cu << host_device(typedef_text_) << vector_text_ << "\n";
  if (!helper_text_.empty()) cu << host_device(helper_text_) << "\n";
  if (uses_index_checks_ || !input_index_checks(inputs).empty())
    cu << kBoundsCodes << kBoundsHostHelper;
  if (uses_index_checks_) cu << index_check_helper() << "\n";
  if (!foreign_text_.empty()) cu << host_device(foreign_text_) << "\n";
  cu << table_text_;
  cu << kernels << host_text(sig, output, out_dt, inputs, sizes);
  u.source = cu.str();
  // The vector types (float4, ...) of the interface are CUDA's: their header comes with
  // the header's types, after its comment, `#pragma once` and its other includes.
  const std::string types =
      (vector_text_.empty() ? std::string() : "#include <vector_types.h>\n") + typedef_text_;
  u.header = header_text(entry_name, sig, types, out_dt, inputs, sizes);
  return u;
}

}  // namespace risec::codegen::cuda
