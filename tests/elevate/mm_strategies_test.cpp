// The seven matrix-multiplication strategies of the ELEVATE paper (ICFP 2020; TVM's
// CPU schedule), read from their files examples/mm/<step>.elv (the ladder's only
// definition): each applied to examples/mm/mm.rise with n = m = k = 64 succeeds, is
// well typed, computes what mm computes (interpreter, random inputs, rtol 1e-4), and
// has the paper's structure: its loop nest (kinds, order and trip counts), vectors of
// 32 lanes, B packed in memory, the outer loop parallel. tune.elv at its default point
// is parallel.elv. The time the strategies take at n = m = k = 1024 is printed (not
// asserted).
#include <chrono>
#include <fstream>
#include <sstream>

#include "elevate/parser.h"
#include "elevate/rule_util.h"
#include "rewrite_test_util.h"

namespace risec::elevate {

using rise::PrimId;
namespace {

using testing::apply_ok;
using testing::loops;
using testing::same_semantics;
using testing::typed;
using testing::well_typed;

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string example(const std::string& file) {
  return std::string(RISEC_SOURCE_DIR) + "/examples/mm/" + file;
}

const rise::Checked& mm(int64_t size) {
  static std::map<int64_t, rise::Checked> cache;
  auto it = cache.find(size);
  if (it == cache.end())
    it =
        cache
            .emplace(size, typed(read(example("mm.rise")), {{"n", size}, {"m", size}, {"k", size}}))
            .first;
  return it->second;
}

int mm_count(const Expr& e, const std::string& prim) {
  int n = e->kind == rise::ExprKind::Primitive && e->name == prim ? 1 : 0;
  for (const Expr& k : children(e)) n += mm_count(k, prim);
  return n;
}

// Loops (mapSeq, ...) over vectors of `lanes` lanes.
int vector_loops(const Expr& e, int64_t lanes) {
  int n = 0;
  auto c = util::as_prim_call(e);
  if (c && c->args.size() == 2 && (c->is(PrimId::MapSeq) || c->is(PrimId::Map))) {
    Type el = util::array_elem(c->args[1]->type);
    std::function<bool(const Type&)> vec = [&](const Type& t) {
      if (!t) return false;
      if (t->kind == rise::TypeKind::Vector) return t->size == rise::Nat(lanes);
      return t->kind == rise::TypeKind::Pair && vec(t->a) && vec(t->b);
    };
    if (vec(el)) ++n;
  }
  for (const Expr& k : children(e)) n += vector_loops(k, lanes);
  return n;
}

// A step of the ladder: its name in the paper, its file, and the `let` of the file that
// holds the step before lowerToC (the file's own strategy is that let ; lowerToC).
struct Step {
  const char* name;
  const char* file;
  const char* high_level;
};
const Step kSteps[] = {
    {"baseline", "baseline.elv", "baseline"},
    {"blocking", "blocking.elv", "blocking"},
    {"vectorization", "vectorization.elv", "vectorization"},
    {"loopPermutation", "loop_permutation.elv", "loopPerm"},
    {"arrayPacking", "array_packing.elv", "arrayPacking"},
    {"cacheBlocks", "cache_blocks.elv", "cacheBlocks"},
    {"parallel", "parallel.elv", "par"},
};

Strategy load(const std::string& file, const std::string& extra = "") {
  std::string path = example(file);
  std::string text = read(path);
  EXPECT_FALSE(text.empty()) << path;
  return parse_strategy_file(std::make_shared<SourceFile>(SourceFile{path, text + extra}));
}
// The file's strategy (with lowerToC).
Strategy mm_lowered(const Step& s) {
  return load(s.file);
}
// The step before lowerToC: the file's `let` of it, as the file's last definition.
Strategy high_level(const Step& s) {
  return load(s.file, std::string("\nlet highLevel = ") + s.high_level + ";\n");
}

struct Expected {
  const char* step;
  const char* loops;  // at n = m = k = 64, after lowerToC
  bool vectorised;
  bool packed;
};

const Expected kExpected[] = {
    {"baseline", "mapSeq[64](mapSeq[64](reduceSeq[64]))", false, false},
    {"blocking", "mapSeq[2](mapSeq[2](reduceSeq[16](reduceSeq[4](mapSeq[32](mapSeq[32])))))", false,
     false},
    {"vectorization", "mapSeq[2](mapSeq[2](reduceSeq[16](reduceSeq[4](mapSeq[32](mapSeq[1])))))",
     true, false},
    {"loopPermutation", "mapSeq[2](mapSeq[2](reduceSeq[16](mapSeq[32](reduceSeq[4](mapSeq[1])))))",
     true, false},
    {"arrayPacking",
     "mapSeq[2](mapSeq[64](mapSeq[1])) "
     "mapSeq[2](mapSeq[2](reduceSeq[16](mapSeq[32](reduceSeq[4](mapSeq[1])))))",
     true, true},
    {"cacheBlocks",
     "mapSeq[2](mapSeq[64](mapSeq[1])) "
     "mapSeq[2](mapSeq[2](reduceSeq[16](mapSeq[32](reduceSeqUnroll[4](mapSeq[1])))))",
     true, true},
    {"parallel",
     "mapPar[2](mapSeq[64](mapSeq[1])) "
     "mapPar[2](mapSeq[2](reduceSeq[16](mapSeq[32](reduceSeqUnroll[4](mapSeq[1])))))",
     true, true},
};

class MMStrategy : public ::testing::TestWithParam<size_t> {
 protected:
  const Step& step() const { return kSteps[GetParam()]; }
  const Expected& expected() const { return kExpected[GetParam()]; }
};

TEST_P(MMStrategy, HighLevelResultIsCorrect) {
  const rise::Checked& p = mm(64);
  Expr out = apply_ok(high_level(step()), p.expr);
  EXPECT_TRUE(well_typed(out));
  EXPECT_TRUE(same_semantics(p.expr, out, 1e-4, 1e-5, 2));
}

TEST_P(MMStrategy, LoweredProgramIsCorrectAndHasThePapersStructure) {
  ASSERT_STREQ(step().name, expected().step);
  const rise::Checked& p = mm(64);
  Expr out = apply_ok(mm_lowered(step()), p.expr);
  EXPECT_TRUE(well_typed(out));
  EXPECT_TRUE(same_semantics(p.expr, out, 1e-4, 1e-5, 2));
  EXPECT_EQ(loops(out), expected().loops) << rise::print_expr(out);
  // every loop is chosen: no high-level map (that computes) or reduce is left
  EXPECT_EQ(mm_count(out, "reduce"), 0);
  if (expected().vectorised) {
    EXPECT_GE(mm_count(out, "asVector"), 2);
    EXPECT_GE(vector_loops(out, 32), 1);
    EXPECT_GE(mm_count(out, "vectorFromScalar"), 1);  // A[i][k], broadcast
  } else {
    EXPECT_EQ(mm_count(out, "asVector"), 0);
  }
  if (expected().packed) {
    EXPECT_GE(mm_count(out, "toMem"), 1);
    EXPECT_EQ(mm_count(out, "let"), 1);
    // B is read only by the packing copy
    auto b = rise::free_vars(out);
    EXPECT_TRUE(b.empty());
  }
}

// Each file's strategy is its high-level step (the let the other tests apply alone)
// followed by lowerToC.
TEST_P(MMStrategy, FileIsItsStepThenLowerToC) {
  const rise::Checked& p = mm(64);
  Expr whole = apply_ok(mm_lowered(step()), p.expr);
  Expr two = apply_ok(seq(high_level(step()), make_strategy("lowerToC")), p.expr);
  EXPECT_TRUE(rise::alpha_equal(whole, two)) << step().file;
}

INSTANTIATE_TEST_SUITE_P(Steps, MMStrategy, ::testing::Range<size_t>(0, 7),
                         [](const ::testing::TestParamInfo<size_t>& i) {
                           return std::string(kSteps[i.param].name);
                         });

TEST(MMStrategies, ParallelOuterLoopIsTheProductsOuterLoop) {
  const rise::Checked& p = mm(64);
  Expr out = apply_ok(mm_lowered(kSteps[6]), p.expr);
  // let mem = toMem(packing copy) in ...: the product's outermost loop is mapPar
  Expr body = out;
  while (body->kind == rise::ExprKind::Lambda) body = body->fn;
  auto let = util::match_prim(body, PrimId::Let, 2);
  ASSERT_TRUE(let) << rise::print_expr(out);
  EXPECT_EQ(loops(let->args[1]).rfind("mapPar[2](mapSeq[2](", 0), 0u) << loops(let->args[1]);
  EXPECT_EQ(loops(let->args[0]), "mapPar[2](mapSeq[64](mapSeq[1]))");
  EXPECT_STREQ(kSteps[6].name, "parallel");
}

// tune.elv is parallel.elv with its sizes made parameters, the ladder's values first:
// without --param it gives parallel.elv's program.
TEST(MMStrategies, TuneTemplateAtItsDefaultsIsParallel) {
  const rise::Checked& p = mm(64);
  Expr tuned = apply_ok(load("tune.elv"), p.expr);
  Expr par = apply_ok(mm_lowered(kSteps[6]), p.expr);
  EXPECT_TRUE(rise::alpha_equal(tuned, par)) << rise::print_expr(tuned) << "\n"
                                             << rise::print_expr(par);
}

// examples/mm/tune.elv's loop orders (o1, o2, o4, o5): the block loops either way round,
// k.i inside the rows (TVM's order) or outside them (a 4 x 32 register block updated
// across all of k), each with its loop nest and computing what mm computes. A point whose
// order is no permutation is refused (a usage error; reorder's own check stays).
TEST(MMStrategies, TuneTemplateLoopOrders) {
  std::string path = example("tune.elv");
  auto src = std::make_shared<SourceFile>(SourceFile{path, read(path)});
  const rise::Checked& p = mm(64);
  struct Order {
    int64_t o1, o2, o4, o5;
    const char* loops;
  };
  const Order orders[] = {
      {1, 2, 3, 6,
       "mapPar[2](mapSeq[64](mapSeq[2])) "
       "mapPar[16](mapSeq[2](reduceSeq[16](mapSeq[4](reduceSeqUnroll[4](mapSeq[2])))))"},
      {1, 2, 6, 3,
       "mapPar[2](mapSeq[64](mapSeq[2])) "
       "mapPar[16](mapSeq[2](reduceSeq[16](reduceSeqUnroll[4](mapSeq[4](mapSeq[2])))))"},
      {2, 1, 6, 3,
       "mapPar[2](mapSeq[64](mapSeq[2])) "
       "mapPar[2](mapSeq[16](reduceSeq[16](reduceSeqUnroll[4](mapSeq[4](mapSeq[2])))))"},
  };
  for (const Order& o : orders) {
    elevate::ParamValues v = {{"ti", 4},    {"tj", 32},   {"kk", 4},    {"v", 16},
                              {"o1", o.o1}, {"o2", o.o2}, {"o4", o.o4}, {"o5", o.o5}};
    Expr out = apply_ok(parse_strategy_file(src, v), p.expr);
    EXPECT_TRUE(well_typed(out));
    EXPECT_TRUE(same_semantics(p.expr, out, 1e-4, 1e-5, 2));
    EXPECT_EQ(loops(out), o.loops) << o.o1 << o.o2 << o.o4 << o.o5;
    EXPECT_GE(vector_loops(out, 16), 1);
  }
  // The orders are permutation parameters: a non-permutation is refused before any
  // rewrite (a usage error, as for --param), and reorder itself still refuses one.
  try {
    parse_strategy_file(src, {{"o1", 1}, {"o2", 1}});
    ADD_FAILURE() << "o1 = o2 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_NE(std::string(e.what()).find("must be a permutation of [1, 2]"), std::string::npos)
        << e.what();
  }
  Result bad = parse_strategy("let main = reorder([1, 1, 5, 3, 6, 4]);")(p.expr, Env{});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.failure().reason.find("not a permutation"), std::string::npos)
      << bad.failure().reason;
}

TEST(MMStrategies, TimeAt1024) {
  auto t0 = std::chrono::steady_clock::now();
  const rise::Checked& p = mm(1024);
  auto t1 = std::chrono::steady_clock::now();
  std::cout << "[ timing   ] typing mm at 1024: "
            << std::chrono::duration<double, std::milli>(t1 - t0).count() << " ms\n";
  for (const Step& st : kSteps) {
    Strategy s = mm_lowered(st);
    auto a = std::chrono::steady_clock::now();
    Expr out = apply_ok(s, p.expr);
    auto b = std::chrono::steady_clock::now();
    std::cout << "[ timing   ] " << st.name << " (with lowerToC) at n = m = k = 1024: "
              << std::chrono::duration<double, std::milli>(b - a).count() << " ms\n";
    EXPECT_TRUE(well_typed(out));
  }
  Expr out = apply_ok(mm_lowered(kSteps[6]), p.expr);
  EXPECT_EQ(loops(out),
            "mapPar[32](mapSeq[1024](mapSeq[1])) "
            "mapPar[32](mapSeq[32](reduceSeq[256](mapSeq[32](reduceSeqUnroll[4](mapSeq[1])))))");
}

}  // namespace
}  // namespace risec::elevate
