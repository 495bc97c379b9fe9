// RISE types: construction, structural equality, substitution and printing.
#include "rise/type.h"

#include <atomic>

namespace risec::rise {

namespace {

const char* kScalarNames[] = {"bool", "i8",  "i16", "i32", "i64", "u8",
                              "u16",  "u32", "u64", "f32", "f64"};

Type make_type_node(TypeNode n) {
  return std::make_shared<const TypeNode>(std::move(n));
}

std::atomic<int> g_binder_counter{0};

}  // namespace

const char* scalar_name(ScalarKind k) {
  return kScalarNames[static_cast<int>(k)];
}

std::vector<std::string> scalar_names() {
  return std::vector<std::string>(std::begin(kScalarNames), std::end(kScalarNames));
}

std::optional<ScalarKind> scalar_from_name(const std::string& name) {
  for (int i = 0; i < 11; ++i)
    if (name == kScalarNames[i]) return static_cast<ScalarKind>(i);
  return std::nullopt;
}

bool is_float(ScalarKind k) {
  return k == ScalarKind::F32 || k == ScalarKind::F64;
}
bool is_signed_int(ScalarKind k) {
  return k == ScalarKind::I8 || k == ScalarKind::I16 || k == ScalarKind::I32 ||
         k == ScalarKind::I64;
}
bool is_unsigned_int(ScalarKind k) {
  return k == ScalarKind::U8 || k == ScalarKind::U16 || k == ScalarKind::U32 ||
         k == ScalarKind::U64;
}
ScalarKind unsigned_of(ScalarKind k) {
  switch (k) {
    case ScalarKind::I8:
      return ScalarKind::U8;
    case ScalarKind::I16:
      return ScalarKind::U16;
    case ScalarKind::I32:
      return ScalarKind::U32;
    case ScalarKind::I64:
      return ScalarKind::U64;
    default:
      return k;
  }
}
int scalar_bits(ScalarKind k) {
  switch (k) {
    case ScalarKind::Bool:
      return 8;
    case ScalarKind::I8:
    case ScalarKind::U8:
      return 8;
    case ScalarKind::I16:
    case ScalarKind::U16:
      return 16;
    case ScalarKind::I32:
    case ScalarKind::U32:
    case ScalarKind::F32:
      return 32;
    default:
      return 64;
  }
}

const char* addr_name(AddrSpace a) {
  switch (a) {
    case AddrSpace::Global:
      return "Global";
    case AddrSpace::Local:
      return "Local";
    case AddrSpace::Private:
      return "Private";
    case AddrSpace::Constant:
      return "Constant";
  }
  return "?";
}

std::optional<AddrSpace> addr_from_name(const std::string& name) {
  if (name == "Global") return AddrSpace::Global;
  if (name == "Local") return AddrSpace::Local;
  if (name == "Private") return AddrSpace::Private;
  if (name == "Constant") return AddrSpace::Constant;
  return std::nullopt;
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Nat:
      return "Nat";
    case Kind::Data:
      return "Data";
    case Kind::Addr:
      return "Addr";
    case Kind::Nat2Nat:
      return "Nat2Nat";
  }
  return "?";
}

Nat NatFun::apply(const Nat& arg) const {
  return arith::substitute(body, {{param, arg}});
}

bool NatFun::operator==(const NatFun& o) const {
  if (param == o.param) return body == o.body;
  return body == arith::substitute(o.body, {{o.param, Nat::var(param)}});
}

const TypeNode& node(const Type& t) {
  return *t;
}

Type scalar(ScalarKind k) {
  static const Type cache[11] = {make_type_node({TypeKind::Scalar, ScalarKind::Bool}),
                                 make_type_node({TypeKind::Scalar, ScalarKind::I8}),
                                 make_type_node({TypeKind::Scalar, ScalarKind::I16}),
                                 make_type_node({TypeKind::Scalar, ScalarKind::I32}),
                                 make_type_node({TypeKind::Scalar, ScalarKind::I64}),
                                 make_type_node({TypeKind::Scalar, ScalarKind::U8}),
                                 make_type_node({TypeKind::Scalar, ScalarKind::U16}),
                                 make_type_node({TypeKind::Scalar, ScalarKind::U32}),
                                 make_type_node({TypeKind::Scalar, ScalarKind::U64}),
                                 make_type_node({TypeKind::Scalar, ScalarKind::F32}),
                                 make_type_node({TypeKind::Scalar, ScalarKind::F64})};
  return cache[static_cast<int>(k)];
}

