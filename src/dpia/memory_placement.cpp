// Memory placement (see memory_placement.h).
#include "dpia/memory_placement.h"

#include "dpia/traverse.h"

namespace risec::dpia {

Placement place(const Type& dt, int64_t stack_limit_bytes) {
  arith::Nat count(1);
  for (Type x = dt; x->kind == rise::TypeKind::Array; x = x->a) count = count * x->size;
  auto k = count.as_const();
  return k && *k * 8 <= stack_limit_bytes ? Placement::Stack : Placement::Heap;
}

CommandP place_memory(const CommandP& c, int64_t stack_limit_bytes) {
  struct Place : Mutator {
    int64_t limit;
    explicit Place(int64_t l) : limit(l) {}
    CommandP mutate_command(const CommandP& c) override {
      CommandP r = Mutator::mutate_command(c);
      Placement p = Placement::Unplaced;
      if (r->kind == Command::New && r->dt->kind == rise::TypeKind::Array)
        p = place(r->dt, limit);
      else if (r->kind == Command::NewDoubleBuffer)
        p = place(rise::array(r->n, r->dt), limit);
      if (p == r->placement) return r;
      Command n = *r;
      n.placement = p;
      return std::make_shared<const Command>(std::move(n));
    }
  } pass(stack_limit_bytes);
  return pass.mutate(c);
}

}  // namespace risec::dpia
