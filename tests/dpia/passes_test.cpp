// The backend-neutral passes over imperative DPIA, on small programs: unrolling,
// index-set splitting at clamps, memory placement and the outlining analysis.
#include <gtest/gtest.h>
#include <algorithm>

#include "dpia/memory_placement.h"
#include "dpia/outline.h"
#include "dpia/shift_tail.h"
#include "dpia/split_loop.h"
#include "dpia/target.h"
#include "dpia/unroll.h"

using namespace risec;
using namespace risec::dpia;
using arith::Nat;

namespace {

Type passes_f32() {
  return rise::scalar(rise::ScalarKind::F32);
}

// y[i] := x[i]
CommandP copy_elem(const Nat& i, const Nat& n) {
  return cm_assign(ac_idx(ac_var("y", rise::array(n, passes_f32())), i),
                   ex_idx(ex_var("x", rise::array(n, passes_f32())), i));
}

TEST(Unroll, ConstantSeqUnrollLoopBecomesBlocks) {
  Nat i = Nat::var("i", Nat(0), Nat(3));
  CommandP loop = cm_for("i", Nat(3), LoopKind::SeqUnroll, copy_elem(i, Nat(3)));
  auto u = unroll_loop(*loop);
  ASSERT_TRUE(u);
  ASSERT_EQ((*u)->body.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ((*u)->body[k]->kind, Command::Block);
    EXPECT_EQ(print((*u)->body[k]->body[0]),
              print(copy_elem(Nat(static_cast<int64_t>(k)), Nat(3))));
  }
}

TEST(Unroll, LongOrSymbolicLoopsStay) {
  Nat n = Nat::size_var("n");
  Nat i = Nat::var("i", Nat(0), n);
  EXPECT_FALSE(unroll_loop(*cm_for("i", n, LoopKind::SeqUnroll, copy_elem(i, n))));
  Nat j = Nat::var("j", Nat(0), Nat(kMaxUnroll + 1));
  EXPECT_FALSE(unroll_loop(
      *cm_for("j", Nat(kMaxUnroll + 1), LoopKind::SeqUnroll, copy_elem(j, Nat(kMaxUnroll + 1)))));
  // One iteration: any loop kind but the GPU levels, which decide kernel launches
  // and barriers.
  Nat k = Nat::var("k", Nat(0), Nat(1));
  EXPECT_TRUE(unroll_loop(*cm_for("k", Nat(1), LoopKind::Seq, copy_elem(k, Nat(1)))));
  EXPECT_TRUE(unroll_loop(*cm_for("k", Nat(1), LoopKind::Par, copy_elem(k, Nat(1)))));
  for (LoopKind gpu : {LoopKind::Global, LoopKind::WorkGroup, LoopKind::Local})
    EXPECT_FALSE(unroll_loop(*cm_for("k", Nat(1), gpu, copy_elem(k, Nat(1)), 1)));
  // The dimension is printed with the level.
  EXPECT_NE(print(cm_for("k", Nat(1), LoopKind::WorkGroup, copy_elem(k, Nat(1)), 2))
                .find("parForWorkGroup(2) k < 1"),
            std::string::npos);
  // The whole-program pass reaches nested loops.
  CommandP nested = cm_for("k", Nat(1), LoopKind::Seq,
                           cm_for("i", Nat(3), LoopKind::SeqUnroll, copy_elem(i, Nat(3))));
  EXPECT_EQ(print(unroll(nested)).find("for"), std::string::npos) << print(unroll(nested));
}

TEST(SplitLoop, SplitsWhereAClampChangesSide) {
  Nat n(16);
  Nat i = Nat::var("i", Nat(0), n);
  // y[i] := x[min(i + 1, n - 1)]
  CommandP body = cm_assign(
      ac_idx(ac_var("y", rise::array(n, passes_f32())), i),
      ex_idx(ex_var("x", rise::array(n, passes_f32())), arith::min(i + Nat(1), n - Nat(1))));
  Command loop = *cm_for("i", n, LoopKind::Seq, body);
  auto parts = split_at_clamps(loop, [](const CommandP&) { return BodyAccesses{}; });
  ASSERT_TRUE(parts);
  ASSERT_EQ(parts->size(), 2u);
  // i + 1 < 15 below i = 14; from there on the index is 15.
  EXPECT_TRUE((*parts)[0].len.is_const(14));
  EXPECT_TRUE((*parts)[1].len.is_const(2));
  EXPECT_EQ(print((*parts)[1].body).find("min"), std::string::npos) << print((*parts)[1].body);
  // Without a clamp there is nothing to split; indices the caller supplies count too.
  Command plain = *cm_for("i", n, LoopKind::Seq, copy_elem(i, n));
  auto none = [](const CommandP&) { return BodyAccesses{}; };
  EXPECT_FALSE(split_at_clamps(plain, none));
  auto clamped = [&](const CommandP&) {
    return BodyAccesses{{arith::min(i + Nat(1), n - Nat(1))}, {}};
  };
  EXPECT_TRUE(split_at_clamps(plain, clamped));
}

TEST(SplitLoop, SplitsWhereAGuardChangesValue) {
  // The guards of padCst(2)(2) read at i + 3 (i in [0, 16), the padded array 20 long):
  // 2 <= i + 3 always holds; i + 3 < 18 holds below i = 15.
  Nat n(16);
  Nat i = Nat::var("i", Nat(0), n);
  Command plain = *cm_for("i", n, LoopKind::Seq, copy_elem(i, n));
  auto guarded = [&](const CommandP&) {
    return BodyAccesses{{}, {arith::le(Nat(2), i + Nat(3)) && arith::lt(i + Nat(3), Nat(18))}};
  };
  auto parts = split_at_clamps(plain, guarded);
  ASSERT_TRUE(parts);
  ASSERT_EQ(parts->size(), 2u);
  EXPECT_TRUE((*parts)[0].len.is_const(15));
  EXPECT_TRUE((*parts)[1].len.is_const(1));
  // The variable on either side: 4 <= i holds from 4 on;
  // i <= 9 holds up to 9, so the next part starts at 10.
  std::vector<Nat> pts;
  collect_breakpoints(arith::le(Nat(4), i), i, pts);
  collect_breakpoints(arith::le(i, Nat(9)), i, pts);
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_TRUE(pts[0].is_const(4));
  EXPECT_TRUE(pts[1].is_const(10));
}

TEST(SplitLoop, StridedIndicesSplitAtTheFirstIntegerPastTheBound) {
  // min(c*i + k, b), c*i + k < b and c*i + k <= b for strides c whose crossing with b
  // falls between two integers (pyrdown's min(2*i + 4, 2047)) as well as on one: the
  // clamp must take one side and each comparison one value on every part the points
  // make, checked by evaluating every i of the loop (a tie of the clamp's sides may go
  // either way).
  const int64_t n = 24;
  Nat i = Nat::var("i", Nat(0), Nat(n));
  int crossings = 0, found = 0;
  for (int64_t c : {-3, -2, -1, 1, 2, 3})
    for (int64_t k = -6; k <= 6; k += 3)
      for (int64_t b = -20; b <= 50; b += 7)
        for (int form = 0; form < 3; ++form) {
          Nat idx = Nat(c) * i + Nat(k);
          auto value = [&](int64_t v) { return c * v + k; };
          // The predicate that must be constant on each part (nullopt: a tie).
          auto pred = [&](int64_t v) -> std::optional<bool> {
            if (form == 0) return value(v) == b ? std::nullopt : std::optional(value(v) < b);
            return form == 1 ? value(v) < b : value(v) <= b;
          };
          std::vector<Nat> pts;
          if (form == 0) collect_breakpoints(arith::min(idx, Nat(b)), i, pts);
          if (form == 1) collect_breakpoints(arith::lt(idx, Nat(b)), i, pts);
          if (form == 2) collect_breakpoints(arith::le(idx, Nat(b)), i, pts);
          std::vector<int64_t> bounds = {0};
          for (const Nat& p : pts) {
            std::optional<int64_t> at = p.as_const();
            ASSERT_TRUE(at) << p;
            if (*at > 0 && *at < n) bounds.push_back(*at);
          }
          std::sort(bounds.begin(), bounds.end());
          bounds.push_back(n);
          bool changes = false;
          for (int64_t v = 1; v < n; ++v) changes |= pred(v) != pred(0) && pred(v) && pred(0);
          crossings += changes;
          found += bounds.size() > 2;
          for (size_t part = 0; part + 1 < bounds.size(); ++part) {
            std::optional<bool> first;
            for (int64_t v = bounds[part]; v < bounds[part + 1]; ++v) {
              if (!pred(v)) continue;
              if (!first) first = pred(v);
              EXPECT_EQ(pred(v), first) << "form " << form << ": " << c << "*i + " << k
                                        << " against " << b << " at " << v;
            }
          }
        }
  EXPECT_GT(crossings, 0);
  EXPECT_GE(found, crossings);
  // The case: 2*j + 4 reaches 2047 between 1021 and 1022.
  Nat j = Nat::var("j", Nat(0), Nat(1024));
  std::vector<Nat> pts;
  collect_breakpoints(arith::min(Nat(2047), Nat(2) * j + Nat(4)), j, pts);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_TRUE(pts[0].is_const(1022)) << pts[0];
}

TEST(MemoryPlacement, StackUpToTheNamedLimit) {
  int64_t fits = kStackLimitBytes / 8;
  EXPECT_EQ(place(rise::array(Nat(fits), passes_f32())), Placement::Stack);
  EXPECT_EQ(place(rise::array(Nat(fits + 1), passes_f32())), Placement::Heap);
  EXPECT_EQ(place(rise::array(Nat::size_var("n"), passes_f32())), Placement::Heap);
  CommandP prog = cm_new("t", rise::array(Nat(4), passes_f32()), Space::Default, cm_seq({}));
  EXPECT_EQ(place_memory(prog)->placement, Placement::Stack);
}

// A heap array allocated at the top of a sequential loop's body moves around the loop
// when its size does not depend on the loop variable; not out of a parallel loop, a
// loop that may exit early, or when the size depends on the variable.
TEST(MemoryPlacement, HeapArraysLeaveSequentialLoops) {
  Nat n = Nat::size_var("n");
  Nat i = Nat::var("i", Nat(0), n);
  Type big = rise::array(Nat(kStackLimitBytes), passes_f32());
  auto loop = [&](LoopKind kind, const Type& dt, bool seq_body) {
    CommandP alloc = cm_new("t", dt, Space::Default, copy_elem(i, n));
    CommandP body = seq_body ? cm_seq({copy_elem(i, n), alloc}) : alloc;
    return place_memory(cm_for("i", n, kind, body));
  };
  for (bool seq_body : {false, true}) {
    CommandP h = hoist_allocations(loop(LoopKind::Seq, big, seq_body));
    ASSERT_EQ(h->kind, Command::New) << seq_body;
    EXPECT_EQ(h->var, "t");
    EXPECT_EQ(h->placement, Placement::Heap);
    ASSERT_EQ(h->body[0]->kind, Command::For);
    // the loop body keeps what the allocation enclosed
    const CommandP& b = h->body[0]->body[0];
    if (seq_body) {
      ASSERT_EQ(b->kind, Command::Seq);
      ASSERT_EQ(b->body.size(), 2u);
      EXPECT_EQ(b->body[1]->kind, Command::Assign);
    } else {
      EXPECT_EQ(b->kind, Command::Assign);
    }
  }
  EXPECT_EQ(hoist_allocations(loop(LoopKind::Par, big, false))->kind, Command::For);
  // a size that depends on the loop variable, and a stack array, stay
  Type per_i = rise::array(Nat::size_var("i") + Nat(kStackLimitBytes), passes_f32());
  EXPECT_EQ(hoist_allocations(loop(LoopKind::Seq, per_i, false))->kind, Command::For);
  EXPECT_EQ(hoist_allocations(loop(LoopKind::Seq, rise::array(Nat(4), passes_f32()), false))->kind,
            Command::For);
  // a loop that may leave early (iterateWhile) runs as written
  CommandP exiting =
      place_memory(cm_for_exiting("i", n, cm_new("t", big, Space::Default, copy_elem(i, n))));
  EXPECT_EQ(hoist_allocations(exiting)->kind, Command::For);
  // nested sequential loops: the array leaves both
  CommandP nested = place_memory(
      cm_for("j", n, LoopKind::Seq,
             cm_for("i", n, LoopKind::Seq, cm_new("t", big, Space::Default, copy_elem(i, n)))));
  CommandP h = hoist_allocations(nested);
  ASSERT_EQ(h->kind, Command::New);
  EXPECT_EQ(h->body[0]->var, "j");
  EXPECT_EQ(h->body[0]->body[0]->var, "i");
}

TEST(Outline, CapturesWhatTheBodyUsesFromOutside) {
  Nat n = Nat::size_var("n");
  Nat i = Nat::var("i", Nat(0), n);
  CommandP inner = cm_new("t", passes_f32(), Space::Default, copy_elem(i, n));
  Command loop = *cm_for("i", n, LoopKind::Par, inner);
  Captures c = captures(loop);
  EXPECT_EQ(c.read, std::set<std::string>{"x"});
  EXPECT_EQ(c.written, std::set<std::string>{"y"});
  EXPECT_TRUE(c.nats.count("n"));
  EXPECT_TRUE(c.bound.count("i") && c.bound.count("t"));
}

TEST(Target, NamedTargetsAndLoopKinds) {
  EXPECT_TRUE(Target::named("c"));
  EXPECT_FALSE(Target::named("c")->runs(LoopKind::Par));
  EXPECT_TRUE(Target::named("openmp")->runs(LoopKind::Par));
  EXPECT_FALSE(Target::named("vulkan"));
  // The GPU targets: the same loop kinds and address spaces; CUDA's vectors are narrower.
  for (const char* name : {"opencl", "cuda"}) {
    std::optional<Target> cl = Target::named(name);
    ASSERT_TRUE(cl);
    EXPECT_FALSE(cl->runs(LoopKind::Par));
    for (LoopKind gpu : {LoopKind::Global, LoopKind::WorkGroup, LoopKind::Local})
      EXPECT_TRUE(cl->runs(gpu));
    EXPECT_TRUE(cl->has(Space::Local) && cl->has(Space::Private) && cl->has(Space::Global));
  }
  EXPECT_EQ(Target::named("cuda")->backend, Target::Backend::Cuda);
  EXPECT_EQ(Target::named("cuda")->max_vector_lanes, 4);
  EXPECT_EQ(Target::named("opencl")->max_vector_lanes, 16);
  EXPECT_FALSE(Target::named("openmp")->runs(LoopKind::Global));
  EXPECT_GE(Target::host().vector_lanes, 1);
  EXPECT_GE(Target::host().cores, 1);
}

}  // namespace