Type index_type(Nat n) {
  TypeNode t{TypeKind::Index};
  t.size = std::move(n);
  return make_type_node(std::move(t));
}

Type nat_data() {
  static const Type t = make_type_node({TypeKind::NatData});
  return t;
}

Type array(Nat n, Type elem) {
  TypeNode t{TypeKind::Array};
  t.size = std::move(n);
  t.a = std::move(elem);
  return make_type_node(std::move(t));
}

Type pair(Type a, Type b) {
  TypeNode t{TypeKind::Pair};
  t.a = std::move(a);
  t.b = std::move(b);
  return make_type_node(std::move(t));
}

Type vector(ScalarKind k, Nat n) {
  return vector_of(scalar(k), std::move(n));
}

Type vector_of(Type elem, Nat n) {
  TypeNode t{TypeKind::Vector};
  if (elem->kind == TypeKind::Scalar) t.scalar = elem->scalar;
  t.size = std::move(n);
  t.a = std::move(elem);
  return make_type_node(std::move(t));
}

Type data_var(const std::string& name) {
  TypeNode t{TypeKind::Var};
  t.name = name;
  return make_type_node(std::move(t));
}

Type fun(Type param, Type result) {
  TypeNode t{TypeKind::Fun};
  t.a = std::move(param);
  t.b = std::move(result);
  return make_type_node(std::move(t));
}

Type dep_fun(Kind kind, const std::string& binder, Type body, bool implicit) {
  TypeNode t{TypeKind::DepFun};
  t.binder_kind = kind;
  t.name = binder;
  t.b = std::move(body);
  t.implicit = implicit;
  return make_type_node(std::move(t));
}

bool is_data(const Type& t) {
  return t->kind != TypeKind::Fun && t->kind != TypeKind::DepFun;
}

bool is_mask(const Type& t) {
  return t->kind == TypeKind::Vector && t->a && t->a->kind == TypeKind::Scalar &&
         t->a->scalar == ScalarKind::Bool;
}

bool holds_array(const Type& t) {
  if (t->kind == TypeKind::Array) return true;
  return t->kind == TypeKind::Pair && (holds_array(t->a) || holds_array(t->b));
}

bool stored_per_component(const Type& t) {
  Type x = t;
  while (x->kind == TypeKind::Array) x = x->a;
  return x->kind == TypeKind::Pair && holds_array(x);
}

TypeArg binder_arg(Kind k, const std::string& name) {
  switch (k) {
    case Kind::Nat:
      return Nat::size_var(name);
    case Kind::Data:
      return data_var(name);
    case Kind::Addr:
      return Addr{std::nullopt, name};
    case Kind::Nat2Nat:
      return NatFun{"x", Nat::var(name + "$app")};
  }
  return Nat::var(name);
}

bool equal(const Type& a, const Type& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case TypeKind::Scalar:
      return a->scalar == b->scalar;
    case TypeKind::Index:
      return a->size == b->size;
    case TypeKind::NatData:
      return true;
    case TypeKind::Array:
      return a->size == b->size && equal(a->a, b->a);
    case TypeKind::Pair:
    case TypeKind::Fun:
      return equal(a->a, b->a) && equal(a->b, b->b);
    case TypeKind::Vector:
      return a->size == b->size && equal(a->a, b->a);
    case TypeKind::Var:
      return a->name == b->name;
    case TypeKind::DepFun: {
      if (a->binder_kind != b->binder_kind || a->implicit != b->implicit) return false;
      if (a->name == b->name) return equal(a->b, b->b);
      std::string fresh = "$b" + std::to_string(g_binder_counter++);
      return equal(instantiate(a, binder_arg(a->binder_kind, fresh)),
                   instantiate(b, binder_arg(b->binder_kind, fresh)));
    }
  }
  return false;
}

size_t hash(const Type& t) {
  size_t h = static_cast<size_t>(t->kind) * 1000003u;
  switch (t->kind) {
    case TypeKind::Scalar:
      return h ^ static_cast<size_t>(t->scalar);
    case TypeKind::Index:
      return h ^ t->size.hash();
    case TypeKind::Array:
      return (h ^ t->size.hash()) * 31 + hash(t->a);
    case TypeKind::Pair:
    case TypeKind::Fun:
      return (h ^ hash(t->a)) * 31 + hash(t->b);
    case TypeKind::Vector:
      return (h ^ t->size.hash()) * 31 + hash(t->a);
    case TypeKind::Var:
      return h ^ std::hash<std::string>()(t->name);
    default:
      return h;
  }
}

