// The C backend, view resolution (see c_backend.h and c_printer.h): every read or
// write is resolved through the chain of source or destination views down to a
// flat, row-major buffer, and the index is simplified by arith.
#include "codegen/c/c_backend.h"

#include <bit>
#include <functional>

#include "codegen/c/c_names.h"
#include "codegen/c/c_printer.h"
#include "dpia/distribute.h"
#include "dpia/traverse.h"
#include "rise/value.h"

namespace risec::codegen {

std::string c_identifier(const std::string& name) {
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "v_" + out;
  // A name the C library, its headers, C itself or risec's helpers use (c_names.h).
  if (c_name_reserved(out)) out = "risec_u_" + out;
  return out;
}

namespace {
const auto at = rise::path_index;
using rise::path_need_index;
}  // namespace

// ------------------------------------------------------------ reads
CExpr CPrinter::var_access(const std::string& name, const Path& element) {
  auto it = storage_.find(name);
  if (it == storage_.end()) internal_error("C backend: unknown variable " + name);
  const Storage& s = it->second;
  // A distributed private array holds only the work item's part.
  Path path = s.distribution ? dpia::work_item_path(*s.distribution, element, name) : element;
  std::vector<Nat> ds = dims(s.dt);
  Nat flat = dpia::flat_index(ds, path, name);
  if (s.soa) return soa_access(name, s, flat, path, ds.size());
  CExpr base = c_atom(cname(name));
  if (s.pointer) base = c_index(base, nat_expr(flat));
  if (record_) {
    record_->indices.push_back(flat);
    record_->named.push_back({name, flat, false});
  }
  CExpr r = leaf_access(base, leaf(s.dt), path, ds.size());
  last_loc_ =
      Loc{name, flat, path.size() > ds.size() || leaf(s.dt)->kind != TypeKind::Scalar, r.text};
  return r;
}

// The bytes of a part's element, which is also its alignment (runtime/layout.h).
size_t element_bytes(const Type& t) {
  switch (t->kind) {
    case TypeKind::Scalar:
      return rise::scalar_size(t->scalar);
    case TypeKind::Vector: {
      auto lanes = t->size.as_const();
      if (!lanes || t->a->kind != TypeKind::Scalar)
        internal_error("C backend: the bytes of " + rise::print(t));
      return std::bit_ceil(static_cast<uint64_t>(*lanes)) * rise::scalar_size(t->a->scalar);
    }
    case TypeKind::NatData:  // int64_t
      return sizeof(int64_t);
    default:  // idx[n]: int
      return sizeof(int);
  }
}

namespace {
bool scalar_pair(const Type& t) {
  auto part = [](const Type& p) { return p->kind == TypeKind::Scalar || scalar_pair(p); };
  return t->kind == TypeKind::Pair && part(t->a) && part(t->b);
}
}  // namespace

bool CPrinter::soa_split(const Type& t) const {
  return t->kind == TypeKind::Pair && (rise::holds_array(t) || (soa_arrays_ && scalar_pair(t)));
}

std::vector<CPrinter::SoaPart> CPrinter::soa_parts(const Type& t) const {
  if (!soa_split(t)) return {};
  std::vector<SoaPart> out;
  std::function<void(const Type&, const std::string&, std::vector<Nat>)> walk =
      [&](const Type& x, const std::string& suffix, std::vector<Nat> ds) {
        if (x->kind == TypeKind::Array) {
          ds.push_back(x->size);
          walk(x->a, suffix, std::move(ds));
        } else if (x->kind == TypeKind::Pair) {
          walk(x->a, suffix + "_1", ds);
          walk(x->b, suffix + "_2", std::move(ds));
        } else {
          out.push_back({suffix, std::move(ds), x});
        }
      };
  walk(t, "", {});
  return out;
}

std::vector<CPrinter::BufferPart> CPrinter::buffer_parts(const std::string& var) const {
  const Storage& s = storage_.at(var);
  if (!s.soa) return {{"", leaf(s.dt), count(s.dt), Nat(0)}};
  std::vector<BufferPart> out;
  Nat offset(0);
  for (const SoaPart& p : soa_parts(leaf(s.dt))) {
    Nat n = count(s.dt);
    for (const Nat& d : p.dims) n = n * d;
    // A scalar's or a vector's alignment is its size (runtime/layout.h).
    Nat size(static_cast<int64_t>(element_bytes(p.leaf)));
    offset = arith::floordiv(offset + size - Nat(1), size) * size;
    out.push_back({p.suffix, p.leaf, n, offset});
    offset = offset + n * size;
  }
  return out;
}

// An element of a structure-of-arrays buffer: a component is name_SUFFIX[index], the
// index running over the outer dimensions and then the arrays inside the element
// (Storage::soa); a whole pair of scalars (or a part that is one) is read as a
// compound literal of its components.
CExpr CPrinter::soa_access(const std::string& name, const Storage& s, const Nat& flat,
                           const Path& path, size_t from) {
  std::string suffix;
  Type t = leaf(s.dt);
  Nat index = flat;
  size_t k = from;
  for (; k < path.size(); ++k) {
    if (t->kind == TypeKind::Array) {
      if (path[k].kind != PathElem::Index)
        internal_error("C backend: a projection of " + rise::print(t));
      index = index * t->size + path[k].i;
      t = t->a;
    } else if (t->kind == TypeKind::Pair) {
      if (path[k].kind == PathElem::Index)
        internal_error("C backend: index into " + rise::print(t));
      suffix += path[k].kind == PathElem::Fst ? "_1" : "_2";
      t = path[k].kind == PathElem::Fst ? t->a : t->b;
    } else {
      break;
    }
  }
  if (record_) {
    record_->indices.push_back(index);
    record_->named.push_back({name, index, false});
  }
  CExpr r;
  if (t->kind == TypeKind::Pair) {
    // A compound literal of the components (nested for nested pairs).
    std::function<CExpr(const Type&, const std::string&)> whole = [&](const Type& x,
                                                                      const std::string& sfx) {
      if (x->kind == TypeKind::Pair)
        return c_compound(c_type(x), {whole(x->a, sfx + "_1"), whole(x->b, sfx + "_2")});
      if (x->kind == TypeKind::Array)
        internal_error("C backend: a whole " + rise::print(t) + " read");
      return c_index(c_atom(part_name(name, sfx)), nat_expr(index));
    };
    r = whole(t, suffix);
  } else if (t->kind == TypeKind::Array) {
    internal_error("C backend: a whole " + rise::print(t) + " read");
  } else {
    r = leaf_access(c_index(c_atom(part_name(name, suffix)), nat_expr(index)), t, path, k);
  }
  last_loc_ = Loc{name + suffix, index, k < path.size() || t->kind != TypeKind::Scalar, r.text};
  return r;
}

// The distance, in scalars of one array, between what element `lane` (a variable in
// [0, lanes)) and element 0 read or write through `access`: flat(lane) - flat(0), a
// term in the lane (`lane` itself for consecutive scalars); nullopt when the access
// is not a plain scalar array's.
std::optional<Nat> CPrinter::lane_offset(const std::function<CExpr(const Nat&)>& access,
                                         const Nat& lanes) {
  Nat lane = Nat::var(kLaneProbe, Nat(0), lanes);
  last_loc_.reset();
  CExpr e = access(lane);
  if (!last_loc_ || last_loc_->projected || last_loc_->text != e.text) return std::nullopt;
  return last_loc_->flat - arith::substitute(last_loc_->flat, {{kLaneProbe, Nat(0)}});
}

// Whether element `lane` through `access` touches consecutive scalars of one array:
// flat(lane) == flat(0) + lane.
bool CPrinter::consecutive(const std::function<CExpr(const Nat&)>& access, const Nat& lanes) {
  const std::optional<Nat> d = lane_offset(access, lanes);
  return d && *d == Nat::var(kLaneProbe, Nat(0), lanes);
}

// asVectorAligned promises that its vectors start at aligned addresses. Buffers start
// at 64 bytes, so a vector whose first element sits a known number of elements into its
// buffer that the lanes do not divide (`drop(1)` of an array, rows of 10 elements read
// in vectors of 4, windows 2 apart) would fault at run time: refused, where the promise
// is written. Called after `consecutive` found the lanes (last_loc_, the lane probe in
// its index): the offset with every loop variable at 0, and the step of each loop
// variable that takes more than one value, must be multiples of the lanes. An offset
// that involves a size name (generic code) cannot be checked here: false, an unaligned
// load, which is as fast where the address is aligned and right where it is not.
bool CPrinter::aligned_start(const Nat& lanes, const Span& span) {
  auto n = lanes.as_const();
  if (!n || !last_loc_) return false;
  const Nat& flat = last_loc_->flat;
  arith::Assignment zero;
  std::vector<std::string> loops;
  for (const auto& [name, var] : arith::free_vars(flat)) {
    if (size_names_.count(name)) return false;
    zero[name] = 0;
    if (name != kLaneProbe && !arith::provably_le(var, Nat(0))) loops.push_back(name);
  }
  const auto refuse = [&](const std::string& what) {
    user_error("asVectorAligned(" + std::to_string(*n) + ") reads vectors " + what +
                   ", which is not a multiple of " + std::to_string(*n) +
                   ": aligned vector loads there would fault; use asVector, which loads at "
                   "any address",
               span);
  };
  try {
    const int64_t offset = arith::evaluate(flat, zero);
    if (offset % *n != 0)
      refuse("that start " + std::to_string(offset) + (offset == 1 ? " element" : " elements") +
             " into their buffer");
    for (const std::string& v : loops) {
      arith::Assignment one = zero;
      one[v] = 1;
      const int64_t step = arith::evaluate(flat, one) - offset;
      if (step % *n != 0)
        refuse("whose starts are " + std::to_string(step) + (step == 1 ? " element" : " elements") +
               " apart from one iteration to the next");
    }
  } catch (const arith::ArithError&) {
    return false;
  }
  return true;
}

CExpr CPrinter::leaf_access(CExpr base, Type t, const Path& path, size_t from) {
  for (size_t k = from; k < path.size(); ++k) {
    const PathElem& e = path[k];
    if (e.kind == PathElem::Fst) {
      base = c_member(base, "_1");
      t = t->a;
    } else if (e.kind == PathElem::Snd) {
      base = c_member(base, "_2");
      t = t->b;
    } else if (t->kind == TypeKind::Vector) {
      base = vector_lane(base, e.i);
      t = t->a;
    } else {
      internal_error("C backend: index into " + rise::print(t));
    }
  }
  return base;
}

// A read through views (resolved by dpia/view_resolution.h), printed as C.
CExpr CPrinter::read(const ExpressionP& e, const Path& p) {
  return read_resolved(*dpia::resolve_read(e, p));
}

CExpr CPrinter::read_resolved(const dpia::ResolvedRead& r) {
  if (!r.is_leaf()) {
    if (record_) record_->guards.push_back(r.guard);
    return c_cond(cond_expr(r.guard), read_resolved(*r.then), read_resolved(*r.orelse));
  }
  const ExpressionP& e = r.source;
  const Path& p = r.path;
  switch (e->kind) {
    case Expression::Var:
      return var_access(e->name, p);
    case Expression::Nat:
      if (!p.empty()) internal_error("C backend: index into a Nat");
      return nat_expr(e->idx);
    case Expression::Lit:
      return literal(e, p);
    case Expression::Generate: {
      Nat i = path_need_index(p, 0, PrimId::Generate);
      return read(dpia::substitute_nat(e->args[0], e->name, i), rise::path_rest(p, 1));
    }
    case Expression::MapView: {
      Nat i = path_need_index(p, 0, PrimId::Map);
      ExpressionP elem = dpia::ex_idx(e->args[1], i);
      return read(dpia::substitute_var(e->args[0], e->name, elem), rise::path_rest(p, 1));
    }
    case Expression::AsVector: {
      // A whole vector (one lane is resolved to its scalar).
      Nat i = path_need_index(p, 0, PrimId::AsVector);
      Nat lanes = e->n;
      std::string vt = vector_type(e->dt->a);
      const ExpressionP& x = e->args[0];
      const Nat lane = Nat::var(kLaneProbe, Nat(0), lanes);
      const std::optional<Nat> d =
          lane_offset([&](const Nat& l) { return read(x, {at(i * lanes + l)}); }, lanes);
      if (d && *d == lane) {
        const bool aligned = e->aligned && aligned_start(lanes, e->span);
        CExpr addr = c_unary("&", read(x, {at(i * lanes)}));
        return c_call(vt + (aligned ? "_load_aligned" : "_load"), {addr});
      }
      auto n = lanes.as_const();
      if (!n) internal_error("C backend: symbolic vector width");
      // Lanes two elements apart (the windows of slide(k)(2) vectorised across windows,
      // a downsampling): two vector loads and a shuffle (vector_type's _load_even).
      if (d && *d == Nat(2) * lane && *n >= 4 && std::has_single_bit(static_cast<uint64_t>(*n)) &&
          e->dt->a->a->scalar != rise::ScalarKind::Bool)
        return c_call(vt + "_load_even", {c_unary("&", read(x, {at(i * lanes)}))});
      // Lanes that are neither (a component of an array of pairs, a transposed or
      // otherwise strided view): gather them one by one.
      std::vector<CExpr> lits;
      for (int64_t l = 0; l < *n; ++l) lits.push_back(read(x, {at(i * lanes + Nat(l))}));
      return c_compound(vt, lits);
    }
    case Expression::Broadcast:
      // a mask's lanes are 0 or -1
      if (e->dt->a->scalar == rise::ScalarKind::Bool)
        return c_call(vector_type(e->dt) + "_broadcast",
                      {c_unary("-", c_cast("int32_t", read(e->args[0], {})))});
      return c_call(vector_type(e->dt) + "_broadcast", {read(e->args[0], {})});
    case Expression::Gather: {
      Nat i = path_need_index(p, 0, PrimId::Gather);
      CExpr ix = read(e->args[0], {at(i)});
      Nat dyn = Nat::var("(" + ix.text + ")", Nat(0), e->args[1]->dt->size);
      return read(e->args[1], rise::path_prepend(at(dyn), rise::path_rest(p, 1)));
    }
    case Expression::Select:
      // select on pairs (or arrays): the component at `p` of the chosen branch
      if (e->dt->kind != TypeKind::Scalar && e->dt->kind != TypeKind::Vector) {
        if (e->args[0]->dt->kind == TypeKind::Vector) {
          // a mask choosing pairs of vectors: the component at `p` blended (or one lane)
          Type t = e->dt;
          size_t k = 0;
          for (; k < p.size() && t->kind == TypeKind::Pair; ++k)
            t = p[k].kind == rise::PathElem::Fst ? t->a : t->b;
          if (k == p.size())
            return vector_blend(t,
                                {read(e->args[0], {}), read(e->args[1], p), read(e->args[2], p)});
          return c_cond(read(e->args[0], rise::path_rest(p, k)), read(e->args[1], p),
                        read(e->args[2], p));
        }
        return c_cond(read(e->args[0], {}), read(e->args[1], p), read(e->args[2], p));
      }
      return scalar_op(e, p);
    case Expression::Unary:
    case Expression::Binary:
    case Expression::Call:
    case Expression::Cast:
      return scalar_op(e, p);
    case Expression::MkArray:
      internal_error("C backend: array literal not materialised");
    case Expression::View:
    case Expression::Idx:
    case Expression::MkPair:
    case Expression::Fst:
    case Expression::Snd:
      break;
  }
  internal_error("C backend: unresolved expression " + dpia::print(e));
}

// A write through destination views (resolved by dpia/view_resolution.h).
CPrinter::Target CPrinter::write_target(const AcceptorP& dest, const Path& path) {
  // A scatter destination's index is read from its index array, like gather's.
  auto dynamic = [&](const dpia::Acceptor& s, const Nat& i) {
    CExpr ix = read(s.indices, {at(i)});
    return Nat::var("(" + ix.text + ")", Nat(0), s.inner->dt->size);
  };
  auto [a, p] = dpia::resolve_write(dest, path, dynamic);
  if (a->kind == Acceptor::Var) {
    Target t{var_access(a->name, p)};
    if (record_) record_->named.back().write = true;
    return t;
  }
  if (a->kind != Acceptor::AsVector)
    internal_error("C backend: unresolved acceptor " + dpia::print(a));
  // A vector element i of an m.vec acceptor over an (m*n).t buffer.
  Nat i = path_need_index(p, 0, "asVectorAcc");
  const auto& acc = a;  // a structured binding cannot be captured (clang 14)
  bool contiguous = consecutive(
      [&](const Nat& l) { return write_target(acc->inner, {at(i * acc->n + l)}).lvalue; }, a->n);
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

}  // namespace risec::codegen
