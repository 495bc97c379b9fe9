// Tests of the lowering and memory rules and of lowerToC: each rule fires where its
// choice can be made (the result is well typed and computes the same) and fails,
// naming the condition, where it cannot; lowerToC makes every choice a C program
// needs, inserts toMem exactly where a computed array is read, leaves a program
// whose choices are all made unchanged, and is idempotent.
#include "elevate/library.h"
#include "rewrite_test_util.h"

namespace risec::elevate::testing {
namespace {

int lowering_count(const rise::Expr& e, const std::string& text) {
  std::string s = rise::print_expr(e);
  int n = 0;
  for (size_t i = s.find(text); i != std::string::npos; i = s.find(text, i + 1)) ++n;
  return n;
}

rise::Expr one_d(const std::string& body, int64_t n = 8, const std::string& type = "n.f32") {
  return prog("def f = depFun(n: Nat => fun(x: " + type + " => " + body + "))", {{"n", n}});
}

rise::Expr two_d(const std::string& body) {
  return prog("def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 => " + body + "))",
              {{"n", 4}, {"m", 6}});
}

rise::Expr three_d(const std::string& body) {
  return prog("def f = depFun((n: Nat, m: Nat, k: Nat) => fun(x: n.m.k.f32 => " + body + "))",
              {{"n", 3}, {"m", 4}, {"k", 5}});
}

Strategy at_outer_map(const Strategy& s) {
  return outermost(is_applied(is_map()), s);
}

const char* kNest = "x |> map(fun(r => r |> map(fun(a => a * 2.0f))))";

// ---------------------------------------------------------------- maps

TEST(MapLowering, MapSeqMapSeqUnrollMapPar) {
  for (const char* name : {"mapSeq", "mapSeqUnroll", "mapPar"}) {
    SCOPED_TRACE(name);
    rise::Expr r = check_rewrite(at_outer_map(lib(name)), two_d(kNest));
    EXPECT_EQ(lowering_count(r, std::string(name) + "("), 1) << rise::print_expr(r);
    // the bare primitive as well
    check_rewrite(outermost(is_map(), lib(name)), two_d(kNest));
  }
}

TEST(MapLowering, FailsOnAnythingButAMap) {
  for (const char* name : {"mapSeq", "mapSeqUnroll", "mapPar"}) {
    check_fails(at_outer_map(lib(name)), one_d("x |> reduce(add)(0.0f)"));
    check_fails(body(lib(name)), one_d("x |> reduce(add)(0.0f)"), "map");
  }
}

TEST(MapLowering, GpuMapsTakeADimension) {
  rise::Expr r = check_rewrite(seq(at_outer_map(lib("mapWorkGroup", {int64_t{1}})),
                                   innermost(is_applied(is_map()), lib("mapLocal", {int64_t{0}}))),
                               two_d(kNest));
  EXPECT_EQ(lowering_count(r, "mapWorkGroup(1)"), 1) << rise::print_expr(r);
  EXPECT_EQ(lowering_count(r, "mapLocal(0)"), 1) << rise::print_expr(r);
  rise::Expr g = check_rewrite(at_outer_map(lib("mapGlobal", {int64_t{2}})), two_d(kNest));
  EXPECT_EQ(lowering_count(g, "mapGlobal(2)"), 1) << rise::print_expr(g);
}

TEST(MapLowering, GpuMapsCheckTheDimension) {
  check_fails(at_outer_map(lib("mapGlobal", {int64_t{3}})), two_d(kNest));
  check_fails(body(function(lib("mapLocal", {int64_t{3}}))), two_d(kNest), "dimension");
  check_fails(body(lib("mapGlobal", {int64_t{0}})), one_d("x |> reduce(add)(0.0f)"), "map");
  check_fails(at_outer_map(lib("mapWorkGroup", {int64_t{0}})), one_d("x |> reduce(add)(0.0f)"));
  check_fails(body(function(lib("mapWorkGroup", {int64_t{5}}))), two_d(kNest), "dimension");
}

// ---------------------------------------------------------------- reductions

TEST(ReduceLowering, ReduceSeqAndReduceSeqUnroll) {
  rise::Expr p = one_d("x |> map(fun(a => a * a)) |> reduce(add)(0.0f)");
  rise::Expr r = check_rewrite(top_down(lib("reduceSeq")), p);
  EXPECT_EQ(lowering_count(r, "reduceSeq"), 1);
  rise::Expr u = check_rewrite(top_down(lib("reduceSeqUnroll")), p);
  EXPECT_EQ(lowering_count(u, "reduceSeqUnroll"), 1);
  check_rewrite(top_down(lib("reduceSeqUnroll")), r);
}

TEST(ReduceLowering, FailsOnAnythingButAReduce) {
  rise::Expr p = one_d("x |> map(fun(a => a * a))");
  check_fails(top_down(lib("reduceSeq")), p);
  check_fails(body(lib("reduceSeq")), p, "reduce");
  check_fails(top_down(lib("reduceSeqUnroll")), p);
}

TEST(ReducePar, AcceptsAssociativeOperatorsWithTheirNeutralElement) {
  for (const char* body_text :
       {"x |> reduce(add)(0.0f)", "x |> reduce(mul)(1.0f)", "x |> reduce(fun(a, b => b + a))(0.0f)",
        "x |> sum", "x |> reduce(fun(a => fun(b => a * b)))(1.0f)"}) {
    SCOPED_TRACE(body_text);
    rise::Expr r = check_rewrite(top_down(lib("reducePar")), one_d(body_text));
    EXPECT_EQ(lowering_count(r, "reducePar"), 1);
  }
  rise::Expr i =
      check_rewrite(top_down(lib("reducePar")), one_d("x |> reduce(add)(0)", 8, "n.i32"));
  EXPECT_EQ(lowering_count(i, "reducePar"), 1);
}

TEST(ReducePar, RejectsANonAssociativeOperator) {
  check_fails(body(lib("reducePar")), one_d("x |> reduce(sub)(0.0f)"), "associative");
  check_fails(body(lib("reducePar")), one_d("x |> reduce(fun(a, b => a + b * b))(0.0f)"),
              "associative");
}

TEST(ReducePar, RejectsAnInitialValueThatIsNotNeutral) {
  check_fails(body(lib("reducePar")), one_d("x |> reduce(add)(1.0f)"), "neutral element of add");
  check_fails(body(lib("reducePar")), one_d("x |> reduce(mul)(0.0f)"), "neutral element of mul");
  check_fails(body(lib("reducePar")), one_d("x |> reduce(fmax)(x[0])"), "neutral element of fmax");
}

// ---------------------------------------------------------------- unroll, parallel

TEST(Unroll, UnrollsSequentialPatterns) {
  rise::Expr r =
      check_rewrite(innermost(is_reduce_seq(), lib("unroll")), one_d("x |> reduceSeq(add)(0.0f)"));
  EXPECT_EQ(lowering_count(r, "reduceSeqUnroll"), 1);
  rise::Expr m = check_rewrite(top_down(lib("unroll")), one_d("x |> mapSeq(fun(a => a * 2.0f))"));
  EXPECT_EQ(lowering_count(m, "mapSeqUnroll"), 1);
}

TEST(Unroll, FailsOnHighLevelPatterns) {
  check_fails(top_down(lib("unroll")), one_d("x |> map(fun(a => a * 2.0f)) |> reduce(add)(0.0f)"));
  check_fails(body(lib("unroll")), one_d("x |> reduce(add)(0.0f)"), "reduceSeq");
}

TEST(Parallel, ParallelisesTheOutermostMapThatComputes) {
  rise::Expr r = check_rewrite(at_outer_map(lib("parallel")), two_d(kNest));
  EXPECT_EQ(lowering_count(r, "mapPar(fun(r"), 1) << rise::print_expr(r);
  // the outermost map only rearranges: the one below it is chosen
  rise::Expr p = three_d(
      "x |> map(fun(r => r |> map(fun(c => c |> map(fun(a => a * 2.0f)))))) "
      "|> map(fun(t => transpose(t)))");
  rise::Expr q = check_rewrite(at_outer_map(lib("parallel")), p);
  EXPECT_EQ(lowering_count(q, "mapPar"), 1) << rise::print_expr(q);
  EXPECT_EQ(lowering_count(q, "map(fun(t => transpose"), 1) << rise::print_expr(q);
}

TEST(Parallel, FailsOnAMapThatOnlyRearranges) {
  rise::Expr p = three_d("x |> map(fun(r => transpose(r)))");
  check_fails(at_outer_map(lib("parallel")), p);
  check_fails(body(function(lib("parallel"))), p, "does not compute");
}

// ---------------------------------------------------------------- memory

TEST(ToMemAfter, StoresDataInMemory) {
  rise::Expr r = check_rewrite(body(lib("toMemAfter")), one_d("x |> map(fun(a => a * 2.0f))"));
  EXPECT_EQ(lowering_count(r, "toMem"), 1);
}

TEST(ToMemAfter, FailsOnFunctionsAndStoredData) {
  check_fails(lib("toMemAfter"), one_d("x |> map(fun(a => a * 2.0f))"), "data");
  check_fails(body(lib("toMemAfter")), one_d("x |> map(fun(a => a * 2.0f)) |> toMem"), "already");
}

const char* kMM = R"(
def mm = depFun((n: Nat, m: Nat, k: Nat) =>
  fun(A: n.k.f32 => fun(B: k.m.f32 =>
    A |> map(fun(rowA =>
      transpose(B) |> map(fun(colB =>
        zip(rowA)(colB) |> map(fun(p => p._1 * p._2)) |> reduce(add)(0.0f))))))))
)";
const rise::SizeMap kMMSizes = {{"n", 4}, {"m", 3}, {"k", 5}};

TEST(StoreInMemory, StoresATransposedMatrixOnce) {
  rise::Expr p = prog(kMM, kMMSizes);
  rise::Expr r = check_rewrite(lib("storeInMemory", {is_applied(is_transpose()), id()}), p);
  EXPECT_EQ(lowering_count(r, "toMem"), 1) << rise::print_expr(r);
  EXPECT_EQ(lowering_count(r, "transpose"), 1) << rise::print_expr(r);
  // a copy made in parallel, as in the array packing of the ELEVATE paper
  Strategy copy = seq(seq(lib("idAfter"), lib("idToCopy")), at_outer_map(lib("parallel")));
  rise::Expr q = check_rewrite(lib("storeInMemory", {is_applied(is_transpose()), copy}), p);
  EXPECT_EQ(lowering_count(q, "mapPar"), 1) << rise::print_expr(q);
  // lowerToC afterwards keeps the stored copy and lowers the rest
  check_rewrite(seq(lib("storeInMemory", {is_applied(is_transpose()), copy}), lib("lowerToC")), p);
}

TEST(StoreInMemory, FailsWithoutAHoistableSubterm) {
  rise::Expr p = prog(kMM, kMMSizes);
  check_fails(lib("storeInMemory", {is_primitive("scanSeq"), id()}), p, "no subterm");
  // zip(rowA)(colB) depends on the maps' parameters
  check_fails(lib("storeInMemory", {is_applied(is_applied(is_primitive("zip"))), id()}), p);
  // the storing strategy fails
  check_fails(lib("storeInMemory", {is_applied(is_transpose()), fail()}), p);
}

TEST(CircularBuffer, LowersASlideWithStepOne) {
  rise::Expr p =
      one_d("x |> map(fun(a => a * 2.0f)) |> slide(3)(1) |> map(fun(w => w[0] + w[1] + w[2]))", 8,
            "(n+2).f32");
  rise::Expr r = check_rewrite(top_down(lib("circularBuffer")), p);
  EXPECT_EQ(lowering_count(r, "circularBuffer(3)(3)(fun(a"), 1) << rise::print_expr(r);
  rise::Expr q = one_d("x |> slide(3)(1) |> map(fun(w => w[0] + w[1] + w[2]))", 8, "(n+2).f32");
  check_rewrite(top_down(lib("circularBuffer")), q);
  // lowerToC keeps the buffer as the stream it is
  rise::Expr l = apply_ok(seq(top_down(lib("circularBuffer")), lib("lowerToC")), p);
  EXPECT_EQ(lowering_count(l, "toMem"), 0) << rise::print_expr(l);
  EXPECT_TRUE(same_semantics(p, l));
}

TEST(CircularBuffer, FailsOnOtherSteps) {
  rise::Expr p = one_d("x |> slide(3)(2) |> map(fun(w => w[0] + w[1] + w[2]))", 9, "(n+2).f32");
  check_fails(top_down(lib("circularBuffer")), p);
  check_fails(body(argument(lib("circularBuffer"))), p, "step 1");
  check_fails(body(argument(lib("rotateValues"))), p, "step 1");
}

TEST(RotateValues, LowersASlideWithStepOne) {
  rise::Expr p =
      one_d("x |> map(fun(a => a * 2.0f)) |> slide(3)(1) |> map(fun(w => w[0] + w[1] + w[2]))", 8,
            "(n+2).f32");
  rise::Expr r = check_rewrite(top_down(lib("rotateValues")), p);
  EXPECT_EQ(lowering_count(r, "rotateValues(3)(fun(a"), 1) << rise::print_expr(r);
  // a map that changes the element type is not fused (rotateValues needs t -> t)
  rise::Expr q = one_d(
      "x |> map(fun(a => a > 0.5f)) |> slide(2)(1) |> map(fun(w => select(w[0])(1.0f)(0.0f)))", 8,
      "(n+1).f32");
  rise::Expr s = check_rewrite(top_down(lib("rotateValues")), q);
  EXPECT_EQ(lowering_count(s, "rotateValues(2)(fun(y"), 1) << rise::print_expr(s);
}

TEST(RotateValues, FailsWithoutASlide) {
  check_fails(top_down(lib("rotateValues")), one_d("x |> map(fun(a => a * 2.0f))"));
}

// ---------------------------------------------------------------- lowerToC

rise::Expr lowered(const rise::Expr& p) {
  rise::Expr r = apply_ok(lib("lowerToC"), p);
  EXPECT_TRUE(well_typed(r));
  EXPECT_TRUE(same_semantics(p, r));
  Result again = lib("lowerToC")(r);
  EXPECT_TRUE(again.ok());
  if (again.ok()) {
    EXPECT_EQ(again.expr(), r) << "lowerToC is not idempotent:\n" << rise::print_expr(r);
  }
  EXPECT_EQ(lowering_count(r, "reduce("), 0) << rise::print_expr(r);
  return r;
}

TEST(LowerToC, StoresAMapThatAnotherMapReads) {
  rise::Expr r = lowered(one_d("x |> map(fun(a => a * 2.0f)) |> map(fun(b => b + 1.0f))"));
  EXPECT_EQ(lowering_count(r, "mapSeq"), 2) << rise::print_expr(r);
  EXPECT_EQ(lowering_count(r, "toMem"), 1) << rise::print_expr(r);
}

// A reduction of a computing map is fused (no array of the map's results); a short
// reduction of constant length is unrolled. The tests below put a view (reverse)
// between a map and its reduction so that the map is still stored.
TEST(LowerToC, FusesAReductionOfAMapAndUnrollsShortOnes) {
  rise::Expr r = lowered(prog(R"(
def mv = depFun((n: Nat, m: Nat) => fun(M: n.m.f32 => fun(x: m.f32 =>
  M |> map(fun(row => zip(row)(x) |> map(fun(ax => ax._1 * ax._2)) |> reduce(add)(0.0f))))))
)",
                              {{"n", 4}, {"m", 6}}));
  EXPECT_EQ(lowering_count(r, "mapSeq"), 1) << rise::print_expr(r);
  EXPECT_EQ(lowering_count(r, "reduceSeqUnroll"), 1) << rise::print_expr(r);
  EXPECT_EQ(lowering_count(r, "toMem"), 0) << rise::print_expr(r);
  rise::Expr big = lowered(prog(R"(
def mv = depFun((n: Nat, m: Nat) => fun(M: n.m.f32 => fun(x: m.f32 =>
  M |> map(fun(row => zip(row)(x) |> map(fun(ax => ax._1 * ax._2)) |> reduce(add)(0.0f))))))
)",
                                {{"n", 4}, {"m", 64}}));
  EXPECT_EQ(lowering_count(big, "reduceSeqUnroll"), 0) << rise::print_expr(big);
  EXPECT_EQ(lowering_count(big, "reduceSeq"), 1) << rise::print_expr(big);
  EXPECT_EQ(lowering_count(big, "toMem"), 0) << rise::print_expr(big);
}