namespace {

// y[i] := x[i] over n elements of type t, with the accesses the C backend reports.
Command copy_loop(int64_t n, Type t, const std::string& y = "y", const std::string& x = "x") {
  Nat i = Nat::var("i", Nat(0), Nat(n));
  return *cm_for("i", Nat(n), LoopKind::Seq,
                 cm_assign(ac_idx(ac_var(y, rise::array(Nat(n), t)), i),
                           ex_idx(ex_var(x, rise::array(Nat(n), t)), i)));
}

BodyIndices accesses_of(std::vector<BodyAccesses::Access> named) {
  return [named](const CommandP&) {
    BodyAccesses a;
    a.named = named;
    return a;
  };
}

}  // namespace

TEST(ShiftTail, MapLoopsOfNonMultipleLengthQualify) {
  BodyIndices map = accesses_of({{"x", Nat(0), false}, {"y", Nat(0), true}});
  // 64 bytes of the widest scalar stored: 16 f32, 8 f64.
  EXPECT_EQ(shifted_tail_width(copy_loop(126, passes_f32()), map), 16);
  EXPECT_EQ(shifted_tail_width(copy_loop(126, rise::scalar(rise::ScalarKind::F64)), map), 8);
  // A multiple of the width has no tail; a loop of at most one block has no interior.
  EXPECT_FALSE(shifted_tail_width(copy_loop(128, passes_f32()), map));
  EXPECT_FALSE(shifted_tail_width(copy_loop(16, passes_f32()), map));
  EXPECT_FALSE(shifted_tail_width(copy_loop(12, passes_f32()), map));
  // Short loops only: at most kShiftTailMaxBlocks blocks.
  EXPECT_EQ(shifted_tail_width(copy_loop(16 * kShiftTailMaxBlocks - 2, passes_f32()), map), 16);
  EXPECT_FALSE(shifted_tail_width(copy_loop(16 * kShiftTailMaxBlocks + 2, passes_f32()), map));
  EXPECT_FALSE(shifted_tail_width(copy_loop(4094, passes_f32()), map));
  // Only sequential loops of a constant count without an early exit.
  Command par = copy_loop(126, passes_f32());
  par.loop = LoopKind::Par;
  EXPECT_FALSE(shifted_tail_width(par, map));
  Command exits = copy_loop(126, passes_f32());
  exits.exits = true;
  EXPECT_FALSE(shifted_tail_width(exits, map));
  Nat n = Nat::var("n");
  Nat i = Nat::var("i", Nat(0), n);
  EXPECT_FALSE(shifted_tail_width(*cm_for("i", n, LoopKind::Seq, copy_elem(i, n)), map));
}

