// `risec tune` (driver/tune.h) with an injected fake timer: the search finds the
// known best of a tiny program, invalid points are pruned before anything is built,
// the database round-trips and a second run resumes, and the evolutionary search
// needs fewer trials than random search on a smooth cost.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "driver/search.h"
#include "driver/tune.h"
#include "elevate/parser.h"
#include "rise/parser.h"
#include "support/diagnostics.h"

namespace risec::driver {
namespace {

// scal on 48 floats; vectorize(v) needs v to divide 48, so v = 32, 64 and 5 are
// pruned by the rewrite.
const char* kProgram =
    "def scal = depFun(n: Nat => fun(alpha: f32 => fun(x: n.f32 =>\n"
    "  x |> map(fun(xi => alpha * xi)))))\n";
const char* kTemplate =
    "param v in [2, 4, 8, 16, 32, 64, 5];\n"
    "param u in [1, 2, 3, 4, 5];\n"
    "let main = (vectorize(v) @ outermost(isApplied(isMap))) ; lowerToC;\n";

// Time as a function of the point (v, u): best at v = 8, u = 4. Counts what it is
// asked to do.
class TuneFakeTimer : public Measurer {
 public:
  void prepare(const Compiled& c) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++prepared;
    EXPECT_FALSE(c.unit.source.empty());
  }
  double measure(const Compiled&, const TunePoint& p) override {
    ++measured;
    points.push_back(p);
    return 1.0 + std::abs(std::log2(static_cast<double>(p[0])) - 3) + std::abs(p[1] - 4.0);
  }
  int prepared = 0, measured = 0;
  std::vector<TunePoint> points;

 private:
  std::mutex mu_;
};

struct Fixture {
  rise::Program program =
      rise::parse_program(std::make_shared<SourceFile>(SourceFile{"scal.rise", kProgram}));
  TuneConfig config() {
    TuneConfig c;
    c.program = &program;
    c.sizes = {{"n", 48}};
    c.strategy = std::make_shared<SourceFile>(SourceFile{"t.elv", kTemplate});
    c.study_key = study_key(kProgram, kTemplate, c.sizes, c.target, "");
    c.workers = 3;
    return c;
  }
};

TEST(Tune, FindsTheKnownBestAndPrunesInvalidPoints) {
  Fixture f;
  TuneConfig c = f.config();
  c.budget = 20;  // of the 4 x 5 valid points
  TrialDb db("");
  TuneFakeTimer timer;
  TuneResult r = tune(c, db, timer);
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.best->point, (TunePoint{8, 4}));
  EXPECT_DOUBLE_EQ(r.best->time_ms, 1.0);
  EXPECT_EQ(timer.measured, 20);
  EXPECT_EQ(timer.prepared, 20);  // pruned points are never built
  int invalid = 0;
  for (const Trial& t : r.trials) {
    if (t.status != Trial::Status::Invalid) continue;
    ++invalid;
    EXPECT_TRUE(t.point[0] == 32 || t.point[0] == 64 || t.point[0] == 5)
        << point_text(r.params, t.point);
    EXPECT_NE(t.error.find("vectorize"), std::string::npos) << t.error;
  }
  EXPECT_GT(invalid, 0);
  for (const TunePoint& p : timer.points) EXPECT_TRUE(p[0] <= 16 && p[0] != 5);
  // The best strategy has the values substituted and compiles as written.
  EXPECT_EQ(r.best_strategy,
            "let main = (vectorize(8) @ outermost(isApplied(isMap))) ; lowerToC;\n");
}

TEST(Tune, DeterministicGivenTheSeed) {
  auto run = [](uint64_t seed) {
    Fixture f;
    TuneConfig c = f.config();
    c.budget = 8;
    c.seed = seed;
    TrialDb db("");
    TuneFakeTimer timer;
    tune(c, db, timer);
    return timer.points;
  };
  EXPECT_EQ(run(7), run(7));
  EXPECT_NE(run(7), run(8));
}