static NatFun substitute_natfun(const NatFun& f, const TypeSubst& s) {
  TypeSubst inner = s;
  inner.nats.erase(f.param);
  NatFun r{f.param, arith::substitute(f.body, inner.nats)};
  return r;
}

static Nat subst_nat(const Nat& n, const TypeSubst& s) {
  Nat r = s.nats.empty() ? n : arith::substitute(n, s.nats);
  if (s.nat2nats.empty()) return r;
  // Nat2Nat variables appear as `f$app` applied to an argument encoded with the
  // variable `x` (see binder_arg); applications are resolved by the type checker.
  return r;
}

// Whether a value of `s` mentions the type-level variable `name` (a size, a data type
// variable, an address variable or a Nat2Nat variable, whatever its kind).
static bool substitution_mentions(const TypeSubst& s, const std::string& name) {
  for (const auto& [_, v] : s.nats)
    if (arith::occurs(name, v)) return true;
  for (const auto& [_, v] : s.datas)
    if (free_nat_vars(v).count(name) || mentions_data_var(v, name)) return true;
  for (const auto& [_, v] : s.addrs)
    if (!v.space && v.var == name) return true;
  for (const auto& [_, v] : s.nat2nats)
    if (v.param != name && arith::occurs(name, v.body)) return true;
  return false;
}

Type substitute(const Type& t, const TypeSubst& s) {
  if (s.empty()) return t;
  switch (t->kind) {
    case TypeKind::Scalar:
    case TypeKind::NatData:
      return t;
    case TypeKind::Index: {
      Nat n = subst_nat(t->size, s);
      return n == t->size ? t : index_type(n);
    }
    case TypeKind::Array: {
      Nat n = subst_nat(t->size, s);
      Type e = substitute(t->a, s);
      return (n == t->size && e == t->a) ? t : array(n, e);
    }
    case TypeKind::Pair: {
      Type a = substitute(t->a, s), b = substitute(t->b, s);
      return (a == t->a && b == t->b) ? t : pair(a, b);
    }
    case TypeKind::Fun: {
      Type a = substitute(t->a, s), b = substitute(t->b, s);
      return (a == t->a && b == t->b) ? t : fun(a, b);
    }
    case TypeKind::Vector: {
      Nat n = subst_nat(t->size, s);
      Type e = substitute(t->a, s);
      return (n == t->size && e == t->a) ? t : vector_of(e, n);
    }
    case TypeKind::Var:
      for (const auto& [name, v] : s.datas)
        if (name == t->name) return v;
      return t;
    case TypeKind::DepFun: {
      TypeSubst inner = s;
      switch (t->binder_kind) {
        case Kind::Nat:
          inner.nats.erase(t->name);
          break;
        case Kind::Data:
          std::erase_if(inner.datas, [&](const auto& p) { return p.first == t->name; });
          break;
        case Kind::Addr:
          std::erase_if(inner.addrs, [&](const auto& p) { return p.first == t->name; });
          break;
        case Kind::Nat2Nat:
          std::erase_if(inner.nat2nats, [&](const auto& p) { return p.first == t->name; });
          break;
      }
      Type b = substitute(t->b, inner);
      if (b == t->b) return t;
      // A value that mentions the binder's name would be captured by it
      // ((k: Nat) -> n.k.f32 with n := k is not (k: Nat) -> k.k.f32): rename the
      // binder first, to a name neither the body nor the values use.
      if (!inner.avoid_capture || !substitution_mentions(inner, t->name))
        return dep_fun(t->binder_kind, t->name, b, t->implicit);
      std::string fresh;
      for (int k = 2; fresh.empty() || substitution_mentions(inner, fresh) ||
                      free_nat_vars(t->b).count(fresh) || mentions_data_var(t->b, fresh);
           ++k)
        fresh = t->name + std::to_string(k);
      Type renamed = instantiate(t, binder_arg(t->binder_kind, fresh));
      return dep_fun(t->binder_kind, fresh, substitute(renamed, inner), t->implicit);
    }
  }
  return t;
}

TypeArg substitute(const TypeArg& a, const TypeSubst& s) {
  if (auto n = std::get_if<Nat>(&a)) return subst_nat(*n, s);
  if (auto t = std::get_if<Type>(&a)) return substitute(*t, s);
  if (auto ad = std::get_if<Addr>(&a)) {
    if (!ad->space)
      for (const auto& [name, v] : s.addrs)
        if (name == ad->var) return v;
    return a;
  }
  return substitute_natfun(std::get<NatFun>(a), s);
}

