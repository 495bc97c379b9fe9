// The rule library's declarations (elevate/library.h, "declaring a rule") and the docs
// that describe them agree: docs/rules.md holds `risec rules` as the declarations
// print it, and the family list of docs/strategies.md ("The rule library") names
// every rule in its own family. Every declaration is well formed: a name no other
// entry uses (aliases included), its rewrite text, and a usage error for a call with
// the wrong number of arguments.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "elevate/library.h"
#include "support/diagnostics.h"

namespace risec::elevate {
namespace {

std::string read_doc(const std::string& name) {
  std::ifstream in(std::string(RISEC_SOURCE_DIR) + "/docs/" + name);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

bool is_rule(const LibraryEntry& e) {
  return e.cls == EntryClass::Rule || e.cls == EntryClass::NormalForm;
}

TEST(Library, DocsListTheLibrary) {
  const std::string doc = read_doc("rules.md");
  ASSERT_FALSE(doc.empty());
  EXPECT_NE(doc.find("```\n" + library_listing() + "```\n"), std::string::npos)
      << "docs/rules.md lacks the current `risec rules`: scripts/rules_doc.sh build/risec > "
         "docs/rules.md";
}

// docs/strategies.md's "- **family**: ..." paragraph of each rule names it.
TEST(Library, StrategiesDocNamesEveryRuleInItsFamily) {
  const std::string doc = read_doc("strategies.md");
  const size_t from = doc.find("## The rule library");
  ASSERT_NE(from, std::string::npos);
  const size_t to = doc.find("\n## ", from + 1);
  const std::string section = doc.substr(from, to - from);
  int checked = 0;
  for (const LibraryEntry& e : library()) {
    if (!is_rule(e)) continue;
    std::string family = family_name(e.family);
    if (e.family == RuleFamily::NormalForm) family = "normal forms";
    const size_t at = section.find("- **" + family + "**:");
    ASSERT_NE(at, std::string::npos) << "no paragraph for the family " << family;
    const size_t end = section.find("\n- **", at + 1);
    const std::string paragraph = section.substr(at, end - at);
    EXPECT_TRUE(paragraph.find("`" + e.name + "`") != std::string::npos ||
                paragraph.find("`" + e.name + "(") != std::string::npos)
        << "docs/strategies.md's paragraph " << family << " does not name " << e.name;
    ++checked;
  }
  EXPECT_GT(checked, 60);
}

TEST(Library, EveryDeclarationIsWellFormed) {
  std::set<std::string> names;
  for (const LibraryEntry& e : library()) {
    SCOPED_TRACE(e.name);
    EXPECT_TRUE(names.insert(e.name).second) << "declared twice";
    for (const std::string& a : e.aliases) {
      EXPECT_TRUE(names.insert(a).second) << "alias " << a << " taken";
      EXPECT_EQ(find_entry(a), &e);
    }
    EXPECT_EQ(find_entry(e.name), &e);
    EXPECT_FALSE(e.description.empty());
    EXPECT_TRUE(static_cast<bool>(e.make));
    // one argument too many: a usage error that names the entry, before `make` runs
    std::vector<Arg> args(e.params.size() + 1, Arg{int64_t{1}});
    try {
      make_strategy(e.name, args);
      ADD_FAILURE() << "accepted " << args.size() << " argument(s)";
    } catch (const Error& err) {
      EXPECT_EQ(err.kind(), ErrorKind::User);
      EXPECT_NE(std::string(err.what()).find("'" + e.name + "'"), std::string::npos) << err.what();
    }
  }
  // a rule without parameters builds its strategy
  for (const LibraryEntry& e : library())
    if (is_rule(e) && e.params.empty()) {
      SCOPED_TRACE(e.name);
      EXPECT_TRUE(make_strategy(e.name).valid());
    }
}

}  // namespace
}  // namespace risec::elevate
