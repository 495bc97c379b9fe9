// Loop interchange for contiguous access (see interchange.h).
#include "dpia/interchange.h"

#include <set>

#include "dpia/traverse.h"

namespace risec::dpia {

using arith::Nat;

namespace {

// The constant coefficient of the variable `var` in the flat index `t` (0 when
// absent; nullopt when `t` is not linear in it with a constant coefficient).
std::optional<int64_t> coefficient(const Nat& t, const std::string& var) {
  auto vars = arith::free_vars(t);
  auto v = vars.find(var);
  if (v == vars.end()) return 0;
  Nat at0 = arith::substitute(t, {{var, Nat(0)}});
  auto c = (arith::substitute(t, {{var, Nat(1)}}) - at0).as_const();
  if (!c || t - at0 - Nat(*c) * v->second != Nat(0)) return std::nullopt;
  return c;
}

bool unit(int64_t c) {
  return c == 1 || c == -1;
}

// Whether the body may be reordered: only sequential loops, no double buffers, and
// the names of the temporaries it declares.
bool reorderable(const CommandP& c, std::set<std::string>& declared) {
  struct Check : Visitor {
    std::set<std::string>& declared;
    bool ok = true;
    explicit Check(std::set<std::string>& d) : declared(d) {}
    void visit_command(const Command& c) override {
      if (c.kind == Command::For && c.loop != LoopKind::Seq && c.loop != LoopKind::SeqUnroll)
        ok = false;
      if (c.kind == Command::NewDoubleBuffer || c.kind == Command::Swap || c.kind == Command::Done)
        ok = false;
      if (c.kind == Command::Break || c.exits) ok = false;  // a loop that leaves early
      if (c.kind == Command::New) declared.insert(c.var);
      Visitor::visit_command(c);
    }
  } check(declared);
  check.visit(c);
  return check.ok;
}

}  // namespace

std::optional<CommandP> interchange_for_contiguity(const Command& loop,
                                                   const BodyAccesses& accesses) {
  if (loop.kind != Command::For) return std::nullopt;
  bool parallel = loop.loop == LoopKind::Par;
  if (loop.loop != LoopKind::Seq && (!parallel || loop.reduction)) return std::nullopt;
  const CommandP& inner = loop.body[0];
  if (inner->kind != Command::For || inner->loop != LoopKind::Seq) return std::nullopt;
  if (loop.exits || inner->exits) return std::nullopt;
  if (arith::occurs(loop.var, inner->n)) return std::nullopt;
  std::set<std::string> declared;
  if (!reorderable(inner->body[0], declared)) return std::nullopt;
  std::set<std::string> written, read;
  for (const BodyAccesses::Access& a : accesses.named)
    if (!declared.count(a.name)) (a.write ? written : read).insert(a.name);
  if (written.empty()) return std::nullopt;
  for (const std::string& w : written)
    if (read.count(w)) return std::nullopt;
  for (const BodyAccesses::Access& a : accesses.named) {
    if (!a.write || declared.count(a.name)) continue;
    auto outer = coefficient(a.flat, loop.var);
    auto in = coefficient(a.flat, inner->var);
    if (!outer || !in || !unit(*outer) || unit(*in) || *in == 0) return std::nullopt;
    // The new parallel loop's iterations must write disjoint elements: the outer
    // variable's range fits between two values of the inner one.
    if (parallel && !arith::provably_le(loop.n, Nat(*in < 0 ? -*in : *in))) return std::nullopt;
  }
  // the parallel loop, now over the inner variable, keeps its schedule
  Command swapped = *cm_for(inner->var, inner->n, loop.loop,
                            cm_for(loop.var, loop.n, LoopKind::Seq, inner->body[0]));
  swapped.schedule = loop.schedule;
  return std::make_shared<const Command>(std::move(swapped));
}

}  // namespace risec::dpia