TEST(Tune, DatabaseRoundTripsAndResumes) {
  namespace fs = std::filesystem;
  fs::path path =
      fs::temp_directory_path() / ("risec_tune_test_" + std::to_string(getpid()) + ".db");
  fs::remove(path);
  Fixture f;
  TuneConfig c = f.config();
  c.budget = 6;
  std::vector<Trial> first;
  {
    TrialDb db(path.string());
    db.add_study(c.study_key, "scal");
    TuneFakeTimer timer;
    first = tune(c, db, timer).trials;
    EXPECT_EQ(timer.measured, 6);
  }
  {
    // The stored trials read back as they were made.
    TrialDb db(path.string());
    std::vector<Trial> back = db.load(c.study_key, elevate::strategy_params(c.strategy));
    ASSERT_EQ(back.size(), first.size());
    for (size_t i = 0; i < back.size(); ++i) {
      EXPECT_EQ(back[i].point, first[i].point);
      EXPECT_EQ(back[i].status, first[i].status);
      EXPECT_EQ(back[i].number, first[i].number);
      EXPECT_DOUBLE_EQ(back[i].time_ms, first[i].time_ms);
      EXPECT_EQ(back[i].error, first[i].error);
    }
    // Another study in the same database is separate.
    EXPECT_TRUE(db.load("other", elevate::strategy_params(c.strategy)).empty());
  }
  {
    // A second run with a larger budget measures only the new points.
    TrialDb db(path.string());
    c.budget = 10;
    TuneFakeTimer timer;
    TuneResult r = tune(c, db, timer);
    EXPECT_EQ(timer.measured, 4);
    EXPECT_EQ(r.new_trials, 4);
    for (const TunePoint& p : timer.points)
      for (const Trial& t : first) EXPECT_NE(p, t.point);
    // The same budget again: nothing new, the same best.
    TuneFakeTimer again;
    TuneResult r2 = tune(c, db, again);
    EXPECT_EQ(again.measured, 0);
    EXPECT_EQ(r2.best->point, r.best->point);
  }
  fs::remove(path);
}

// A database that cannot be written is found out before a search that records only
// at its end (the autoscheduler's, F4 of the held-out findings): opened read-only
// (what SQLite falls back to for a file mode 0444 or an immutable file) and, when not
// root, a file of mode 0444; a writable one and an in-memory one pass.
TEST(Tune, UnwritableDatabaseIsRefusedBeforeTheSearch) {
  namespace fs = std::filesystem;
  fs::path path =
      fs::temp_directory_path() / ("risec_tune_ro_test_" + std::to_string(getpid()) + ".db");
  fs::remove(path);
  { TrialDb(path.string()).check_writable(); }  // created: writable
  TrialDb("").check_writable();
  auto refused = [](TrialDb& db) {
    try {
      db.check_writable();
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::User);
      return std::string(e.what()).find("readonly database") != std::string::npos;
    }
    return false;
  };
  {
    TrialDb ro(path.string(), /*read_only=*/true);
    EXPECT_TRUE(refused(ro));
  }
  if (geteuid() != 0) {  // root writes a file of mode 0444 all the same
    fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    TrialDb mode0444(path.string());
    EXPECT_TRUE(refused(mode0444));
  }
  fs::remove(path);
}

TEST(Tune, NoParametersOrNoValidPointIsAnError) {
  Fixture f;
  TuneConfig c = f.config();
  TrialDb db("");
  TuneFakeTimer timer;
  c.strategy = std::make_shared<SourceFile>(SourceFile{"t.elv", "let main = lowerToC;"});
  EXPECT_THROW(tune(c, db, timer), Error);
  c.strategy = std::make_shared<SourceFile>(SourceFile{
      "t.elv", "param v in [32, 64];\nlet main = (vectorize(v) @ outermost(isApplied(isMap)));"});
  try {
    tune(c, db, timer);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User);
    EXPECT_NE(std::string(e.what()).find("no point"), std::string::npos) << e.what();
  }
  EXPECT_EQ(timer.prepared, 0);
}

