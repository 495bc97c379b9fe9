// Pairs as values: chosen by `select` (an argmax over a zip), kept as reduce
// accumulators, and written as outputs (arrays of pairs are arrays of structs). These
// used to stop with an internal error (a zip element read without projection), and
// a pair accumulator updated component by component read its own new first
// component. Many element types, comparisons, shapes, sizes and both targets, each
// compared with the interpreter.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include <unistd.h>
#include <vector>

#include "e2e_util.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

std::string pair_write_program(const std::string& name, const std::string& text) {
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
std::vector<std::string> pair_programs(const Elem& a, const Elem& b, const std::string& cmp) {
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
      std::vector<std::string> ps = pair_programs(a, b, cmp);
      for (size_t k = 0; k < ps.size(); ++k) {
        std::string path = pair_write_program(std::to_string(count++), ps[k]);
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
      std::string path = pair_write_program("ring" + std::to_string(count++), p);
      ASSERT_FALSE(path.empty());
      CheckOptions o;
      o.target = target;
      o.seed = static_cast<uint64_t>(count);
      EXPECT_TRUE(compile_and_check(path, "id", count % 2 ? "n=1" : "n=9", o)) << p;
      EXPECT_TRUE(compile_and_check(path, "", "n=5", o)) << p;
    }
  }
}

// Why there is no OpenCL platform to run on, or "" when there is one: a small program
// run once.
std::string no_opencl_reason() {
  static const std::string reason = [] {
    try {
      CheckOptions o;
      o.target = "opencl";
      run_and_compare(pair_write_program("opencl_probe",
                                         "def main = depFun(n: Nat => fun(x: n.f32 => x |> "
                                         "mapGlobal(0)(fun(v => v + 1.0f))))"),
                      "", "n=2", o);
    } catch (const Error& e) {
      if (e.message().find("no OpenCL platform") != std::string::npos ||
          e.message().find("clGetPlatformIDs") != std::string::npos)
        return e.message();
    }
    return std::string();
  }();
  return reason;
}

