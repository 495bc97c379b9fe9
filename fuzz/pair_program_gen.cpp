// The generator of pair-heavy programs (see program_gen.h): a map over an array of
// scalars or pairs whose function computes a value made of scalars and pairs, through
// sequential reductions whose state is such a value (nested in one another), selects
// of whole states, lets of pairs, projections, and, after the map, zips of the pairs
// it produced with an input or a reduction over them. The generator tracks the type
// of every term itself, so each program is well typed by construction.
#include <memory>
#include <vector>

#include "program_gen.h"

namespace risec::fuzz {
namespace {

// A value type made of f32, i32 (counts) and pairs.
struct PTy;
using PTyRef = std::shared_ptr<const PTy>;
struct PTy {
  PTyRef a, b;           // both null: a scalar
  bool integer = false;  // a scalar: i32 rather than f32
  bool scalar() const { return !a; }
};

PTyRef f32() {
  static const PTyRef t = std::make_shared<const PTy>();
  return t;
}

PTyRef i32() {
  static const PTyRef t = std::make_shared<const PTy>(PTy{nullptr, nullptr, true});
  return t;
}

PTyRef pair(PTyRef a, PTyRef b) {
  return std::make_shared<const PTy>(PTy{std::move(a), std::move(b)});
}

bool same(const PTyRef& x, const PTyRef& y) {
  if (x->scalar() || y->scalar()) return x->scalar() && y->scalar() && x->integer == y->integer;
  return same(x->a, y->a) && same(x->b, y->b);
}

class PairGenerator {
 public:
  explicit PairGenerator(FuzzedDataProvider& in) : in_(in) {}

  std::string program() {
    scope_ = {{"alpha", f32()}};
    // the array the outer map runs over, and the type of its elements
    PTyRef ps = pair(f32(), f32());
    std::string src;
    PTyRef elem;
    switch (pick(0, 4)) {
      case 0:
        src = "zip(x)(y)", elem = ps;
        break;
      case 1:
        src = "x", elem = f32();
        break;
      case 2:
        src = "ps", elem = ps;
        break;
      case 3:
        src = "zip(ps)(x)", elem = pair(ps, f32());
        break;
      default:
        src = "zip(x)(zip(y)(x))", elem = pair(f32(), ps);
        break;
    }
    const std::string c = fresh("c");
    PTyRef res = random_type(3);
    scope_.push_back({c, elem});
    std::string body = value(res, 3);
    scope_.pop_back();
    // now and then only a part of the result is kept
    if (!res->scalar() && in_.ConsumeBool()) {
      std::string r = fresh("r");
      scope_.push_back({r, res});
      PTyRef part = pick(0, 1) ? res->a : res->b;
      std::string proj = path_to(r, res, part);
      scope_.pop_back();
      if (!proj.empty()) {
        body = "(" + body + ") |> fun(" + r + " => " + proj + ")";
        res = part;
      }
    }
    std::string out = src + " |> map(fun(" + c + " => " + body + "))";
    out = after_map(out, res);
    return "def generated = depFun((n: Nat, k: Nat) =>\n  fun(x: n.f32 => fun(y: n.f32 => "
           "fun(ps: n.(f32, f32) => fun(alpha: f32 =>\n    " +
           out + ")))))\n";
  }

 private:
  struct Var {
    std::string name;
    PTyRef ty;
  };

  int pick(int lo, int hi) { return in_.ConsumeIntegralInRange<int>(lo, hi); }

  std::string fresh(const char* base) { return base + std::to_string(fresh_++); }

  // A random value type of at most `leaves` scalars.
  PTyRef random_type(int leaves) {
    if (leaves <= 1 || pick(0, 2) == 0) return pick(0, 3) == 0 ? i32() : f32();
    int left = pick(1, leaves - 1);
    return pair(random_type(left), random_type(leaves - left));
  }

  // `v` (of type t) projected down to a part of type `want` ("" when none is).
  std::string path_to(const std::string& v, const PTyRef& t, const PTyRef& want) {
    if (same(t, want)) return v;
    if (t->scalar()) return "";
    bool first = in_.ConsumeBool();
    for (int k = 0; k < 2; ++k, first = !first) {
      std::string p = path_to(v + (first ? "._1" : "._2"), first ? t->a : t->b, want);
      if (!p.empty()) return p;
    }
    return "";
  }

