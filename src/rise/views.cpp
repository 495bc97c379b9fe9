// Views declared by their index maps and their interpreter meaning: for each view
// primitive, its evaluation, where an element of its result is read from (read map) and, for
// writable views, where an element of its input lands when the result is written into a destination
// (write map). DPIA translation, view resolution (dpia/view_resolution.h) and the backends use only
// these maps; adding a view is its row in primitives.def and its functions here.
#include "rise/views.h"

#include <map>
#include <optional>
#include <string>

#include "support/diagnostics.h"

namespace risec::rise {

using arith::Nat;

namespace {

const auto at = path_index;
const auto prepend = path_prepend;
const auto rest = path_rest;
Nat need(const Path& p, size_t k, PrimId what) {
  return path_need_index(p, k, what);
}

// The only alternative: input `input` at `path`.
std::vector<ViewAccess> always(int input, Path path) {
  return {ViewAccess{arith::Cond(), input, std::move(path)}};
}

// [i, j, rest] -> [i*n + j, rest]: an n.m-shaped view of a flat array.
Path flatten2(const Path& p, const Nat& n, PrimId what) {
  Nat i = need(p, 0, what), j = need(p, 1, what);
  return prepend(at(i * n + j), rest(p, 2));
}

// [k, rest] -> [k / n, k % n, rest]: a flat view of rows of n elements.
Path unflatten(const Path& p, const Nat& n, PrimId what) {
  Nat k = need(p, 0, what);
  return prepend(at(arith::floordiv(k, n)), prepend(at(arith::mod(k, n)), rest(p, 1)));
}

Path swap2(const Path& p, PrimId what) {
  Nat i = need(p, 0, what), j = need(p, 1, what);
  return prepend(at(j), prepend(at(i), rest(p, 2)));
}

Path shift(const Path& p, const Nat& by, PrimId what) {
  return prepend(at(need(p, 0, what) + by), rest(p, 1));
}

[[noreturn]] void view_fail(const std::string& msg, const Span& span) {
  throw Error(ErrorKind::User, msg, span);
}

Type view_elem_of(const Type& array_type) {
  if (!array_type || array_type->kind != TypeKind::Array)
    internal_error("interpreter: expected an array type, got " +
                   (array_type ? print(array_type) : std::string("null")));
  return array_type->a;
}

}  // namespace

// Windows of sz elements every sp elements; `count` windows.
Value slide_array(const Value& x, int64_t sz, int64_t sp, int64_t count, const Span& span) {
  int64_t len = x.size();
  if (count < 0 || sz < 0 || sp < 0 || (count > 0 && (count - 1) * sp + sz > len))
    view_fail("slide(" + std::to_string(sz) + ")(" + std::to_string(sp) + ") of an array of " +
                  std::to_string(len) + " elements cannot give " + std::to_string(count) +
                  " windows",
              span);
  if (x.obj()->tag == Obj::Tag::Dense &&
      static_cast<const DenseArray&>(*x.obj()).rank < kMaxDenseRank) {
    StridedArray a = static_cast<const DenseArray&>(*x.obj());
    a.slide(0, sz, sp, count);
    return dense_view(std::move(a));
  }
  std::vector<Value> windows;
  windows.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) windows.push_back(array_slice(x, i * sp, sz));
  return boxed_array(std::move(windows));
}

// ---- interpreter meaning of the views (the eval column of their rows) ----

// take(n)(x): the first n elements (a view).
Value view_eval_Take(const PrimCall& call) {
  int64_t n = call.dep_nat(0);
  const Value& x = call.args.at(0);
  if (n < 0 || n > x.size())
    view_fail(
        "take(" + std::to_string(n) + ") of an array of " + std::to_string(x.size()) + " elements",
        call.span);
  return array_slice(x, 0, n);
}

