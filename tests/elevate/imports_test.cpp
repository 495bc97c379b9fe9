// `import "PATH";` in strategy files (our extension, docs/strategies.md, "Imports"):
// the imported lets are visible to the importing file's and take its parameters' values;
// paths are relative to the importing file; cycles, missing files and misplaced imports
// are located errors; what `risec tune` writes of a file with imports runs anywhere.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "elevate/parser.h"
#include "rewrite_test_util.h"

namespace risec::elevate::testing {
namespace {

namespace fs = std::filesystem;

// A fresh directory for one test's files.
class Imports : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("risec-imports-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes `text` to `name` (relative to the test's directory); returns its source.
  SourceRef file(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return std::make_shared<SourceFile>(SourceFile{p.string(), text});
  }

  // The program `p` rewritten by the strategy.
  std::string rewritten(const SourceRef& s, const ParamValues& v = {}) {
    Result r = parse_strategy_file(s, v)(program(), Env{});
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.failure().reason);
    return r.ok() ? rise::print_expr(r.expr()) : "";
  }
  std::string rewritten(const std::string& text) {
    return rewritten(std::make_shared<SourceFile>(SourceFile{"t.elv", text}));
  }

  // The error parsing `s` throws.
  Error error_of(const SourceRef& s) {
    try {
      parse_strategy_file(s);
    } catch (const Error& e) {
      return e;
    }
    ADD_FAILURE() << "no error for:\n" << s->text;
    return Error(ErrorKind::Internal, "none");
  }

  static rise::Expr program() {
    static rise::Expr p =
        typed("def f = fun(A: 64.64.f32 => A |> map(fun(r => r |> map(fun(x => x)))))").expr;
    return p;
  }

  fs::path dir_;
};

const char* kLibrary =
    "// a library: its parameter, constraint and strategy stay here\n"
    "param ti in [8];\n"
    "constraint ti > 100;\n"
    "let t = tile(ti, ti) @ outermost(mapNest(2));\n"
    "let main = t ; lowerToC;\n";

TEST_F(Imports, ImportedLetsTakeTheImportersParameters) {
  file("lib/tiles.elv", kLibrary);
  SourceRef s = file("a.elv",
                     "// uses the library\n"
                     "import \"lib/tiles.elv\";\n"
                     "param ti in [16, 32];\n"
                     "main;\n");
  EXPECT_EQ(rewritten(s),
            rewritten("let main = (tile(16, 16) @ outermost(mapNest(2))) ; lowerToC;"));
  EXPECT_EQ(rewritten(s, {{"ti", 32}}),
            rewritten("let main = (tile(32, 32) @ outermost(mapNest(2))) ; lowerToC;"));
  // Only the importer's parameters are the strategy's.
  std::vector<StrategyParam> ps = strategy_params(s);
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].values, (std::vector<int64_t>{16, 32}));
}

TEST_F(Imports, TheImportersLetsRedefineImportedNames) {
  file("lib.elv",
       "let inner = tile(8, 8) @ outermost(mapNest(2));\n"
       "let outer = inner ; lowerToC;\n");
  // `inner` redefined: the importer's own lets see it, the imported `outer` does not.
  SourceRef s = file("a.elv",
                     "import \"lib.elv\";\n"
                     "let inner = tile(4, 4) @ outermost(mapNest(2));\n"
                     "let main = outer;\n");
  EXPECT_EQ(rewritten(s), rewritten("let main = (tile(8, 8) @ outermost(mapNest(2))) ; lowerToC;"));
  SourceRef t = file("b.elv",
                     "import \"lib.elv\";\n"
                     "let inner = tile(4, 4) @ outermost(mapNest(2));\n"
                     "let main = inner ; lowerToC;\n");
  EXPECT_EQ(rewritten(t), rewritten("let main = (tile(4, 4) @ outermost(mapNest(2))) ; lowerToC;"));
}

