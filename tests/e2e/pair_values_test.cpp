// Pairs as values: chosen by `select` (an argmax over a zip), kept as reduce
// accumulators, and written as outputs (arrays of pairs are arrays of structs). These
// used to stop with an internal error (a zip element read without projection), and
// a pair accumulator updated component by component read its own new first
// component. Many element types, comparisons, shapes, sizes and both targets, each
// compared with the interpreter.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <unistd.h>
#include <vector>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

std::string write_program(const std::string& name, const std::string& text) {
  std::string path =
      ::testing::TempDir() + "/risec_pairs_" + std::to_string(::getpid()) + "_" + name + ".rise";
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return "";
  std::fputs(text.c_str(), f);
  std::fclose(f);
  return path;
}

struct Elem {
  const char* type;
  const char* zero;  // a literal of that type
  const char* one;
};

const Elem kElems[] = {
    {"f32", "0.0f", "1.0f"}, {"f64", "0.0", "1.0"},   {"i32", "0", "1"},
    {"i64", "0i64", "1i64"}, {"u16", "0u16", "1u16"}, {"i8", "0i8", "1i8"},
};

// Programs over x: n.A and y: n.B, using pairs as values.
std::vector<std::string> programs(const Elem& a, const Elem& b, const std::string& cmp) {
  std::string sig = "def main = depFun(n: Nat => fun(x: n." + std::string(a.type) +
                    " => fun(y: n." + b.type + " => ";
  std::string end = ")))";
  return {
      // argmax / argmin: select of whole pairs in the reduction
      sig + "zip(x, y) |> reduce(fun(acc, e => select(e._1 " + cmp + " acc._1)(e)(acc)))((" +
          a.zero + ", " + b.zero + "))" + end,
      // the same, components chosen one by one (accumulator written per component)
      sig + "zip(x, y) |> reduce(fun(acc, e => (select(e._1 " + cmp + " acc._1)(e._1)(acc._1), " +
          "select(e._1 " + cmp + " acc._1)(e._2)(acc._2))))((" + a.zero + ", " + b.zero + "))" +
          end,
      // select of pairs in a map: an array of pairs as the output
      sig + "zip(x, y) |> map(fun(p => select(p._1 " + cmp + " " + a.one + ")(p)((p._1, p._2 + " +
          b.one + "))))" + end,
      // swapped pairs, then the reduction on the second component
      sig + "zip(x, y) |> map(fun(p => (p._2, p._1))) |> reduce(fun(acc, e => select(e._2 " + cmp +
          " acc._2)(e)(acc)))((" + b.zero + ", " + a.zero + "))" + end,
      // a pair of pairs as the accumulator: the best and the worst element at once
      sig + "zip(x, y) |> map(fun(p => (p, p))) |> reduce(fun(acc, e => (select(e._1._1 " + cmp +
          " acc._1._1)(e._1)(acc._1), select(acc._2._1 " + cmp + " e._2._1)(e._2)(acc._2))))(((" +
          a.zero + ", " + b.zero + "), (" + a.zero + ", " + b.zero + ")))" + end,
  };
}

TEST(PairValues, SelectReduceAndOutputsMatchTheInterpreter) {
  int count = 0;
  // each (A, B) pair of element types once, the comparison, target and size varying
  for (const Elem& a : kElems) {
    for (const Elem& b : {kElems[0], kElems[2]}) {
      const char* cmp = count % 4 < 2 ? ">" : "<";
      std::vector<std::string> ps = programs(a, b, cmp);
      for (size_t k = 0; k < ps.size(); ++k) {
        std::string path = write_program(std::to_string(count++), ps[k]);
        ASSERT_FALSE(path.empty());
        const char* target = count % 2 ? "c" : "openmp";
        const char* size = count % 3 == 0 ? "n=1" : count % 3 == 1 ? "n=7" : "n=64";
        EXPECT_TRUE(compile_and_check(path, "", size, target)) << ps[k];
      }
    }
  }
}

// Arrays of pairs that hold arrays, kept in memory: a circularBuffer's ring of (row,
// row) or (row of pairs, scalar) elements, and a temporary written by one loop and
// read by the next. They stopped with an internal error (an index into a struct's
// array member); they are now stored as one array per component, the arrays inside
// the pair becoming inner dimensions.
TEST(PairValues, ArraysOfPairsOfArraysMatchTheInterpreter) {
  const std::string sig = "def main = depFun(n: Nat => fun(x: (n+2).4.f32 =>\n";
  const std::vector<std::string> ps = {
      sig + "x |> circularBuffer(3)(3)(fun(a => makePair(a)(a |> map(fun(v => v * 2.0f))))) " +
          "|> mapSeq(fun(w => zip(w[2]._2)(w[0]._1) |> map(fun(p => p._1 - p._2 + w[1]._1[3])))))" +
          ")",
      sig + "x |> circularBuffer(4)(3)(fun(a => makePair(a |> map(fun(v => makePair(v)(v * " +
          "3.0f))))(a |> reduceSeq(fun(s => fun(v => s + v)))(0.0f)))) |> mapSeq(fun(w => " +
          "w[2]._1 |> map(fun(p => p._2 + w[0]._2 - p._1))))))",
      sig + "x |> mapSeq(fun(a => makePair(a)(a |> mapSeq(fun(v => v * 2.0f))))) |> toMem " +
          "|> mapSeq(fun(w => zip(w._1)(w._2) |> mapSeq(fun(p => p._1 + p._2))))))",
  };
  int count = 0;
  for (const std::string& p : ps) {
    for (const char* target : {"c", "openmp"}) {
      std::string path = write_program("ring" + std::to_string(count++), p);
      ASSERT_FALSE(path.empty());
      CheckOptions o;
      o.target = target;
      o.seed = static_cast<uint64_t>(count);
      EXPECT_TRUE(compile_and_check(path, "id", count % 2 ? "n=1" : "n=9", o)) << p;
      EXPECT_TRUE(compile_and_check(path, "", "n=5", o)) << p;
    }
  }
}

}  // namespace
}  // namespace risec::e2e