// drop(n)(x): all but the first n elements (a view).
Value view_eval_Drop(const PrimCall& call) {
  int64_t n = call.dep_nat(0);
  const Value& x = call.args.at(0);
  if (n < 0 || n > x.size())
    view_fail(
        "drop(" + std::to_string(n) + ") of an array of " + std::to_string(x.size()) + " elements",
        call.span);
  return array_slice(x, n, x.size() - n);
}

// concat(a)(b): the elements of a, then those of b.
Value view_eval_Concat(const PrimCall& call) {
  const Value& a = call.args.at(0);
  const Value& b = call.args.at(1);
  ArrayBuilder out(view_elem_of(call.result_type()), a.size() + b.size());
  out.push_all(a);
  out.push_all(b);
  return out.finish();
}

// split(n)(x): m rows of n consecutive elements (a view), i.e. slide(n)(n)(x).
Value view_eval_Split(const PrimCall& call) {
  int64_t n = call.dep_nat(0);
  const Value& x = call.args.at(0);
  int64_t len = x.size();
  if (n <= 0 || len % n != 0)
    view_fail(
        "split(" + std::to_string(n) + ") of an array of " + std::to_string(len) + " elements",
        call.span);
  // Rows of n elements every n elements: the windows of slide(n)(n).
  return slide_array(x, n, n, len / n, call.span);
}

// join(x): the rows of x one after the other (a view when the rows are contiguous).
Value view_eval_Join(const PrimCall& call) {
  Value x = call.args.at(0);
  Type rt = call.result_type();
  if (x.obj()->tag == Obj::Tag::Dense) {
    StridedArray a = static_cast<const DenseArray&>(*x.obj());
    if (a.rank >= 2 && !(a.rank == 2 && a.vec_last)) {
      if (!a.join(0)) {
        a = a.c_order_copy();
        a.join(0);
      }
      return dense_view(std::move(a));
    }
  }
  const int64_t n = x.size();
  int64_t total = const_size(rt->size, call.span);
  ArrayBuilder b(rt->a, total);
  for (int64_t i = 0; i < n; ++i) b.push_all(x.at(i));
  return b.finish();
}

// slide(sz)(sp)(x): windows of sz elements every sp elements (a view).
Value view_eval_Slide(const PrimCall& call) {
  int64_t sz = call.dep_nat(0), sp = call.dep_nat(1);
  int64_t count = const_size(call.result_type()->size, call.span);
  return slide_array(call.args.at(0), sz, sp, count, call.span);
}

// transpose(x)[j][i] = x[i][j] (a view for dense arrays).
Value view_eval_Transpose(const PrimCall& call) {
  const Value& x = call.args.at(0);
  Type rt = call.result_type();  // m.n.t
  if (x.obj()->tag == Obj::Tag::Dense) {
    StridedArray a = static_cast<const DenseArray&>(*x.obj());
    if (a.rank >= 2 && !(a.rank == 2 && a.vec_last)) {
      a.transpose(0);
      return dense_view(std::move(a));
    }
  }
  const int64_t n = x.size();
  const int64_t m = const_size(rt->size, call.span);
  std::vector<Value> rows;
  rows.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) rows.push_back(x.at(i));
  ArrayBuilder out(rt->a, m);
  for (int64_t j = 0; j < m; ++j) {
    ArrayBuilder col(rt->a->a, n);
    for (int64_t i = 0; i < n; ++i) col.push(rows[static_cast<size_t>(i)].at(j));
    out.push(col.finish());
  }
  return out.finish();
}