// The same data on the GPU targets and in the interface: a temporary between two
// kernel launches whose elements are pairs holding arrays (one global buffer per
// component), outputs and inputs of such types (one buffer, one array per component:
// runtime/layout.h), nested pairs and mixed element types, private and local memory,
// and a circularBuffer ring inside a work item. The launches' temporaries and the
// interface stopped with an internal error on every target. Run on the OpenCL target
// (PoCL here) and on C, each compared with the interpreter; skipped, saying so, only
// where there is no OpenCL platform.
TEST(PairValues, PairsHoldingArraysOnTheGpuTargetsAndInTheInterface) {
  const std::string gpu_sig = "def main = depFun(n: Nat => fun(x: n.4.f32 =>\n";
  const std::string pairs =
      "x |> mapGlobal(0)(fun(a => makePair(a |> mapSeq(fun(v => v * 2.0f)))(a |> mapSeq(fun(v "
      "=> v + 1.0f)))))";
  const std::vector<std::string> ps = {
      // a temporary between launches, then the output
      gpu_sig + pairs + " |> oclToMem(Global) |> mapGlobal(0)(fun(w => zip(w._1)(w._2) |> " +
          "mapSeq(fun(p => p._1 - p._2))))))",
      // nested pairs in the temporary, read whole and by component
      gpu_sig + "x |> mapGlobal(0)(fun(a => makePair(a |> mapSeq(fun(v => v * 2.0f)))(makePair(" +
          "a[1])(a[2] + 1.0f)))) |> oclToMem(Global) |> mapGlobal(0)(fun(w => w._1 |> " +
          "mapSeq(fun(v => v * w._2._1 - w._2._2))))))",
      // the output an array of pairs of arrays, a pair of arrays, an unzipped array
      gpu_sig + pairs + "))",
      gpu_sig + "makePair(x |> mapGlobal(0)(fun(a => a |> mapSeq(fun(v => v * 2.0f)))))(x |> " +
          "mapGlobal(0)(fun(a => a |> mapSeq(fun(v => v - 1.0f)))))))",
      gpu_sig + pairs + " |> unzip))",
      // inputs of pairs holding arrays, mixed element types (aligned components)
      "def main = depFun(n: Nat => fun(x: n.(3.i8, (f64, i16)) => fun(y: (n.u8, n.f32) =>\n"
      "  zip(x)(zip(y._1)(y._2)) |> mapGlobal(0)(fun(p =>\n"
      "    makePair(p._1._1 |> mapSeq(fun(b => (cast(b): f64) + p._1._2._1 + (cast(p._2._1): "
      "f64))))\n"
      "            (makePair(p._2._2 * 2.0f)(p._1._2._2)))))))",
      // private and local memory, a ring of pairs of rows per work item
      "def main = depFun(n: Nat => fun(x: (n*4).4.f32 =>\n  x |> split(4) |> mapGlobal(0)(fun(b "
      "=> oclToMem(Private)(b |> mapSeq(fun(a => makePair(a |> mapSeq(fun(v => v * 2.0f)))(a "
      "|> mapSeq(fun(v => v + 1.0f)))))) |> mapSeq(fun(w => zip(w._1)(w._2) |> mapSeq(fun(p => "
      "p._1 - p._2)))))) |> join))",
      "def main = depFun(n: Nat => fun(x: (n*8).4.f32 =>\n  x |> split(8) |> mapWorkGroup(0)(fun(b "
      "=> oclToMem(Local)(b |> mapLocal(0)(fun(a => makePair(a |> mapSeq(fun(v => v * 2.0f)))(a "
      "|> mapSeq(fun(v => v + 1.0f)))))) |> reverse |> mapLocal(0)(fun(w => zip(w._1)(w._2) |> "
      "mapSeq(fun(p => p._1 - p._2)))))) |> join))",
      "def main = depFun(n: Nat => fun(x: n.(8+2).4.f32 =>\n  x |> mapGlobal(0)(fun(img => img |> "
      "circularBuffer(3)(3)(fun(a => makePair(a)(a |> map(fun(v => v * 2.0f))))) |> "
      "mapSeq(fun(w => zip(w[2]._2)(w[0]._1) |> mapSeq(fun(p => p._1 - p._2 + "
      "w[1]._1[3]))))))))",
  };
  // The CPU versions: sequential maps (C) or parallel ones (OpenMP: outlined bodies
  // take a pointer per component), the temporaries in plain memory.
  auto cpu = [](std::string p, const std::string& map) {
    for (const char* gpu : {"mapGlobal(0)", "mapWorkGroup(0)", "mapLocal(0)"})
      for (size_t at = p.find(gpu); at != std::string::npos; at = p.find(gpu))
        p.replace(at, std::string(gpu).size(), map);
    for (const char* mem : {"oclToMem(Global)", "oclToMem(Private)", "oclToMem(Local)"})
      for (size_t at = p.find(mem); at != std::string::npos; at = p.find(mem))
        p.replace(at, std::string(mem).size(), "toMem");
    return p;
  };
  const std::string no_opencl = no_opencl_reason();
  int count = 0;
  for (const std::string& p : ps) {
    ++count;
    for (const std::string target : {"opencl", "c", "openmp"}) {
      if (target == "opencl" && !no_opencl.empty()) continue;
      std::string text = target == "opencl" ? p : cpu(p, target == "c" ? "mapSeq" : "mapPar");
      std::string path = pair_write_program("gpupairs" + std::to_string(count) + target, text);
      ASSERT_FALSE(path.empty());
      CheckOptions o;
      o.target = target;
      o.seed = static_cast<uint64_t>(count);
      EXPECT_TRUE(compile_and_check(path, "", count % 2 ? "n=3" : "n=8", o)) << text;
    }
  }
  if (!no_opencl.empty())
    GTEST_SKIP() << "no OpenCL platform: the OpenCL runs were skipped, C and OpenMP ran ("
                 << no_opencl << ")";
}

// Harris's line buffers (a ring of gradient products, a ring of gradient pairs: rows
// of pairs stored one array per component) and 2-D tiles (each tile's gradients in a
// private pair of arrays) with one work item per chunk of rows
// (mapGlobal where the CPU strategies say mapPar): each chunk's ring is private.
TEST(PairValues, HarrisLineBuffersRunOnOpenCL) {
  const std::string why = no_opencl_reason();
  if (!why.empty()) GTEST_SKIP() << "no OpenCL platform: Harris is not run on it (" << why << ")";
  for (const char* file :
       {"line_buffer_parallel.elv", "line_buffer_grad_parallel.elv", "tiles_parallel.elv"}) {
    std::ifstream in(source_path(std::string("examples/harris/") + file));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string par = "(mapPar @ outermost";
    size_t at = text.find(par);
    ASSERT_NE(at, std::string::npos) << file;
    text.replace(at, par.size(), "(mapGlobal(0) @ outermost");
    CheckOptions o;
    o.target = "opencl";
    o.strategy_name = std::string("examples/harris/") + file;  // its imports
    EXPECT_TRUE(compile_and_check("examples/harris/harris.rise", text, "n=60,m=60", o)) << file;
  }
}

}  // namespace
}  // namespace risec::e2e
