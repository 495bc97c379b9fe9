// Unrolling (see unroll.h).
#include "dpia/unroll.h"

#include "dpia/traverse.h"

namespace risec::dpia {

namespace {

CommandP block(CommandP body) {
  Command b{Command::Block};
  b.body = {std::move(body)};
  return std::make_shared<const Command>(std::move(b));
}

}  // namespace

std::optional<CommandP> unroll_loop(const Command& c) {
  if (c.kind != Command::For || c.n.is_const(0)) return std::nullopt;
  if (c.exits) return std::nullopt;  // a loop that leaves early runs as written
  if (c.loop == LoopKind::SeqUnroll) {
    if (auto n = c.n.as_const(); n && *n <= kMaxUnroll) {
      std::vector<CommandP> copies;
      for (int64_t i = 0; i < *n; ++i)
        copies.push_back(block(substitute_nat(c.body[0], c.var, arith::Nat(i))));
      return cm_seq(std::move(copies));
    }
  }
  // A GPU level stays a loop: it decides the kernel launches and the barriers.
  if (c.n.is_const(1) && !is_gpu_loop(c.loop))
    return cm_seq({block(substitute_nat(c.body[0], c.var, arith::Nat(0)))});
  return std::nullopt;
}

CommandP unroll(const CommandP& c) {
  struct Unroll : Mutator {
    CommandP mutate_command(const CommandP& c) override {
      if (auto u = unroll_loop(*c)) return mutate(*u);
      return Mutator::mutate_command(c);
    }
  } pass;
  return pass.mutate(c);
}

}  // namespace risec::dpia
