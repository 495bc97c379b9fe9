// The C operator columns of the primitive table (spelling, precedence, wrap-around):
// random expression trees over every row with a C operator (and select, and the
// divisions' guards), on every integer and floating-point type, are compiled to C and
// must compute exactly what the interpreter computes. A wrong spelling, a missing
// parenthesis (a - (b - c) printed as a - b - c), a narrow integer not brought back to
// its type or a signed overflow left to C shows as a mismatch. Floating-point code is
// compiled without contraction (-ffp-contract=off): then C's operators are IEEE's,
// as the interpreter's are, and results are compared bit for bit.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "driver/compile.h"
#include "driver/run.h"
#include "e2e_util.h"
#include "elevate/parser.h"
#include "rise/primitives.h"
#include "rise/scalar_ops.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

using rise::PrimitiveInfo;

struct TypeInfo {
  std::string name;
  bool is_float, is_signed;
};

// Random expressions of one scalar type over q._1, q._2._1, q._2._2 (three inputs).
class OpTrees {
 public:
  OpTrees(uint64_t seed, TypeInfo t, std::set<std::string>& used)
      : rng_(seed), t_(std::move(t)), used_(used) {
    for (const PrimitiveInfo& p : rise::primitives())
      if (p.c_op) ops_.push_back(&p);
  }

  std::string expr(int depth) {
    if (depth <= 0 || pick(6) == 0) return pick(5) == 0 ? lit(1 + pick(9)) : var();
    if (pick(8) == 0)
      return "select(" + cond(depth - 1) + ")(" + expr(depth - 1) + ")(" + expr(depth - 1) + ")";
    for (;;) {
      const PrimitiveInfo& p = *ops_[static_cast<size_t>(pick(static_cast<int>(ops_.size())))];
      if (p.compares() || bool_operand(p)) continue;  // those give bool: cond() uses them
      used_.insert(p.name);
      if (p.arity == 1) return p.name + "(" + expr(depth - 1) + ")";
      return p.name + "(" + expr(depth - 1) + ")(" +
             (faults(p) ? divisor(depth - 1) : expr(depth - 1)) + ")";
    }
  }

 private:
  std::mt19937_64 rng_;
  TypeInfo t_;
  std::set<std::string>& used_;
  std::vector<const PrimitiveInfo*> ops_;

  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  std::string var() {
    static const char* const kVars[] = {"q._1", "q._2._1", "q._2._2"};
    return kVars[pick(3)];
  }
  std::string lit(int v) const {
    if (t_.name == "f32") return std::to_string(v) + ".5f";
    if (t_.name == "f64") return std::to_string(v) + ".25";
    if (t_.name == "i32") return std::to_string(v);
    return std::to_string(v) + t_.name;
  }
  std::string neg_lit(int v) const { return t_.is_float || t_.is_signed ? "-" + lit(v) : lit(v); }
  // A bool: comparisons of expressions, not, comparisons of bools.
  std::string cond(int depth) {
    for (;;) {
      const PrimitiveInfo& p = *ops_[static_cast<size_t>(pick(static_cast<int>(ops_.size())))];
      if (p.compares()) {
        used_.insert(p.name);
        // sometimes two comparisons compared (equality of bools binds looser)
        if (depth > 0 && pick(4) == 0)
          return p.name + "(" + cond(depth - 1) + ")(" + cond(depth - 1) + ")";
        return p.name + "(" + expr(depth) + ")(" + expr(depth) + ")";
      }
      if (bool_operand(p) && depth > 0) {
        used_.insert(p.name);
        return p.name + "(" + cond(depth - 1) + ")";
      }
    }
  }
  // Whether a row's operand is bool (not): it is applied to conditions.
  static bool bool_operand(const PrimitiveInfo& p) {
    rise::Type t = p.type;
    while (t->kind == rise::TypeKind::DepFun) t = t->b;
    return t->kind == rise::TypeKind::Fun && t->a->kind == rise::TypeKind::Scalar &&
           t->a->scalar == rise::ScalarKind::Bool;
  }
  // Whether a row can fail on integers (division, modulo): its divisor is guarded.
  static bool faults(const PrimitiveInfo& p) {
    bool f = false;
    rise::with_op(rise::ScalarOperators{}, p.id, [&]<rise::PrimId Op>() {
      if constexpr (rise::op_defined<Op, int32_t>())
        f = rise::op_fault<Op>(int32_t{1}, int32_t{0}) != rise::OpFault::None;
    });
    return f;
  }
  // A divisor that is never 0 nor -1 (nor near 0 for floats): a literal (C's operator
  // printed directly) or a guarded expression (integers: the checked helper).
  std::string divisor(int depth) {
    if (pick(2) == 0) return pick(3) == 0 ? neg_lit(2 + pick(5)) : lit(2 + pick(6));
    const std::string w = "w" + std::to_string(names_++);
    const std::string lo = t_.is_float ? lit(0) : lit(1);  // 0.5f, 0.25 or 1
    const std::string low = neg_lit(t_.is_float ? 0 : 1);
    const std::string inner = t_.is_float || t_.is_signed
                                  ? "select(lt(" + w + ")(" + low + "))(" + w + ")(" + lit(3) + ")"
                                  : lit(3);
    return expr(depth) + " |> fun(" + w + " => select(gt(" + w + ")(" + lo + "))(" + w + ")(" +
           inner + "))";
  }
  int names_ = 0;
};

