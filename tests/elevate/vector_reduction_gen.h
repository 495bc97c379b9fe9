// Random reductions for the tests of vectorizeReduction(n), vectorizeReduction2(n) and
// vectorizeReduction4(n)
// (tests/elevate/vector_reduction_test.cpp rewrites them and compares in the
// interpreter; tests/e2e/vector_reduction_test.cpp compiles them for each target):
// a reduction of add, mul, fmax or fmin (the primitive or a lambda, its operands
// either way round) over a row, the row itself, a function of it or of a zip with a
// second row (pairs), inside a map over the rows, in f32, f64 or (fmax, fmin) i32, of
// any length (one the vectors do not divide, or shorter than them), with NaN among the
// elements of some max and min reductions.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace risec::reduction_gen {

struct ReductionCase {
  std::string program;   // one definition, f, over two arrays rows.len.type
  std::string rule;      // vectorizeReduction, vectorizeReduction2 or vectorizeReduction4
  int64_t width = 0;     // its lanes, w
  int64_t len = 0;       // the reduced length
  int64_t vectors = 0;   // the elements one step of the vector loop reduces (w, 2w or 4w)
  bool exact = false;    // fmax or fmin: the rewrite computes the same values
  std::string describe;  // for failure messages
};

inline ReductionCase random_reduction(std::mt19937& rng, int64_t max_len = 70) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const char* ops[] = {"add", "mul", "fmax", "fmin"};
  const std::string op = ops[pick(4)];
  const bool minmax = op == "fmax" || op == "fmin";
  const std::string type = minmax && pick(4) == 0 ? "i32" : pick(3) == 0 ? "f64" : "f32";
  const bool f32 = type == "f32", i32 = type == "i32";
  // a literal of the type
  auto lit = [&](const std::string& v) {
    if (i32) return v.substr(0, v.find('.'));
    return f32 ? v + "f" : v;
  };
  std::string init;
  if (op == "add") init = lit(pick(2) ? "0.0" : "1.5");
  if (op == "mul") init = lit(pick(2) ? "1.0" : "2.0");
  if (op == "fmax")
    init = i32 ? (pick(2) ? "-1000" : "3") : pick(2) ? (f32 ? "-inff" : "-inf") : lit("0.25");
  if (op == "fmin")
    init = i32 ? (pick(2) ? "1000" : "3") : pick(2) ? (f32 ? "inff" : "inf") : lit("0.75");
  std::string fn;  // the function of an element (v) or of a pair (p)
  const int form = pick(3);
  if (form == 1) {
    if (op == "add") fn = "v * " + lit("2.0") + " - " + lit("1.0");
    if (op == "mul") fn = lit("1.0") + " + v * " + lit("0.01");
    if (minmax)
      fn = i32 ? "v * 3 - 7" : pick(2) ? "sqrt(v - " + lit("0.3") + ")" : "v * v - " + lit("0.25");
  } else if (form == 2) {
    if (op == "add" || minmax) fn = i32 || pick(2) ? "p._1 - p._2" : "p._1 * p._2";
    if (op == "mul") fn = lit("1.0") + " + p._1 * p._2 * " + lit("0.01");
  }
  std::string data = form == 0   ? "rr._1"
                     : form == 1 ? "rr._1 |> map(fun(v => " + fn + "))"
                                 : "zip(rr._1)(rr._2) |> map(fun(p => " + fn + "))";
  std::string opt = op;
  const char* infix = op == "add" ? " + " : op == "mul" ? " * " : nullptr;
  switch (pick(3)) {
    case 1:
      opt = infix ? std::string("fun(a, b => a") + infix + "b)" : "fun(a, b => " + op + "(a, b))";
      break;
    case 2:
      opt = infix ? std::string("fun(a, b => b") + infix + "a)" : "fun(a, b => " + op + "(b, a))";
      break;
    default:
      break;
  }
  ReductionCase c;
  const int64_t w = std::vector<int64_t>{2, 3, 4, 8, 16}[static_cast<size_t>(pick(5))];
  // one accumulator, two or four (a pair of pairs)
  const int accumulators = std::vector<int>{1, 1, 2, 4}[static_cast<size_t>(pick(4))];
  c.len = 1 + static_cast<int64_t>(rng() % static_cast<unsigned>(max_len));
  c.vectors = accumulators * w;
  c.exact = minmax;
  c.rule = accumulators == 1 ? std::string("vectorizeReduction")
                             : "vectorizeReduction" + std::to_string(accumulators);
  c.width = w;
  const std::string arr = std::to_string(1 + pick(3)) + "." + std::to_string(c.len) + "." + type;
  c.program = "def f = fun(xs: " + arr + " => fun(ys: " + arr +
              " => zip(xs)(ys) |> map(fun(rr => " + data + " |> reduce(" + opt + ")(" + init +
              ")))))\n";
  c.describe = c.rule + "(" + std::to_string(w) + ") on " + c.program;
  return c;
}

}  // namespace risec::reduction_gen