// Our extension: with constraints, only points that satisfy them are proposed: none is
// pruned by the rewrite (v = 32, 64, 5 and u = 3 are excluded beforehand), none counts
// as a trial, and the space counts the 4 x 4 valid points of 35.
TEST(Tune, ConstraintsExcludePointsBeforeTheSearchProposesThem) {
  Fixture f;
  TuneConfig c = f.config();
  const std::string tmpl =
      "param v in [2, 4, 8, 16, 32, 64, 5];\n"
      "param u in [1, 2, 3, 4, 5];\n"
      "constraint 48 % v == 0 && v < 32;\n"
      "constraint u != 3;\n"
      "let main = (vectorize(v) @ outermost(isApplied(isMap))) ; lowerToC;\n";
  c.strategy = std::make_shared<SourceFile>(SourceFile{"t.elv", tmpl});
  c.study_key = study_key(kProgram, tmpl, c.sizes, c.target, "");
  c.budget = 100;  // more than the space
  std::ostringstream progress;
  c.progress = &progress;
  TrialDb db("");
  TuneFakeTimer timer;
  TuneResult r = tune(c, db, timer);
  EXPECT_EQ(timer.measured, 16);
  EXPECT_EQ(r.trials.size(), 16u);
  for (const Trial& t : r.trials) {
    EXPECT_EQ(t.status, Trial::Status::Measured) << point_text(r.params, t.point) << t.error;
    EXPECT_TRUE(48 % t.point[0] == 0 && t.point[0] < 32 && t.point[1] != 3)
        << point_text(r.params, t.point);
  }
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.best->point, (TunePoint{8, 4}));
  EXPECT_NE(progress.str().find("16 point(s) in the template's space that satisfy its "
                                "constraints (35 without them)"),
            std::string::npos)
      << progress.str();
  // run_trial (the Python integration's) prunes a violating point before compiling.
  Trial t = run_trial(c, r.params, {8, 3}, timer);
  EXPECT_EQ(t.status, Trial::Status::Invalid);
  EXPECT_NE(t.error.find("violates the constraint `u != 3` (t.elv:4:12)"), std::string::npos)
      << t.error;
  EXPECT_EQ(timer.prepared, 16);
  // No point satisfies them: a located error before anything is built.
  const std::string none =
      "param v in [2, 4];\nconstraint v > lanes * 100;\n"
      "let main = (vectorize(v) @ outermost(isApplied(isMap)));\n";
  c.strategy = std::make_shared<SourceFile>(SourceFile{"t.elv", none});
  try {
    tune(c, db, timer);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User);
    EXPECT_NE(std::string(e.what()).find("no point of the template's space (2 points) satisfies "
                                         "its constraints"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(location(e.span()), "t.elv:2:12");
  }
  EXPECT_EQ(timer.prepared, 16);
}

TEST(Tune, SearcherWithConstraintsProposesEachValidPointOnce) {
  // a + b even, over a permutation too: (c, d) in permutations([1, 2]) with c == 2.
  std::vector<elevate::StrategyParam> params = {{"a", {1, 2, 3}, {}},
                                                {"b", {4, 5, 6, 7}, {}},
                                                {"c", {1, 2}, {}, 0, 0},
                                                {"d", {1, 2}, {}, 0, 1}};
  elevate::StrategyDeclarations d = elevate::strategy_declarations(std::make_shared<SourceFile>(
      SourceFile{"t.elv",
                 "param a in [1, 2, 3];\nparam b in [4, 5, 6, 7];\n"
                 "param (c, d) in permutations([1, 2]);\n"
                 "constraint (a + b) % 2 == 0;\nconstraint c == 2;\nlet main = id;"}));
  for (SearchKind kind : {SearchKind::Evolutionary, SearchKind::Random}) {
    Searcher s(params, kind, 7, d.constraints, 8);
    EXPECT_EQ(s.unconstrained_space(), 24.0);
    EXPECT_EQ(s.space(), 6.0);
    std::set<Genome> seen;
    while (auto g = s.propose()) {
      EXPECT_TRUE(seen.insert(*g).second);
      EXPECT_TRUE(s.valid(*g));
      const int64_t a = params[0].values[(*g)[0]], b = params[1].values[(*g)[1]];
      EXPECT_EQ((a + b) % 2, 0);
      EXPECT_EQ(params[2].values[(*g)[2]], 2);
      s.record(*g, true, double(a));
    }
    EXPECT_EQ(seen.size(), 6u);
  }
  // A space too large to count (4^11 points): not counted, but still only valid points.
  std::string big;
  std::vector<elevate::StrategyParam> many;
  for (int i = 0; i < 11; ++i) {
    big += "param p" + std::to_string(i) + " in [1, 2, 3, 4];\n";
    many.push_back({"p" + std::to_string(i), {1, 2, 3, 4}, {}});
  }
  elevate::StrategyDeclarations bd = elevate::strategy_declarations(std::make_shared<SourceFile>(
      SourceFile{"t.elv", big + "constraint p0 * p1 == 6 && p10 <= lanes / 4;\nlet main = id;"}));
  Searcher s(many, SearchKind::Evolutionary, 1, bd.constraints, 8);
  EXPECT_FALSE(s.space_counted());
  EXPECT_EQ(s.space(), std::pow(4.0, 11));
  for (int k = 0; k < 20; ++k) {
    std::optional<Genome> g = s.propose();
    ASSERT_TRUE(g);
    EXPECT_EQ((((*g)[0] + 1) * ((*g)[1] + 1)), 6u);
    EXPECT_LE((*g)[10], 1u);  // p10 <= 8 / 4
    s.record(*g, true, double(k));
  }
}

