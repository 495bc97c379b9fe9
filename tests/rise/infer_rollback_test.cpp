// Re-inference after a rewrite falls back on the types the earlier check found
// (Inferer::use_earlier_types). An attempt that fails halfway must leave the solution
// as it was: here a pair whose first component unifies (binding a meta) and whose second
// does not. Without the rollback the meta stayed bound to the refused type, and a later,
// consistent fallback for it failed too.
#include <gtest/gtest.h>

#include "rise/infer_internal.h"

namespace risec::rise::infer_impl {

// The Inferer's internals these tests drive (a friend of Inferer).
struct InferTestAccess {
  Inferer inf{nullptr};
  Type meta() { return inf.fresh_data(); }
  void earlier(const Type& now, const Type& before) {
    inf.earlier_types_.emplace_back(now, before);
  }
  void use() { inf.use_earlier_types(); }
  Type resolved(const Type& t) { return inf.zonk(t); }
  size_t bindings() const { return inf.datas_.size() + inf.nats_.size() + inf.addrs_.size(); }
};

namespace {

Type rollback_scalar(ScalarKind k) {
  return scalar(k);
}

TEST(InferRollback, FailedEarlierTypeLeavesMetasUnbound) {
  InferTestAccess t;
  Type m = t.meta();
  // (m, i64) against (f32, i32): m = f32 first, then i64 = i32 fails
  t.earlier(pair(m, rollback_scalar(ScalarKind::I64)),
            pair(rollback_scalar(ScalarKind::F32), rollback_scalar(ScalarKind::I32)));
  const size_t before = t.bindings();
  t.use();
  EXPECT_EQ(t.bindings(), before);
  Type now = t.resolved(m);
  ASSERT_TRUE(now);
  EXPECT_EQ(now->kind, TypeKind::Var) << print(now);
}

TEST(InferRollback, LaterFallbackStillApplies) {
  InferTestAccess t;
  Type m = t.meta();
  t.earlier(pair(m, rollback_scalar(ScalarKind::I64)),
            pair(rollback_scalar(ScalarKind::F32), rollback_scalar(ScalarKind::I32)));
  t.earlier(m, rollback_scalar(ScalarKind::F64));
  t.use();
  Type now = t.resolved(m);
  ASSERT_TRUE(now);
  EXPECT_EQ(print(now), "f64");
}

TEST(InferRollback, SuccessfulEarlierTypeBinds) {
  InferTestAccess t;
  Type m = t.meta();
  t.earlier(pair(m, rollback_scalar(ScalarKind::I32)),
            pair(rollback_scalar(ScalarKind::F32), rollback_scalar(ScalarKind::I32)));
  t.use();
  EXPECT_EQ(print(t.resolved(m)), "f32");
}

}  // namespace
}  // namespace risec::rise::infer_impl