TEST(LowerToC, StoresAMapThatAReductionReadsInsideAMap) {
  rise::Expr r = lowered(prog(R"(
def mv = depFun((n: Nat, m: Nat) => fun(M: n.m.f32 => fun(x: m.f32 =>
  M |> map(fun(row => zip(row)(x) |> map(fun(ax => ax._1 * ax._2)) |> reverse |> reduce(add)(0.0f))))))
)",
                              {{"n", 4}, {"m", 6}}));
  EXPECT_EQ(lowering_count(r, "mapSeq"), 2) << rise::print_expr(r);
  EXPECT_EQ(lowering_count(r, "reduceSeq"), 1) << rise::print_expr(r);
  EXPECT_EQ(lowering_count(r, "toMem"), 1) << rise::print_expr(r);
}

TEST(LowerToC, StoresAMapReadThroughAView) {
  rise::Expr r =
      lowered(one_d("x |> map(fun(a => a * 2.0f)) |> split(2) |> map(fun(p => p[0] + p[1]))"));
  EXPECT_EQ(lowering_count(r, "toMem"), 1) << rise::print_expr(r);
}

TEST(LowerToC, WritesThroughViewsWithoutCopies) {
  rise::Expr r =
      lowered(one_d("x |> split(2) |> map(fun(r => r |> map(fun(a => a * 2.0f)))) |> join"));
  EXPECT_EQ(lowering_count(r, "toMem"), 0) << rise::print_expr(r);
  EXPECT_EQ(lowering_count(r, "mapSeq"), 2) << rise::print_expr(r);
  rise::Expr t = lowered(two_d(
      "concat(x |> map(fun(r => r |> map(fun(a => a * 2.0f)))) |> transpose |> join)(join(x))"));
  EXPECT_EQ(lowering_count(t, "toMem"), 0) << rise::print_expr(t);
  // the input of a map is read, even of a map of views
  rise::Expr m = lowered(two_d(
      "x |> map(fun(r => r |> map(fun(a => a * 2.0f)))) |> map(fun(c => join(split(2)(c))))"));
  EXPECT_EQ(lowering_count(m, "toMem"), 1) << rise::print_expr(m);
}

