// A map's body a block of elements at a time, and the reduction kernels (see
// interp_fast_internal.h, BatchProgram and Reduce::Kernel): recognising the node trees
// of those forms, and running the block programs. Each element gets the same
// operations in the same order as the node-at-a-time evaluation, so the same bits.
#include <algorithm>

#include "rise/interp_fast_internal.h"

namespace risec::rise::fast {

// ---- running ----

template <class T>
void BatchProgram::exec(const BIns& in, const Prep& pr, std::byte* regs, int64_t i0, int cnt) {
  // a register holds kBlock values of T
  T* d = reinterpret_cast<T*>(reg(regs, in.dst));
  auto src = [&](int r) { return reinterpret_cast<const T*>(reg(regs, r)); };
  switch (in.k) {
    case BIns::K::Elem:
    case BIns::K::View: {
      const std::byte* p = pr.p + i0 * pr.step;
      if (pr.step == sizeof(T))
        std::memcpy(d, p, cnt * sizeof(T));
      else
        for (int t = 0; t < cnt; ++t) std::memcpy(d + t, p + t * pr.step, sizeof(T));
      return;
    }
    case BIns::K::Bcast: {
      T v;
      if constexpr (std::is_same_v<T, float>)
        v = pr.v.f;
      else
        v = pr.v.d;
      for (int t = 0; t < cnt; ++t) d[t] = v;
      return;
    }
    case BIns::K::Bin: {
      const T* x = src(in.x);
      const T* y = src(in.y);
      with_op(BlockOps{}, in.op, [&]<PrimId Op>() {
        for (int t = 0; t < cnt; ++t) d[t] = apply_op<Op>(x[t], y[t]);
      });
      return;
    }
    case BIns::K::Un: {
      const T* x = src(in.x);
      if (in.abs)
        for (int t = 0; t < cnt; ++t) d[t] = apply_op<PrimId::Abs>(x[t], x[t]);
      else if (in.math1)
        for (int t = 0; t < cnt; ++t) d[t] = static_cast<T>(in.math1(static_cast<double>(x[t])));
      else
        for (int t = 0; t < cnt; ++t) d[t] = apply_op<PrimId::Neg>(x[t], x[t]);
      return;
    }
    case BIns::K::Reduce: {
      const T* init = src(in.x);
      for (int t = 0; t < cnt; ++t) d[t] = init[t];
      const std::byte* pa = pr.p + i0 * pr.step;
      const std::byte* pb = in.prod ? pr.pb + i0 * pr.stepb : nullptr;
      for (int64_t j = 0; j < in.n; ++j) {
        for (int t = 0; t < cnt; ++t) {
          T a;
          std::memcpy(&a, pa + t * pr.step + j * pr.jstep, sizeof a);
          if (in.prod) {
            T b;
            std::memcpy(&b, pb + t * pr.stepb + j * pr.jstepb, sizeof b);
            d[t] = apply_op<PrimId::Add>(d[t], apply_op<PrimId::Mul>(a, b));
          } else {
            d[t] = apply_op<PrimId::Add>(d[t], a);
          }
        }
      }
      return;
    }
  }
}

void BatchProgram::run(Ctx& c, const Cursors& cur, StridedArray* res, int64_t lo,
                       int64_t hi) const {
  if (hi <= lo) return;
  std::vector<Prep> prep(ins.size());
  auto source = [&](const BSource& s, const std::byte*& p, int64_t& step, int64_t& jstep) {
    if (s.view >= 0) {
      const StridedArray& v = *cur.v[s.view].dst;
      const auto es = static_cast<int64_t>(scalar_size(v.sk));
      p = v.store->data() + cur.v[s.view].off0 * es;
      step = cur.v[s.view].step * es;
      jstep = v.stride[0] * es;
    } else {
      const StridedArray& v = c.a[s.slot];
      const auto es = static_cast<int64_t>(scalar_size(v.sk));
      p = v.store->data() + v.offset * es;
      step = 0;
      jstep = v.stride[0] * es;
    }
  };
  for (size_t k = 0; k < ins.size(); ++k) {
    const BIns& in = ins[k];
    Prep& pr = prep[k];
    switch (in.k) {
      case BIns::K::Elem:
        pr.p = cur.c[in.leaf].p;
        pr.step = cur.c[in.leaf].step;
        break;
      case BIns::K::View: {
        const StridedArray& v = *cur.v[in.leaf].dst;
        const auto es = static_cast<int64_t>(scalar_size(v.sk));
        int64_t e = cur.v[in.leaf].off0;
        for (size_t d = 0; d < in.cidx.size(); ++d) e += in.cidx[d] * v.stride[d];
        pr.p = v.store->data() + e * es;
        pr.step = cur.v[in.leaf].step * es;
        break;
      }
      case BIns::K::Bcast:
        pr.v = in.node->scalar(c);
        break;
      case BIns::K::Reduce:
        source(in.a, pr.p, pr.step, pr.jstep);
        if (in.prod) source(in.b, pr.pb, pr.stepb, pr.jstepb);
        break;
      default:
        break;
    }
  }
  std::vector<std::byte> regs(static_cast<size_t>(nregs) * kRegBytes);
  for (int64_t i0 = lo; i0 < hi; i0 += kBlock) {
    const int cnt = static_cast<int>(std::min<int64_t>(kBlock, hi - i0));
    for (size_t k = 0; k < ins.size(); ++k) {
      if (ins[k].f64)
        exec<double>(ins[k], prep[k], regs.data(), i0, cnt);
      else
        exec<float>(ins[k], prep[k], regs.data(), i0, cnt);
    }
    for (size_t o = 0; o < out.size(); ++o) {
      const StridedArray& r = res[o];
      const auto es = static_cast<int64_t>(scalar_size(r.sk));
      std::memcpy(r.store->data() + (r.offset + i0) * es, reg(regs.data(), out[o]),
                  static_cast<size_t>(cnt * es));
    }
  }
}

// ---- recognising ----

namespace {

struct BatchBuilder {
  struct No {};
  const Map& m;
  BatchProgram prog;
  std::vector<std::pair<int, int>> lets;  // a let's slot and its register
  int nscalar = 0, nview = 0;             // the element's leaves