// On a smooth cost over 3 parameters of 10 values each, the evolutionary search finds
// the best point in fewer trials than random search, on average over seeds.
TEST(Tune, EvolutionaryNeedsFewerTrialsThanRandom) {
  std::vector<elevate::StrategyParam> params;
  for (const char* n : {"a", "b", "c"}) {
    elevate::StrategyParam p{n, {}, {}};
    for (int64_t v = 0; v < 10; ++v) p.values.push_back(v);
    params.push_back(p);
  }
  auto cost = [](const Genome& g) {
    return std::pow(double(g[0]) - 7, 2) + std::pow(double(g[1]) - 2, 2) +
           std::pow(double(g[2]) - 5, 2);
  };
  auto trials_to_best = [&](SearchKind kind, uint64_t seed) {
    Searcher s(params, kind, seed);
    for (int n = 1;; ++n) {
      Genome g = *s.propose();
      EXPECT_FALSE(s.tried(g));
      if (cost(g) == 0) return n;
      s.record(g, true, cost(g));
    }
  };
  double evo = 0, random = 0;
  const int seeds = 20;
  for (uint64_t seed = 0; seed < seeds; ++seed) {
    evo += trials_to_best(SearchKind::Evolutionary, seed);
    random += trials_to_best(SearchKind::Random, seed);
  }
  evo /= seeds;
  random /= seeds;
  EXPECT_LT(evo * 3, random) << "evolutionary " << evo << ", random " << random;
}

TEST(Tune, SearcherEnumeratesTheWholeSpaceOnce) {
  std::vector<elevate::StrategyParam> params = {{"a", {1, 2, 3}, {}}, {"b", {4, 5}, {}}};
  for (SearchKind kind : {SearchKind::Evolutionary, SearchKind::Random}) {
    Searcher s(params, kind, 3);
    std::set<Genome> seen;
    while (auto g = s.propose()) {
      EXPECT_TRUE(seen.insert(*g).second);
      s.record(*g, true, double((*g)[0]));
    }
    EXPECT_EQ(seen.size(), 6u);
  }
  // With a permutation of 3 (b, c, d): 2 x 3! points, each an order (distinct indices),
  // the first one the template's own.
  std::vector<elevate::StrategyParam> perm = {{"a", {1, 2}, {}},
                                              {"b", {7, 8, 9}, {}, 0, 0},
                                              {"c", {7, 8, 9}, {}, 0, 1},
                                              {"d", {7, 8, 9}, {}, 0, 2}};
  for (SearchKind kind : {SearchKind::Evolutionary, SearchKind::Random}) {
    Searcher s(perm, kind, 5);
    EXPECT_EQ(s.space(), 12.0);
    std::vector<Genome> order;
    std::set<Genome> seen;
    while (auto g = s.propose()) {
      EXPECT_TRUE(seen.insert(*g).second);
      EXPECT_EQ(std::set<size_t>(g->begin() + 1, g->end()).size(), 3u);
      order.push_back(*g);
      s.record(*g, true, double((*g)[1] * 3 + (*g)[0]));
    }
    EXPECT_EQ(seen.size(), 12u);
    if (kind == SearchKind::Evolutionary) {
      EXPECT_EQ(order.front(), (Genome{0, 0, 1, 2}));
    }
  }
}