  // A variable in scope (or a part of one) of type t, or "".
  std::string var_of(const PTyRef& t) {
    std::vector<std::string> found;
    for (const Var& v : scope_) {
      std::string p = path_to(v.name, v.ty, t);
      if (!p.empty()) found.push_back(p);
    }
    if (found.empty()) return "";
    return found[pick(0, static_cast<int>(found.size()) - 1)];
  }

  std::string scalar(int depth) {
    if (depth <= 0 || --budget_ <= 0 || pick(0, 3) == 0) {
      std::string v = var_of(f32());
      if (!v.empty() && pick(0, 3) != 0) return v;
      static const char* literals[] = {"0.5f", "2.0f", "1.0f", "0.0f", "-1.5f"};
      return literals[pick(0, 4)];
    }
    switch (pick(0, 7)) {
      case 0:
        return "(" + scalar(depth - 1) + " + " + scalar(depth - 1) + ")";
      case 1:
        return "(" + scalar(depth - 1) + " * " + scalar(depth - 1) + ")";
      case 2:
        return "(" + scalar(depth - 1) + " - " + scalar(depth - 1) + ")";
      case 3:
        return "fmax(" + scalar(depth - 1) + ")(" + scalar(depth - 1) + ")";
      case 4:
        return "select(" + cond(depth - 1) + ")(" + scalar(depth - 1) + ")(" + scalar(depth - 1) +
               ")";
      case 5:
        return "(-" + scalar(depth - 1) + ")";
      case 6:
        return let_in(f32(), depth);
      default:
        return value(f32(), depth);
    }
  }

  // An i32 (a count): a variable, a literal whose type comes from context, a step.
  std::string count(int depth) {
    std::string v = var_of(i32());
    if (depth <= 0 || --budget_ <= 0 || pick(0, 2) == 0)
      return !v.empty() ? v : pick(0, 1) ? "0" : "1";
    switch (pick(0, 2)) {
      case 0:
        return "(" + count(depth - 1) + " + 1)";
      case 1:
        return "select(" + cond(depth - 1) + ")(" + count(depth - 1) + ")(" + count(depth - 1) +
               ")";
      default:
        return "(" + count(depth - 1) + " - " + count(depth - 1) + ")";
    }
  }

  std::string cond(int depth) {
    if (pick(0, 5) == 0) {
      std::string v = var_of(i32());
      if (!v.empty()) return "(" + v + " < " + count(depth - 1) + ")";
    }
    if (depth <= 0 || pick(0, 3) != 0)
      return "(" + scalar(depth - 1) + (in_.ConsumeBool() ? " < " : " > ") + scalar(depth - 1) +
             ")";
    switch (pick(0, 2)) {
      case 0:
        return "(" + cond(depth - 1) + " && " + cond(depth - 1) + ")";
      case 1:
        return "(" + cond(depth - 1) + " || " + cond(depth - 1) + ")";
      default:
        return "!" + cond(depth - 1);
    }
  }

  // let v = (a value of some type) in (a value of type t, which may use v).
  std::string let_in(const PTyRef& t, int depth) {
    PTyRef vt = random_type(3);
    std::string bound = value(vt, depth - 1);
    std::string v = fresh("l");
    scope_.push_back({v, vt});
    std::string body = value(t, depth - 1);
    scope_.pop_back();
    return "(let " + v + " = " + bound + " in " + body + ")";
  }

  // A value of type t.
  std::string value(const PTyRef& t, int depth) {
    if (t->scalar() && t->integer) return count(depth);
    if (depth <= 0 || --budget_ <= 0) {
      std::string v = var_of(t);
      if (!v.empty()) return v;
      if (t->scalar()) return scalar(0);
      return "(" + value(t->a, 0) + ", " + value(t->b, 0) + ")";
    }
    switch (pick(0, 6)) {
      case 0:
      case 1:
        return reduction(t, depth);
      case 2:
        return "select(" + cond(depth - 1) + ")(" + value(t, depth - 1) + ")(" +
               value(t, depth - 1) + ")";
      case 3:
        return let_in(t, depth);
      case 4: {
        std::string v = var_of(t);
        if (!v.empty()) return v;
        break;
      }
      default:
        break;
    }
    if (t->scalar()) return scalar(depth);
    return "(" + value(t->a, depth - 1) + ", " + value(t->b, depth - 1) + ")";
  }