Type instantiate(const Type& f, const TypeArg& arg) {
  TypeSubst s;
  s.avoid_capture = true;
  switch (f->binder_kind) {
    case Kind::Nat:
      s.nats[f->name] = std::get<Nat>(arg);
      break;
    case Kind::Data:
      s.datas.emplace_back(f->name, std::get<Type>(arg));
      break;
    case Kind::Addr:
      s.addrs.emplace_back(f->name, std::get<Addr>(arg));
      break;
    case Kind::Nat2Nat:
      s.nat2nats.emplace_back(f->name, std::get<NatFun>(arg));
      break;
  }
  return substitute(f->b, s);
}

static void collect_nat_vars(const Type& t, std::map<std::string, Nat>& out) {
  auto add = [&](const Nat& n) {
    for (auto& [k, v] : arith::free_vars(n)) out.emplace(k, v);
  };
  switch (t->kind) {
    case TypeKind::Index:
    case TypeKind::Vector:
      add(t->size);
      break;
    case TypeKind::Array:
      add(t->size);
      collect_nat_vars(t->a, out);
      break;
    case TypeKind::Pair:
    case TypeKind::Fun:
      collect_nat_vars(t->a, out);
      collect_nat_vars(t->b, out);
      break;
    case TypeKind::DepFun: {
      std::map<std::string, Nat> inner;
      collect_nat_vars(t->b, inner);
      if (t->binder_kind == Kind::Nat) inner.erase(t->name);
      out.insert(inner.begin(), inner.end());
      break;
    }
    default:
      break;
  }
}

std::map<std::string, Nat> free_nat_vars(const Type& t) {
  std::map<std::string, Nat> out;
  collect_nat_vars(t, out);
  return out;
}

bool mentions_data_var(const Type& t, const std::string& name) {
  switch (t->kind) {
    case TypeKind::Var:
      return t->name == name;
    case TypeKind::Array:
    case TypeKind::Vector:
      return mentions_data_var(t->a, name);
    case TypeKind::Pair:
    case TypeKind::Fun:
      return mentions_data_var(t->a, name) || mentions_data_var(t->b, name);
    case TypeKind::DepFun:
      if (t->binder_kind == Kind::Data && t->name == name) return false;
      return mentions_data_var(t->b, name);
    default:
      return false;
  }
}

// A size in `n.dt` position needs parentheses unless it is a name or a number.
static std::string size_prefix(const Nat& n) {
  std::string s = arith::print(n);
  bool simple = n.is_var() || (n.as_const() && *n.as_const() >= 0);
  return simple ? s : "(" + s + ")";
}

std::string print(const Type& t) {
  switch (t->kind) {
    case TypeKind::Scalar:
      return scalar_name(t->scalar);
    case TypeKind::Index:
      return "idx[" + arith::print(t->size) + "]";
    case TypeKind::NatData:
      return "natType";
    case TypeKind::Array: {
      std::string e = print(t->a);
      if (!is_data(t->a)) e = "(" + e + ")";
      return size_prefix(t->size) + "." + e;
    }
    case TypeKind::Pair:
      return "(" + print(t->a) + ", " + print(t->b) + ")";
    case TypeKind::Vector:
      return "vec[" + print(t->a) + ", " + arith::print(t->size) + "]";
    case TypeKind::Var:
      return t->name;
    case TypeKind::Fun: {
      std::string a = print(t->a);
      if (!is_data(t->a)) a = "(" + a + ")";
      return a + " -> " + print(t->b);
    }
    case TypeKind::DepFun: {
      std::string binder = t->name + ": " + kind_name(t->binder_kind);
      return (t->implicit ? "{" + binder + "}" : "(" + binder + ")") + " -> " + print(t->b);
    }
  }
  return "?";
}

std::string print(const Addr& a) {
  return a.space ? addr_name(*a.space) : a.var;
}

std::string print(const TypeArg& a) {
  if (auto n = std::get_if<Nat>(&a)) return arith::print(*n);
  if (auto t = std::get_if<Type>(&a)) return print(*t);
  if (auto ad = std::get_if<Addr>(&a)) return print(*ad);
  const NatFun& f = std::get<NatFun>(a);
  return "fun(" + f.param + " => " + arith::print(f.body) + ")";
}

}  // namespace risec::rise
