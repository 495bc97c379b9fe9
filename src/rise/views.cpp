// Views declared by their index maps: for each view primitive, where an element of
// its result is read from (read map) and, for writable views, where an element of
// its input lands when the result is written into a destination (write map). DPIA
// translation, view resolution (dpia/view_resolution.h) and the backends use only
// these maps; adding a view is its row in primitives.def and its functions here.
#include "rise/views.h"

namespace risec::rise {

using arith::Nat;

namespace {

const auto at = path_index;
const auto prepend = path_prepend;
const auto rest = path_rest;
const auto need = path_need_index;

// The only alternative: input `input` at `path`.
std::vector<ViewAccess> always(int input, Path path) {
  return {ViewAccess{arith::Cond(), input, std::move(path)}};
}

// [i, j, rest] -> [i*n + j, rest]: an n.m-shaped view of a flat array.
Path flatten2(const Path& p, const Nat& n, const char* what) {
  Nat i = need(p, 0, what), j = need(p, 1, what);
  return prepend(at(i * n + j), rest(p, 2));
}

// [k, rest] -> [k / n, k % n, rest]: a flat view of rows of n elements.
Path unflatten(const Path& p, const Nat& n, const char* what) {
  Nat k = need(p, 0, what);
  return prepend(at(arith::floordiv(k, n)), prepend(at(arith::mod(k, n)), rest(p, 1)));
}

Path swap2(const Path& p, const char* what) {
  Nat i = need(p, 0, what), j = need(p, 1, what);
  return prepend(at(j), prepend(at(i), rest(p, 2)));
}

Path shift(const Path& p, const Nat& by, const char* what) {
  return prepend(at(need(p, 0, what) + by), rest(p, 1));
}

}  // namespace

// split(n)(x): x: (m*n).t, result m.n.t
std::vector<ViewAccess> view_read_Split(const ViewSite& s, const Path& p) {
  return always(0, flatten2(p, s.nats[0], "split"));
}
Path view_write_Split(const ViewSite& s, int, const Path& p) {
  return unflatten(p, s.nats[0], "split");
}

// join(x): x: n.m.t, result (n*m).t
std::vector<ViewAccess> view_read_Join(const ViewSite& s, const Path& p) {
  return always(0, unflatten(p, s.inputs[0]->a->size, "join"));
}
Path view_write_Join(const ViewSite& s, int, const Path& p) {
  return flatten2(p, s.inputs[0]->a->size, "join");
}

// transpose(x)[i][j] = x[j][i]
std::vector<ViewAccess> view_read_Transpose(const ViewSite&, const Path& p) {
  return always(0, swap2(p, "transpose"));
}
Path view_write_Transpose(const ViewSite&, int, const Path& p) {
  return swap2(p, "transpose");
}

// slide(sz)(sp)(x)[i][j] = x[i*sp + j]
std::vector<ViewAccess> view_read_Slide(const ViewSite& s, const Path& p) {
  return always(0, flatten2(p, s.nats[1], "slide"));
}

// take(n)(x)[i] = x[i]
std::vector<ViewAccess> view_read_Take(const ViewSite&, const Path& p) {
  return always(0, p);
}

// drop(n)(x)[i] = x[i + n]
std::vector<ViewAccess> view_read_Drop(const ViewSite& s, const Path& p) {
  return always(0, shift(p, s.nats[0], "drop"));
}

// concat(a)(b)[i] = i < n ? a[i] : b[i - n]; written: a at [0, n), b from n on.
std::vector<ViewAccess> view_read_Concat(const ViewSite& s, const Path& p) {
  Nat i = need(p, 0, "concat");
  Nat n = s.inputs[0]->size;
  return {ViewAccess{arith::lt(i, n), 0, p},
          ViewAccess{arith::Cond(), 1, prepend(at(i - n), rest(p, 1))}};
}
Path view_write_Concat(const ViewSite& s, int input, const Path& p) {
  return input == 0 ? p : shift(p, s.inputs[0]->size, "concat");
}

// padCst(l)(r)(c)(x)[i] = l <= i < l+n ? x[i - l] : c; written (the interior only;
// translation writes the borders with c): x[i] lands at i + l.
std::vector<ViewAccess> view_read_PadCst(const ViewSite& s, const Path& p) {
  Nat i = need(p, 0, "padCst");
  const Nat& l = s.nats[0];
  Nat len = s.inputs[1]->size;
  return {ViewAccess{arith::le(l, i) && arith::lt(i, l + len), 1, prepend(at(i - l), rest(p, 1))},
          ViewAccess{arith::Cond(), 0, rest(p, 1)}};
}
Path view_write_PadCst(const ViewSite& s, int input, const Path& p) {
  if (input != 1) internal_error("padCst: only its array is written through a view");
  return shift(p, s.nats[0], "padCst");
}

// padClamp(l)(r)(x)[i] = x[min(max(i - l, 0), n - 1)]
std::vector<ViewAccess> view_read_PadClamp(const ViewSite& s, const Path& p) {
  Nat i = need(p, 0, "padClamp");
  Nat len = s.inputs[0]->size;
  Nat j = arith::min(arith::max(i - s.nats[0], Nat(0)), len - Nat(1));
  return always(0, prepend(at(j), rest(p, 1)));
}

// zip(a)(b)[i] = (a[i], b[i]): a projection picks the side.
std::vector<ViewAccess> view_read_Zip(const ViewSite&, const Path& p) {
  Nat i = need(p, 0, "zip");
  if (p.size() < 2 || p[1].kind == PathElem::Index)
    internal_error("view resolution: zip element used without projection");
  return always(p[1].kind == PathElem::Fst ? 0 : 1, prepend(at(i), rest(p, 2)));
}
Path view_write_Zip(const ViewSite&, int input, const Path& p) {
  Nat i = need(p, 0, "zip");
  PathElem proj{input == 0 ? PathElem::Fst : PathElem::Snd, Nat(0)};
  return prepend(at(i), prepend(proj, rest(p, 1)));
}

// reorder(n)(f)(finv)(x)[i] = x[f(i)]; written: x[j] lands at finv(j).
std::vector<ViewAccess> view_read_Reorder(const ViewSite& s, const Path& p) {
  return always(0, prepend(at(s.funs[0].apply(need(p, 0, "reorder"))), rest(p, 1)));
}
Path view_write_Reorder(const ViewSite& s, int, const Path& p) {
  return prepend(at(s.funs[1].apply(need(p, 0, "reorder"))), rest(p, 1));
}

// asScalar(x)[k] = x[k / n][k % n] (x: m.vec[t, n]). Its destination form stores
// whole vectors, which the backends decide (dpia Acceptor::AsVector).
std::vector<ViewAccess> view_read_AsScalar(const ViewSite& s, const Path& p) {
  return always(0, unflatten(p, s.inputs[0]->a->size, "asScalar"));
}

// asVector(n)(x) written into an m.vec[t, n] destination: x[k] lands at lane k % n
// of vector k / n. Its read form loads whole vectors (dpia Expression::AsVector).
Path view_write_AsVector(const ViewSite& s, int, const Path& p) {
  return unflatten(p, s.nats[0], "asVector");
}
Path view_write_AsVectorAligned(const ViewSite& s, int input, const Path& p) {
  return view_write_AsVector(s, input, p);
}

// reverse(x)[i] = x[n - 1 - i]; written: x[i] lands at n - 1 - i.
Value view_eval_Reverse(const PrimCall& call) {
  const Value& x = call.args.at(0);
  const int64_t n = x.size();
  ArrayBuilder b(call.result_type()->a, n);
  for (int64_t i = n; i-- > 0;) b.push(x.at(i));
  return b.finish();
}
std::vector<ViewAccess> view_read_Reverse(const ViewSite& s, const Path& p) {
  return always(0, prepend(at(s.inputs[0]->size - Nat(1) - need(p, 0, "reverse")), rest(p, 1)));
}
Path view_write_Reverse(const ViewSite& s, int, const Path& p) {
  return prepend(at(s.inputs[0]->size - Nat(1) - need(p, 0, "reverse")), rest(p, 1));
}

}  // namespace risec::rise
