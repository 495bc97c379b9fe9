// The C backend, view resolution (see c_backend.h and c_printer.h): every read or
// write is resolved through the chain of source or destination views down to a
// flat, row-major buffer, and the index is simplified by arith.
#include "codegen/c/c_backend.h"

#include "codegen/c/c_printer.h"
#include "dpia/traverse.h"

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

// ------------------------------------------------------------ reads
CExpr CPrinter::var_access(const std::string& name, const Path& path) {
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

// Whether reading/writing element `lane` (a variable in [0, lanes)) through `access`
// touches consecutive scalars of one array: flat(lane) == flat(0) + lane.
bool CPrinter::consecutive(const std::function<CExpr(const Nat&)>& access, const Nat& lanes) {
  Nat lane = Nat::var("risec_lane", Nat(0), lanes);
  last_loc_.reset();
  CExpr e = access(lane);
  if (!last_loc_ || last_loc_->projected || last_loc_->text != e.text) return false;
  Nat base = arith::substitute(last_loc_->flat, {{"risec_lane", Nat(0)}});
  return (last_loc_->flat - base) == lane;
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
      base = c_index(base, nat_expr(e.i));
      t = t->a;
    } else {
      internal_error("C backend: index into " + rise::print(t));
    }
  }
  return base;
}

Nat CPrinter::need_index(const Path& p, size_t k, const char* what) {
  if (p.size() <= k || p[k].kind != PathElem::Index)
    internal_error(std::string("C backend: ") + what + " needs an index");
  return p[k].i;
}

Path CPrinter::rest(const Path& p, size_t from) {
  return Path(p.begin() + static_cast<long>(from), p.end());
}

CExpr CPrinter::read(const ExpressionP& e, const Path& p) {
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
      Path q = prepend(at(arith::floordiv(k, e->n)), prepend(at(arith::mod(k, e->n)), rest(p, 1)));
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

CPrinter::Target CPrinter::write_target(const AcceptorP& a, const Path& p) {
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
          prepend(PathElem{a->kind == Acceptor::Pair1 ? PathElem::Fst : PathElem::Snd, Nat(0)}, p));
    case Acceptor::AsVector: {
      // A vector element i of an m.vec acceptor over an (m*n).t buffer.
      Nat i = need_index(p, 0, "asVectorAcc");
      if (p.size() >= 2) return write_target(a->inner, prepend(at(i * a->n + p[1].i), rest(p, 2)));
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

}  // namespace risec::codegen