TEST(LowerToC, KeepsMapsOfViewsAsViews) {
  rise::Expr r =
      lowered(three_d("x |> map(fun(r => transpose(r))) |> map(fun(t => t |> map(fun(c => c |> "
                      "reduce(add)(0.0f)))))"));
  EXPECT_EQ(lowering_count(r, "map(fun(r => transpose(r)))"), 1) << rise::print_expr(r);
  EXPECT_EQ(lowering_count(r, "mapSeq"), 2) << rise::print_expr(r);
  EXPECT_EQ(lowering_count(r, "toMem"), 0) << rise::print_expr(r);
}

TEST(LowerToC, CopiesAnIdentityMap) {
  rise::Expr r = lowered(one_d("x |> map(fun(a => a))"));
  EXPECT_EQ(lowering_count(r, "mapSeq"), 1) << rise::print_expr(r);
}

TEST(LowerToC, SharesWorkOfRedexesWithALet) {
  rise::Expr r = lowered(one_d("x |> map(fun(a => (fun(b => b * b))(exp(a))))"));
  EXPECT_EQ(lowering_count(r, "let"), 1) << rise::print_expr(r);
  EXPECT_EQ(lowering_count(r, "exp("), 1) << rise::print_expr(r);
}

TEST(LowerToC, LeavesALoweredProgramUnchanged) {
  for (const char* text :
       {"x |> mapSeq(fun(a => a * 2.0f)) |> toMem |> mapSeq(fun(b => b + 1.0f))",
        "x |> mapPar(fun(a => a * 2.0f)) |> toMem |> reduceSeq(add)(0.0f)",
        "x |> split(2) |> mapSeq(fun(r => r |> reduceSeqUnroll(fun(u, v => u + v))(0.0f)))"}) {
    SCOPED_TRACE(text);
    rise::Expr p = one_d(text);
    Result r = lib("lowerToC")(p);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.expr(), p) << rise::print_expr(r.expr());
  }
}

