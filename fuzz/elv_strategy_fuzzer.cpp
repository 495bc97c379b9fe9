// Fuzz target: the .elv strategy parser and the evaluation of the strategy it makes,
// applied to four fixed small programs: scal with a symbolic size, mm at 8x8x8, the
// with-loop Game of Life at 9x7 and the masked Mandelbrot at 16 points (2 blocks).
// Invariants: only user-facing errors; a strategy that succeeds yields a program that
// type-checks again with the same type and, for the programs of fixed sizes, computes
// the same results on random inputs. The work of one run is bounded by counting rule applications.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "elevate/parser.h"
#include "elevate/strategy.h"
#include "fuzz_util.h"
#include "rise/check.h"
#include "rise/interp.h"
#include "rise/parser.h"
#include "rise/printer.h"
#include "support/random.h"

using namespace risec;

namespace {

constexpr int kMaxRuleApplications = 2000;
struct OutOfBudget {};

rise::Checked load(const std::string& name, const rise::SizeMap* sizes) {
  const std::string path =
      std::string(RISEC_SOURCE_DIR) + "/examples/" + name + "/" + name + ".rise";
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  rise::Program p = rise::parse_program(fuzz::source(path, ss.str()));
  return rise::check_program(p, "", sizes);
}

void apply(const elevate::Strategy& s, const rise::Checked& c, bool compare,
           const std::string& text) {
  int steps = 0;
  elevate::Tracer tracer;
  tracer.on_rule = [&](const std::string&, const rise::Expr&, const rise::Expr&) {
    if (++steps > kMaxRuleApplications) throw OutOfBudget{};
  };
  elevate::Env env;
  env.tracer = &tracer;
  elevate::Result r(c.expr);
  try {
    r = s(c.expr, env);
  } catch (const OutOfBudget&) {
    return;
  }
  if (!r.ok() || r.expr() == c.expr) return;
  rise::Checked again;
  try {
    again = rise::infer_expr(r.expr());
  } catch (const Error& e) {
    fuzz::bug("the rewritten program does not type-check: " + e.message() + "\n" +
                  rise::print_expr(r.expr()),
              text);
  }
  if (!rise::equal(again.type, c.type))
    fuzz::bug("the rewrite changed the type to " + rise::print(again.type), text);
  if (!compare) return;
  std::string where;
  if (!rise::values_close(rise::run_on_random_inputs(c.expr, 1),
                          rise::run_on_random_inputs(r.expr(), 1), 1e-3, 1e-3, &where))
    fuzz::bug("the rewrite changed the results: " + where + "\n" + rise::print_expr(r.expr()),
              text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const rise::SizeMap mm_sizes = {{"n", 8}, {"m", 8}, {"k", 8}};
  static const rise::Checked scal = load("scal", nullptr);
  static const rise::Checked mm = load("mm", &mm_sizes);
  static const rise::SizeMap life_sizes = {{"n", 9}, {"m", 7}};
  static const rise::Checked life = load("life", &life_sizes);
  static const rise::SizeMap mandelbrot_sizes = {{"n", 16}, {"b", 2}};
  static const rise::Checked mandelbrot = load("mandelbrot", &mandelbrot_sizes);
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::guarded(text, [&] {
    elevate::Strategy s = elevate::parse_strategy_file(fuzz::source("fuzz.elv", text));
    apply(s, scal, false, text);
    apply(s, mm, true, text);
    apply(s, life, true, text);
    apply(s, mandelbrot, true, text);
  });
  return 0;
}