  int emit(BIns in) {
    in.dst = prog.nregs++;
    prog.ins.push_back(std::move(in));
    return prog.ins.back().dst;
  }
  int elem_scalar(int slot) const {
    return slot >= m.p_s0 && slot < m.p_s0 + nscalar ? slot - m.p_s0 : -1;
  }
  int elem_view(int slot) const {
    return slot >= m.p_a0 && slot < m.p_a0 + nview ? slot - m.p_a0 : -1;
  }
  void results(const Node* x) {
    if (auto* p = dynamic_cast<const MakePair*>(x)) {
      results(p->x.get());
      results(p->y.get());
      return;
    }
    if (auto* l = dynamic_cast<const Let*>(x)) {  // lets around a pair
      bind(*l);
      results(l->body.get());
      return;
    }
    prog.out.push_back(expr(x));
  }
  void bind(const Let& l) {
    if (l.value->ns != 1 || l.value->na != 0) throw No{};
    lets.emplace_back(l.s0, expr(l.value.get()));
  }
  // Whether x is a FloatBin<T, Op> node of an operator of the list: its operator and
  // operands.
  template <class T, PrimId... Ops>
  static bool block_bin(const Node* x, OpList<Ops...>, PrimId& op, const Node*& a, const Node*& b) {
    auto one = [&]<PrimId Op>() {
      auto* n = dynamic_cast<const FloatBin<T, Op>*>(x);
      if (n) op = Op, a = n->x.get(), b = n->y.get();
      return n != nullptr;
    };
    return (one.template operator()<Ops>() || ...);
  }
  template <class T>
  bool bin(const Node* x, BIns& in) {
    const Node *a, *b;
    if (!block_bin<T>(x, BlockOps{}, in.op, a, b)) return false;
    in.k = BIns::K::Bin;
    in.x = expr(a);
    in.y = expr(b);
    return true;
  }
  template <class T>
  bool unary(const Node* x, BIns& in) {
    auto* u = dynamic_cast<const FloatUnary<T>*>(x);
    if (!u) return false;
    in.k = BIns::K::Un;
    in.math1 = u->math1;
    in.abs = u->abs;
    in.x = expr(u->x.get());
    return true;
  }
  // The array slots of a reduction's input (variables and zips of them).
  static void array_slots(const Node* x, std::vector<int>& out) {
    if (auto* v = dynamic_cast<const Var*>(x); v && v->ns == 0) {
      out.insert(out.end(), v->aslots.begin(), v->aslots.end());
    } else if (auto* p = dynamic_cast<const MakePair*>(x)) {
      array_slots(p->x.get(), out);
      array_slots(p->y.get(), out);
    } else if (auto* s = dynamic_cast<const Same*>(x)) {
      array_slots(s->x.get(), out);
    } else {
      throw No{};
    }
  }
  BSource source(int slot) const {
    BSource s;
    if ((s.view = elem_view(slot)) < 0) s.slot = slot;
    return s;
  }
  // Whether x has the same value for every element: arithmetic on constants and
  // values bound outside the map (`sqrt(2.0f)`, `0.5f * vol * vol`). It is computed
  // once per run, with the same operations (they cannot fail).
  bool invariant(const Node* x) const {
    if (dynamic_cast<const Const*>(x)) return true;
    if (auto* v = dynamic_cast<const Var*>(x)) {
      if (v->ns != 1 || v->na != 0 || elem_scalar(v->s0) >= 0) return false;
      for (const auto& l : lets)
        if (l.first == v->s0) return false;
      return true;
    }
    if (auto* vi = dynamic_cast<const VarIdx*>(x)) {
      for (int64_t i : vi->cidx)
        if (i < 0) return false;
      return elem_view(vi->slot) < 0;
    }
    auto bin = [&]<class T>(T*) {
      if (auto* u = dynamic_cast<const FloatUnary<T>*>(x)) return invariant(u->x.get());
      PrimId op;
      const Node *a, *b;
      return block_bin<T>(x, BlockOps{}, op, a, b) && invariant(a) && invariant(b);
    };
    return bin(static_cast<float*>(nullptr)) || bin(static_cast<double*>(nullptr));
  }
  int expr(const Node* x) {
    if (x->t->kind != TypeKind::Scalar || !is_float(x->t->scalar)) throw No{};
    BIns in;
    in.f64 = x->t->scalar == ScalarKind::F64;
    if (invariant(x)) {
      in.node = x;  // Bcast
    } else if (auto* v = dynamic_cast<const Var*>(x)) {
      for (const auto& [slot, r] : lets)
        if (slot == v->s0) return r;
      if ((in.leaf = elem_scalar(v->s0)) < 0) throw No{};
      in.k = BIns::K::Elem;
    } else if (auto* vi = dynamic_cast<const VarIdx*>(x)) {
      for (int64_t i : vi->cidx)
        if (i < 0) throw No{};
      if ((in.leaf = elem_view(vi->slot)) < 0) throw No{};
      in.k = BIns::K::View;
      in.cidx = vi->cidx;
    } else if (auto* l = dynamic_cast<const Let*>(x)) {
      bind(*l);
      return expr(l->body.get());
    } else if (auto* r = dynamic_cast<const Reduce*>(x)) {
      using RK = Reduce::Kernel;
      if (!r->scalar_acc || (r->kernel != RK::Sum && r->kernel != RK::SumProd)) throw No{};
      std::vector<int> slots;
      array_slots(r->xs.get(), slots);
      if (slots.size() != r->x_elem.size()) throw No{};
      in.k = BIns::K::Reduce;
      in.x = expr(r->init.get());
      in.a = source(slots[static_cast<size_t>(r->ki)]);
      in.prod = r->kernel == RK::SumProd;
      if (in.prod) in.b = source(slots[static_cast<size_t>(r->kj)]);
      in.n = r->n;
    } else if (!(in.f64 ? bin<double>(x, in) || unary<double>(x, in)
                        : bin<float>(x, in) || unary<float>(x, in))) {
      throw No{};
    }
    return emit(std::move(in));
  }
};

// The slot a scalar variable node reads (-1 for any other node).
int var_slot(const Node* x) {
  auto* v = dynamic_cast<const Var*>(x);
  return v && v->ns == 1 && v->na == 0 ? v->s0 : -1;
}

template <class T>
bool find_kernel_of(Reduce& r, ScalarKind k) {
  if (!r.scalar_acc || r.t->kind != TypeKind::Scalar || r.t->scalar != k) return false;
  for (const Leaf& l : r.x_elem)
    if (l.arr || l.sk != k) return false;
  auto* add = dynamic_cast<const FloatBin<T, PrimId::Add>*>(r.f.get());
  if (!add || var_slot(add->x.get()) != r.acc_s0) return false;
  const int y = var_slot(add->y.get());
  const int ne = static_cast<int>(r.x_elem.size());
  auto elem_leaf = [&](int slot) {
    return slot >= r.e_s0 && slot < r.e_s0 + ne ? slot - r.e_s0 : -1;
  };
  using K = Reduce::Kernel;
  if (!r.g) {
    if (elem_leaf(y) < 0) return false;
    r.kernel = K::Sum;
    r.ki = r.kj = elem_leaf(y);
  } else {
    if (y != r.y_s0) return false;
    if (elem_leaf(var_slot(r.g.get())) >= 0) {
      r.kernel = K::Sum;
      r.ki = r.kj = elem_leaf(var_slot(r.g.get()));
    } else if (auto* un = dynamic_cast<const FloatUnary<T>*>(r.g.get());
               un && un->math1 && elem_leaf(var_slot(un->x.get())) >= 0) {
      r.kernel = un->abs ? K::SumAbs : K::SumMath;
      r.math1 = un->math1;
      r.ki = r.kj = elem_leaf(var_slot(un->x.get()));
    } else if (auto* mul = dynamic_cast<const FloatBin<T, PrimId::Mul>*>(r.g.get())) {
      const int i = elem_leaf(var_slot(mul->x.get())), j = elem_leaf(var_slot(mul->y.get()));
      if (i < 0 || j < 0) return false;
      r.kernel = K::SumProd;
      r.ki = i;
      r.kj = j;
    } else {
      return false;
    }
  }
  r.kernel_f64 = std::is_same_v<T, double>;
  return true;
}

}  // namespace

void find_kernel(Reduce& r) {
  find_kernel_of<float>(r, ScalarKind::F32) || find_kernel_of<double>(r, ScalarKind::F64);
}

std::unique_ptr<BatchProgram> batch_of(const Map& m) {
  if (!m.xs || m.x_elem.size() > 8) return nullptr;
  for (const Leaf& l : m.out_elem)
    if (l.arr || !is_float(l.sk)) return nullptr;
  BatchBuilder b{m};
  for (const Leaf& l : m.x_elem) (l.arr ? b.nview : b.nscalar)++;
  try {
    b.results(m.body.get());
  } catch (const BatchBuilder::No&) {
    return nullptr;
  }
  if (b.prog.out.size() != m.out_elem.size()) return nullptr;
  return std::make_unique<BatchProgram>(std::move(b.prog));
}

}  // namespace risec::rise::fast
