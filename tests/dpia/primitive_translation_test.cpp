// Every primitive of the table either has a translation to imperative DPIA or
// carries the mark that it must be rewritten first (kMustLower): small programs
// that use every other primitive are translated (functional DPIA, then
// acceptor/continuation translation), and the test fails naming any primitive that
// none of them reached. A new primitive needs a program here and a translation.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>

#include "dpia/functional.h"
#include "dpia/target.h"
#include "dpia/translate.h"
#include "rise/check.h"
#include "rise/parser.h"
#include "rise/primitives.h"

namespace risec::dpia {
namespace {

using rise::PrimId;

// Programs with fixed sizes, already low level (no strategy runs).
const char* kPrograms[] = {
    // arithmetic and math on f32
    "def f = fun(x: 8.f32 => x |> mapSeq(fun(a => fmax(fmin(pow(abs(a))(2.0f))(1.0f))(neg(a)) + "
    "sqrt(a) - rsqrt(a) * exp(a) / log(a) + sin(a) + cos(a) + tan(a) + tanh(a) + floor(a) + "
    "ceil(a) + erf(a))))",
    // integers, comparisons, select, cast
    "def f = fun(x: 8.i32 => x |> mapSeq(fun(a => select(not(equal(mod(a)(3))(0)))(id(a))("
    "select(lt(a)(2))(div(a)(2))(sub(a)(1))) |> fun(b => cast(b) + "
    "select(gt(b)(1))(1.0f)(0.0f)))))",
    // indices, generate, idx, zip, pairs
    "def f = fun(x: 8.f32 => zip(x)(generate(fun(i => idx(natAsIndex(8)(indexAsNat(i)))(x)))) |> "
    "mapSeq(fun(p => fst(mapSnd(fun(u => u * 2.0f))(mapFst(fun(u => u + 1.0f))(makePair(fst(p))("
    "snd(p))))))))",
    // layout views
    "def f = fun(x: 16.f32 => concat(take(8)(x |> split(4) |> transpose |> join))(drop(8)(x)) |> "
    "padCst(1)(1)(0.0f) |> padClamp(1)(1) |> slide(3)(1) |> mapSeq(reduceSeq(add)(0.0f)))",
    "def f = fun(ixs: 4.idx[8] => fun(x: 8.f32 => gather(ixs)(x) |> "
    "reorder(4)(fun(i => 3 - i))(fun(i => 3 - i)) |> mapSeqUnroll(fun(a => a))))",
    "def f = fun(x: 8.f32 => x |> reverse |> mapSeq(fun(a => a)))",
    "def f = fun(ixs: 8.idx[6] => fun(x: 8.f32 => scatter(ixs)(x |> mapSeq(fun(a => a)))))",
    "def f = fun(i: idx[8] => fun(x: 8.f32 => update(i)(x |> reduceSeq(add)(0.0f))(x |> "
    "mapSeq(fun(a => a)))))",
    "def f = fun(x: 8.f32 => fun(y: 8.f32 => unzip(zip(x)(y)) |> fun(p => zip(fst(p))(snd(p))) |> "
    "mapSeq(fun(q => q._1 + q._2))))",
    // vectors
    "def f = fun(x: 16.f32 => x |> asVectorAligned(4) |> mapSeq(fun(v => v * "
    "vectorFromScalar(2.0f))) |> asScalar |> toMem |> asVector(4) |> mapSeq(fun(v => v + v)) |> "
    "asScalar)",
    "def f = fun(x: 4.vec[f32, 4] => x |> mapSeq(fun(v => lane(0)(v) + lane(3)(v))))",
    // masks: any and all lanes of a vector comparison
    "def f = fun(x: 4.vec[f32, 4] => x |> mapSeq(fun(v => select(any(v < vectorFromScalar(0.5f)) "
    "&& all(v > vectorFromScalar(0.0f)))(1.0f)(0.0f))))",
    // memory: let (a value that must be written, bound by a lambda) and toMem
    "def f = fun(x: 8.f32 => (fun(y => y |> mapSeq(fun(a => a + 1.0f))))(x |> mapSeq(fun(a => a * "
    "2.0f))) |> toMem |> map(fun(a => a)))",
    // an array literal
    "def f = fun(x: 8.f32 => x |> mapSeq(fun(a => [a, 2.0f * a] |> reduceSeq(add)(0.0f))))",
    // patterns
    "def f = fun(x: 16.f32 => x |> scanSeq(fun(a => fun(acc => a + acc)))(0.0f) |> toMem |> "
    "iterate(2)(depFun(l: Nat => fun(a => a |> split(2) |> mapSeq(reduceSeqUnroll(add)(0.0f))))))",
    "def f = fun(x: 10.f32 => x |> circularBuffer(3)(3)(fun(a => a)) |> "
    "mapSeq(reduceSeq(add)(0.0f)))",
    "def f = fun(x: 10.f32 => x |> rotateValues(3)(fun(a => a)) |> mapSeq(reduceSeq(add)(0.0f)))",
    // a loop that leaves early: scalar state, and an array state whose test is a reduction
    "def f = fun(x: 8.f32 => x |> mapSeq(fun(a => a |> iterateWhile(9)(fun(v => v < 100.0f))("
    "fun(v => v * 2.0f)))))",
    "def f = fun(x: 8.f32 => x |> iterateWhile(5)(fun(a => (a |> reduceSeq(add)(0.0f)) > 1.0f))("
    "fun(a => a |> mapSeq(fun(v => v * 0.5f)))))",
    "def f = fun(x: 10.f32 => x |> mapPar(fun(a => a * 2.0f)) |> toMem |> reducePar(add)(0.0f))",
    // OpenCL forms (translated; no backend prints them yet)
    "def f = fun(x: 4.4.f32 => x |> mapWorkGroup(0)(mapLocal(0)(fun(a => a))) |> oclToMem(Global) "
    "|> mapGlobal(0)(oclReduceSeq(Private)(add)(0.0f)))",
    "def f = fun(x: 4.4.f32 => x |> mapGlobal(0)(oclReduceSeqUnroll(Private)(add)(0.0f)))",
    "def f = fun(x: 16.f32 => x |> oclIterate(Global)(2)(depFun(l: Nat => fun(a => a |> split(2) "
    "|> mapSeq(reduceSeq(add)(0.0f))))))",
};

// The primitives of a program after translating it to imperative DPIA.
std::set<PrimId> translated_primitives(const std::string& text) {
  auto src = std::make_shared<const SourceFile>(SourceFile{"prims.rise", text});
  rise::Program p = rise::parse_program(src);
  rise::Checked c = rise::check_program(p);
  // A target that runs every loop kind, so OpenMP and OpenCL primitives are allowed.
  Target caps;
  caps.name = "test";
  caps.loops = {LoopKind::Seq,    LoopKind::SeqUnroll, LoopKind::Par,
                LoopKind::Global, LoopKind::WorkGroup, LoopKind::Local};
  Phrase f = from_rise(c.expr, caps);
  check(f);
  std::vector<Input> inputs;
  EXPECT_NE(translate(f, "output", &inputs), nullptr);
  std::set<PrimId> seen;
  std::function<void(const Phrase&)> walk = [&](const Phrase& x) {
    if (x->kind == PhraseNode::Prim && x->prim) seen.insert(x->prim->id);
    for (const Phrase& a : x->args) walk(a);
  };
  walk(f);
  return seen;
}

TEST(PrimitiveTranslation, EveryPrimitiveIsTranslatedOrMustBeLowered) {
  std::set<PrimId> seen;
  for (const char* program : kPrograms) {
    SCOPED_TRACE(program);
    try {
      for (PrimId id : translated_primitives(program)) seen.insert(id);
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
    }
  }
  for (const rise::PrimitiveInfo& p : rise::primitives()) {
    if (p.has(rise::kMustLower)) {
      EXPECT_FALSE(seen.count(p.id)) << p.name << " must be lowered, yet was translated";
      continue;
    }
    EXPECT_TRUE(seen.count(p.id)) << p.name << " has no translation test (add a program above)";
  }
}

// A primitive marked kMustLower is refused by functional DPIA with a user error.
TEST(PrimitiveTranslation, MustLowerPrimitivesAreRefused) {
  auto src = std::make_shared<const SourceFile>(
      SourceFile{"reduce.rise", "def f = fun(x: 8.f32 => x |> reduce(add)(0.0f))"});
  rise::Checked c = rise::check_program(rise::parse_program(src));
  try {
    from_rise(c.expr, Target{});
    FAIL() << "reduce was not refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User);
    EXPECT_NE(std::string(e.what()).find("reduce"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace risec::dpia
