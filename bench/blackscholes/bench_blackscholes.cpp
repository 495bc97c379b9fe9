// Black-Scholes (examples/blackscholes) on 2^22 options: risec's scalar and 16-lane
// vector strategies on one core, against a hand-written C loop of the same formula
// compiled through the same runtime path (-O3 -march=native), plus the parallel
// 16-lane strategy on two threads. Last, the default lowering (simplify ; lowerToC)
// on the hand-shared program and on examples/bsnaive (calls and puts as separate maps,
// nothing named), which simplify should bring within 5% of the shared one, and the
// naive program with --no-simplify (lowerToC alone).
//
// The vector strategy's exp, log and erf run as 16-lane loops under `omp simd`
// (RISEC_SIMD_LOOP in the generated C), which GCC turns into calls to glibc's vector
// math library (libmvec, _ZGVeN16v_expf and so on) only when OpenMP SIMD is enabled at
// compile time: -fopenmp, or -fopenmp-simd together with -DRISEC_OMP_SIMD for C
// without OpenMP threads. The benchmark shows the c-target vector code with the
// runtime's default flags and with flags added or undone (CompileOptions::extra_flags
// come last), and lists the libmvec symbols each shared object imports (from its ELF
// dynamic symbol table), so that the effect of each flag is visible in one run.
#include <elf.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "../blas/interleaved.h"
#include "support/diagnostics.h"

namespace {

using risec::bench::Buffer;
using risec::bench::fmt;
using risec::bench::Table;

// The hand-written reference: the formula of examples/blackscholes/blackscholes.rise
// as a C programmer would write it, one option per iteration, (call, put) pairs in
// the output. With RISEC_BENCH_SIMD the loop carries `omp simd`.
const char* kHandSource = R"(
#include <math.h>
static inline float cnd(float x) { return 0.5f * (1.0f + erff(x / sqrtf(2.0f))); }
void bs_hand__risec_call(void* const* b, const int* s) {
  float* out = (float*)b[0];
  const float* S = (const float*)b[1];
  const float* K = (const float*)b[2];
  const float* T = (const float*)b[3];
  const float r = *(const float*)b[4], v = *(const float*)b[5];
  const int n = s[0];
#ifdef RISEC_BENCH_SIMD
#pragma omp simd
#endif
  for (int i = 0; i < n; ++i) {
    float sqrtT = sqrtf(T[i]);
    float d1 = (logf(S[i] / K[i]) + (r + 0.5f * v * v) * T[i]) / (v * sqrtT);
    float d2 = d1 - v * sqrtT;
    float discK = K[i] * expf(-r * T[i]);
    out[2 * i] = S[i] * cnd(d1) - discK * cnd(d2);
    out[2 * i + 1] = discK * cnd(-d2) - S[i] * cnd(-d1);
  }
}
)";

// The names of the libmvec functions (_ZGV...) that a shared object imports, read
// from its ELF dynamic symbol table.
std::string libmvec_imports(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.size() < sizeof(Elf64_Ehdr)) return "?";
  Elf64_Ehdr eh;
  std::memcpy(&eh, data.data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_shoff + size_t(eh.e_shnum) * sizeof(Elf64_Shdr) > data.size())
    return "?";
  std::vector<Elf64_Shdr> sh(eh.e_shnum);
  std::memcpy(sh.data(), data.data() + eh.e_shoff, sh.size() * sizeof(Elf64_Shdr));
  std::string names;
  for (const Elf64_Shdr& s : sh) {
    if (s.sh_type != SHT_DYNSYM || s.sh_link >= sh.size()) continue;
    const Elf64_Shdr& strtab = sh[s.sh_link];
    for (size_t off = s.sh_offset; off + sizeof(Elf64_Sym) <= s.sh_offset + s.sh_size &&
                                   off + sizeof(Elf64_Sym) <= data.size();
         off += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      std::memcpy(&sym, data.data() + off, sizeof sym);
      if (sym.st_shndx != SHN_UNDEF || strtab.sh_offset + sym.st_name >= data.size()) continue;
      std::string name(data.data() + strtab.sh_offset + sym.st_name);
      if (name.rfind("_ZGV", 0) == 0) names += (names.empty() ? "" : " ") + name;
    }
  }
  return names.empty() ? "none" : names;
}