  // A sequential reduction whose state has type t, over an array that does not
  // depend on the outer map's element: a counted loop (generate), an input, a zip.
  std::string reduction(const PTyRef& t, int depth) {
    std::string arr;
    PTyRef elem = f32();
    switch (pick(0, 4)) {
      case 0:
        arr = "generate(fun(" + fresh("i") + ": idx[k] => 0.0f))";
        break;
      case 1:
        arr = "generate(fun(" + fresh("i") + ": idx[" + std::to_string(pick(1, 3)) + "] => 1.0f))";
        break;
      case 2:
        arr = in_.ConsumeBool() ? "x" : "y";
        break;
      case 3:
        arr = "zip(x)(y)", elem = pair(f32(), f32());
        break;
      default:
        arr = "ps", elem = pair(f32(), f32());
        break;
    }
    std::string init = value(t, depth - 2);
    std::string s = fresh("s"), e = fresh("e");
    scope_.push_back({s, t});
    scope_.push_back({e, elem});
    std::string step;
    // Mandelbrot's form: the state advances while a condition on it holds
    if (pick(0, 2) == 0) {
      step = "select(" + cond(depth - 1) + ")(" + value(t, depth - 1) + ")(" + s + ")";
    } else {
      step = value(t, depth - 1);
    }
    scope_.pop_back();
    scope_.pop_back();
    return "(" + arr + " |> reduceSeq(fun(" + s + ", " + e + " => " + step + "))(" + init + "))";
  }

  // What follows the outer map (of elements `res`): nothing, a map of its pairs, a zip
  // with an input, or a reduction with a pair state over it.
  std::string after_map(const std::string& m, const PTyRef& res) {
    switch (pick(0, 4)) {
      case 0: {
        std::string p = fresh("p");
        scope_.push_back({p, res});
        std::string f = value(random_type(2), 2);
        scope_.pop_back();
        return "(" + m + ") |> map(fun(" + p + " => " + f + "))";
      }
      case 1: {  // a zip of the pairs with an input
        std::string q = fresh("q"), p = fresh("p");
        PTyRef zt = pair(res, f32());
        scope_.push_back({p, zt});
        std::string f = value(random_type(2), 2);
        scope_.pop_back();
        return "(let " + q + " = " + m + " in zip(" + q + ")(x) |> map(fun(" + p + " => " + f +
               ")))";
      }
      case 2: {  // an argmax-like reduction over the results, then one element per input
        std::string a = fresh("a"), p = fresh("p"), q = fresh("q");
        if (path_to(p, res, f32()).empty()) return m;  // only counts: no key
        PTyRef st = pair(f32(), res);
        scope_.push_back({a, st});
        scope_.push_back({p, res});
        std::string better = cond(2);
        scope_.pop_back();
        scope_.pop_back();
        std::string init = "(-1000.0f, " + value(res, 0) + ")";
        std::string key = path_to(p, res, f32());
        return "(" + m + ") |> fun(" + q + " => " + q + " |> reduceSeq(fun(" + a + ", " + p +
               " => select(" + better + ")((" + key + ", " + p + "))(" + a + ")))(" + init +
               ") |> fun(" + a + " => " + q + " |> map(fun(" + p + " => (" +
               path_to(p, res, f32()) + " + " + a + "._1, " + a + "._2)))))";
      }
      default:
        return m;
    }
  }

  FuzzedDataProvider& in_;
  std::vector<Var> scope_;
  int fresh_ = 0;
  int budget_ = 60;  // nodes in the whole program
};

}  // namespace

std::string generate_pair_program(FuzzedDataProvider& in) {
  return PairGenerator(in).program();
}

}  // namespace risec::fuzz