// reorder(n)(f)(finv)(x)[i] = x[f(i)], as in Shine (finv is what a write through
// the reordering uses; reading needs only f).
Value view_eval_Reorder(const PrimCall& call) {
  const int64_t n = call.dep_nat(0);
  const NatFun* f = call.dep_args.size() > 1 ? std::get_if<NatFun>(&call.dep_args[1]) : nullptr;
  if (!f) internal_error("interpreter: reorder without its index function");
  const Value& x = call.args.at(0);
  ArrayBuilder b(view_elem_of(call.result_type()), n);
  arith::Assignment env;
  for (int64_t i = 0; i < n; ++i) {
    env[f->param] = i;
    int64_t j;
    try {
      j = arith::evaluate(f->body, env);
    } catch (const arith::ArithError& e) {
      view_fail(std::string("reorder: the index function fails at ") + std::to_string(i) + ": " +
                    e.what(),
                call.span);
    }
    if (j < 0 || j >= n)
      view_fail("reorder: the index function maps " + std::to_string(i) + " to " +
                    std::to_string(j) + ", out of range for " + std::to_string(n) + " elements",
                call.span);
    b.push(x.at(j));
  }
  return b.finish();
}

// padCst(l)(r)(c)(x) = [c (l times), x..., c (r times)]
Value view_eval_PadCst(const PrimCall& call) {
  const int64_t l = call.dep_nat(0), r = call.dep_nat(1);
  const Value& c = call.args.at(0);
  const Value& x = call.args.at(1);
  ArrayBuilder b(view_elem_of(call.result_type()), l + x.size() + r);
  for (int64_t i = 0; i < l; ++i) b.push(c);
  b.push_all(x);
  for (int64_t i = 0; i < r; ++i) b.push(c);
  return b.finish();
}

// padClamp(l)(r)(x) = [x[0] (l times), x..., x[n-1] (r times)]
Value view_eval_PadClamp(const PrimCall& call) {
  const int64_t l = call.dep_nat(0), r = call.dep_nat(1);
  const Value& x = call.args.at(0);
  const int64_t n = x.size();
  if (n == 0 && l + r > 0) view_fail("padClamp of an empty array", call.span);
  ArrayBuilder b(view_elem_of(call.result_type()), l + n + r);
  if (l > 0) {
    Value first = x.at(0);
    for (int64_t i = 0; i < l; ++i) b.push(first);
  }
  b.push_all(x);
  if (r > 0) {
    Value last = x.at(n - 1);
    for (int64_t i = 0; i < r; ++i) b.push(last);
  }
  return b.finish();
}

// zip(a)(b)[i] = (a[i], b[i]) (lazy).
Value view_eval_Zip(const PrimCall& call) {
  const Value& a = call.args.at(0);
  const Value& b = call.args.at(1);
  if (a.size() != b.size())
    view_fail("zip of arrays of " + std::to_string(a.size()) + " and " + std::to_string(b.size()) +
                  " elements",
              call.span);
  return zip_arrays(a, b);
}

// asScalar(x): the lanes of every vector, in order.
Value view_eval_AsScalar(const PrimCall& call) {
  const Value& x = call.args.at(0);
  if (x.obj()->tag == Obj::Tag::Dense) {
    StridedArray a = static_cast<const DenseArray&>(*x.obj());
    if (a.rank == 2 && a.vec_last && a.join(0)) {
      a.vec_last = false;
      return dense_view(std::move(a));
    }
  }
  Type rt = call.result_type();
  ArrayBuilder b(rt->a, const_size(rt->size, call.span));
  for (int64_t i = 0; i < x.size(); ++i) {
    Value v = x.at(i);
    for (int64_t l = 0; l < v.lane_count(); ++l) b.push(v.lane(l));
  }
  return b.finish();
}

// lane(i)(v): lane i of the vector v (i < n is checked by type inference).
Value view_eval_Lane(const PrimCall& call) {
  const int64_t i = call.dep_nat(0);
  const Value& v = call.args.at(0);
  if (i < 0 || i >= v.lane_count())
    view_fail("lane(" + std::to_string(i) + ") of a vector of " + std::to_string(v.lane_count()) +
                  " lanes",
              call.span);
  return v.lane(i);
}

// ---- index maps ----

// split(n)(x): x: (m*n).t, result m.n.t
std::vector<ViewAccess> view_read_Split(const ViewSite& s, const Path& p) {
  return always(0, flatten2(p, s.nats[0], PrimId::Split));
}
Path view_write_Split(const ViewSite& s, int, const Path& p) {
  return unflatten(p, s.nats[0], PrimId::Split);
}

