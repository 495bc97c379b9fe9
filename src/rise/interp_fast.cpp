// The interpreter's fast path (see interp_fast.h): a compiled entry, its inputs taken
// as leaves (a dense input's StridedArray is shared, not copied) and its result given
// back as a Value. The parts are in interp_fast_*.cpp (see interp_fast_internal.h).
#include "rise/interp_fast.h"

#include "rise/interp.h"
#include "rise/interp_fast_internal.h"

namespace risec::rise {

using fast::Ctx;
using fast::Leaf;
using fast::Sc;

class FastProgram {
 public:
  std::unique_ptr<fast::Translation> tr;
  fast::Map* outer = nullptr;  // the map that may run on several threads
};

std::shared_ptr<FastProgram> fast_compile(const Expr& e) {
  auto tr = fast::translate(e);
  if (!tr) return nullptr;
  auto p = std::make_shared<FastProgram>();
  p->tr = std::move(tr);
  p->outer = dynamic_cast<fast::Map*>(p->tr->root.get());
  return p;
}

namespace {

// An input value as leaves (scalars, or contiguous dense arrays shared, not copied).
bool input_leaves(const Value& v, const Type& t, std::vector<Sc>& s, std::vector<StridedArray>& a) {
  switch (t->kind) {
    case TypeKind::Scalar:
      if (v.kind() != ValueKind::Scalar) return false;
      s.push_back(fast::from_value(v));
      return true;
    case TypeKind::Pair:
      if (v.kind() != ValueKind::Pair) return false;
      return input_leaves(v.first(), t->a, s, a) && input_leaves(v.second(), t->b, s, a);
    case TypeKind::Array: {
      Type el = t;
      while (el->kind == TypeKind::Array) el = el->a;
      if (el->kind != TypeKind::Scalar || v.kind() != ValueKind::Array) return false;
      Value c = make_contiguous(v, t);
      if (c.obj()->tag != Obj::Tag::Dense) return false;
      const auto& d = static_cast<const DenseArray&>(*c.obj());
      if (d.vec_last || d.rank > fast::kMaxRank || d.sk != el->scalar) return false;
      a.push_back(d);  // the same strided array, without the Value around it
      return true;
    }
    default:
      return false;
  }
}

// Leaves back to a Value of type t.
Value output_value(const Type& t, const Sc*& s, const StridedArray*& a) {
  switch (t->kind) {
    case TypeKind::Scalar:
      return fast::to_value(*s++, t->scalar);
    case TypeKind::Pair: {
      Value x = output_value(t->a, s, a);
      Value y = output_value(t->b, s, a);
      return Value::pair(std::move(x), std::move(y));
    }
    case TypeKind::Array: {
      Type el = t;
      while (el->kind == TypeKind::Array) el = el->a;
      if (el->kind == TypeKind::Scalar) {
        return dense_view(*a++);
      }
      if (t->a->kind == TypeKind::Pair) {  // n.(a, b): a zip of n.a and n.b
        Value x = output_value(array(t->size, t->a->a), s, a);
        Value y = output_value(array(t->size, t->a->b), s, a);
        return zip_arrays(std::move(x), std::move(y));
      }
      // deeper arrays of pairs: the elements one by one
      std::vector<Leaf> ls = fast::layout(t->a);
      const StridedArray* base = a;
      a += ls.size();
      const int64_t n = base[0].shape[0];
      ArrayBuilder b(t->a, n);
      std::vector<Sc> es(ls.size());
      std::vector<StridedArray> ea(ls.size());
      for (int64_t i = 0; i < n; ++i) {
        fast::elements(base, ls, i, es.data(), ea.data());
        const Sc* ps = es.data();
        const StridedArray* pa = ea.data();
        b.push(output_value(t->a, ps, pa));
      }
      return b.finish();
    }
    default:
      internal_error("fast interpreter: result type " + print(t));
  }
}

}  // namespace

Value fast_run(const FastProgram& p, const std::vector<Value>& inputs, int threads) {
  const fast::Translation& tr = *p.tr;
  if (inputs.size() != tr.params.size()) internal_error("fast interpreter: input count");
  std::vector<Sc> fs(static_cast<size_t>(tr.frame_sizes[0]) + 1);
  std::vector<StridedArray> fa(static_cast<size_t>(tr.frame_sizes[1]) + 1);
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::vector<Sc> s;
    std::vector<StridedArray> a;
    if (!input_leaves(inputs[i], tr.params[i], s, a)) return Value();
    for (size_t k = 0; k < s.size(); ++k) fs[static_cast<size_t>(tr.in_s[i][k])] = s[k];
    for (size_t k = 0; k < a.size(); ++k) fa[static_cast<size_t>(tr.in_a[i][k])] = std::move(a[k]);
  }
  if (p.outer) {
    p.outer->threads = threads;
    p.outer->frame_sizes = &tr.frame_sizes;
  }
  Ctx c{fs.data(), fa.data()};
  std::vector<Sc> rs(static_cast<size_t>(tr.root->ns) + 1);
  std::vector<StridedArray> ra(static_cast<size_t>(tr.root->na) + 1);
  tr.root->run(c, rs.data(), ra.data());
  const Sc* ps = rs.data();
  const StridedArray* pa = ra.data();
  return output_value(tr.root->t, ps, pa);
}

int fast_block_maps(const FastProgram& p) {
  int k = 0;
  for (const fast::Map* m : p.tr->maps) k += m->batch != nullptr;
  return k;
}

}  // namespace risec::rise
