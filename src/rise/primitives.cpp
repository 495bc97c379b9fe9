// The primitive table built from primitives.def: rows are parsed once (their types
// from RISE type syntax) and indexed by PrimId.
#include "rise/primitives.h"

#include <algorithm>
#include <cmath>

#include "rise/interp_prims.h"
#include "rise/parser.h"
#include "rise/views.h"

namespace risec::rise {

namespace {

// clang-format off
const PrimRow kRows[] = {
#define RISEC_PRIM(ident, ...) PrimRow{.id = PrimId::ident, __VA_ARGS__},
#include "rise/primitives.def"
#undef RISEC_PRIM
};
// clang-format on

std::vector<PrimitiveInfo> build_table() {
  std::vector<PrimitiveInfo> out;
  for (const PrimRow& r : kRows) {
    if (static_cast<size_t>(r.id) != out.size())
      internal_error("primitive table: rows out of PrimId order");
    PrimitiveInfo p;
    p.id = r.id;
    p.name = r.name;
    p.type_text = r.type;
    p.family = r.family;
    p.traits = r.traits;
    p.loop = r.loop;
    p.neutral = r.neutral;
    p.eval = r.eval;
    // a math builtin needs only its function: it is evaluated as a scalar operation
    if (!p.eval && p.family == Family::Math) p.eval = eval_scalar_op;
    p.math1 = r.math1;
    p.math2 = r.math2;
    p.read = r.read;
    p.write = r.write;
    for (const char* a = r.access; *a; ++a) {
      if (*a == '*' && a[1] == '\0' && a != r.access) {
        p.access_repeats = true;
        continue;
      }
      if (*a != 'r' && *a != 'w' && *a != 'p')
        internal_error(std::string("primitive table: access '") + r.access + "' of " + r.name);
      p.access.push_back(*a == 'r'   ? ArgAccess::Read
                         : *a == 'w' ? ArgAccess::Write
                                     : ArgAccess::Pass);
    }
    p.c_op = r.c_op;
    p.c_prec = r.c_prec;
    p.c_vector_op = r.c_vector_op ? r.c_vector_op : r.c_op;
    p.omp_reduction = r.omp_reduction;
    if (!p.type_text.empty()) {  // makeArray's type depends on its element count
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
    }
    if (!p.access_repeats && !p.access.empty() && static_cast<int>(p.access.size()) != p.arity)
      internal_error(std::string("primitive table: access '") + r.access + "' of " + r.name +
                     " is not one letter per argument");
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

PathElem path_index(arith::Nat i) {
  return PathElem{PathElem::Index, std::move(i)};
}

Path path_prepend(PathElem e, const Path& p) {
  Path r;
  r.reserve(p.size() + 1);
  r.push_back(std::move(e));
  r.insert(r.end(), p.begin(), p.end());
  return r;
}

Path path_rest(const Path& p, size_t from) {
  return Path(p.begin() + static_cast<long>(from), p.end());
}

arith::Nat path_need_index(const Path& p, size_t k, PrimId what) {
  return path_need_index(p, k, prim_name(what).c_str());
}

arith::Nat path_need_index(const Path& p, size_t k, const char* what) {
  if (p.size() <= k || p[k].kind != PathElem::Index)
    internal_error(std::string("view resolution: ") + what + " needs an index");
  return p[k].i;
}

const std::vector<PrimitiveInfo>& primitives() {
  static const std::vector<PrimitiveInfo> table = build_table();
  return table;
}

const PrimitiveInfo& primitive(PrimId id) {
  return primitives()[static_cast<size_t>(id)];
}

const PrimitiveInfo* find_primitive(const std::string& name) {
  for (const PrimitiveInfo& p : primitives())
    if (p.name == name && p.id != PrimId::MakeArray) return &p;
  return nullptr;
}

const std::string& prim_name(PrimId id) {
  return primitive(id).name;
}

std::vector<std::string> primitive_names() {
  std::vector<std::string> out;
  for (const PrimitiveInfo& p : primitives())
    if (p.id != PrimId::MakeArray) out.push_back(p.name);
  return out;
}

Type make_array_type(int count) {
  Type t = data_var("t");
  Type result = array(Nat(count), t);
  for (int i = 0; i < count; ++i) result = fun(t, result);
  return dep_fun(Kind::Data, "t", result, true);
}

std::string schedule_text(const ParSchedule& s) {
  const char* kind = s.kind == ParSchedule::Kind::Static    ? "static"
                     : s.kind == ParSchedule::Kind::Dynamic ? "dynamic"
                     : s.kind == ParSchedule::Kind::Guided  ? "guided"
                                                            : "";
  std::string out = kind;
  if (!out.empty() && s.chunk > 0) out += ", " + std::to_string(s.chunk);
  return out;
}

std::optional<ParSchedule::Kind> schedule_kind(const std::string& name) {
  if (name == "static") return ParSchedule::Kind::Static;
  if (name == "dynamic") return ParSchedule::Kind::Dynamic;
  if (name == "guided") return ParSchedule::Kind::Guided;
  return std::nullopt;
}

}  // namespace risec::rise
