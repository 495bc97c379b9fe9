// The primitive table itself. Types are the ones of spec/rise-syntax.md, written
// as text and parsed once; the semantics column points into interp_prims.cpp.
#include "rise/primitives.h"

#include <algorithm>
#include <mutex>

#include "rise/interp_prims.h"
#include "rise/parser.h"

namespace risec::rise {

namespace {

struct Row {
  const char* name;
  const char* type;
  PrimClass cls;
  PrimEval eval;
};

// clang-format off
const Row kRows[] = {
  // scalar
  {"id", "{t: Data} -> t -> t", PrimClass::Scalar, eval_id},
  {"neg", "{t: Data} -> t -> t", PrimClass::Scalar, eval_neg},
  {"add", "{t: Data} -> t -> t -> t", PrimClass::Scalar, eval_add},
  {"sub", "{t: Data} -> t -> t -> t", PrimClass::Scalar, eval_sub},
  {"mul", "{t: Data} -> t -> t -> t", PrimClass::Scalar, eval_mul},
  {"div", "{t: Data} -> t -> t -> t", PrimClass::Scalar, eval_div},
  {"mod", "{t: Data} -> t -> t -> t", PrimClass::Scalar, eval_mod},
  {"not", "bool -> bool", PrimClass::Scalar, eval_not},
  {"gt", "{t: Data} -> t -> t -> bool", PrimClass::Scalar, eval_gt},
  {"lt", "{t: Data} -> t -> t -> bool", PrimClass::Scalar, eval_lt},
  {"equal", "{t: Data} -> t -> t -> bool", PrimClass::Scalar, eval_equal},
  {"select", "{t: Data} -> bool -> t -> t -> t", PrimClass::Scalar, eval_select},
  {"cast", "{s: Data} -> {t: Data} -> s -> t", PrimClass::Scalar, eval_cast},
  {"indexAsNat", "{n: Nat} -> idx[n] -> natType", PrimClass::Scalar, eval_indexAsNat},
  {"natAsIndex", "(n: Nat) -> natType -> idx[n]", PrimClass::Scalar, eval_natAsIndex},
  // built-in math (C library meaning), on f32/f64 and lane-wise on vectors
  {"sqrt", "{t: Data} -> t -> t", PrimClass::Scalar, eval_sqrt},
  {"rsqrt", "{t: Data} -> t -> t", PrimClass::Scalar, eval_rsqrt},
  {"exp", "{t: Data} -> t -> t", PrimClass::Scalar, eval_exp},
  {"log", "{t: Data} -> t -> t", PrimClass::Scalar, eval_log},
  {"sin", "{t: Data} -> t -> t", PrimClass::Scalar, eval_sin},
  {"cos", "{t: Data} -> t -> t", PrimClass::Scalar, eval_cos},
  {"tan", "{t: Data} -> t -> t", PrimClass::Scalar, eval_tan},
  {"tanh", "{t: Data} -> t -> t", PrimClass::Scalar, eval_tanh},
  {"abs", "{t: Data} -> t -> t", PrimClass::Scalar, eval_abs},
  {"floor", "{t: Data} -> t -> t", PrimClass::Scalar, eval_floor},
  {"ceil", "{t: Data} -> t -> t", PrimClass::Scalar, eval_ceil},
  {"erf", "{t: Data} -> t -> t", PrimClass::Scalar, eval_erf},
  {"pow", "{t: Data} -> t -> t -> t", PrimClass::Scalar, eval_pow},
  {"fmin", "{t: Data} -> t -> t -> t", PrimClass::Scalar, eval_fmin},
  {"fmax", "{t: Data} -> t -> t -> t", PrimClass::Scalar, eval_fmax},
  // memory
  {"let", "{s: Data} -> {t: Data} -> s -> (s -> t) -> t", PrimClass::Memory, eval_let},
  {"toMem", "{t: Data} -> t -> t", PrimClass::Memory, eval_id},
  {"oclToMem", "{t: Data} -> (a: Addr) -> t -> t", PrimClass::Memory, eval_id},
  // arrays
  {"generate", "{n: Nat} -> {t: Data} -> (idx[n] -> t) -> n.t", PrimClass::Array, eval_generate},
  {"idx", "{n: Nat} -> {t: Data} -> idx[n] -> n.t -> t", PrimClass::Array, eval_idx},
  {"take", "(n: Nat) -> {m: Nat} -> {t: Data} -> (n+m).t -> n.t", PrimClass::Array, eval_take},
  {"drop", "(n: Nat) -> {m: Nat} -> {t: Data} -> (n+m).t -> m.t", PrimClass::Array, eval_drop},
  {"concat", "{n: Nat} -> {m: Nat} -> {t: Data} -> n.t -> m.t -> (n+m).t", PrimClass::Array, eval_concat},
  {"split", "(n: Nat) -> {m: Nat} -> {t: Data} -> (m*n).t -> m.n.t", PrimClass::Array, eval_split},
  {"join", "{n: Nat} -> {m: Nat} -> {t: Data} -> n.m.t -> (n*m).t", PrimClass::Array, eval_join},
  {"slide", "{n: Nat} -> (sz: Nat) -> (sp: Nat) -> {t: Data} -> (sp*n+sz).t -> (1+n).sz.t", PrimClass::Array, eval_slide},
  {"transpose", "{n: Nat} -> {m: Nat} -> {t: Data} -> n.m.t -> m.n.t", PrimClass::Array, eval_transpose},
  {"gather", "{n: Nat} -> {m: Nat} -> {t: Data} -> m.idx[n] -> n.t -> m.t", PrimClass::Array, eval_gather},
  {"scatter", "{n: Nat} -> {m: Nat} -> {t: Data} -> n.idx[m] -> n.t -> m.t", PrimClass::Array, eval_scatter},
  {"reorder", "{t: Data} -> (n: Nat) -> (f: Nat2Nat) -> (finv: Nat2Nat) -> n.t -> n.t", PrimClass::Array, eval_reorder},
  {"padCst", "{n: Nat} -> (l: Nat) -> (r: Nat) -> {t: Data} -> t -> n.t -> (l+n+r).t", PrimClass::Array, eval_padCst},
  {"padClamp", "{n: Nat} -> (l: Nat) -> (r: Nat) -> {t: Data} -> n.t -> (l+n+r).t", PrimClass::Array, eval_padClamp},
  {"padEmpty", "{n: Nat} -> (r: Nat) -> {t: Data} -> n.t -> (n+r).t", PrimClass::Array, eval_padEmpty},
  {"zip", "{n: Nat} -> {s: Data} -> {t: Data} -> n.s -> n.t -> n.(s, t)", PrimClass::Array, eval_zip},
  {"unzip", "{n: Nat} -> {s: Data} -> {t: Data} -> n.(s, t) -> (n.s, n.t)", PrimClass::Array, eval_unzip},
  // pairs
  {"makePair", "{s: Data} -> {t: Data} -> s -> t -> (s, t)", PrimClass::Array, eval_makePair},
  {"fst", "{s: Data} -> {t: Data} -> (s, t) -> s", PrimClass::Array, eval_fst},
  {"snd", "{s: Data} -> {t: Data} -> (s, t) -> t", PrimClass::Array, eval_snd},
  {"mapFst", "{s1: Data} -> {t: Data} -> {s2: Data} -> (s1 -> s2) -> (s1, t) -> (s2, t)", PrimClass::Array, eval_mapFst},
  {"mapSnd", "{s: Data} -> {t1: Data} -> {t2: Data} -> (t1 -> t2) -> (s, t1) -> (s, t2)", PrimClass::Array, eval_mapSnd},
  // vectors
  {"vectorFromScalar", "{n: Nat} -> {t: Data} -> t -> vec[t, n]", PrimClass::Vector, eval_vectorFromScalar},
  {"asVector", "(n: Nat) -> {m: Nat} -> {t: Data} -> (m*n).t -> m.vec[t, n]", PrimClass::Vector, eval_asVector},
  {"asVectorAligned", "(n: Nat) -> {m: Nat} -> {t: Data} -> (m*n).t -> m.vec[t, n]", PrimClass::Vector, eval_asVector},
  {"asScalar", "{n: Nat} -> {m: Nat} -> {t: Data} -> m.vec[t, n] -> (m*n).t", PrimClass::Vector, eval_asScalar},
  // high-level patterns
  {"map", "{n: Nat} -> {s: Data} -> {t: Data} -> (s -> t) -> n.s -> n.t", PrimClass::Pattern, eval_map},
  {"reduce", "{n: Nat} -> {t: Data} -> (t -> t -> t) -> t -> n.t -> t", PrimClass::Pattern, eval_reduce},
  {"iterate", "{n: Nat} -> {m: Nat} -> (k: Nat) -> {t: Data} -> ((l: Nat) -> (l*n).t -> l.t) -> (m*(n^k)).t -> m.t", PrimClass::Pattern, eval_iterate},
  // low-level sequential patterns
  {"mapSeq", "{n: Nat} -> {s: Data} -> {t: Data} -> (s -> t) -> n.s -> n.t", PrimClass::Sequential, eval_map},
  {"mapSeqUnroll", "{n: Nat} -> {s: Data} -> {t: Data} -> (s -> t) -> n.s -> n.t", PrimClass::Sequential, eval_map},
  {"reduceSeq", "{n: Nat} -> {s: Data} -> {t: Data} -> (t -> s -> t) -> t -> n.s -> t", PrimClass::Sequential, eval_reduce},
  {"reduceSeqUnroll", "{n: Nat} -> {s: Data} -> {t: Data} -> (t -> s -> t) -> t -> n.s -> t", PrimClass::Sequential, eval_reduce},
  {"scanSeq", "{n: Nat} -> {s: Data} -> {t: Data} -> (s -> t -> t) -> t -> n.s -> n.t", PrimClass::Sequential, eval_scanSeq},
  {"circularBuffer", "{n: Nat} -> (alloc: Nat) -> (sz: Nat) -> {s: Data} -> {t: Data} -> (s -> t) -> (n-1+sz).s -> n.sz.t", PrimClass::Sequential, eval_circularBuffer},
  {"rotateValues", "{n: Nat} -> (sz: Nat) -> {t: Data} -> (t -> t) -> (n-1+sz).t -> n.sz.t", PrimClass::Sequential, eval_rotateValues},
  // OpenMP
  {"mapPar", "{n: Nat} -> {s: Data} -> {t: Data} -> (s -> t) -> n.s -> n.t", PrimClass::OpenMP, eval_map},
  {"reducePar", "{n: Nat} -> {t: Data} -> (t -> t -> t) -> t -> n.t -> t", PrimClass::OpenMP, eval_reduce},
  // OpenCL / CUDA; dim is 0, 1 or 2
  {"mapGlobal", "(dim: Nat) -> {n: Nat} -> {s: Data} -> {t: Data} -> (s -> t) -> n.s -> n.t", PrimClass::OpenCL, eval_map},
  {"mapWorkGroup", "(dim: Nat) -> {n: Nat} -> {s: Data} -> {t: Data} -> (s -> t) -> n.s -> n.t", PrimClass::OpenCL, eval_map},
  {"mapLocal", "(dim: Nat) -> {n: Nat} -> {s: Data} -> {t: Data} -> (s -> t) -> n.s -> n.t", PrimClass::OpenCL, eval_map},
  {"oclReduceSeq", "(a: Addr) -> {n: Nat} -> {s: Data} -> {t: Data} -> (t -> s -> t) -> t -> n.s -> t", PrimClass::OpenCL, eval_reduce},
  {"oclReduceSeqUnroll", "(a: Addr) -> {n: Nat} -> {s: Data} -> {t: Data} -> (t -> s -> t) -> t -> n.s -> t", PrimClass::OpenCL, eval_reduce},
  {"oclIterate", "(a: Addr) -> {n: Nat} -> {m: Nat} -> (k: Nat) -> {t: Data} -> ((l: Nat) -> (l*n).t -> l.t) -> (m*(n^k)).t -> m.t", PrimClass::OpenCL, eval_iterate},
};
// clang-format on

const char* kMath[] = {"sqrt", "rsqrt", "exp",  "log", "sin", "cos",  "tan", "tanh",
                       "abs",  "floor", "ceil", "erf", "pow", "fmin", "fmax"};

std::vector<PrimitiveInfo> build_table() {
  std::vector<PrimitiveInfo> out;
  for (const Row& r : kRows) {
    PrimitiveInfo p;
    p.name = r.name;
    p.type_text = r.type;
    p.cls = r.cls;
    p.eval = r.eval;
    p.type = parse_type(r.type);
    Type t = p.type;
    while (node(t).kind == TypeKind::DepFun || node(t).kind == TypeKind::Fun) {
      if (node(t).kind == TypeKind::DepFun) {
        if (!node(t).implicit) ++p.dep_arity;
      } else {
        ++p.arity;
      }
      t = node(t).b;
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

const std::vector<PrimitiveInfo>& primitives() {
  static const std::vector<PrimitiveInfo> table = build_table();
  return table;
}

const PrimitiveInfo* find_primitive(const std::string& name) {
  for (const PrimitiveInfo& p : primitives())
    if (p.name == name) return &p;
  return nullptr;
}

std::vector<std::string> primitive_names() {
  std::vector<std::string> out;
  for (const PrimitiveInfo& p : primitives()) out.push_back(p.name);
  return out;
}

Type make_array_type(int count) {
  Type t = data_var("t");
  Type result = array(Nat(count), t);
  for (int i = 0; i < count; ++i) result = fun(t, result);
  return dep_fun(Kind::Data, "t", result, true);
}

bool is_builtin_math(const std::string& name) {
  return std::any_of(std::begin(kMath), std::end(kMath), [&](const char* m) { return name == m; });
}

}  // namespace risec::rise