// ---------------------------------------------------------------- GPU memory rules

// Occurrences of toMem without an address space ("oclToMem" is spelled with "ToMem").
int plain_to_mem(const rise::Expr& e) {
  return lowering_count(e, "toMem");
}

// Data computed in different shapes, each checked on random inputs by check_rewrite.
const char* const kStorable[] = {
    "x |> map(fun(a => a * 2.0f))",
    "x |> mapSeq(fun(a => a + 1.0f)) |> split(2)",
    "x |> split(2) |> map(fun(r => r |> reduce(add)(0.0f)))",
    "x |> reduce(add)(0.0f)",
    "zip(x)(x) |> map(fun(p => p._1 * p._2))",
};

TEST(GpuMemory, ToGlobalToLocalToPrivateStoreInTheirSpace) {
  for (const char* rule : {"toGlobal", "toLocal", "toPrivate"}) {
    std::string space = rule == std::string("toGlobal")  ? "Global"
                        : rule == std::string("toLocal") ? "Local"
                                                         : "Private";
    for (const char* text : kStorable) {
      SCOPED_TRACE(std::string(rule) + ": " + text);
      rise::Expr p = one_d(text);
      rise::Expr r = check_rewrite(body(lib(rule)), p);
      EXPECT_EQ(lowering_count(r, "oclToMem(" + space + ")"), 1) << rise::print_expr(r);
      EXPECT_EQ(plain_to_mem(r), 0) << rise::print_expr(r);
    }
    // inside a map, on each row
    rise::Expr q = check_rewrite(
        innermost(is_fully_applied(is_map()), lib(rule)),
        two_d("x |> map(fun(r => r |> map(fun(a => a * 2.0f)) |> reduce(add)(0.0f)))"));
    EXPECT_EQ(lowering_count(q, "oclToMem(" + space + ")"), 1) << rise::print_expr(q);
  }
}

