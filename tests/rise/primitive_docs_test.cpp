// docs/language.md's "Primitives" section stays true to the primitive table
// (primitives.def): every primitive is documented once, with exactly the table's type
// string and family, and the section names no primitive that does not exist. So a
// primitive added to the table without a row in the documentation fails here. The
// scanSeq example the section gives is evaluated by the interpreter and must give the
// values the section states.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "rise/check.h"
#include "rise/interp.h"
#include "rise/parser.h"
#include "rise/primitives.h"

namespace risec::rise {
namespace {

std::string read_doc() {
  const std::string path = std::string(RISEC_SOURCE_DIR) + "/docs/language.md";
  std::ifstream in(path);
  if (!in) ADD_FAILURE() << "cannot read " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The lines of the "## Primitives" section (up to the next "## " heading).
std::vector<std::string> primitives_section(const std::string& doc) {
  std::vector<std::string> lines;
  std::istringstream in(doc);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) {
      if (inside) break;
      inside = line == "## Primitives";
      continue;
    }
    if (inside) lines.push_back(line);
  }
  return lines;
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(' ');
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

// "`text`" -> "text"; anything else -> "" (not a code cell).
std::string code_cell(const std::string& cell) {
  const std::string c = trim(cell);
  if (c.size() < 2 || c.front() != '`' || c.back() != '`') return "";
  return c.substr(1, c.size() - 2);
}

struct DocRow {
  int line = 0;  // within the section
  std::string name, type, family, meaning;
};

// Table rows whose first cell is a code cell: "| `name` | `type` | Family | meaning |".
std::vector<DocRow> doc_rows(const std::vector<std::string>& section) {
  std::vector<DocRow> rows;
  for (size_t i = 0; i < section.size(); ++i) {
    const std::string& line = section[i];
    if (line.rfind("| `", 0) != 0) continue;
    std::vector<std::string> cells;
    size_t start = 1;
    for (size_t bar = line.find(" | ", start); bar != std::string::npos;
         bar = line.find(" | ", start)) {
      cells.push_back(line.substr(start, bar - start));
      start = bar + 3;
    }
    std::string last = line.substr(start);
    if (!last.empty() && last.back() == '|') last.pop_back();
    cells.push_back(last);
    DocRow r;
    r.line = static_cast<int>(i);
    if (cells.size() == 4) {
      r.name = code_cell(cells[0]);
      r.type = code_cell(cells[1]);
      r.family = trim(cells[2]);
      r.meaning = trim(cells[3]);
    }
    rows.push_back(r);
  }
  return rows;
}

const char* family_name(Family f) {
  switch (f) {
    case Family::Arith:
      return "Arith";
    case Family::Math:
      return "Math";
    case Family::Index:
      return "Index";
    case Family::Memory:
      return "Memory";
    case Family::View:
      return "View";
    case Family::Pair:
      return "Pair";
    case Family::Vector:
      return "Vector";
    case Family::Array:
      return "Array";
    case Family::Map:
      return "Map";
    case Family::Reduce:
      return "Reduce";
    case Family::Iterate:
      return "Iterate";
    case Family::Scan:
      return "Scan";
    case Family::Sliding:
      return "Sliding";
    case Family::Loop:
      return "Loop";
  }
  return "?";
}

// The table's row of that name (also makeArray, which only array literals make and
// find_primitive does not look up), or null.
const PrimitiveInfo* by_name(const std::string& name) {
  for (const PrimitiveInfo& p : primitives())
    if (p.name == name) return &p;
  return nullptr;
}

TEST(PrimitiveDocs, SectionExists) {
  EXPECT_FALSE(primitives_section(read_doc()).empty())
      << "docs/language.md has no \"## Primitives\" section";
}

TEST(PrimitiveDocs, EveryRowIsWellFormedAndNamesAPrimitive) {
  const std::vector<DocRow> rows = doc_rows(primitives_section(read_doc()));
  ASSERT_FALSE(rows.empty());
  std::set<std::string> seen;
  for (const DocRow& r : rows) {
    SCOPED_TRACE("row " + std::to_string(r.line) + " of the Primitives section");
    ASSERT_FALSE(r.name.empty()) << "a row must be | `name` | `type` | Family | meaning |";
    EXPECT_TRUE(seen.insert(r.name).second) << r.name << " is documented twice";
    EXPECT_FALSE(r.meaning.empty()) << r.name << " says nothing about what it computes";
    const PrimitiveInfo* p = by_name(r.name);
    ASSERT_NE(p, nullptr) << "the documentation names '" << r.name
                          << "', which is no primitive of src/rise/primitives.def";
    EXPECT_EQ(r.family, family_name(p->family)) << r.name;
    if (p->type_text.empty()) {
      // makeArray: its type depends on the number of elements written.
      EXPECT_NE(r.type.find("..."), std::string::npos) << r.name;
    } else {
      EXPECT_EQ(r.type, p->type_text) << r.name << ": the type must be the table's";
    }
  }
}

TEST(PrimitiveDocs, EveryPrimitiveIsDocumented) {
  std::set<std::string> documented;
  for (const DocRow& r : doc_rows(primitives_section(read_doc()))) documented.insert(r.name);
  const std::vector<PrimitiveInfo>& table = primitives();
  ASSERT_GT(table.size(), 50u);
  for (const PrimitiveInfo& p : table)
    EXPECT_TRUE(documented.count(p.name)) << "primitive '" << p.name << "' (" << p.type_text
                                          << ") has no row in docs/language.md, section Primitives";
  EXPECT_EQ(documented.size(), table.size());
}

// The rows appear in the table's order, so the section reads like primitives.def.
TEST(PrimitiveDocs, RowsFollowTheTablesOrder) {
  std::map<std::string, size_t> position;
  const std::vector<PrimitiveInfo>& table = primitives();
  for (size_t i = 0; i < table.size(); ++i) position[table[i].name] = i;
  size_t last = 0;
  bool first = true;
  for (const DocRow& r : doc_rows(primitives_section(read_doc()))) {
    auto it = position.find(r.name);
    if (it == position.end()) continue;  // reported above
    if (!first) {
      EXPECT_GT(it->second, last) << r.name << " is out of the table's order";
    }
    last = it->second;
    first = false;
  }
}

// The section's scanSeq example: the `def s = ...` line and the values after
// "evaluates (`risec eval`) to".
TEST(PrimitiveDocs, ScanSeqExampleGivesTheStatedValues) {
  const std::vector<std::string> section = primitives_section(read_doc());
  std::string program, stated;
  for (size_t i = 0; i < section.size(); ++i) {
    const std::string line = trim(section[i]);
    if (line.rfind("def s = ", 0) == 0 && line.find("scanSeq") != std::string::npos) program = line;
    const size_t at = section[i].find("evaluates (`risec eval`) to `[");
    if (at != std::string::npos) {
      const size_t b = section[i].find('[', at);
      stated = section[i].substr(b + 1, section[i].find(']', b) - b - 1);
    }
  }
  ASSERT_FALSE(program.empty()) << "the scanSeq example is gone";
  ASSERT_FALSE(stated.empty()) << "the scanSeq example's values are gone";
  auto src = std::make_shared<SourceFile>(SourceFile{"doc.rise", program + "\n"});
  SizeMap sizes;
  Checked c = check_program(parse_program(src), "", &sizes);
  Interpreter interp;
  const Value v = interp.run(c.expr, {});
  std::vector<double> want;
  std::istringstream in(stated);
  for (std::string item; std::getline(in, item, ',');) want.push_back(std::stod(item));
  ASSERT_EQ(v.size(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(v.at(static_cast<int64_t>(i)).to_double(), want[i]) << "element " << i;
}

}  // namespace
}  // namespace risec::rise