TEST_F(Imports, PathsAreRelativeToEachFileAndAFileIsImportedOnce) {
  file("lib/base.elv", "let tiles = tile(8, 8) @ outermost(mapNest(2));\n");
  file("lib/low.elv", "import \"base.elv\";\nlet finish = tiles ; lowerToC;\n");
  file("lib/other.elv", "import \"./base.elv\";\nlet nothing = id;\n");
  SourceRef s = file("a.elv",
                     "import \"lib/low.elv\";\n"
                     "import \"lib/other.elv\";\n"
                     "import \"lib/base.elv\";\n"
                     "finish ; nothing;\n");
  EXPECT_EQ(rewritten(s), rewritten("let main = (tile(8, 8) @ outermost(mapNest(2))) ; lowerToC;"));
  std::vector<std::string> names;
  for (const SourceRef& f : strategy_imports(s)) names.push_back(fs::path(f->name).filename());
  EXPECT_EQ(names, (std::vector<std::string>{"base.elv", "low.elv", "other.elv"}));
}

TEST_F(Imports, ErrorsAreLocatedAtTheImport) {
  struct Case {
    std::string text;
    std::string message;
    std::string located;  // the text the error points at
  };
  file("cycle1.elv", "import \"cycle2.elv\";\nlet a = id;\n");
  file("cycle2.elv", "import \"cycle1.elv\";\nlet b = id;\n");
  file("lib.elv", kLibrary);
  file("arith.elv", "param tw in [4];\nlet w = slideOverlap(tw + 2);\n");
  const std::vector<Case> cases = {
      {"import \"missing.elv\";\nlowerToC", "cannot read the imported strategy file",
       "\"missing.elv\""},
      {"import \"cycle1.elv\";\nlowerToC", "import cycle: ", "\"cycle1.elv\""},
      {"import \"/dev/zero\";\nlowerToC", "(not a regular file)", "\"/dev/zero\""},
      {"import \"lib\";\nlowerToC", "cannot read the imported strategy file", "\"lib\""},
      {"param ti in [8];\nimport \"lib.elv\";\nlowerToC",
       "an import comes before the parameters and constraints", "import"},
      {"let a = id;\nimport \"lib.elv\";\nlowerToC", "an import comes first in the file", "import"},
      {"import \"\";\nlowerToC", "the imported file's path is empty", "\"\""},
      {"import \"lib.elv\nlowerToC", "unterminated string", "\"lib.elv"},
      // The imported let uses a parameter the importer does not declare.
      {"import \"lib.elv\";\nmain", "'ti' is no parameter of the strategy", "ti"},
      {"import \"arith.elv\";\nw", "'tw' has no value", "tw + 2"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    Error e = error_of(file("case.elv", c.text));
    EXPECT_EQ(e.kind(), ErrorKind::User);
    EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
    ASSERT_TRUE(e.span().known());
    EXPECT_EQ(e.span().file->text.substr(e.span().begin, e.span().end - e.span().begin), c.located);
  }
}

// What `risec tune` writes: the importer's values as one-value declarations (the imported
// lets use them), the imports absolute; it runs from another directory.
TEST_F(Imports, SubstitutionKeepsTheParametersAndMakesImportsAbsolute) {
  file("lib/tiles.elv", kLibrary);
  SourceRef s = file("a.elv",
                     "// tuned\n"
                     "import \"lib/tiles.elv\";\n"
                     "param ti in [16, 32];\n"
                     "constraint ti < 64;\n"
                     "let main = tile(ti, 4) @ outermost(mapNest(2)) ; lowerToC;\n");
  std::string out = substitute_params(s, {{"ti", 32}});
  const std::string lib = (dir_ / "lib" / "tiles.elv").string();
  EXPECT_EQ(out, "// tuned\nimport \"" + lib +
                     "\";\nparam ti in [32];\nlet main = tile(32, 4) @ outermost(mapNest(2)) ; "
                     "lowerToC;\n");
  SourceRef moved = file("elsewhere/best.elv", out);
  EXPECT_EQ(rewritten(moved), rewritten(s, {{"ti", 32}}));
  EXPECT_EQ(with_absolute_imports(s).find("import \"" + lib + "\";"), 9u);
  EXPECT_EQ(with_absolute_imports(file("b.elv", "lowerToC")), "lowerToC");
}

}  // namespace
}  // namespace risec::elevate::testing