TEST(GpuMemory, ToSpaceFailsOnFunctionsAndStoredData) {
  for (const char* rule : {"toGlobal", "toLocal", "toPrivate"}) {
    SCOPED_TRACE(rule);
    check_fails(lib(rule), one_d("x |> map(fun(a => a * 2.0f))"), "data");
    check_fails(body(lib(rule)), one_d("x |> map(fun(a => a * 2.0f)) |> toMem"), "already");
    check_fails(body(lib(rule)), one_d("x |> map(fun(a => a * 2.0f)) |> oclToMem(Local)"),
                "already");
  }
}

TEST(GpuMemory, OclReduceSeqKeepsTheAccumulatorInItsSpace) {
  const std::vector<std::pair<rise::AddrSpace, std::string>> spaces = {
      {rise::AddrSpace::Private, "Private"},
      {rise::AddrSpace::Local, "Local"},
      {rise::AddrSpace::Global, "Global"}};
  for (const auto& [space, name] : spaces) {
    for (const char* text :
         {"x |> reduce(add)(0.0f)", "x |> reduceSeq(fun(a, b => a + b * b))(1.0f)",
          "x |> map(fun(a => a * a)) |> reduce(fmax)(x[0])",
          "x |> split(2) |> map(fun(r => r |> reduceSeq(mul)(1.0f))) |> reduce(add)(0.0f)"}) {
      SCOPED_TRACE(name + ": " + text);
      rise::Expr r = check_rewrite(top_down(lib("oclReduceSeq", {space})), one_d(text));
      EXPECT_EQ(lowering_count(r, "oclReduceSeq(" + name + ")"), 1) << rise::print_expr(r);
      // unroll keeps the address space
      rise::Expr u = check_rewrite(top_down(lib("unroll")), r);
      EXPECT_EQ(lowering_count(u, "oclReduceSeqUnroll(" + name + ")"), 1) << rise::print_expr(u);
    }
    rise::Expr i = check_rewrite(top_down(lib("oclReduceSeq", {space})),
                                 one_d("x |> reduce(add)(0)", 8, "n.i32"));
    EXPECT_EQ(lowering_count(i, "oclReduceSeq(" + name + ")"), 1) << rise::print_expr(i);
  }
  check_fails(body(lib("oclReduceSeq", {rise::AddrSpace::Private})),
              one_d("x |> map(fun(a => a * a))"), "reduce");
  check_fails(body(lib("oclReduceSeq", {rise::AddrSpace::Private})),
              one_d("x |> reducePar(add)(0.0f)"), "reduce or reduceSeq");
}

