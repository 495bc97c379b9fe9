// Tuning records (driver/tuned.h): the key of a program does not change with its
// whitespace and comments and changes with its text; a record is found by its own key
// only; the faster of two records is kept.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "driver/trial_db.h"
#include "driver/tuned.h"
#include "rise/parser.h"
#include "scoped_lanes.h"
#include "support/cpu.h"

namespace risec::driver {
namespace {

rise::Program tuned_parse(const std::string& text) {
  return rise::parse_program(std::make_shared<SourceFile>(SourceFile{"test.rise", text}));
}

std::vector<std::string> example_programs() {
  std::vector<std::string> out;
  for (const auto& d : std::filesystem::directory_iterator(RISEC_SOURCE_DIR "/examples")) {
    const auto file = d.path() / (d.path().filename().string() + ".rise");
    if (!std::filesystem::exists(file)) continue;
    std::ifstream in(file);
    out.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The text with comments, blank lines and spaces added at line ends and starts,
// chosen by `rng`.
std::string reformatted(const std::string& text, std::mt19937& rng) {
  std::string out = "// reformatted\n";
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    switch (rng() % 4) {
      case 0:
        out += line + "  // a comment\n";
        break;
      case 1:
        out += "\n   " + line + "\n";
        break;
      case 2:
        out += "/* block */ " + line + "\n";
        break;
      default:
        out += line + "\n";
    }
  }
  return out;
}

TEST(Tuned, KeyIgnoresLayoutAndFollowsTheText) {
  std::mt19937 rng(7);
  const rise::SizeMap sizes = {{"n", 64}};
  int programs = 0;
  for (const std::string& text : example_programs()) {
    const rise::Program p = tuned_parse(text);
    const std::string entry = p.defs.back().name;
    const TunedKey k = tuned_key(p, "", sizes, "c");
    EXPECT_EQ(k.entry, entry);
    EXPECT_EQ(k.program.size(), 16u);
    EXPECT_EQ(k.cpu, cpu_model() + " (lanes " + std::to_string(machine_lanes()) + ")");
    EXPECT_EQ(tuned_key(tuned_parse(text), entry, sizes, "c").program, k.program) << text;
    for (int variant = 0; variant < 4; ++variant) {
      const std::string r = reformatted(text, rng);
      EXPECT_EQ(tuned_key(tuned_parse(r), entry, sizes, "c").program, k.program) << r;
    }
    // Another definition is another program, for the same entry.
    const rise::Program more = tuned_parse(text + "\ndef risecTunedExtra = 1.0f\n");
    EXPECT_NE(tuned_key(more, entry, sizes, "c").program, k.program) << text;
    ++programs;
  }
  EXPECT_GT(programs, 20);
}

TEST(Tuned, RecordFoundByItsKeyOnlyAndTheFasterKept) {
  std::mt19937 rng(11);
  TrialDb db(":memory:");
  std::vector<std::pair<TunedKey, double>> stored;
  for (int i = 0; i < 40; ++i) {
    TunedKey k{"p" + std::to_string(rng() % 3),   "e" + std::to_string(rng() % 2),
               "n=" + std::to_string(rng() % 3),  "c",
               "cpu" + std::to_string(rng() % 2), "v" + std::to_string(rng() % 2)};
    const double t = 1.0 + static_cast<double>(rng() % 1000) / 100;
    auto it = std::find_if(stored.begin(), stored.end(), [&](const auto& s) {
      return s.first.program == k.program && s.first.entry == k.entry && s.first.sizes == k.sizes &&
             s.first.cpu == k.cpu && s.first.version == k.version;
    });
    const bool faster = it == stored.end() || t < it->second;
    EXPECT_EQ(record_best(db, k, {"strategy " + std::to_string(t), t, "test"}), faster);
    if (it == stored.end())
      stored.push_back({k, t});
    else if (faster)
      it->second = t;
    // Every key's record is its fastest; a key that differs in one field finds none of
    // them unless that key was stored too.
    for (const auto& [key, best] : stored) {
      std::optional<TunedRecord> r = lookup_best(db, key);
      ASSERT_TRUE(r);
      EXPECT_EQ(r->time_ms, best);
      EXPECT_EQ(r->strategy, "strategy " + std::to_string(best));
      TunedKey other = key;
      other.target = "openmp";
      EXPECT_FALSE(lookup_best(db, other));
    }
  }
}

// The vector width is part of the key: a strategy tuned with `lanes` = 16 is not looked
// up when compiling for 6 lanes ($RISEC_LANES).
TEST(Tuned, KeyFollowsTheVectorWidth) {
  const rise::Program p = tuned_parse(example_programs().front());
  const rise::SizeMap sizes = {{"n", 64}};
  std::vector<std::string> cpus;
  {
    ScopedLanes lanes("16");
    for (const char* width : {"16", "6", "32"}) {
      lanes.set(width);
      cpus.push_back(tuned_key(p, "", sizes, "c").cpu);
      EXPECT_NE(cpus.back().find(std::string("(lanes ") + width + ")"), std::string::npos)
          << cpus.back();
    }
  }
  EXPECT_NE(cpus[0], cpus[1]);
  EXPECT_NE(cpus[0], cpus[2]);
  EXPECT_NE(cpus[1], cpus[2]);
}

}  // namespace
}  // namespace risec::driver