std::string program(const std::string& t, const std::string& body) {
  return "def f = depFun(n: Nat => fun(x: n." + t + " => fun(y: n." + t + " => fun(z: n." + t +
         " =>\n  zip(x)(zip(y)(z)) |> map(fun(q =>\n    " + body + "))))))\n";
}

TEST(COperators, RandomOperatorTreesCompileToWhatTheInterpreterComputes) {
  const std::vector<TypeInfo> types = {
      {"i8", false, true},  {"u8", false, false},  {"i16", false, true}, {"u16", false, false},
      {"i32", false, true}, {"u32", false, false}, {"i64", false, true}, {"u64", false, false},
      {"f32", true, false}, {"f64", true, false}};
  std::set<std::string> used;
  for (const TypeInfo& t : types) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      OpTrees gen(std::hash<std::string>{}(t.name) ^ (seed * 0x9E3779B97F4A7C15u), t, used);
      const std::string text = program(t.name, gen.expr(5));
      const std::string path =
          write_scratch("ops_" + t.name + "_" + std::to_string(seed) + ".rise", text);
      SCOPED_TRACE(text);
      try {
        rise::Program prog = driver::load_program(path);
        rise::SizeMap sizes = driver::parse_sizes({"n=96"});
        elevate::Strategy s = elevate::parse_strategy("lowerToC", "<strategy>");
        driver::CompileRequest req;
        req.program = &prog;
        req.sizes = &sizes;
        req.strategy = &s;
        req.target = "c";
        driver::Compiled compiled = driver::compile(req);
        std::vector<rise::Value> inputs = driver::make_inputs(compiled.high, {}, seed);
        driver::ExecOptions eo;
        eo.extra_cflags = {"-ffp-contract=off"};
        driver::Execution run = driver::execute(compiled, sizes, inputs, eo);
        rise::Value expected = driver::interpret(compiled.high, inputs);
        driver::Comparison cmp = driver::compare_values(
            run.output, expected, driver::entry_result_type(compiled.high), 0.0, 0.0);
        EXPECT_TRUE(cmp.ok) << t.name << ": " << cmp.first_mismatch << " (compiled vs "
                            << "interpreter)\n"
                            << compiled.unit.source;
      } catch (const Error& e) {
        ADD_FAILURE() << t.name << ":\n" << format_error(e);
      }
    }
  }
  // every row with a C operator was printed
  for (const PrimitiveInfo& p : rise::primitives()) {
    if (p.c_op) {
      EXPECT_TRUE(used.count(p.name)) << p.name << " never generated";
    }
  }
}

}  // namespace
}  // namespace risec::e2e