// join(x): x: n.m.t, result (n*m).t
std::vector<ViewAccess> view_read_Join(const ViewSite& s, const Path& p) {
  return always(0, unflatten(p, s.inputs[0]->a->size, PrimId::Join));
}
Path view_write_Join(const ViewSite& s, int, const Path& p) {
  return flatten2(p, s.inputs[0]->a->size, PrimId::Join);
}

// transpose(x)[i][j] = x[j][i]
std::vector<ViewAccess> view_read_Transpose(const ViewSite&, const Path& p) {
  return always(0, swap2(p, PrimId::Transpose));
}
Path view_write_Transpose(const ViewSite&, int, const Path& p) {
  return swap2(p, PrimId::Transpose);
}

// slide(sz)(sp)(x)[i][j] = x[i*sp + j]
std::vector<ViewAccess> view_read_Slide(const ViewSite& s, const Path& p) {
  return always(0, flatten2(p, s.nats[1], PrimId::Slide));
}

// take(n)(x)[i] = x[i]
std::vector<ViewAccess> view_read_Take(const ViewSite&, const Path& p) {
  return always(0, p);
}

// drop(n)(x)[i] = x[i + n]
std::vector<ViewAccess> view_read_Drop(const ViewSite& s, const Path& p) {
  return always(0, shift(p, s.nats[0], PrimId::Drop));
}

// concat(a)(b)[i] = i < n ? a[i] : b[i - n]; written: a at [0, n), b from n on.
std::vector<ViewAccess> view_read_Concat(const ViewSite& s, const Path& p) {
  Nat i = need(p, 0, PrimId::Concat);
  Nat n = s.inputs[0]->size;
  return {ViewAccess{arith::lt(i, n), 0, p},
          ViewAccess{arith::Cond(), 1, prepend(at(i - n), rest(p, 1))}};
}
Path view_write_Concat(const ViewSite& s, int input, const Path& p) {
  return input == 0 ? p : shift(p, s.inputs[0]->size, PrimId::Concat);
}

// padCst(l)(r)(c)(x)[i] = l <= i < l+n ? x[i - l] : c; written (the interior only;
// translation writes the borders with c): x[i] lands at i + l.
std::vector<ViewAccess> view_read_PadCst(const ViewSite& s, const Path& p) {
  Nat i = need(p, 0, PrimId::PadCst);
  const Nat& l = s.nats[0];
  Nat len = s.inputs[1]->size;
  return {ViewAccess{arith::le(l, i) && arith::lt(i, l + len), 1, prepend(at(i - l), rest(p, 1))},
          ViewAccess{arith::Cond(), 0, rest(p, 1)}};
}
Path view_write_PadCst(const ViewSite& s, int input, const Path& p) {
  if (input != 1) internal_error("padCst: only its array is written through a view");
  return shift(p, s.nats[0], PrimId::PadCst);
}

// padClamp(l)(r)(x)[i] = x[min(max(i - l, 0), n - 1)]
std::vector<ViewAccess> view_read_PadClamp(const ViewSite& s, const Path& p) {
  Nat i = need(p, 0, PrimId::PadClamp);
  Nat len = s.inputs[0]->size;
  Nat j = arith::min(arith::max(i - s.nats[0], Nat(0)), len - Nat(1));
  return always(0, prepend(at(j), rest(p, 1)));
}

// zip(a)(b)[i] = (a[i], b[i]): a projection picks the side.
std::vector<ViewAccess> view_read_Zip(const ViewSite&, const Path& p) {
  Nat i = need(p, 0, PrimId::Zip);
  if (p.size() < 2 || p[1].kind == PathElem::Index)
    internal_error("view resolution: zip element used without projection");
  return always(p[1].kind == PathElem::Fst ? 0 : 1, prepend(at(i), rest(p, 2)));
}
Path view_write_Zip(const ViewSite&, int input, const Path& p) {
  Nat i = need(p, 0, PrimId::Zip);
  PathElem proj{input == 0 ? PathElem::Fst : PathElem::Snd, Nat(0)};
  return prepend(at(i), prepend(proj, rest(p, 1)));
}

