// The autoscheduler's GPU space (driver/schedule_gpu.h): the candidates of random small
// programs (maps, row and total reductions, 1-D and 2-D stencils, matrix products, of
// random element functions and sizes) compile and compute what the interpreter
// computes on the OpenCL device present (PoCL here; a sample, as PoCL's kernel
// compilation is slow); the space has each mapping where it applies; the model
// prefers coalesced mappings and, on a GPU, local tiles for a matrix product; with a
// fake timer the default lowering is measured first and a GPU result is a mapping;
// GPU tuning records are keyed by the device, not the CPU. No assertion depends on a
// time.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <set>
#include <string>

#include "candidate_compile.h"
#include "driver/autoschedule.h"
#include "driver/gpu_device.h"
#include "driver/run.h"
#include "driver/schedule_gpu.h"
#include "driver/tuned.h"
#include "elevate/parser.h"
#include "rise/parser.h"
#include "sanitized_sample.h"
#include "support/cpu.h"
#include "support/files.h"

namespace risec::driver {
namespace {

rise::Program gpu_parse(const std::string& text) {
  return rise::parse_program(std::make_shared<SourceFile>(SourceFile{"gen.rise", text}));
}

// A random element function of `v` (no division: no infinities to compare).
std::string element(std::mt19937& rng, const std::string& v) {
  const int c = static_cast<int>(rng() % 5) + 1;
  const std::string k = std::to_string(c) + ".0f";
  switch (rng() % 5) {
    case 0:
      return v + " * " + k;
    case 1:
      return v + " + " + k;
    case 2:
      return v + " * " + v;
    case 3:
      return "(" + v + " - " + k + ") * " + v;
    default:
      return v;
  }
}

struct Generated {
  std::string kind, text;
  rise::SizeMap sizes;
};

// One random program of each kind, its sizes powers of two (so that groups divide).
Generated generate(std::mt19937& rng, int kind) {
  const int64_t n = int64_t{16} << (rng() % 3), m = int64_t{16} << (rng() % 3);
  Generated g;
  g.sizes = {{"n", n}, {"m", m}};
  const std::string e = element(rng, "v");
  switch (kind) {
    case 0:
      g.kind = "map";
      g.sizes = {{"n", n * m}};
      g.text =
          "def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 =>\n  zip(x)(y) |> "
          "map(fun(p => " +
          element(rng, "p._1") + " + p._2)))))\n";
      break;
    case 1:
      g.kind = "2-D map";
      g.text =
          "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n  x |> map(fun(r => r |> "
          "map(fun(v => " +
          e + "))))))\n";
      break;
    case 2:
      g.kind = "row reduction";
      g.text =
          "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n  x |> map(fun(r => r |> "
          "map(fun(v => " +
          e + ")) |> reduce(add)(0.0f)))))\n";
      break;
    case 3:
      g.kind = "total reduction";
      g.sizes = {{"n", n * m}};
      g.text = "def f = depFun(n: Nat => fun(x: n.f32 =>\n  x |> map(fun(v => " + e +
               ")) |> reduce(add)(0.0f)))\n";
      break;
    case 4: {
      g.kind = "1-D stencil";
      g.sizes = {{"n", n * m}};
      const int h = 1 + static_cast<int>(rng() % 2);
      g.text = "def f = depFun(n: Nat => fun(x: n.f32 =>\n  x |> padClamp(" + std::to_string(h) +
               ")(" + std::to_string(h) + ") |> slide(" + std::to_string(2 * h + 1) +
               ")(1) |> map(fun(w => w |> map(fun(v => " + e + ")) |> reduce(add)(0.0f)))))\n";
      break;
    }
    case 5:
      g.kind = "2-D stencil";
      g.text =
          "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n  x |> padClamp2D(1)(1) |> "
          "slide2D(3)(1) |> map2D(fun(nbh => join(nbh) |> map(fun(v => " +
          e + ")) |> reduce(add)(0.0f)))))\n";
      break;
    default:
      g.kind = "matrix product";
      g.sizes = {{"n", n}, {"m", m}, {"k", int64_t{16} << (rng() % 2)}};
      g.text =
          "def f = depFun((n: Nat, m: Nat, k: Nat) => fun(a: n.k.f32 => fun(b: k.m.f32 =>\n  a "
          "|> map(fun(r => transpose(b) |> map(fun(c => zip(r)(c) |> map(fun(p => p._1 * " +
          element(rng, "p._2") + ")) |> reduce(add)(0.0f))))))))\n";
  }
  return g;
}

// A GPU for the model's tests (none needs to be present).
GpuDevice fake_gpu() {
  GpuDevice d;
  d.name = "OpenCL: platform Test, device A GPU";
  d.gpu = true;
  d.compute_units = 80;
  d.max_group = 1024;
  d.local_bytes = 49152;
  d.warp = 32;
  return d;
}

// Random programs of seven kinds, two rounds: every program's space has candidates
// beyond the default, and one of them (a mapping of a structure not yet run first)
// computes what the interpreter computes on the OpenCL device. Candidates compile's
// checks refuse are counted, not run (the autoscheduler skips them too).
TEST(ScheduleGpu, RandomProgramsCandidatesMatchTheInterpreterOnOpenCL) {
  std::string why;
  std::optional<GpuDevice> dev = probe_gpu_device("opencl", &why);
  if (!dev) GTEST_SKIP() << "no OpenCL device (" << why << ")";
  std::mt19937 rng(2026);
  const auto start = std::chrono::steady_clock::now();
  int checked = 0, refused = 0;
  std::set<std::string> structures;
  // Under the sanitizers one round of the seven kinds (sanitized_sample.h).
  for (size_t round = 0; round < per_build(2, 1); ++round)
    for (int kind = 0; kind < 7; ++kind) {
      Generated g = generate(rng, kind);
      rise::Program p = gpu_parse(g.text);
      rise::Checked high = rise::check_program(p, "", &g.sizes);
      GpuSpace space = build_gpu_space(high, "opencl", *dev);
      SCOPED_TRACE(g.kind + ":\n" + g.text);
      ASSERT_GT(space.space.candidates.size(), 1u) << space.space.drop_reason;
      ASSERT_EQ(space.costs.size(), space.space.candidates.size());
      std::vector<rise::Value> inputs = make_inputs(high, {}, 5);
      rise::Value expected = interpret(high, inputs);
      // Every candidate compiles (or compile's checks refuse it: counted, skipped as the
      // autoscheduler does); one runs: of a structure not yet run, else a random one
      // (one a program: PoCL compiles each kernel in about a second).
      std::vector<std::optional<Compiled>> compiled(space.space.candidates.size());
      for (size_t i = 1; i < compiled.size(); ++i) {
        const ScheduleCandidate& c = space.space.candidates[i];
        try {
          compiled[i] = compile_candidate(p, g.sizes, "opencl", c);
        } catch (const Error& e) {
          ASSERT_EQ(e.kind(), ErrorKind::User) << c.label() << "\n" << e.what();
          ++refused;
        }
      }
      std::vector<size_t> order;
      for (size_t i = 1; i < compiled.size(); ++i)
        if (compiled[i]) order.push_back(i);
      std::shuffle(order.begin(), order.end(), rng);
      std::stable_partition(order.begin(), order.end(), [&](size_t i) {
        return !structures.count(space.space.candidates[i].structure);
      });
      ASSERT_FALSE(order.empty());
      {
        const size_t i = order.front();
        const ScheduleCandidate& c = space.space.candidates[i];
        SCOPED_TRACE(c.label() + "\n" + c.strategy_text());
        Execution ex = execute(*compiled[i], g.sizes, inputs);
        Comparison cmp = compare_values(ex.output, expected, entry_result_type(high));
        EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
        ++checked;
        structures.insert(c.structure);
      }
    }
  EXPECT_EQ(checked, static_cast<int>(7 * per_build(2, 1)));
  RecordProperty("refused", refused);
  // Every mapping family ran on some program.
  for (const char* s : {"global 1-D", "global 2-D", "work groups 1-D", "work groups 2-D",
                        "chunked reduction", "local tiles"})
    EXPECT_TRUE(structures.count(s)) << s;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("seconds", std::to_string(seconds));
}

// The space has the mappings that apply, and the model ranks them as documented.
TEST(ScheduleGpu, SpaceAndModel) {
  const GpuDevice gpu = fake_gpu();
  auto space_of = [&](const std::string& file, const rise::SizeMap& sizes,
                      const std::string& target = "opencl") {
    rise::Program p = load_program(file);
    return build_gpu_space(rise::check_program(p, "", &sizes), target, gpu);
  };
  auto find = [](const GpuSpace& s, const std::string& structure, const std::string& words) {
    for (size_t i = 0; i < s.space.candidates.size(); ++i)
      if (s.space.candidates[i].structure == structure &&
          s.space.candidates[i].gpu.find(words) != std::string::npos)
        return i;
    return size_t{0};
  };
  GpuSpace mm = space_of("examples/mm/mm.rise", {{"n", 256}, {"m", 256}, {"k", 256}});
  EXPECT_TRUE(mm.space.candidates[0].is_default);
  const size_t coalesced = find(mm, "global 2-D", "mapGlobal(1) x mapGlobal(0)");
  const size_t rows = find(mm, "global 2-D", "dimension 0 on the rows");
  const size_t tiles = find(mm, "local tiles", "32 x 32 block");
  const size_t groups = find(mm, "work groups 2-D", "");
  ASSERT_TRUE(coalesced && rows && tiles && groups);
  // Coalesced beats strided; local tiles beat a dot product per work item, and so
  // OpenCL's default lowering, a work item per row (docs/targets.md, "The default
  // lowering"), which the coalesced 2-D mapping beats on a GPU.
  EXPECT_LT(mm.costs[coalesced].score, mm.costs[rows].score);
  EXPECT_LT(mm.costs[tiles].score, mm.costs[coalesced].score);
  EXPECT_NE(mm.space.candidates[0].gpu.find("mapGlobal(0) over the outer map"), std::string::npos)
      << mm.space.candidates[0].gpu;
  EXPECT_NE(mm.space.candidates[0].default_text.find("globalOutput(1)"), std::string::npos)
      << mm.space.candidates[0].default_text;
  EXPECT_LT(mm.costs[coalesced].score, mm.costs[0].score);
  // CUDA's default is the 2-D mapping: between the tiles and the strided mapping.
  GpuSpace cu = space_of("examples/mm/mm.rise", {{"n", 256}, {"m", 256}, {"k", 256}}, "cuda");
  const size_t cu_tiles = find(cu, "local tiles", "32 x 32 block");
  const size_t cu_rows = find(cu, "global 2-D", "dimension 0 on the rows");
  ASSERT_TRUE(cu_tiles && cu_rows);
  EXPECT_NE(cu.space.candidates[0].gpu.find("mapGlobal(1) x mapGlobal(0)"), std::string::npos)
      << cu.space.candidates[0].gpu;
  EXPECT_NE(cu.space.candidates[0].default_text.find("globalOutput(2)"), std::string::npos)
      << cu.space.candidates[0].default_text;
  EXPECT_LT(cu.costs[cu_tiles].score, cu.costs[0].score);
  EXPECT_LT(cu.costs[0].score, cu.costs[cu_rows].score);
  EXPECT_NE(mm.space.candidates[tiles].strategy_text().find("toLocal"), std::string::npos);
  // Work groups smaller than a warp leave lanes idle.
  GpuSpace scal = space_of("examples/scal/scal.rise", {{"n", 1 << 16}});
  EXPECT_FALSE(find(scal, "global 2-D", ""));
  EXPECT_TRUE(find(scal, "work groups 1-D", "groups of 256"));
  GpuSpace dot = space_of("examples/dot/dot.rise", {{"n", 4096}});
  const size_t chunks = find(dot, "chunked reduction", "chunks of 64");
  EXPECT_TRUE(chunks);
  // A scalar result's default is one work item, which any chunked mapping beats.
  EXPECT_NE(dot.space.candidates[0].gpu.find("one work item"), std::string::npos)
      << dot.space.candidates[0].gpu;
  if (chunks) {
    EXPECT_LT(dot.costs[chunks].score, dot.costs[0].score);
  }
  EXPECT_FALSE(find(dot, "global 1-D", ""));
  // A local tile larger than the device's local memory is not proposed.
  GpuDevice small = gpu;
  small.local_bytes = 256;
  rise::Program p = load_program("examples/mm/mm.rise");
  rise::SizeMap sizes{{"n", 256}, {"m", 256}, {"k", 256}};
  for (const ScheduleCandidate& c :
       build_gpu_space(rise::check_program(p, "", &sizes), "opencl", small).space.candidates)
    EXPECT_NE(c.structure, "local tiles") << c.gpu;
}

class GpuFakeTimer : public Measurer {
 public:
  void prepare(const Compiled&) override {}
  double measure(const Compiled&, const TunePoint& p) override {
    order.push_back(p.at(0));
    return p.at(0) == 0 ? 100.0 : 10.0 + static_cast<double>(p.at(0) % 5);
  }
  std::vector<int64_t> order;
};

// With a fake timer (nothing runs): the default first, then the model's order, each
// structure at most a third of the budget; the result is a mapped strategy, its
// header names the device.
TEST(ScheduleGpu, AutoscheduleMeasuresTheDefaultFirst) {
  rise::Program p = load_program("examples/mm/mm.rise");
  AutoscheduleConfig cfg;
  cfg.program = &p;
  cfg.sizes = {{"n", 64}, {"m", 64}, {"k", 64}};
  cfg.target = "opencl";
  cfg.budget = 7;
  cfg.check = false;
  cfg.device = fake_gpu();
  GpuFakeTimer timer;
  AutoscheduleResult r = autoschedule(cfg, timer);
  ASSERT_FALSE(timer.order.empty());
  EXPECT_EQ(timer.order.front(), 0);
  EXPECT_EQ(r.measured.size(), 7u);
  EXPECT_FALSE(r.space.candidates[r.best].is_default);
  EXPECT_NE(r.best_strategy.find("on " + cfg.device.name), std::string::npos) << r.best_strategy;
  EXPECT_NE(r.explanation.find("  mapped:     "), std::string::npos) << r.explanation;
  std::map<std::string, int> per;
  for (const ScheduleMeasurement& m : r.measured)
    if (m.candidate) ++per[r.space.candidates[m.candidate].structure];
  for (const auto& [s, k] : per) EXPECT_LE(k, 2) << s;
  EXPECT_GE(per.size(), 3u);
  // The written strategy compiles to OpenCL with a parallel launch.
  elevate::Strategy s = elevate::parse_strategy_file(
      std::make_shared<SourceFile>(SourceFile{"best.elv", r.best_strategy}));
  CompileRequest req;
  req.program = &p;
  req.sizes = &cfg.sizes;
  req.target = "opencl";
  req.strategy = &s;
  Compiled c = compile(req);
  EXPECT_NE(c.unit.kernel_source.find("get_"), std::string::npos) << c.unit.kernel_source;
}

// A GPU target's record is keyed by the device, never by the CPU.
TEST(ScheduleGpu, TunedKeysGpuRecordsByTheDevice) {
  rise::Program p = load_program("examples/scal/scal.rise");
  const rise::SizeMap sizes = {{"n", 64}};
  for (const std::string target : {"opencl", "cuda"}) {
    const TunedKey k = tuned_key(p, "", sizes, target);
    EXPECT_EQ(k.cpu, gpu_device_key(target));
    EXPECT_NE(k.cpu, cpu_model());
    std::string why;
    if (!probe_gpu_device(target, &why)) {
      EXPECT_EQ(k.cpu.rfind(target == "cuda" ? "no CUDA device (" : "no OpenCL device (", 0), 0u)
          << k.cpu;
    }
  }
  EXPECT_EQ(tuned_key(p, "", sizes, "opencl --no-bounds-checks").cpu, gpu_device_key("opencl"));
  EXPECT_EQ(tuned_key(p, "", sizes, "c").cpu,
            cpu_model() + " (lanes " + std::to_string(machine_lanes()) + ")");
}

}  // namespace
}  // namespace risec::driver
