// Memory placement (see memory_placement.h).
#include "dpia/memory_placement.h"

#include "dpia/traverse.h"

namespace risec::dpia {

namespace {
// The elements counted for a value of type t: an array's elements, and for a pair that
// holds arrays (stored one array per component) those of its components.
arith::Nat elements(const Type& t) {
  if (t->kind == rise::TypeKind::Array) return t->size * elements(t->a);
  if (t->kind == rise::TypeKind::Pair) {
    arith::Nat a = elements(t->a), b = elements(t->b);
    if (!a.is_const(1) || !b.is_const(1)) return a + b;
  }
  return arith::Nat(1);
}
}  // namespace

Placement place(const Type& dt, int64_t stack_limit_bytes) {
  auto k = elements(dt).as_const();
  return k && *k * 8 <= stack_limit_bytes ? Placement::Stack : Placement::Heap;
}

CommandP place_memory(const CommandP& c, int64_t stack_limit_bytes) {
  struct Place : Mutator {
    int64_t limit;
    explicit Place(int64_t l) : limit(l) {}
    CommandP mutate_command(const CommandP& c) override {
      CommandP r = Mutator::mutate_command(c);
      Placement p = Placement::Unplaced;
      // Arrays, and pairs holding arrays (stored one buffer per component), are memory.
      if (r->kind == Command::New &&
          (r->dt->kind == rise::TypeKind::Array || rise::stored_per_component(r->dt)))
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

namespace {

// The heap arrays a sequential loop's body allocates at its top level (the body itself,
// or an item of its Seq) with a size that does not depend on the loop variable.
bool hoistable(const CommandP& c, const std::string& loop_var) {
  return c->kind == Command::New && c->placement == Placement::Heap && c->space == Space::Default &&
         !c->distribution && !arith::free_vars(elements(c->dt)).count(loop_var);
}

}  // namespace

CommandP hoist_allocations(const CommandP& c) {
  struct Hoist : Mutator {
    CommandP mutate_command(const CommandP& c) override {
      CommandP r = Mutator::mutate_command(c);
      if (r->kind != Command::For || r->loop != LoopKind::Seq || r->exits) return r;
      // The allocations leave the loop; the loop keeps what they enclosed.
      std::vector<CommandP> news;
      auto unwrap = [&](const CommandP& item) {
        CommandP x = item;
        while (hoistable(x, r->var)) {
          news.push_back(x);
          x = x->body[0];
        }
        return x;
      };
      CommandP body = r->body[0];
      if (body->kind == Command::Seq) {
        std::vector<CommandP> items;
        for (const CommandP& item : body->body) items.push_back(unwrap(item));
        if (news.empty()) return r;
        body = cm_seq(std::move(items));
      } else {
        body = unwrap(body);
        if (news.empty()) return r;
      }
      Command loop = *r;
      loop.body = {body};
      CommandP out = std::make_shared<const Command>(std::move(loop));
      for (auto it = news.rbegin(); it != news.rend(); ++it) {
        Command n = **it;
        n.body = {out};
        out = std::make_shared<const Command>(std::move(n));
      }
      return out;
    }
  } pass;
  return pass.mutate(c);
}

}  // namespace risec::dpia