// reorder(n)(f)(finv)(x)[i] = x[f(i)]; written: x[j] lands at finv(j).
std::vector<ViewAccess> view_read_Reorder(const ViewSite& s, const Path& p) {
  return always(0, prepend(at(s.funs[0].apply(need(p, 0, PrimId::Reorder))), rest(p, 1)));
}
Path view_write_Reorder(const ViewSite& s, int, const Path& p) {
  return prepend(at(s.funs[1].apply(need(p, 0, PrimId::Reorder))), rest(p, 1));
}

namespace {

// The first index at which f reads outside [0, k) (i < k), or, when `written`, finv(j) is
// outside [0, k) or f(finv(j)) != j, with `sizes` giving the size names their values
// (every index up to 4096, else 4096 spread over [0, k) and the last 64): a message, or
// nothing. A function without a value at a known size (an inexact division) is a
// message too; at sampled symbolic sizes it is not (the program's conditions may rule
// those sizes out).
std::optional<std::string> reorder_mismatch(int64_t k, const NatFun& f, const NatFun& finv,
                                            const arith::Assignment& sizes, bool written) {
  std::vector<int64_t> js;
  const int64_t step = k <= 4096 ? 1 : k / 4096;
  for (int64_t j = 0; j < k; j += step) js.push_back(j);
  for (int64_t j = std::max<int64_t>(0, k - 64); step > 1 && j < k; ++j) js.push_back(j);
  arith::Assignment env = sizes;
  auto eval = [&](const NatFun& g, int64_t x) {
    env.erase(f.param);
    env.erase(finv.param);
    env[g.param] = x;
    return arith::evaluate(g.body, env);
  };
  const std::string range = " is outside 0.." + std::to_string(k - 1);
  try {
    for (int64_t i : js)
      if (int64_t r = eval(f, i); r < 0 || r >= k)
        return "f(" + std::to_string(i) + ") = " + std::to_string(r) + range +
               " (element i is read from f(i))";
    if (!written) return std::nullopt;
    for (int64_t j : js) {
      int64_t i = eval(finv, j);
      if (i < 0 || i >= k)
        return "finv(" + std::to_string(j) + ") = " + std::to_string(i) + range +
               " (writing through the reorder puts element j at finv(j))";
      if (int64_t back = eval(f, i); back != j)
        return "finv is not the inverse of f: finv(" + std::to_string(j) +
               ") = " + std::to_string(i) + " but f(" + std::to_string(i) +
               ") = " + std::to_string(back) + ", not " + std::to_string(j) +
               " (writing through the reorder puts element j at finv(j))";
    }
  } catch (const arith::ArithError& e) {
    // At a known size with nothing else unknown, a function without a value is what the
    // interpreter refuses too ("/" on sizes is exact), while C would divide with floor.
    bool closed = sizes.empty();  // a known size, and no other name in the functions
    for (const NatFun* g : {&f, &finv})
      for (const auto& [name, v] : arith::free_vars(g->body)) closed = closed && name == g->param;
    if (closed)
      return std::string("an index function has no value (") + e.what() +
             "): / on sizes is exact; floor(i / a) is (i - i % a) / a";
  }
  return std::nullopt;
}

}  // namespace