// lowerToC in kernels: every choice it makes there is explicit and private.
TEST(GpuMemory, LowerToCMakesKernelChoicesPrivate) {
  // a global thread per row: its reduction and the array it reads are private
  rise::Expr g = lowered(two_d(
      "x |> mapGlobal(0)(fun(r => r |> map(fun(a => a * 2.0f)) |> reverse |> reduce(add)(0.0f)))"));
  EXPECT_EQ(lowering_count(g, "oclReduceSeqUnroll(Private)"), 1) << rise::print_expr(g);
  EXPECT_EQ(lowering_count(g, "oclToMem(Private)"), 1) << rise::print_expr(g);
  EXPECT_EQ(plain_to_mem(g), 0) << rise::print_expr(g);
  // local threads of a work group: the same per work item
  rise::Expr l = lowered(
      three_d("x |> mapWorkGroup(0)(fun(m => m |> mapLocal(0)(fun(r => r |> map(fun(a => a + "
              "1.0f)) |> reverse |> reduce(fmax)(0.0f)))))"));
  EXPECT_EQ(lowering_count(l, "oclReduceSeqUnroll(Private)"), 1) << rise::print_expr(l);
  EXPECT_EQ(lowering_count(l, "oclToMem(Private)"), 1) << rise::print_expr(l);
  // sequential code of a work group (every work item runs it): private
  rise::Expr s =
      lowered(two_d("x |> mapWorkGroup(0)(fun(r => r |> map(fun(a => a * 2.0f)) |> "
                    "reverse |> reduce(add)(0.0f)))"));
  EXPECT_EQ(lowering_count(s, "oclToMem(Private)"), 1) << rise::print_expr(s);
  EXPECT_EQ(lowering_count(s, "oclReduceSeqUnroll(Private)"), 1) << rise::print_expr(s);
  // nothing is local unless the strategy said so: an array the local threads
  // compute together is stored without a choice (DPIA then asks for toLocal)
  rise::Expr w = lowered(two_d(
      "x |> mapWorkGroup(0)(fun(r => r |> mapLocal(0)(fun(a => a * 2.0f)) |> reduce(add)(0.0f)))"));
  EXPECT_EQ(lowering_count(w, "Local)"), 0) << rise::print_expr(w);
  EXPECT_EQ(plain_to_mem(w), 1) << rise::print_expr(w);
  EXPECT_EQ(lowering_count(w, "oclReduceSeqUnroll(Private)"), 1) << rise::print_expr(w);
  // outside kernels lowerToC is the C lowering
  rise::Expr h = lowered(
      two_d("x |> mapGlobal(0)(fun(r => r |> map(fun(a => a * 2.0f)) |> reverse |> "
            "reduce(add)(0.0f))) |> map(fun(b => b + 1.0f)) |> reverse |> reduce(add)(0.0f)"));
  EXPECT_EQ(lowering_count(h, "reduceSeqUnroll(add)"), 1) << rise::print_expr(h);
  EXPECT_EQ(plain_to_mem(h), 2) << rise::print_expr(h);
  EXPECT_EQ(lowering_count(h, "oclReduceSeqUnroll(Private)"), 1) << rise::print_expr(h);
}