// Uniform values in [lo, hi).
void fill_uniform(const Buffer& b, uint32_t seed, float lo, float hi) {
  risec::bench::fill_random(b, seed);
  for (size_t i = 0; i < b.size(); ++i) b[i] = lo + (hi - lo) * b[i];
}

// max |got - want| / max(|want|, 1): relative for prices of a dollar or more, absolute
// below (a deep out-of-the-money option's price is a tiny difference of large terms).
double max_error(const Buffer& got, const Buffer& want) {
  double m = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double e = std::abs(double(got[i]) - want[i]) / std::max(1.0, std::abs(double(want[i])));
    if (std::isnan(e)) return INFINITY;
    m = std::max(m, e);
  }
  return m;
}

struct Config {
  std::string name;
  std::string strategy;  // examples/blackscholes/*.elv; "" for the hand-written loop
  std::string target;    // c | openmp
  std::vector<std::string> extra_flags;
  std::string threads;                   // for the table
  std::string program = "blackscholes";  // examples/NAME/NAME.rise
  bool default_lowering = false;         // no strategy: the default lowering
  bool simplify = true;                  // ... with simplify first (else --no-simplify)

  bool hand() const { return strategy.empty() && !default_lowering; }
};

std::string join(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : " ") + w;
  return s.empty() ? "(defaults)" : s;
}

}  // namespace

