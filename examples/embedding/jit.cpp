// Compiling and calling a RISE program at run time through the risec C++ API
// (docs/api.md): load saxpy, say how to compute it with a strategy built from the
// library's combinators, generate OpenMP code, compile and load it, call it on our
// own vectors and check the result; then compile with `tuned = true`, which reads a
// tuning database (SQLite, a dependency the package declares). Exits 0 when every
// element is right.
#include <unistd.h>
#include <cmath>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "risec/risec.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s saxpy.rise\n", argv[0]);
    return 2;
  }
  try {
    using namespace risec::strategies;
    risec::Program program = risec::Program::load(argv[1]);
    std::printf("saxpy : %s\n", program.check().type().c_str());

    // (parallel @ outermost(isApplied(isMap))) ; lowerToC
    risec::Strategy is_map_call =
        risec::Strategy::library("isApplied", {risec::Strategy::library("isMap")});
    risec::CompileOptions options;
    options.strategy = outermost(is_map_call, risec::Strategy::library("parallel")) >> lower_to_c();
    options.target = "openmp";
    risec::Kernel saxpy = risec::jit(program, options);

    const int64_t n = 1000;
    float a = 2.0f;
    std::vector<float> x(n), y(n), out(n);
    for (int64_t i = 0; i < n; ++i) {
      x[i] = float(i) / 4;
      y[i] = float(n - i);
    }
    saxpy(out, {risec::Buffer(&a, 1), x, y}, {{"n", n}});
    for (int64_t i = 0; i < n; ++i)
      if (std::fabs(out[i] - (a * x[i] + y[i])) > 1e-4f * std::fabs(a * x[i] + y[i])) {
        std::fprintf(stderr, "jit: element %lld is %g, expected %g\n", (long long)i, out[i],
                     a * x[i] + y[i]);
        return 1;
      }

    // The best strategy `risec tune` recorded, where there is one (docs/tuning.md,
    // "Results reused"): this database has none, so the default lowering is used after
    // a note on stderr. It reads the SQLite database, which the package links.
    const std::string db = (std::filesystem::temp_directory_path() /
                            ("risec-embedding-" + std::to_string(::getpid()) + ".db"))
                               .string();
    std::ofstream(db).flush();  // an empty file is an empty SQLite database
    risec::CompileOptions tuned;
    tuned.tuned = true;
    tuned.tuning_db = db;
    tuned.sizes = {{"n", n}};
    risec::Source untuned = risec::compile(program, tuned);
    std::filesystem::remove(db);
    std::printf("jit: tuned without a record: %s\n", untuned.name().c_str());

    // Errors carry the command line's located messages.
    try {
      risec::Program::parse("def f = fun(x: f32 => x + true)\n", "bad.rise").check();
    } catch (const risec::Error& e) {
      std::printf("as expected:\n%s", risec::format_error(e).c_str());
    }
    std::printf("jit: %lld elements right\n", (long long)n);
    return 0;
  } catch (const risec::Error& e) {
    std::fprintf(stderr, "%s", risec::format_error(e).c_str());
    return risec::exit_code(e.kind());
  }
}