void require_reorder(const std::vector<arith::Nat>& nats, const std::vector<NatFun>& funs,
                     const Span& span, bool written) {
  if (nats.empty() || funs.size() < 2) return;
  const Nat& n = nats[0];
  const NatFun& f = funs[0];
  const NatFun& finv = funs[1];
  // held-out L F2, O: a wrong finv gave results other than the interpreter's, silently,
  // and an f leaving the array read past the input (SIGSEGV at large n)
  if (std::optional<int64_t> k = n.as_const()) {
    if (std::optional<std::string> m = reorder_mismatch(*k, f, finv, {}, written))
      user_error("reorder: " + *m, span);
    return;
  }
  // Symbolic sizes (held-out O: generic code wrote through (i + 1) % n with finv = i):
  // a mismatch at one of the sizes tried refuses the program, which the generic code
  // would compute wrong at those sizes.
  std::map<std::string, Nat> names = arith::free_vars(n);
  for (const NatFun* g : {&f, &finv})
    for (auto& [name, v] : arith::free_vars(g->body))
      if (name != g->param) names.emplace(name, v);
  if (names.size() > 2) return;
  std::vector<std::string> vars;
  for (const auto& [name, v] : names) vars.push_back(name);
  const int64_t combos = vars.size() == 2 ? 144 : 12;
  for (int64_t c = 0; c < combos; ++c) {
    arith::Assignment sizes;
    std::string at;
    int64_t rest = c;
    for (const std::string& v : vars) {
      sizes[v] = rest % 12 + 1;
      rest /= 12;
      at += (at.empty() ? "" : ", ") + v + " = " + std::to_string(sizes[v]);
    }
    int64_t k = 0;
    try {
      k = arith::evaluate(n, sizes);
    } catch (const arith::ArithError&) {
      continue;
    }
    if (k < 1 || k > 256) continue;
    if (std::optional<std::string> m = reorder_mismatch(k, f, finv, sizes, written))
      user_error("reorder: at " + at + ", " + *m + "; compile at the sizes where it holds (--size)",
                 span);
  }
}

// asScalar(x)[k] = x[k / n][k % n] (x: m.vec[t, n]). Its destination form stores
// whole vectors, which the backends decide (dpia Acceptor::AsVector).
std::vector<ViewAccess> view_read_AsScalar(const ViewSite& s, const Path& p) {
  return always(0, unflatten(p, s.inputs[0]->a->size, PrimId::AsScalar));
}

// lane(i)(v) = v[i]: a scalar, read at lane i of its vector.
std::vector<ViewAccess> view_read_Lane(const ViewSite& s, const Path& p) {
  return always(0, prepend(at(s.nats[0]), p));
}

// asVector(n)(x) written into an m.vec[t, n] destination: x[k] lands at lane k % n
// of vector k / n. Its read form loads whole vectors (dpia Expression::AsVector).
Path view_write_AsVector(const ViewSite& s, int, const Path& p) {
  return unflatten(p, s.nats[0], PrimId::AsVector);
}
Path view_write_AsVectorAligned(const ViewSite& s, int input, const Path& p) {
  return view_write_AsVector(s, input, p);
}

// reverse(x)[i] = x[n - 1 - i]; written: x[i] lands at n - 1 - i. A view for dense
// arrays.
Value view_eval_Reverse(const PrimCall& call) {
  const Value& x = call.args.at(0);
  const int64_t n = x.size();
  if (x.obj()->tag == Obj::Tag::Dense && n > 0) {
    StridedArray a = static_cast<const DenseArray&>(*x.obj());
    a.reverse(0);
    return dense_view(std::move(a));
  }
  ArrayBuilder b(call.result_type()->a, n);
  for (int64_t i = n; i-- > 0;) b.push(x.at(i));
  return b.finish();
}
std::vector<ViewAccess> view_read_Reverse(const ViewSite& s, const Path& p) {
  return always(0,
                prepend(at(s.inputs[0]->size - Nat(1) - need(p, 0, PrimId::Reverse)), rest(p, 1)));
}
Path view_write_Reverse(const ViewSite& s, int, const Path& p) {
  return prepend(at(s.inputs[0]->size - Nat(1) - need(p, 0, PrimId::Reverse)), rest(p, 1));
}

}  // namespace risec::rise