// A tiled 2D map nest in every loop order: tile(3, 3) does not divide 8 and is pruned;
// every point proposed is a permutation, and the search covers the 2 x 24 valid ones.
TEST(Tune, PermutationParameterProposesOnlyOrders) {
  const char* program =
      "def sq = depFun(n: Nat => fun(A: n.n.f32 =>\n"
      "  A |> map(fun(r => r |> map(fun(x => x * x))))))\n";
  const char* tmpl =
      "param t in [2, 3, 4];\n"
      "param (a, b, c, d) in permutations([1, 2, 3, 4]);\n"
      "let main = (tile(t, t) @ outermost(mapNest(2))) ; reorder([a, b, c, d]) ; lowerToC;\n";
  rise::Program prog =
      rise::parse_program(std::make_shared<SourceFile>(SourceFile{"sq.rise", program}));
  TuneConfig c;
  c.program = &prog;
  c.sizes = {{"n", 8}};
  c.strategy = std::make_shared<SourceFile>(SourceFile{"t.elv", tmpl});
  c.study_key = study_key(program, tmpl, c.sizes, c.target, "");
  c.budget = 60;  // more than the 48 valid points
  TrialDb db("");
  // Best at t = 4 in the order (3, 1, 4, 2).
  class OrderTimer : public Measurer {
   public:
    void prepare(const Compiled&) override {}
    double measure(const Compiled&, const TunePoint& p) override {
      ++measured;
      double cost = p[0] == 4 ? 1 : 2;
      const TunePoint best = {3, 1, 4, 2};
      for (size_t i = 0; i < 4; ++i) cost += p[i + 1] != best[i];
      return cost;
    }
    int measured = 0;
  } timer;
  TuneResult r = tune(c, db, timer);
  EXPECT_EQ(timer.measured, 48);
  EXPECT_EQ(r.trials.size(), 72u);
  std::set<TunePoint> seen;
  for (const Trial& t : r.trials) {
    EXPECT_TRUE(seen.insert(t.point).second) << point_text(r.params, t.point);
    EXPECT_EQ(std::set<int64_t>(t.point.begin() + 1, t.point.end()),
              (std::set<int64_t>{1, 2, 3, 4}))
        << point_text(r.params, t.point);
    EXPECT_EQ(t.status == Trial::Status::Invalid, t.point[0] == 3)
        << point_text(r.params, t.point) << ": " << t.error;
  }
  EXPECT_EQ(r.trials.front().point, (TunePoint{2, 1, 2, 3, 4}));  // the template's own
  ASSERT_TRUE(r.best);
  EXPECT_EQ(point_text(r.params, r.best->point), "t=4,a=3,b=1,c=4,d=2");
  EXPECT_EQ(r.best_strategy,
            "let main = (tile(4, 4) @ outermost(mapNest(2))) ; reorder([3, 1, 4, 2]) ; "
            "lowerToC;\n");
  // The database keeps the names one by one; a second search resumes with nothing left.
  TuneResult again = tune(c, db, timer);
  EXPECT_EQ(timer.measured, 48);
  EXPECT_EQ(again.trials.size(), 72u);
}

// Every time tune shows (progress, summary, the written strategy's comment) keeps three
// significant digits however small: a microsecond kernel is not "0.000 ms".
TEST(FormatTime, KeepsThreeSignificantDigitsAtEveryScale) {
  for (double ms = 1e-7; ms < 1e6; ms *= 1.37) {
    const std::string text = format_time(ms);
    SCOPED_TRACE(text);
    ASSERT_GE(text.size(), 4u);
    EXPECT_EQ(text.substr(text.size() - 3), " ms");
    EXPECT_EQ(text.find('e'), std::string::npos);  // decimal notation
    const double back = std::strtod(text.c_str(), nullptr);
    EXPECT_LE(std::fabs(back - ms), ms * 0.005 + 1e-12);
  }
  EXPECT_EQ(format_time(0.00123), "0.00123 ms");
  EXPECT_EQ(format_time(1.5), "1.500 ms");
  EXPECT_EQ(format_time(1000), "1000.0 ms");
}

}  // namespace
}  // namespace risec::driver