int main(int argc, char** argv) {
  // Read by the OpenMP runtime when it is loaded (with the first OpenMP module). Only
  // the openmp-target variant uses OpenMP; the others are single-threaded C.
  setenv("OMP_NUM_THREADS", "2", 1);

  bool small = argc > 1 && std::string(argv[1]) == "--small";
  const int n = small ? (1 << 16) : (1 << 22);
  const double tol = 1e-3;
  risec::kernel_bench::InterleavedPolicy policy;
  policy.rounds = 5;
  policy.calls_per_turn = 2;
  policy.settle_ms = 50;
  risec::kernel_bench::OtherLoad load;

  // The runtime's defaults (src/runtime/jit.cpp) already enable OpenMP SIMD
  // (-fopenmp-simd -DRISEC_OMP_SIMD, or -fopenmp) and link libmvec. One row turns
  // OpenMP SIMD off again to show what it brings; -fno-math-errno lets GCC vectorise
  // sqrtf (otherwise a scalar call per lane, since sqrtf may set errno).
  const std::vector<std::string> no_simd = {"-fno-openmp-simd", "-URISEC_OMP_SIMD"};
  const std::vector<std::string> no_errno = {"-fno-math-errno"};
  const std::string dir = "examples/blackscholes/";
  const std::vector<Config> configs = {
      {"risec scalar.elv", dir + "scalar.elv", "c", {}, "1"},
      {"risec vector16.elv", dir + "vector16.elv", "c", no_simd, "1"},
      {"risec vector16.elv", dir + "vector16.elv", "c", {}, "1"},
      {"risec vector16.elv", dir + "vector16.elv", "c", no_errno, "1"},
      {"hand-written C loop (reference)", "", "c", {}, "1"},
      {"hand-written C loop, omp simd", "", "c", {"-DRISEC_BENCH_SIMD", "-ffast-math"}, "1"},
      {"risec parallel_vector16.elv", dir + "parallel_vector16.elv", "openmp", {}, "2"},
      {"risec parallel_vector16.elv", dir + "parallel_vector16.elv", "openmp", no_errno, "2"},
      {"risec default lowering, shared", "", "c", {}, "1", "blackscholes", true},
      {"risec default lowering, bsnaive", "", "c", {}, "1", "bsnaive", true},
      {"risec --no-simplify, bsnaive", "", "c", {}, "1", "bsnaive", true, false},
  };

  std::printf("# Black-Scholes: risec scalar vs 16-lane vectors vs hand-written C\n\n");
  std::printf(
      "machine: %s; n = %d options (S, K in [10, 100), T in [0.1, 2) years, r = 0.02, "
      "v = 0.3); variants interleaved: %d rounds of 1 untimed + %d timed calls each, "
      "median; error: max |x - ref| / max(|ref|, 1) against the hand-written loop "
      "(tolerance %.0e); C compiled by the runtime: -O3 -march=native "
      "-ffp-contract=fast -std=c99, -fopenmp (openmp) or -fopenmp-simd (c), "
      "-DRISEC_OMP_SIMD, then the extra flags shown\n\n",
      risec::bench::machine_description().c_str(), n, policy.rounds, policy.calls_per_turn, tol);
  std::fflush(stdout);

  try {
    Buffer S(n), K(n), T(n);
    fill_uniform(S, 11, 10.0f, 100.0f);
    fill_uniform(K, 12, 10.0f, 100.0f);
    fill_uniform(T, 13, 0.1f, 2.0f);
    float r = 0.02f, v = 0.3f;
    std::map<std::string, risec::rise::Program> programs;
    for (const char* name : {"blackscholes", "bsnaive"})
      programs[name] = risec::driver::load_program(
          risec::bench::source_path(std::string("examples/") + name + "/" + name + ".rise"));
    risec::rise::SizeMap sizes{{"n", n}};

    std::vector<risec::runtime::Module> modules;
    std::vector<std::string> imports;
    std::vector<Buffer> outputs;
    for (const Config& c : configs) {
      risec::runtime::CompileOptions opts;
      opts.openmp = c.target == "openmp";
      opts.extra_flags = c.extra_flags;
      if (c.hand()) {
        modules.push_back(risec::runtime::jit_compile(kHandSource, "bs_hand", opts));
      } else {
        std::optional<risec::elevate::Strategy> s;
        if (!c.default_lowering)
          s = risec::driver::load_strategy(risec::bench::source_path(c.strategy));
        risec::driver::CompileRequest req;
        req.program = &programs.at(c.program);
        req.sizes = &sizes;
        req.strategy = s ? &*s : nullptr;
        req.simplify = c.simplify;
        req.target = c.target;
        risec::driver::Compiled compiled = risec::driver::compile(req);
        modules.push_back(
            risec::runtime::jit_compile(compiled.unit.source, compiled.unit.name, opts));
      }
      imports.push_back(libmvec_imports(modules.back().path()));
      outputs.emplace_back(size_t(2) * n);
    }

    // The generated entries take no size arguments (they are specialised to n); the
    // hand-written one takes n.
    std::vector<risec::kernel_bench::Turn> variants;
    for (size_t i = 0; i < configs.size(); ++i) {
      std::vector<int> args;
      if (configs[i].hand()) args.push_back(n);
      const risec::runtime::Module* m = &modules[i];
      const Buffer* out = &outputs[i];
      variants.push_back({configs[i].name, [=, &S, &K, &T, &r, &v] {
                            m->call({out->data(), S.data(), K.data(), T.data(), &r, &v}, args);
                          }});
    }
    std::vector<risec::bench::Timing> t = risec::kernel_bench::time_interleaved(variants, policy);

    const size_t scalar = 0, reference = 4;
    Table table({"variant", "threads", "extra C flags", "libmvec calls", "median (ms)", "min (ms)",
                 "Moptions/s", "speedup vs risec scalar", "max error"});
    bool ok = true;
    for (size_t i = 0; i < configs.size(); ++i) {
      double err = max_error(outputs[i], outputs[reference]);
      std::string e = fmt("%.1e", err);
      if (!(err <= tol)) {
        e += " FAIL";
        ok = false;
      }
      table.add({configs[i].name, configs[i].threads, join(configs[i].extra_flags), imports[i],
                 fmt("%.2f", t[i].median_s * 1e3), fmt("%.2f", t[i].min_s * 1e3),
                 fmt("%.1f", n / t[i].median_s * 1e-6),
                 fmt("%.2f", t[scalar].median_s / t[i].median_s), e});
    }
    table.print();
    std::printf(
        "\nother processes kept %.2f of the 2 CPUs busy during the run (0: quiet "
        "machine)\n",
        load.cpus());
    if (!ok) {
      std::printf("\nRESULTS DISAGREE (tolerance %.0e)\n", tol);
      return 1;
    }
  } catch (const risec::Error& e) {
    std::fprintf(stderr, "%s\n", risec::format_error(e).c_str());
    return 1;
  }
  return 0;
}