TEST(GpuMemory, LowerToCKeepsTheStrategysChoices) {
  for (const char* text :
       {"x |> mapGlobal(0)(fun(r => r |> mapSeq(fun(a => a * 2.0f)) |> oclToMem(Private) |> "
        "oclReduceSeq(Private)(add)(0.0f)))",
        "x |> mapWorkGroup(0)(fun(r => r |> mapLocal(0)(fun(a => a * 2.0f)) |> oclToMem(Local) |> "
        "mapLocal(0)(fun(b => b + 1.0f))))",
        "x |> mapWorkGroup(0)(fun(r => r |> mapLocal(0)(fun(a => a * 2.0f)) |> toMem |> "
        "reduceSeq(add)(0.0f)))"}) {
    SCOPED_TRACE(text);
    rise::Expr p = two_d(text);
    Result r = lib("lowerToC")(p);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.expr(), p) << rise::print_expr(r.expr());
  }
}

TEST(GpuMemory, AStrategyWithTheGpuRules) {
  // mapWorkGroup over rows, mapLocal inside, the local results in local memory, a
  // private accumulator: then lowerToC has nothing left to choose in the kernel
  Strategy s = seq(seq(seq(at_outer_map(lib("mapWorkGroup", {int64_t{0}})),
                           innermost(is_applied(is_map()), lib("mapLocal", {int64_t{0}}))),
                       seq(outermost(is_fully_applied(is_primitive("mapLocal")), lib("toLocal")),
                           top_down(lib("oclReduceSeq", {rise::AddrSpace::Private})))),
                   lib("lowerToC"));
  rise::Expr r = check_rewrite(
      s, two_d("x |> map(fun(r => r |> map(fun(a => a * 2.0f)) |> reduce(add)(0.0f)))"));
  EXPECT_EQ(lowering_count(r, "oclToMem(Local)"), 1) << rise::print_expr(r);
  EXPECT_EQ(lowering_count(r, "oclReduceSeq(Private)"), 1) << rise::print_expr(r);
  EXPECT_EQ(plain_to_mem(r), 0) << rise::print_expr(r);
}

}  // namespace
}  // namespace risec::elevate::testing
