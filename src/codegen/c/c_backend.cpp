// The C backend (see c_backend.h).
#include "codegen/c/c_backend.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "codegen/c_ast.h"
#include "codegen/openmp/openmp.h"
#include "dpia/memory_placement.h"
#include "dpia/outline.h"
#include "dpia/split_loop.h"
#include "dpia/traverse.h"
#include "dpia/unroll.h"

namespace risec::codegen {

using dpia::Acceptor;
using dpia::AcceptorP;
using dpia::Command;
using dpia::CommandP;
using dpia::Expression;
using dpia::ExpressionP;
using rise::Nat;
using rise::Type;
using rise::TypeKind;

std::string c_identifier(const std::string& name) {
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "v_" + out;
  static const std::set<std::string> reserved = {
      "auto",    "break",  "case",     "char",   "const",    "continue", "default",
      "do",      "double", "else",     "enum",   "extern",   "float",    "for",
      "goto",    "if",     "inline",   "int",    "long",     "register", "restrict",
      "return",  "short",  "signed",   "sizeof", "static",   "struct",   "switch",
      "typedef", "union",  "unsigned", "void",   "volatile", "while",    "main"};
  if (reserved.count(out)) out += "_";
  return out;
}

namespace {

struct PathElem {
  enum Kind { Index, Fst, Snd } kind;
  Nat i;
};
using Path = std::vector<PathElem>;

Path prepend(PathElem e, const Path& p) {
  Path r;
  r.reserve(p.size() + 1);
  r.push_back(std::move(e));
  r.insert(r.end(), p.begin(), p.end());
  return r;
}
PathElem at(Nat i) {
  return PathElem{PathElem::Index, std::move(i)};
}

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
CExpr nat_expr(const Nat& n) {
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

struct Storage {
  Type dt;
  bool pointer;  // accessed as name[flat index] (buffers and arrays); else a plain variable
};

class Generator {
 public:
  Generator(const CGenOptions& opts) : opts_(opts) {}

  std::string c_type(const Type& t) {
    switch (t->kind) {
      case TypeKind::Scalar:
        return scalar_c(t->scalar);
      case TypeKind::Index:
      case TypeKind::NatData:
        return "int";
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

  static Type leaf(const Type& t) {
    Type x = t;
    while (x->kind == TypeKind::Array) x = x->a;
    return x;
  }

  static std::vector<Nat> dims(const Type& t) {
    std::vector<Nat> d;
    for (Type x = t; x->kind == TypeKind::Array; x = x->a) d.push_back(x->size);
    return d;
  }

  static Nat count(const Type& t) {
    Nat c(1);
    for (const Nat& d : dims(t)) c = c * d;
    return c;
  }

  std::string vector_type(const Type& t) {
    if (t->a->kind != TypeKind::Scalar) internal_error("C backend: vector of non-scalar");
    auto lanes = t->size.as_const();
    if (!lanes)
      user_error("vector widths must be constants to generate C (vec[" + rise::print(t->a) + ", " +
                 t->size.to_string() + "])");
    std::string elem = scalar_c(t->a->scalar);
    std::string name =
        "risec_" + std::string(rise::scalar_name(t->a->scalar)) + "x" + std::to_string(*lanes);
    if (!typedefs_.count(name)) {
      typedefs_.insert(name);
      std::string bytes = std::to_string(*lanes * rise::scalar_bits(t->a->scalar) / 8);
      std::string esize = std::to_string(rise::scalar_bits(t->a->scalar) / 8);
      // Loads and stores go through may_alias types (any alignment for the unaligned
      // ones), which GCC compiles to single vector moves; a broadcast is a vector
      // operation with a scalar operand.
      std::string def =
          "typedef " + elem + " " + name + " __attribute__((vector_size(" + bytes + ")));\n";
      def += "typedef " + elem + " " + name + "_u __attribute__((vector_size(" + bytes +
             "), aligned(" + esize + "), may_alias));\n";
      def += "typedef " + elem + " " + name + "_a __attribute__((vector_size(" + bytes +
             "), may_alias));\n";
      def += "static inline " + name + " " + name + "_load(const " + elem +
             "* p) { return *(const " + name + "_u*)p; }\n";
      def += "static inline " + name + " " + name + "_load_aligned(const " + elem +
             "* p) { return *(const " + name + "_a*)p; }\n";
      def += "static inline void " + name + "_store(" + elem + "* p, " + name + " v) { *(" + name +
             "_u*)p = v; }\n";
      def += "static inline " + name + " " + name + "_broadcast(" + elem + " x) { return (" + name +
             "){0} + x; }\n";
      typedef_text_ += def;
    }
    return name;
  }

  std::string pair_type(const Type& t) {
    std::string a = c_type(t->a), b = c_type(t->b);
    std::string name = "risec_pair_" + a + "_" + b;
    for (char& c : name)
      if (c == ' ' || c == '*') c = '_';
    if (!typedefs_.count(name)) {
      typedefs_.insert(name);
      typedef_text_ += "typedef struct { " + a + " _1; " + b + " _2; } " + name + ";\n";
    }
    return name;
  }

  // ------------------------------------------------------------ reads
  CExpr var_access(const std::string& name, const Path& path) {
    auto it = storage_.find(name);
    if (it == storage_.end()) internal_error("C backend: unknown variable " + name);
    const Storage& s = it->second;
    std::vector<Nat> ds = dims(s.dt);
    if (path.size() < ds.size())
      internal_error("C backend: partial access to " + name + " (" + std::to_string(path.size()) +
                     " of " + std::to_string(ds.size()) + " indices)");
    Nat flat(0);
    for (size_t k = 0; k < ds.size(); ++k) {
      if (path[k].kind != PathElem::Index) internal_error("C backend: projection on an array");
      flat = flat * ds[k] + path[k].i;
    }
    CExpr base = c_atom(cname(name));
    if (s.pointer) base = c_index(base, nat_expr(flat));
    if (record_) record_->push_back(flat);
    CExpr r = leaf_access(base, leaf(s.dt), path, ds.size());
    last_loc_ =
        Loc{name, flat, path.size() > ds.size() || leaf(s.dt)->kind != TypeKind::Scalar, r.text};
    return r;
  }

  // The memory location behind the most recent variable access (to decide whether
  // the lanes of a vector are consecutive in memory).
  struct Loc {
    std::string var;
    Nat flat;
    bool projected;  // a member of a struct, a lane of a vector: not a plain scalar array
    std::string text;
  };
  std::optional<Loc> last_loc_;
  std::vector<Nat>* record_ = nullptr;  // collects the flat indices generated (split_loop)

  // Whether reading/writing element `lane` (a variable in [0, lanes)) through `access`
  // touches consecutive scalars of one array: flat(lane) == flat(0) + lane.
  bool consecutive(const std::function<CExpr(const Nat&)>& access, const Nat& lanes) {
    Nat lane = Nat::var("risec_lane", Nat(0), lanes);
    last_loc_.reset();
    CExpr e = access(lane);
    if (!last_loc_ || last_loc_->projected || last_loc_->text != e.text) return false;
    Nat base = arith::substitute(last_loc_->flat, {{"risec_lane", Nat(0)}});
    return (last_loc_->flat - base) == lane;
  }

  CExpr leaf_access(CExpr base, Type t, const Path& path, size_t from) {
    for (size_t k = from; k < path.size(); ++k) {
      const PathElem& e = path[k];
      if (e.kind == PathElem::Fst) {
        base = c_member(base, "_1");
        t = t->a;
      } else if (e.kind == PathElem::Snd) {
        base = c_member(base, "_2");
        t = t->b;
      } else if (t->kind == TypeKind::Vector) {
        base = c_index(base, nat_expr(e.i));
        t = t->a;
      } else {
        internal_error("C backend: index into " + rise::print(t));
      }
    }
    return base;
  }

  static Nat need_index(const Path& p, size_t k, const char* what) {
    if (p.size() <= k || p[k].kind != PathElem::Index)
      internal_error(std::string("C backend: ") + what + " needs an index");
    return p[k].i;
  }
  static Path rest(const Path& p, size_t from) {
    return Path(p.begin() + static_cast<long>(from), p.end());
  }

  CExpr read(const ExpressionP& e, const Path& p) {
    switch (e->kind) {
      case Expression::Var:
        return var_access(e->name, p);
      case Expression::Nat:
        if (!p.empty()) internal_error("C backend: index into a Nat");
        return nat_expr(e->idx);
      case Expression::Lit:
        return literal(e, p);
      case Expression::Idx:
        return read(e->args[0], prepend(at(e->idx), p));
      case Expression::Split: {
        Nat i = need_index(p, 0, "split"), j = need_index(p, 1, "split");
        return read(e->args[0], prepend(at(i * e->n + j), rest(p, 2)));
      }
      case Expression::Join: {
        Nat k = need_index(p, 0, "join");
        Path q =
            prepend(at(arith::floordiv(k, e->n)), prepend(at(arith::mod(k, e->n)), rest(p, 1)));
        return read(e->args[0], q);
      }
      case Expression::Transpose: {
        Nat i = need_index(p, 0, "transpose"), j = need_index(p, 1, "transpose");
        return read(e->args[0], prepend(at(j), prepend(at(i), rest(p, 2))));
      }
      case Expression::Slide: {
        Nat i = need_index(p, 0, "slide"), j = need_index(p, 1, "slide");
        return read(e->args[0], prepend(at(i * e->m + j), rest(p, 2)));
      }
      case Expression::Take:
        return read(e->args[0], p);
      case Expression::Drop: {
        Nat i = need_index(p, 0, "drop");
        return read(e->args[0], prepend(at(i + e->n), rest(p, 1)));
      }
      case Expression::PadCst: {
        Nat i = need_index(p, 0, "padCst");
        Nat len = e->args[0]->dt->size;
        arith::Cond inside = arith::le(e->n, i) && arith::lt(i, e->n + len);
        if (auto c = inside.as_const()) {
          return *c ? read(e->args[0], prepend(at(i - e->n), rest(p, 1)))
                    : read(e->args[1], rest(p, 1));
        }
        return c_cond(cond_expr(inside), read(e->args[0], prepend(at(i - e->n), rest(p, 1))),
                      read(e->args[1], rest(p, 1)));
      }
      case Expression::PadClamp: {
        Nat i = need_index(p, 0, "padClamp");
        Nat len = e->args[0]->dt->size;
        Nat j = arith::min(arith::max(i - e->n, Nat(0)), len - Nat(1));
        return read(e->args[0], prepend(at(j), rest(p, 1)));
      }
      case Expression::Concat: {
        Nat i = need_index(p, 0, "concat");
        Nat n = e->args[0]->dt->size;
        arith::Cond first = arith::lt(i, n);
        if (auto c = first.as_const())
          return *c ? read(e->args[0], p) : read(e->args[1], prepend(at(i - n), rest(p, 1)));
        return c_cond(cond_expr(first), read(e->args[0], p),
                      read(e->args[1], prepend(at(i - n), rest(p, 1))));
      }
      case Expression::Zip: {
        Nat i = need_index(p, 0, "zip");
        if (p.size() < 2 || p[1].kind == PathElem::Index)
          internal_error("C backend: zip element used without projection");
        const ExpressionP& side = p[1].kind == PathElem::Fst ? e->args[0] : e->args[1];
        return read(side, prepend(at(i), rest(p, 2)));
      }
      case Expression::MkPair: {
        if (p.empty() || p[0].kind == PathElem::Index)
          internal_error("C backend: pair used without projection");
        return read(p[0].kind == PathElem::Fst ? e->args[0] : e->args[1], rest(p, 1));
      }
      case Expression::Fst:
        return read(e->args[0], prepend(PathElem{PathElem::Fst, Nat(0)}, p));
      case Expression::Snd:
        return read(e->args[0], prepend(PathElem{PathElem::Snd, Nat(0)}, p));
      case Expression::Generate: {
        Nat i = need_index(p, 0, "generate");
        return read(dpia::substitute_nat(e->args[0], e->name, i), rest(p, 1));
      }
      case Expression::MapView: {
        Nat i = need_index(p, 0, "map");
        ExpressionP elem = dpia::ex_idx(e->args[1], i);
        return read(dpia::substitute_var(e->args[0], e->name, elem), rest(p, 1));
      }
      case Expression::AsVector: {
        Nat i = need_index(p, 0, "asVector");
        Nat lanes = e->n;
        if (p.size() >= 2) return read(e->args[0], prepend(at(i * lanes + p[1].i), rest(p, 2)));
        std::string vt = vector_type(e->dt->a);
        const ExpressionP& x = e->args[0];
        if (consecutive([&](const Nat& l) { return read(x, {at(i * lanes + l)}); }, lanes)) {
          CExpr addr = c_unary("&", read(x, {at(i * lanes)}));
          return c_call(vt + (e->aligned ? "_load_aligned" : "_load"), {addr});
        }
        // Lanes that are not consecutive in memory (a component of an array of pairs,
        // a strided view): gather them one by one.
        auto n = lanes.as_const();
        if (!n) internal_error("C backend: symbolic vector width");
        std::string lits = "(" + vt + "){";
        for (int64_t l = 0; l < *n; ++l)
          lits += (l ? ", " : "") + read(x, {at(i * lanes + Nat(l))}).at(kPrecAssign);
        return c_atom(lits + "}");
      }
      case Expression::AsScalar: {
        Nat k = need_index(p, 0, "asScalar");
        return read(e->args[0], prepend(at(arith::floordiv(k, e->n)),
                                        prepend(at(arith::mod(k, e->n)), rest(p, 1))));
      }
      case Expression::Broadcast: {
        if (!p.empty()) return read(e->args[0], rest(p, 1));
        return c_call(vector_type(e->dt) + "_broadcast", {read(e->args[0], {})});
      }
      case Expression::Gather: {
        Nat i = need_index(p, 0, "gather");
        CExpr ix = read(e->args[0], {at(i)});
        Nat dyn = Nat::var("(" + ix.text + ")", Nat(0), e->args[1]->dt->size);
        return read(e->args[1], prepend(at(dyn), rest(p, 1)));
      }
      case Expression::Reorder: {
        Nat i = need_index(p, 0, "reorder");
        return read(e->args[0], prepend(at(e->fn.apply(i)), rest(p, 1)));
      }
      case Expression::Unary:
      case Expression::Binary:
      case Expression::Call:
      case Expression::Select:
      case Expression::Cast:
        return scalar_op(e, p);
      case Expression::MkArray:
        internal_error("C backend: array literal not materialised");
    }
    internal_error("C backend: unknown expression");
  }

  CExpr cond_expr(const arith::Cond& c) {
    std::string s = arith::print(c, arith::Syntax::C);
    return CExpr{s, kPrecOr};
  }

  CExpr literal(const ExpressionP& e, const Path& p) {
    const Type& t = e->dt;
    if (t->kind == TypeKind::Vector && p.empty()) {
      Expression scalar_lit = *e;
      scalar_lit.dt = t->a;
      return c_call(vector_type(t) + "_broadcast", {literal(dpia::ex_make(scalar_lit), {})});
    }
    rise::ScalarKind k = t->kind == TypeKind::Scalar
                             ? t->scalar
                             : (t->kind == TypeKind::Vector ? t->a->scalar : e->lit.scalar);
    char buf[64];
    switch (k) {
      case rise::ScalarKind::F32: {
        float f = static_cast<float>(e->lit.f);
        if (std::isinf(f)) return c_atom(f > 0 ? "INFINITY" : "(-INFINITY)");
        if (std::isnan(f)) return c_atom("NAN");
        std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(f));
        std::string s = buf;
        if (s.find_first_of(".e") == std::string::npos) s += ".0";
        s += "f";
        return CExpr{s, s[0] == '-' ? kPrecUnary : kPrecAtom};
      }
      case rise::ScalarKind::F64: {
        double d = e->lit.f;
        if (std::isinf(d)) return c_atom(d > 0 ? "INFINITY" : "(-INFINITY)");
        if (std::isnan(d)) return c_atom("NAN");
        std::snprintf(buf, sizeof buf, "%.17g", d);
        std::string s = buf;
        if (s.find_first_of(".e") == std::string::npos) s += ".0";
        return CExpr{s, s[0] == '-' ? kPrecUnary : kPrecAtom};
      }
      case rise::ScalarKind::Bool:
        return c_atom(e->lit.i ? "true" : "false");
      case rise::ScalarKind::I64:
        return c_atom("INT64_C(" + std::to_string(e->lit.i) + ")");
      case rise::ScalarKind::U64:
        return c_atom("UINT64_C(" + std::to_string(static_cast<uint64_t>(e->lit.i)) + ")");
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

  static bool is_float_type(const Type& t) {
    if (t->kind == TypeKind::Scalar) return rise::is_float(t->scalar);
    if (t->kind == TypeKind::Vector) return rise::is_float(t->a->scalar);
    return false;
  }

  CExpr scalar_op(const ExpressionP& e, const Path& p) {
    // A lane of a vector operation is the operation on the lanes.
    std::vector<CExpr> args;
    for (const ExpressionP& a : e->args) {
      bool vec_arg = a->dt->kind == TypeKind::Vector;
      args.push_back(read(a, vec_arg ? p : Path{}));
    }
    bool vector = e->dt->kind == TypeKind::Vector && p.empty();
    Type elem_t = e->dt->kind == TypeKind::Vector && !p.empty() ? e->dt->a : e->dt;
    Type arg_t = e->args.empty() ? e->dt : e->args[0]->dt;
    if (arg_t->kind == TypeKind::Vector && !p.empty()) arg_t = arg_t->a;
    const std::string& op = e->name;
    switch (e->kind) {
      case Expression::Unary:
        if (op == "neg") return c_unary("-", args[0]);
        return c_unary("!", args[0]);
      case Expression::Binary: {
        if (op == "add") return c_binary(args[0], "+", args[1], kPrecAdd);
        if (op == "sub") return c_binary(args[0], "-", args[1], kPrecAdd);
        if (op == "mul") return c_binary(args[0], "*", args[1], kPrecMul);
        if (op == "div") return c_binary(args[0], "/", args[1], kPrecMul);
        if (op == "mod") {
          if (is_float_type(arg_t)) {
            if (vector) return vector_math("fmod", e->dt, args);
            return c_call(arg_t->scalar == rise::ScalarKind::F32 ? "fmodf" : "fmod", args);
          }
          return c_binary(args[0], "%", args[1], kPrecMul);
        }
        if (op == "lt") return c_binary(args[0], "<", args[1], kPrecRel);
        if (op == "gt") return c_binary(args[0], ">", args[1], kPrecRel);
        if (op == "equal") return c_binary(args[0], "==", args[1], kPrecEq);
        internal_error("C backend: unknown operator " + op);
      }
      case Expression::Call: {
        if (e->foreign) return c_call(c_identifier(e->foreign->name), args);
        if (vector) return vector_math(op, e->dt, args);
        return math_call(op, elem_t, args);
      }
      case Expression::Select:
        return c_cond(args[0], args[1], args[2]);
      case Expression::Cast:
        return c_cast(c_type(elem_t), args[0]);
      default:
        internal_error("C backend: not a scalar operation");
    }
  }

  CExpr math_call(const std::string& op, const Type& t, const std::vector<CExpr>& args) {
    bool f32 = t->kind == TypeKind::Scalar && t->scalar == rise::ScalarKind::F32;
    bool flt = t->kind == TypeKind::Scalar && rise::is_float(t->scalar);
    std::string sfx = f32 ? "f" : "";
    if (op == "rsqrt")
      return c_binary(c_atom(f32 ? "1.0f" : "1.0"), "/", c_call("sqrt" + sfx, args), kPrecMul);
    if (op == "abs") {
      if (flt) return c_call("fabs" + sfx, args);
      if (t->scalar == rise::ScalarKind::I64) return c_call("llabs", args);
      if (rise::is_unsigned_int(t->scalar)) return args[0];
      return c_call("abs", args);
    }
    if (!flt)
      user_error("the math function " + op + " needs f32 or f64 arguments in generated code");
    return c_call(op + sfx, args);
  }

  // A math function on a vector: a lane loop the C compiler vectorises.
  CExpr vector_math(const std::string& op, const Type& vt, const std::vector<CExpr>& args) {
    std::string name = vector_type(vt);
    std::string fn = name + "_" + op;
    if (!typedefs_.count(fn)) {
      typedefs_.insert(fn);
      std::string lanes = vt->size.to_string();
      std::string elem = scalar_c(vt->a->scalar);
      std::string params, call_args;
      for (size_t i = 0; i < args.size(); ++i) {
        params += (i ? ", " : "") + name + " a" + std::to_string(i);
        call_args += (i ? ", " : "") + std::string("a") + std::to_string(i) + "[l]";
      }
      std::vector<CExpr> lane_args;
      for (size_t i = 0; i < args.size(); ++i)
        lane_args.push_back(c_atom("a" + std::to_string(i) + "[l]"));
      CExpr body = op == "fmod" ? c_call(vt->a->scalar == rise::ScalarKind::F32 ? "fmodf" : "fmod",
                                         lane_args)
                                : math_call(op, vt->a, lane_args);
      typedef_text_ += "static inline " + name + " " + fn + "(" + params + ") {\n  " + name +
                       " r;\n  RISEC_SIMD_LOOP\n  for (int l = 0; l < " + lanes +
                       "; ++l) r[l] = " + body.text + ";\n  return r;\n}\n";
      // The scalar function's vector variants (glibc's libmvec) for the lane loop.
      std::string c_fn = body.text.substr(0, body.text.find('('));
      if (!simd_decls_.count(c_fn) && c_fn.find(' ') == std::string::npos) {
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

  // ------------------------------------------------------------ writes
  struct Target {
    CExpr lvalue;
    bool vstore = false;
    std::string vtype;
    std::vector<CExpr> lanes;  // a vector stored lane by lane (not consecutive in memory)
  };

  Target write_target(const AcceptorP& a, const Path& p) {
    switch (a->kind) {
      case Acceptor::Var:
        return Target{var_access(a->name, p)};
      case Acceptor::Idx:
        return write_target(a->inner, prepend(at(a->idx), p));
      case Acceptor::Split: {
        Nat i = need_index(p, 0, "splitAcc"), j = need_index(p, 1, "splitAcc");
        return write_target(a->inner, prepend(at(i * a->n + j), rest(p, 2)));
      }
      case Acceptor::Join: {
        Nat k = need_index(p, 0, "joinAcc");
        return write_target(a->inner, prepend(at(arith::floordiv(k, a->n)),
                                              prepend(at(arith::mod(k, a->n)), rest(p, 1))));
      }
      case Acceptor::Transpose: {
        Nat i = need_index(p, 0, "transposeAcc"), j = need_index(p, 1, "transposeAcc");
        return write_target(a->inner, prepend(at(j), prepend(at(i), rest(p, 2))));
      }
      case Acceptor::Take:
        return write_target(a->inner, p);
      case Acceptor::Drop: {
        Nat i = need_index(p, 0, "dropAcc");
        return write_target(a->inner, prepend(at(i + a->n), rest(p, 1)));
      }
      case Acceptor::Zip1:
      case Acceptor::Zip2: {
        Nat i = need_index(p, 0, "zipAcc");
        PathElem proj{a->kind == Acceptor::Zip1 ? PathElem::Fst : PathElem::Snd, Nat(0)};
        return write_target(a->inner, prepend(at(i), prepend(proj, rest(p, 1))));
      }
      case Acceptor::Pair1:
      case Acceptor::Pair2:
        return write_target(
            a->inner,
            prepend(PathElem{a->kind == Acceptor::Pair1 ? PathElem::Fst : PathElem::Snd, Nat(0)},
                    p));
      case Acceptor::AsVector: {
        // A vector element i of an m.vec acceptor over an (m*n).t buffer.
        Nat i = need_index(p, 0, "asVectorAcc");
        if (p.size() >= 2)
          return write_target(a->inner, prepend(at(i * a->n + p[1].i), rest(p, 2)));
        bool contiguous = consecutive(
            [&](const Nat& l) { return write_target(a->inner, {at(i * a->n + l)}).lvalue; }, a->n);
        Target t = write_target(a->inner, {at(i * a->n)});
        t.vstore = true;
        t.vtype = vector_type(a->dt->a);
        if (!contiguous) {
          auto n = a->n.as_const();
          if (!n) internal_error("C backend: symbolic vector width");
          for (int64_t l = 0; l < *n; ++l)
            t.lanes.push_back(write_target(a->inner, {at(i * a->n + Nat(l))}).lvalue);
        }
        return t;
      }
      case Acceptor::AsScalar: {
        Nat k = need_index(p, 0, "asScalarAcc");
        return write_target(a->inner, prepend(at(arith::floordiv(k, a->n)),
                                              prepend(at(arith::mod(k, a->n)), rest(p, 1))));
      }
      case Acceptor::Reorder: {
        Nat j = need_index(p, 0, "reorderAcc");
        return write_target(a->inner, prepend(at(a->fn.apply(j)), rest(p, 1)));
      }
      case Acceptor::MapView: {
        Nat i = need_index(p, 0, "mapAcc");
        return write_target(dpia::ac_idx(a, i), rest(p, 1));
      }
      case Acceptor::Hole:
        internal_error("C backend: a map-view template outside its map");
    }
    internal_error("C backend: unknown acceptor");
  }

  // ------------------------------------------------------------ commands
  // One copy of a loop body in the enclosing block (an unrolled iteration, a
  // one-iteration loop): in a scope of its own when it declares names, which the
  // next copy (or the code beside it) may declare again.
  void gen_copy(const CommandP& body, std::vector<CStmtP>& out) {
    std::vector<CStmtP> part;
    gen(body, part);
    bool declares = false;
    for (const CStmtP& st : part) declares = declares || st->kind == CStmt::Decl;
    if (declares) {
      out.push_back(c_scope(std::move(part)));
      return;
    }
    out.insert(out.end(), part.begin(), part.end());
  }

  void gen(const CommandP& c, std::vector<CStmtP>& out) {
    switch (c->kind) {
      case Command::Skip:
        return;
      case Command::Comment:
        out.push_back(c_comment(c->text));
        return;
      case Command::Seq:
        for (const CommandP& x : c->body) gen(x, out);
        return;
      case Command::Block:
        gen_copy(c->body[0], out);
        return;
      case Command::Assign: {
        Target t = write_target(c->acc, {});
        CExpr v = read(c->exp, {});
        if (t.vstore && !t.lanes.empty()) {
          std::string tmp = "risec_v" + std::to_string(++tmp_counter_);
          std::vector<CStmtP> block{c_decl(t.vtype + " " + tmp + " = " + v.at(kPrecAssign))};
          for (size_t l = 0; l < t.lanes.size(); ++l)
            block.push_back(c_assign(t.lanes[l], c_atom(tmp + "[" + std::to_string(l) + "]")));
          out.push_back(c_raw("{"));
          for (auto& b : block) b->text = "  " + b->text;
          out.insert(out.end(), block.begin(), block.end());
          out.push_back(c_raw("}"));
        } else if (t.vstore) {
          out.push_back(c_expr_stmt(t.vtype + "_store(&" + t.lvalue.at(kPrecUnary) + ", " +
                                    v.at(kPrecAssign) + ")"));
        } else {
          out.push_back(c_assign(t.lvalue, v));
        }
        return;
      }
      case Command::For: {
        if (c->n.is_const(0)) return;
        // Unrolled loops and loops of one iteration: copies in Blocks (dpia/unroll).
        if (auto copies = dpia::unroll_loop(*c)) {
          gen(*copies, out);
          return;
        }
        if (c->loop == dpia::LoopKind::Seq && split_loop(*c, out)) return;
        std::string v = cname(c->var);
        // Nested parallel loops run sequentially inside the outer parallel one.
        bool parallel = c->loop == dpia::LoopKind::Par && opts_.target.runs(dpia::LoopKind::Par) &&
                        !in_parallel_;
        if (collapse_next_) {
          // The inner loop of a collapsed pair: plain, inside the parallel region.
          collapse_next_ = false;
        }
        if (parallel) {
          std::string clause;
          if (!c->reduction_op.empty())
            clause = " " + reduction_clause(c->reduction_op, c->reduction_var);
          // A perfect nest of parallel loops is collapsed.
          if (clause.empty() && openmp::collapsible(*c)) {
            clause = " collapse(2)";
            collapse_next_ = true;
          }
          if (clause.empty()) {
            if (CStmtP call = outline_parallel_body(*c, v)) {
              out.push_back(c_pragma(openmp::parallel_for("")));
              uses_openmp_ = true;
              out.push_back(c_for(v, nat_expr(c->n), {call}));
              return;
            }
          }
          out.push_back(c_pragma(openmp::parallel_for(clause)));
          uses_openmp_ = true;
          in_parallel_ = true;
        }
        std::vector<CStmtP> body;
        gen(c->body[0], body);
        if (parallel) in_parallel_ = false;
        out.push_back(c_for(v, nat_expr(c->n), std::move(body)));
        return;
      }
      case Command::New: {
        std::string name = cname(c->var);
        const Type& dt = c->dt;
        bool array = dt->kind == TypeKind::Array;
        storage_[c->var] = Storage{dt, array};
        std::string ty = c_type(dt);
        std::vector<CStmtP> body;
        if (!array) {
          out.push_back(c_decl(ty + " " + name));
          gen(c->body[0], out);
          return;
        }
        Nat total = count(dt);
        if (c->placement == dpia::Placement::Unplaced)
          internal_error("C backend: an allocation without a placement");
        if (c->placement == dpia::Placement::Stack) {
          out.push_back(c_decl(ty + " " + name + "[" + std::to_string(*total.as_const()) +
                               "] __attribute__((aligned(64)))"));
          gen(c->body[0], out);
          return;
        }
        uses_alloc_ = true;
        out.push_back(c_decl(ty + "* restrict " + name + " = (" + ty + "*)risec_alloc(sizeof(" +
                             ty + ") * (size_t)(" + nat_expr(total).text + "))"));
        gen(c->body[0], out);
        out.push_back(c_expr_stmt("free(" + name + ")"));
        return;
      }
      case Command::If: {
        if (auto v = c->cond.as_const()) {
          gen(c->body[*v ? 0 : 1], out);
          return;
        }
        std::vector<CStmtP> then, orelse;
        gen(c->body[0], then);
        gen(c->body[1], orelse);
        out.push_back(c_if(cond_expr(c->cond), std::move(then), std::move(orelse)));
        return;
      }
      case Command::NewDoubleBuffer: {
        // The paper's Listing 12: two buffers, an input and an output pointer, and a
        // flag saying which buffer the next iteration writes.
        std::string db = c_identifier(c->var);
        std::string ty = c_type(c->dt);
        std::string b1 = db + "_buf1", b2 = db + "_buf2";
        Type buf_t = rise::array(c->n, c->dt);
        Nat total = count(buf_t);
        bool heap = c->placement == dpia::Placement::Heap;
        if (c->placement == dpia::Placement::Unplaced)
          internal_error("C backend: a double buffer without a placement");
        for (const std::string& b : {b1, b2}) {
          if (heap) {
            uses_alloc_ = true;
            out.push_back(c_decl(ty + "* " + b + " = (" + ty + "*)risec_alloc(sizeof(" + ty +
                                 ") * (size_t)(" + nat_expr(total).text + "))"));
          } else {
            out.push_back(c_decl(ty + " " + b + "[" + std::to_string(*total.as_const()) +
                                 "] __attribute__((aligned(64)))"));
          }
        }
        if (c->exp->kind != Expression::Var || c->acc->kind != Acceptor::Var)
          internal_error("C backend: double buffer over views");
        std::string in = dpia::double_buffer_in(c->var), outp = dpia::double_buffer_out(c->var);
        std::string output = cname(c->acc->name);
        // The loop has k iterations; with one, the first write goes to the output.
        const Command& loop = *c->body[0];
        std::string first_out = loop.kind == Command::For && loop.n.is_const(1) ? output : b1;
        out.push_back(c_decl(ty + "* " + cname(in) + " = (" + ty + "*)" + cname(c->exp->name)));
        out.push_back(c_decl(ty + "* " + cname(outp) + " = " + first_out));
        out.push_back(c_decl("unsigned char " + db + "_flag = 1"));
        storage_[in] = Storage{rise::array(c->n, c->dt), true};
        storage_[outp] = Storage{rise::array(c->n, c->dt), true};
        double_buffers_[c->var] = output;
        gen(c->body[0], out);
        if (heap) {
          out.push_back(c_expr_stmt("free(" + b1 + ")"));
          out.push_back(c_expr_stmt("free(" + b2 + ")"));
        }
        return;
      }
      case Command::Swap:
      case Command::Done: {
        std::string db = c_identifier(c->var);
        std::string in = cname(dpia::double_buffer_in(c->var)),
                    outp = cname(dpia::double_buffer_out(c->var));
        out.push_back(
            c_assign(c_atom(in), c_atom(db + "_flag ? " + db + "_buf1 : " + db + "_buf2")));
        if (c->kind == Command::Swap) {
          out.push_back(
              c_assign(c_atom(outp), c_atom(db + "_flag ? " + db + "_buf2 : " + db + "_buf1")));
          out.push_back(c_expr_stmt(db + "_flag ^= 1"));
        } else {
          out.push_back(c_assign(c_atom(outp), c_atom(double_buffers_[c->var])));
        }
        return;
      }
      default:
        internal_error("C backend: unsupported command");
    }
  }

  std::string cname(const std::string& var) {
    auto it = cnames_.find(var);
    return it != cnames_.end() ? it->second : c_identifier(var);
  }

  const CGenOptions& opts_;
  std::map<std::string, Storage> storage_;
  std::map<std::string, std::string> cnames_;
  std::map<std::string, std::string> double_buffers_;  // double buffer -> final output
  std::set<std::string> typedefs_;
  std::string typedef_text_;
  std::set<std::string> simd_decls_;
  bool collapse_next_ = false;
  int tmp_counter_ = 0;

  // `reduction(+:acc)`; vector accumulators get a declared reduction (once).
  std::string reduction_clause(const std::string& op, const std::string& var) {
    const Storage& st = storage_.at(var);
    std::string vt = st.dt->kind == TypeKind::Vector ? vector_type(st.dt) : "";
    openmp::Reduction r = openmp::reduction(op, cname(var), st.dt, vt);
    if (!r.id.empty() && !typedefs_.count(r.id)) {
      typedefs_.insert(r.id);
      reductions_text_ += r.declaration;
    }
    return r.clause;
  }
  std::string reductions_text_;
  std::string outlined_text_;
  int outlined_counter_ = 0;
  std::string function_name_;

  // ------------------------------------------------------------ index-set splitting
  // dpia/split_loop decides the parts; the indices that views produce come from
  // generating the body once (views are resolved while printing).
  bool split_loop(const Command& c, std::vector<CStmtP>& out) {
    auto parts = dpia::split_at_clamps(c, [&](const CommandP& body) {
      std::vector<Nat> flats;
      std::vector<CStmtP> scratch;
      auto* saved = record_;
      record_ = &flats;
      gen(body, scratch);
      record_ = saved;
      return flats;
    });
    if (!parts) return false;
    for (const dpia::LoopPart& p : *parts) {
      if (p.len.is_const(1)) {
        gen_copy(p.body, out);
        continue;
      }
      std::vector<CStmtP> body;
      gen(p.body, body);
      out.push_back(c_for(cname(p.var), nat_expr(p.len), std::move(body)));
    }
    return true;
  }

  // ------------------------------------------------------------ outlining
  // GCC outlines an OpenMP loop body into a function whose pointers lose `restrict`
  // (they travel in a struct), which costs the mm ladder a factor of three. So the
  // body becomes a static function of its own with restrict parameters, called from
  // the parallel loop. Returns null when the body cannot be outlined (it writes a
  // scalar declared outside the loop, or uses a data-dependent index).
  CStmtP outline_parallel_body(const Command& loop, const std::string& v) {
    dpia::Captures u = dpia::captures(loop);
    const std::set<std::string>& bound = u.bound;
    std::vector<std::string> params, args;
    params.push_back("int " + v);
    args.push_back(v);
    for (const std::string& n : u.nats) {
      if (bound.count(n)) continue;
      if (c_identifier(n) != n) return nullptr;
      params.push_back("int " + n);
      args.push_back(n);
    }
    std::set<std::string> mem;
    mem.insert(u.read.begin(), u.read.end());
    mem.insert(u.written.begin(), u.written.end());
    for (const std::string& m : mem) {
      if (bound.count(m)) continue;
      auto it = storage_.find(m);
      if (it == storage_.end()) return nullptr;
      const Storage& st = it->second;
      bool written = u.written.count(m) > 0;
      std::string ty = c_type(st.dt);
      if (st.pointer) {
        params.push_back((written ? "" : "const ") + ty + "* restrict " + cname(m));
        args.push_back(cname(m));
      } else {
        if (written) return nullptr;
        params.push_back(ty + " " + cname(m));
        args.push_back(cname(m));
      }
    }
    std::vector<CStmtP> body;
    bool saved = in_parallel_;
    in_parallel_ = true;
    gen(loop.body[0], body);
    in_parallel_ = saved;
    std::string fn = function_name_ + "__par" + std::to_string(++outlined_counter_);
    std::string sig = "static void " + fn + "(";
    for (size_t i = 0; i < params.size(); ++i) sig += (i ? ", " : "") + params[i];
    sig += ")";
    outlined_text_ += sig + " {\n" + print(c_block(body), 1) + "}\n\n";
    std::string call = fn + "(";
    for (size_t i = 0; i < args.size(); ++i) call += (i ? ", " : "") + args[i];
    return c_expr_stmt(call + ")");
  }
  std::string simd_text_;
  bool uses_alloc_ = false;
  bool uses_openmp_ = false;
  bool in_parallel_ = false;

  friend CUnit codegen::generate_c(const std::string&, const CommandP&, const std::string&,
                                   const Type&, const std::vector<dpia::Input>&,
                                   const std::vector<std::string>&, const CGenOptions&);
};

const char* kHelpers =
    "static inline int risec_min(int a, int b) { return a < b ? a : b; }\n"
    "static inline int risec_max(int a, int b) { return a > b ? a : b; }\n"
    "static inline int risec_floordiv(int a, int b) { int q = a / b; return (a % b != 0 && ((a < "
    "0) != (b < 0))) ? q - 1 : q; }\n"
    "static inline int risec_floormod(int a, int b) { int r = a % b; return (r != 0 && ((r < 0) != "
    "(b < 0))) ? r + b : r; }\n"
    "static inline int risec_pow(int b, int e) { int r = 1; while (e-- > 0) r *= b; return r; }\n";

// What a violated size precondition does, unless the user defines it (e.g. to log
// and return an error through their own channel).
const char* const kPreconditionHelper =
    "#if !defined(RISEC_NO_CHECKS) && !defined(RISEC_PRECONDITION_FAILED)\n"
    "#include <stdio.h>\n"
    "#define RISEC_PRECONDITION_FAILED(fn, what) \\\n"
    "  (fprintf(stderr, \"%s: size precondition violated: %s\\n\", fn, what), abort())\n"
    "#endif\n";

// A C string literal for plain text.
std::string c_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// The checks at the entry of a function with symbolic sizes: each size at least 1,
// then each divisibility the program needs.
std::string size_checks(const std::string& fn, const std::vector<std::string>& sizes,
                        const std::vector<SizeCondition>& conditions) {
  if (sizes.empty()) return "";
  std::string out = "#ifndef RISEC_NO_CHECKS\n";
  auto check = [&](const std::string& cond, const std::string& what) {
    out += "  if (!(" + cond + ")) { RISEC_PRECONDITION_FAILED(" + c_string(fn) + ", " +
           c_string(what) + "); return; }\n";
  };
  for (const std::string& s : sizes) check(s + " >= 1", s + " >= 1 (sizes are positive)");
  for (const SizeCondition& c : conditions) {
    if (c.condition.kind == rise::SideCondition::Kind::Divides)
      check(nat_expr(c.condition.divides.dividend).at(kPrecMul) + " % " +
                nat_expr(c.condition.divides.divisor).at(kPrecUnary) + " == 0",
            c.description);
    else
      check(nat_expr(c.condition.value).at(kPrecRel) + " >= 0", c.description);
  }
  return out + "#endif\n";
}

}  // namespace

CUnit generate_c(const std::string& entry_name, const CommandP& program, const std::string& output,
                 const Type& out_dt, const std::vector<dpia::Input>& inputs,
                 const std::vector<std::string>& sizes, const CGenOptions& options) {
  Generator g(options);
  CUnit u;
  u.name = c_identifier(entry_name);
  g.storage_[output] = Storage{out_dt, true};
  for (const auto& in : inputs) {
    g.storage_[in.name] = Storage{in.dt, true};
    g.cnames_[in.name] = c_identifier(in.display.empty() ? in.name : in.display);
  }

  g.function_name_ = u.name;
  std::vector<CStmtP> body;
  g.gen(dpia::place_memory(program), body);

  std::string sig =
      "void " + u.name + "(" + g.c_type(out_dt) + "* restrict " + c_identifier(output);
  u.params.push_back({output, out_dt, false});
  for (const auto& s : sizes) {
    sig += ", int " + c_identifier(s);
    u.params.push_back({s, nullptr, true});
  }
  for (const auto& in : inputs) {
    sig += ", const " + g.c_type(in.dt) + "* restrict " + g.cname(in.name);
    u.params.push_back({in.name, in.dt, false});
  }
  sig += ")";

  std::ostringstream src;
  src << "/* Generated by risec " RISEC_VERSION " from '" << entry_name << "'. Do not edit. */\n";
  src << "#define _POSIX_C_SOURCE 200112L\n";
  src << "#include <math.h>\n#include <stdbool.h>\n#include <stdint.h>\n#include "
         "<stdlib.h>\n#include <string.h>\n";
  // Vectors wider than the hardware's are passed in memory; GCC notes the ABI.
  src << "#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC diagnostic ignored "
         "\"-Wpsabi\"\n#endif\n\n";
  src << kHelpers;
  // Lane loops of vector math run under `omp simd` when OpenMP (or -fopenmp-simd with
  // -DRISEC_OMP_SIMD, as risec run compiles) is on, calling glibc's vector variants.
  src << "#if defined(_OPENMP) || defined(RISEC_OMP_SIMD)\n#define RISEC_SIMD_LOOP _Pragma(\"omp "
         "simd\")\n"
      << g.simd_text_ << "#else\n#define RISEC_SIMD_LOOP\n#endif\n";
  if (!sizes.empty()) src << kPreconditionHelper;
  if (g.uses_alloc_)
    src << "static inline void* risec_alloc(size_t bytes) { void* p = NULL; if (posix_memalign(&p, "
           "64, "
           "bytes ? bytes : 64) != 0) abort(); return p; }\n";
  src << g.typedef_text_ << "\n";
  if (!g.reductions_text_.empty()) src << "#ifdef _OPENMP\n" << g.reductions_text_ << "#endif\n\n";
  src << g.outlined_text_;
  src << sig << " {\n"
      << size_checks(u.name, sizes, options.size_conditions) << print(c_block(body), 1) << "}\n\n";
  // A uniform entry point for the runtime: buffers[0] is the output, then inputs.
  src << "void " << u.name << "__risec_call(void* const* buffers, const int* sizes) {\n  ";
  if (sizes.empty()) src << "(void)sizes;\n  ";
  src << u.name << "(";
  src << "(" << g.c_type(out_dt) << "*)buffers[0]";
  for (size_t i = 0; i < sizes.size(); ++i) src << ", sizes[" << i << "]";
  for (size_t i = 0; i < inputs.size(); ++i)
    src << ", (const " << g.c_type(inputs[i].dt) << "*)buffers[" << i + 1 << "]";
  src << ");\n}\n";
  u.source = src.str();
  u.uses_openmp = g.uses_openmp_;

  std::ostringstream h;
  h << "/* Generated by risec " RISEC_VERSION " from '" << entry_name << "'. */\n";
  h << "#pragma once\n#include <stdbool.h>\n#include <stdint.h>\n\n";
  h << "#include <string.h>\n" << g.typedef_text_ << "\n";
  h << "/* Arrays are flat, row-major buffers:\n";
  h << " *   output: " << rise::print(out_dt) << "\n";
  for (const auto& in : inputs)
    h << " *   " << g.cname(in.name) << ": " << rise::print(in.dt) << "\n";
  if (!sizes.empty()) {
    h << " * Preconditions on the sizes, checked on entry unless compiled with -DRISEC_NO_CHECKS\n"
         " * (a violation calls RISEC_PRECONDITION_FAILED(function, what): by default a message\n"
         " * on stderr and abort()):\n";
    for (const auto& s : sizes) h << " *   " << s << " >= 1\n";
    for (const SizeCondition& c : options.size_conditions) {
      std::string d = c.description;
      for (size_t at = d.find("*/"); at != std::string::npos; at = d.find("*/"))
        d.replace(at, 2, "* /");
      h << " *   " << d << "\n";
    }
  }
  h << " */\n" << sig << ";\n";
  u.header = h.str();
  return u;
}

}  // namespace risec::codegen
