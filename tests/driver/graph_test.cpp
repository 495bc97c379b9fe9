// `risec graph`: the DOT text of a program before and after a strategy, shared
// subterms drawn once, and the output parsed by Graphviz's `dot` when it is
// installed (the tests that need it say so by name when it is not).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "build_info.h"
#include "driver/commands.h"
#include "driver/graph.h"
#include "rise/check.h"
#include "rise/parser.h"
#include "rise/primitives.h"
#include "runtime/process.h"

namespace risec::driver {

using rise::PrimId;
namespace {

std::string src(const std::string& rel) {
  return std::string(RISEC_SOURCE_DIR) + "/" + rel;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

bool have_dot() {
  try {
    return runtime::run_process({"dot", "-V"}).ok();
  } catch (const Error&) {
    return false;
  }
}

rise::Expr checked(const std::string& text) {
  rise::Program p = rise::parse_program(std::make_shared<SourceFile>(SourceFile{"t.rise", text}));
  return rise::check_program(p).expr;
}

TEST(Graph, NodesEdgesAndTypes) {
  std::string dot = to_dot({{"scal", checked("def scal = depFun(n: Nat => fun(a: f32 => "
                                             "fun(x: n.f32 => x |> map(fun(v => a * v)))))\n")}});
  EXPECT_EQ(dot.rfind("digraph risec {", 0), 0u) << dot;
  EXPECT_EQ(count(dot, "subgraph cluster_"), 1u);
  EXPECT_NE(dot.find("label=\"scal\""), std::string::npos);
  // map's node with its type, and edges to its two arguments in order.
  EXPECT_NE(dot.find("map\\n"), std::string::npos) << dot;
  EXPECT_NE(dot.find("[label=\"0\"]"), std::string::npos);
  EXPECT_NE(dot.find("[label=\"1\"]"), std::string::npos);
  EXPECT_NE(dot.find("fun v\\n"), std::string::npos) << dot;
  EXPECT_NE(dot.find("n.f32"), std::string::npos);
  // Deterministic.
  EXPECT_EQ(dot, to_dot({{"scal", checked("def scal = depFun(n: Nat => fun(a: f32 => "
                                          "fun(x: n.f32 => x |> map(fun(v => a * v)))))\n")}}));
}

TEST(Graph, SharedSubtermsAreDrawnOnce) {
  rise::Expr x = rise::ident("x");
  rise::Expr shared = rise::app(rise::app(rise::prim_expr(PrimId::Add), x), x);
  rise::Expr e =
      rise::lambda("x", rise::app(rise::app(rise::prim_expr(PrimId::Mul), shared), shared));
  std::string dot = to_dot({{"dag", e}});
  EXPECT_EQ(count(dot, "label=\"add\""), 1u) << dot;
  EXPECT_EQ(count(dot, "label=\"x\""), 1u) << dot;
  EXPECT_EQ(count(dot, " -> "), 5u) << dot;  // fun->mul, mul->add twice, add->x twice
}

TEST(Graph, CommandLineBeforeAndAfterParsedByDot) {
  namespace fs = std::filesystem;
  runtime::TempDir dir("risec-graph-test-");
  std::string out = dir.path() + "/mm.dot";
  runtime::ProcessResult r =
      runtime::run_process({risec::test::risec_binary(), "graph", src("examples/mm/mm.rise"),
                            "--strategy", src("examples/mm/baseline.elv"), "-o", out});
  ASSERT_TRUE(r.ok()) << r.err;
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string dot = ss.str();
  EXPECT_EQ(count(dot, "subgraph cluster_"), 2u);
  EXPECT_NE(dot.find(": before "), std::string::npos);
  EXPECT_NE(dot.find(": after "), std::string::npos);
  EXPECT_NE(dot.find("mapSeq"), std::string::npos);  // only after lowering
  // A strategy that fails is the located error of `risec rewrite` (exit 1).
  std::string bad = dir.path() + "/bad.elv";
  std::ofstream(bad) << "let main = mapFusion;\n";
  runtime::ProcessResult f =
      runtime::run_process({risec::test::risec_binary(), "graph", src("examples/scal/scal.rise"),
                            "--strategy", bad, "-o", dir.path() + "/x.dot"});
  EXPECT_EQ(f.exit_code, 1) << f.err;
  EXPECT_NE(f.err.find("strategy failed: mapFusion"), std::string::npos) << f.err;

  // Without dot on the PATH, rendering is an external tool's failure (exit 4) that
  // still leaves the .dot file.
  runtime::ProcessOptions no_dot;
  no_dot.env = {"PATH=/nonexistent"};
  runtime::ProcessResult m =
      runtime::run_process({risec::test::risec_binary(), "graph", src("examples/scal/scal.rise"),
                            "-o", dir.path() + "/nodot.png"},
                           no_dot);
  EXPECT_EQ(m.exit_code, 4) << m.err;
  EXPECT_NE(m.err.find("cannot run 'dot'"), std::string::npos) << m.err;
  EXPECT_TRUE(fs::exists(dir.path() + "/nodot.dot"));

  if (!have_dot()) GTEST_SKIP() << "dot (Graphviz) is not installed: the DOT text was not parsed";
  runtime::ProcessResult parsed = runtime::run_process({"dot", "-Tcanon", out});
  EXPECT_TRUE(parsed.ok()) << parsed.err;
  // -o OUT.svg renders through dot and keeps OUT.dot.
  std::string svg = dir.path() + "/scal.svg";
  runtime::ProcessResult s = runtime::run_process(
      {risec::test::risec_binary(), "graph", src("examples/scal/scal.rise"), "-o", svg});
  ASSERT_TRUE(s.ok()) << s.err;
  EXPECT_TRUE(fs::exists(dir.path() + "/scal.dot"));
  std::ifstream svg_in(svg);
  std::string head((std::istreambuf_iterator<char>(svg_in)), std::istreambuf_iterator<char>());
  EXPECT_NE(head.find("<svg"), std::string::npos);
}

}  // namespace
}  // namespace risec::driver