TEST(ShiftTail, BodiesThatAreNotIdempotentDoNotQualify) {
  // An accumulator: acc := acc + x[i] reads what it writes.
  EXPECT_FALSE(shifted_tail_width(
      copy_loop(126, passes_f32()),
      accesses_of({{"acc", Nat(0), false}, {"x", Nat(0), false}, {"acc", Nat(0), true}})));
  // An in-place update x[i] := f(x[i]); also a read of another part of the output.
  EXPECT_FALSE(shifted_tail_width(copy_loop(126, passes_f32(), "x", "x"),
                                  accesses_of({{"x", Nat(0), false}, {"x", Nat(0), true}})));
  // A temporary the body declares is private to the iteration.
  Nat i = Nat::var("i", Nat(0), Nat(126));
  CommandP with_tmp =
      cm_new("t", passes_f32(), Space::Default,
             cm_seq({cm_assign(ac_var("t", passes_f32()),
                               ex_idx(ex_var("x", rise::array(Nat(126), passes_f32())), i)),
                     cm_assign(ac_idx(ac_var("y", rise::array(Nat(126), passes_f32())), i),
                               ex_var("t", passes_f32()))}));
  BodyIndices tmp = accesses_of(
      {{"x", Nat(0), false}, {"t", Nat(0), true}, {"t", Nat(0), false}, {"y", Nat(0), true}});
  EXPECT_EQ(shifted_tail_width(*cm_for("i", Nat(126), LoopKind::Seq, with_tmp), tmp), 16);
  // A loop left in the body: not innermost.
  EXPECT_FALSE(shifted_tail_width(
      *cm_for("j", Nat(126), LoopKind::Seq, cm_for("i", Nat(126), LoopKind::Seq, with_tmp)), tmp));
  // Vector stores: explicit vector code keeps its loops.
  Type v4 = rise::vector(rise::ScalarKind::F32, Nat(4));
  EXPECT_FALSE(shifted_tail_width(copy_loop(126, v4), tmp));
  // A foreign function may have effects.
  auto ff = std::make_shared<rise::ForeignFun>();
  ff->name = "effect";
  ff->result = passes_f32();
  Expression call;
  call.kind = Expression::Call;
  call.dt = passes_f32();
  call.name = "effect";
  call.foreign = ff;
  CommandP calls =
      cm_assign(ac_idx(ac_var("y", rise::array(Nat(126), passes_f32())), i), ex_make(call));
  EXPECT_FALSE(shifted_tail_width(*cm_for("i", Nat(126), LoopKind::Seq, calls),
                                  accesses_of({{"y", Nat(0), true}})));
}
