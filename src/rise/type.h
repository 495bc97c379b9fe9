// RISE types: data types whose array sizes are Nat terms, function types, and
// dependent function types over the kinds Nat, Data, Addr and Nat2Nat. Types are
// immutable and shared; structural equality compares sizes as canonical Nats.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "arith/nat.h"

namespace risec::rise {

using arith::Nat;

enum class ScalarKind { Bool, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64 };

const char* scalar_name(ScalarKind k);
std::optional<ScalarKind> scalar_from_name(const std::string& name);
// Every scalar type's name, in ScalarKind's order (for did-you-mean suggestions).
std::vector<std::string> scalar_names();
bool is_float(ScalarKind k);
bool is_signed_int(ScalarKind k);
bool is_unsigned_int(ScalarKind k);
inline bool is_integer(ScalarKind k) {
  return is_signed_int(k) || is_unsigned_int(k);
}
// The unsigned integer type of a signed one's width (other types: themselves).
ScalarKind unsigned_of(ScalarKind k);
int scalar_bits(ScalarKind k);

enum class AddrSpace { Global, Local, Private, Constant };
const char* addr_name(AddrSpace a);
std::optional<AddrSpace> addr_from_name(const std::string& name);

enum class Kind { Nat, Data, Addr, Nat2Nat };
const char* kind_name(Kind k);

struct TypeNode;
using Type = std::shared_ptr<const TypeNode>;

// A function from Nat to Nat at the type level: `fun(i => body)` over sizes.
struct NatFun {
  std::string param;  // a variable name occurring in body
  Nat body;
  Nat apply(const Nat& arg) const;
  bool operator==(const NatFun& o) const;
};

// An address space, or an (inference or bound) address variable.
struct Addr {
  std::optional<AddrSpace> space;
  std::string var;  // when !space
  bool operator==(const Addr& o) const = default;
};

// A type-level argument: a size, a data type, an address space or a Nat2Nat.
using TypeArg = std::variant<Nat, Type, Addr, NatFun>;

enum class TypeKind {
  Scalar,   // bool, i8..u64, f32, f64
  Index,    // idx[n]
  NatData,  // natType: a Nat as a run-time value
  Array,    // n.elem
  Pair,     // (a, b)
  Vector,   // vec[elem, n]: elem is a scalar type (or a data type variable in a
            // primitive's generic type)
  Var,      // a data type variable (bound by a dependent function, or an inference unknown)
  Fun,      // param -> result
  DepFun,   // (x: K) -> body, or {x: K} -> body when implicit
};

struct TypeNode {
  TypeKind kind;
  ScalarKind scalar = ScalarKind::F32;  // Scalar; Vector (when its element is a scalar)
  Nat size;                             // Index, Array, Vector
  Type a, b;                     // Array, Vector: a = elem; Pair: a, b; Fun: a -> b; DepFun: b
  std::string name;              // Var; DepFun binder
  Kind binder_kind = Kind::Nat;  // DepFun
  bool implicit = false;         // DepFun: {x: K} -> ...
};

// ---- constructors ----
Type scalar(ScalarKind k);
Type index_type(Nat n);
Type nat_data();
Type array(Nat n, Type elem);
Type pair(Type a, Type b);
Type vector(ScalarKind k, Nat n);
Type vector_of(Type elem, Nat n);
Type data_var(const std::string& name);
Type fun(Type param, Type result);
Type dep_fun(Kind kind, const std::string& binder, Type body, bool implicit);

bool is_data(const Type& t);  // not a function or dependent function type
// A mask: vec[bool, n], what comparing vectors gives (it lives in registers only).
bool is_mask(const Type& t);
// An array, or a pair with an array somewhere inside.
bool holds_array(const Type& t);
// Data whose elements (under its arrays) are pairs holding arrays: the generated code
// and the run-time layout store it one array per component (runtime/layout.h).
bool stored_per_component(const Type& t);

// Structural equality (binders of dependent functions compared up to renaming).
bool equal(const Type& a, const Type& b);
size_t hash(const Type& t);

// ---- substitution ----
// Replace type-level variables: Nat variables (by name) in sizes, data type
// variables, address variables and Nat2Nat variables.
struct TypeSubst {
  arith::Substitution nats;
  std::vector<std::pair<std::string, Type>> datas;
  std::vector<std::pair<std::string, Addr>> addrs;
  std::vector<std::pair<std::string, NatFun>> nat2nats;
  // Rename a dependent function's binder that a value mentions (capture-avoiding, as
  // instantiation needs: its argument comes from outside). Off for the checker's
  // solutions, whose values may name the binders they are solved under.
  bool avoid_capture = false;
  bool empty() const { return nats.empty() && datas.empty() && addrs.empty() && nat2nats.empty(); }
};
Type substitute(const Type& t, const TypeSubst& s);
TypeArg substitute(const TypeArg& a, const TypeSubst& s);
// A binder's variable of kind `k` as a type argument (a Nat binder is a size, >= 1).
TypeArg binder_arg(Kind k, const std::string& name);
// Instantiate a dependent function type's body with an argument of the right kind.
Type instantiate(const Type& dep_fun_type, const TypeArg& arg);

// Free Nat variables occurring in the type's sizes.
std::map<std::string, Nat> free_nat_vars(const Type& t);
bool mentions_data_var(const Type& t, const std::string& name);

// ---- printing in RISE type syntax ----
std::string print(const Type& t);
std::string print(const TypeArg& a);
std::string print(const Addr& a);

// Number of array dimensions / the innermost element type.
const TypeNode& node(const Type& t);

}  // namespace risec::rise
