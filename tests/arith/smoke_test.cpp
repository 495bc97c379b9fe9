#include <gtest/gtest.h>
#include "arith/nat.h"
using namespace risec::arith;
TEST(ArithSmoke, Basic) {
  Nat m = Nat::size_var("m");
  Nat i = Nat::var("i", Nat(0), m);
  Nat j = Nat::var("j", Nat(0), Nat::size_var("n"));
  Nat idx = i + m * j;
  EXPECT_EQ(print(idx, Syntax::C), "i + j*m");
  EXPECT_EQ(floordiv(idx, m), j);
  EXPECT_EQ(mod(idx, m), i);
}
