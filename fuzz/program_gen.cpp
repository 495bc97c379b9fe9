// The generator of well-typed programs (see program_gen.h). Terms are built bottom
// up: a chain starts from a variable in scope and applies steps, each allowed only
// where the current type makes it well typed; the generator tracks the type itself.
#include "program_gen.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace risec::fuzz {
namespace {

// An extent a*n + b.
struct Dim {
  int a = 0;
  int b = 1;
  int at_one() const { return a + b; }  // the smallest value (n = 1)
  bool operator==(const Dim&) const = default;
};

// An array of f32 with these extents, outermost first; no extents: a scalar f32.
struct Ty {
  std::vector<Dim> dims;
  bool scalar() const { return dims.empty(); }
  Ty element() const { return Ty{std::vector<Dim>(dims.begin() + 1, dims.end())}; }
  bool operator==(const Ty&) const = default;
};

struct Term {
  std::string text;  // always safe to use as an operand (parenthesised when needed)
  Ty ty;
};

std::string dim_text(const Dim& d) {
  std::string n = d.a == 1 ? "n" : std::to_string(d.a) + "*n";
  if (d.a == 0) return std::to_string(d.b);
  if (d.b == 0) return d.a == 1 ? n : "(" + n + ")";
  return "(" + n + (d.b > 0 ? "+" : "-") + std::to_string(std::abs(d.b)) + ")";
}

std::string type_text(const Ty& t) {
  std::string s;
  for (const Dim& d : t.dims) s += dim_text(d) + ".";
  return s + "f32";
}

std::string paren(const std::string& s) {
  return "(" + s + ")";
}

class Generator {
 public:
  explicit Generator(FuzzedDataProvider& in) : in_(in) {}

  std::string program() {
    Ty x = random_array(true), y = in_.ConsumeBool() ? x : random_array(false);
    scope_ = {{"x", x}, {"y", y}, {"alpha", Ty{}}};
    Term body = chain(3, pick_var());
    return "def generated = depFun(n: Nat =>\n  fun(x: " + type_text(x) +
           " => fun(y: " + type_text(y) + " => fun(alpha: f32 =>\n    " + body.text + "))))\n";
  }

 private:
  struct Var {
    std::string name;
    Ty ty;
  };

  int pick(int lo, int hi) { return in_.ConsumeIntegralInRange<int>(lo, hi); }

  Dim random_dim(bool with_n) {
    Dim d;
    d.a = with_n ? pick(1, 2) : pick(0, 1);
    d.b = d.a == 0 ? pick(1, 6) : pick(0, 4);
    return d;
  }

  Ty random_array(bool n_outermost) {
    Ty t;
    int rank = pick(1, 3);
    for (int i = 0; i < rank; ++i) t.dims.push_back(random_dim(i == 0 && n_outermost));
    return t;
  }

  Term pick_var() {
    const Var& v = scope_[pick(0, static_cast<int>(scope_.size()) - 1)];
    return {v.name, v.ty};
  }

  std::string fresh(const char* base) { return base + std::to_string(fresh_++); }

  Term chain(int depth, Term t) {
    int steps = pick(0, 4);
    for (int i = 0; i < steps && budget_ > 0; ++i, --budget_) t = step(depth, t);
    return t;
  }

  // A scalar in scope, or a literal.
  std::string scalar_operand() {
    std::vector<std::string> names;
    for (const Var& v : scope_)
      if (v.ty.scalar()) names.push_back(v.name);
    if (!names.empty() && in_.ConsumeBool())
      return names[pick(0, static_cast<int>(names.size()) - 1)];
    static const char* literals[] = {"0.5f", "2.0f", "1.0f", "0.0f", "-3.25f"};
    return literals[pick(0, 4)];
  }

  Term scalar_step(const Term& t) {
    std::string o = scalar_operand();
    switch (pick(0, 7)) {
      case 0:
        return {paren(t.text + " + " + o), t.ty};
      case 1:
        return {paren(t.text + " * " + o), t.ty};
      case 2:
        return {paren(t.text + " - " + o), t.ty};
      case 3:
        return {"fmax(" + t.text + ")(" + o + ")", t.ty};
      case 4: {  // bound once, so that the text does not double
        std::string s = fresh("s");
        return {paren("let " + s + " = " + t.text + " in select(" + s + " > " + o + ")(" + s +
                      ")(" + o + ")"),
                t.ty};
      }
      case 5:
        return {paren("-" + t.text), t.ty};
      case 6: {  // a condition of &&, || and ! (a mask once vectorized)
        std::string s = fresh("s");
        std::string o2 = scalar_operand();
        return {paren("let " + s + " = " + t.text + " in select((" + s + " > " + o + " && !(" + s +
                      " < " + o2 + ")) || " + s + " == " + o2 + ")(" + s + " * " + o2 + ")(" + s +
                      " - " + o + ")"),
                t.ty};
      }
      default:
        return {paren("let " + fresh("s") + " = " + t.text + " in " + o), t.ty};
    }
  }

  // A with-loop over `t` (rank 1 or 2, scalar elements) bound to a fresh name: a
  // modarray, genarray or fold whose main part reads neighbours within its bounds (index
  // arithmetic proven in bounds), with a border part or a step now and then.
  std::optional<Term> with_loop(const Term& t) {
    const size_t rank = t.ty.dims.size();
    if (rank < 1 || rank > 2) return std::nullopt;
    const std::string l = fresh("l");
    std::vector<std::string> idx;
    std::vector<int> lo, hi;
    for (size_t d = 0; d < rank; ++d) {
      idx.push_back(fresh("i"));
      lo.push_back(pick(0, 1));
      hi.push_back(pick(0, 1));
      // the part is not empty for any n >= 1
      if (t.ty.dims[d].at_one() < lo[d] + hi[d] + 1) lo[d] = hi[d] = 0;
    }
    auto bounds = [&](const std::vector<int>& lower, const std::vector<std::string>& upper) {
      std::string lb, ub, ix;
      for (size_t d = 0; d < rank; ++d) {
        lb += (d ? ", " : "") + std::to_string(lower[d]);
        ub += (d ? ", " : "") + upper[d];
        ix += (d ? ", " : "") + idx[d];
      }
      return "([" + lb + "] <= [" + ix + "] < [" + ub + "])";
    };
    auto read = [&](size_t dim, int offset) {
      std::string s = l;
      for (size_t d = 0; d < rank; ++d) {
        std::string i = idx[d];
        if (d == dim && offset > 0) i += " + " + std::to_string(offset);
        if (d == dim && offset < 0) i += " - " + std::to_string(-offset);
        s += "[" + i + "]";
      }
      return s;
    };
    std::string body = read(0, 0);
    for (size_t d = 0; d < rank; ++d) {
      if (lo[d] > 0 && in_.ConsumeBool()) body += " + " + read(d, -1);
      if (hi[d] > 0 && in_.ConsumeBool()) body += " * " + read(d, 1);
    }
    if (in_.ConsumeBool()) body += " - natAsScalar(" + idx[0] + ")";
    std::vector<std::string> upper;
    for (size_t d = 0; d < rank; ++d)
      upper.push_back(dim_text(t.ty.dims[d]) + (hi[d] ? " - " + std::to_string(hi[d]) : ""));
    std::string main = bounds(lo, upper);
    // A step of 2 along a single dimension, where 2 divides the range for every n.
    const Dim& d0 = t.ty.dims[0];
    if (rank == 1 && d0.a % 2 == 0 && (d0.b - lo[0] - hi[0]) % 2 == 0 && in_.ConsumeBool())
      main.insert(main.size() - 1, in_.ConsumeBool() ? " step [2]" : " step [2] width [1]");
    std::string parts = main + " : " + body + ";";
    // The first rows, when the main part leaves them, as a second part.
    if (lo[0] > 0 && in_.ConsumeBool()) {
      std::vector<int> zero(rank, 0);
      std::vector<std::string> up = upper;
      up[0] = std::to_string(lo[0]);
      for (size_t d = 1; d < rank; ++d) zero[d] = lo[d];
      parts = bounds(zero, up) + " : " + scalar_operand() + "; " + parts;
    }
    std::string head = "let " + l + " = " + t.text + " in with { " + parts + " } : ";
    switch (pick(0, 2)) {
      case 0:
        return Term{paren(head + "modarray(" + l + ")"), t.ty};
      case 1: {
        std::string shape;
        for (size_t d = 0; d < rank; ++d) shape += (d ? ", " : "") + dim_text(t.ty.dims[d]);
        return Term{paren(head + "genarray([" + shape + "], " + scalar_operand() + ")"), t.ty};
      }
      default:
        return Term{paren(head + (in_.ConsumeBool() ? "fold(add, 0.0f)"
                                                    : "fold(fun(acc, e => acc * 0.5f + e), 1.0f)")),
                    Ty{}};
    }
  }

  // Vectors of w lanes over a 1-D array (padded at the end, or its first w elements,
  // where w does not divide its length for every n): a mask from comparisons, &&, ||
  // and !, a blend, and any/all of the mask; back to scalars.
  std::optional<Term> masked_vectors(const Term& t) {
    if (t.ty.dims.size() != 1) return std::nullopt;
    const int w = pick(0, 1) ? 4 : 2;
    Dim d0 = t.ty.dims[0];
    std::string src = t.text;
    if (d0.a % w == 0 && d0.b % w != 0) {
      const int pad = w - d0.b % w;
      src = paren(src + " |> padClamp(0)(" + std::to_string(pad) + ")");
      d0.b += pad;
    } else if (d0.a % w != 0) {
      if (d0.at_one() < w) return std::nullopt;
      src = paren(src + " |> take(" + std::to_string(w) + ")");
      d0 = Dim{0, w};
    }
    auto vec = [&](const std::string& s) { return "vectorFromScalar(" + s + ")"; };
    std::string v = fresh("w"), m = fresh("m");
    std::string o1 = scalar_operand(), o2 = scalar_operand(), o3 = scalar_operand();
    std::string mask = "(" + v + " > " + vec(o1) + " && !(" + v + " < " + vec(o2) + ")) || " + v +
                       " == " + vec(o3);
    std::string body = "let " + m + " = " + mask + " in select(" + m + ")(" + v + " * " + vec(o2) +
                       ")(" + v + " - " + vec(o1) + ")";
    if (in_.ConsumeBool())
      body += std::string(" + select(") + (in_.ConsumeBool() ? "any" : "all") + "(" + m + "))(" +
              v + ")(" + vec(o3) + ")";
    return Term{paren(src + " |> asVector(" + std::to_string(w) + ") |> map(fun(" + v + " => " +
                      body + ")) |> asScalar"),
                Ty{{d0}}};
  }

  // The body of a lambda over a fresh variable of type `param`.
  std::pair<std::string, Term> lambda_body(int depth, const Ty& param) {
    std::string v = fresh("v");
    scope_.push_back({v, param});
    Term start = in_.ConsumeIntegralInRange(0, 3) == 0 ? pick_var() : Term{v, param};
    Term body = chain(depth - 1, start);
    scope_.pop_back();
    return {v, body};
  }

  Term step(int depth, const Term& t) {
    if (t.ty.scalar()) return scalar_step(t);
    const Dim d0 = t.ty.dims[0];
    const std::vector<Dim> rest(t.ty.dims.begin() + 1, t.ty.dims.end());
    auto with = [&](std::vector<Dim> outer) {
      outer.insert(outer.end(), rest.begin(), rest.end());
      return Ty{outer};
    };
    switch (pick(0, 14)) {
      case 0:
      case 1: {  // map
        if (depth <= 0) break;
        auto [v, body] = lambda_body(depth, t.ty.element());
        Ty r{{d0}};
        r.dims.insert(r.dims.end(), body.ty.dims.begin(), body.ty.dims.end());
        return {paren(t.text + " |> map(fun(" + v + " => " + body.text + "))"), r};
      }
      case 2: {  // reduce
        if (!rest.empty()) break;
        static const char* ops[] = {"add", "fun(a, b => a + b)", "fmax", "fun(a, b => a * b)"};
        int op = pick(0, 3);
        std::string init = op == 2 ? "-1000.0f" : op == 3 ? "1.0f" : "0.0f";
        return {paren(t.text + " |> reduce(" + ops[op] + ")(" + init + ")"), Ty{}};
      }
      case 3: {  // split
        int k = pick(2, 4);
        if (d0.a % k != 0 || d0.b % k != 0) break;
        return {paren(t.text + " |> split(" + std::to_string(k) + ")"),
                with({Dim{d0.a / k, d0.b / k}, Dim{0, k}})};
      }
      case 4: {  // join
        if (rest.empty() || (d0.a != 0 && rest[0].a != 0)) break;
        Dim d1 = rest[0];
        Dim j = d0.a == 0 ? Dim{d1.a * d0.b, d1.b * d0.b} : Dim{d0.a * d1.b, d0.b * d1.b};
        Ty r{{j}};
        r.dims.insert(r.dims.end(), rest.begin() + 1, rest.end());
        return {paren(t.text + " |> join"), r};
      }
      case 5: {  // transpose
        if (rest.empty()) break;
        Ty r = t.ty;
        std::swap(r.dims[0], r.dims[1]);
        return {paren(t.text + " |> transpose"), r};
      }
      case 6: {  // slide
        int sz = pick(1, 3), sp = pick(1, 2);
        // (sp*m + sz) elements give m+1 windows: only where the count divides evenly.
        if (d0.at_one() < sz || d0.a % sp != 0 || (d0.b - sz) % sp != 0) break;
        Dim windows{d0.a / sp, (d0.b - sz) / sp + 1};
        return {paren(t.text + " |> slide(" + std::to_string(sz) + ")(" + std::to_string(sp) + ")"),
                with({windows, Dim{0, sz}})};
      }
      case 7: {  // pads
        int l = pick(0, 2), r = pick(0, 2);
        Dim p{d0.a, d0.b + l + r};
        std::string lr = "(" + std::to_string(l) + ")(" + std::to_string(r) + ")";
        if (rest.empty() && in_.ConsumeBool())
          return {paren(t.text + " |> padCst" + lr + "(" + scalar_operand() + ")"), with({p})};
        return {paren(t.text + " |> padClamp" + lr), with({p})};
      }
      case 8: {  // take / drop
        int k = pick(1, 3);
        if (d0.at_one() <= k) break;
        if (in_.ConsumeBool())
          return {paren(t.text + " |> take(" + std::to_string(k) + ")"), with({Dim{0, k}})};
        return {paren(t.text + " |> drop(" + std::to_string(k) + ")"), with({Dim{d0.a, d0.b - k}})};
      }
      case 9: {  // zip with an array of the same outer extent, then combine
        std::vector<Var> same;
        for (const Var& v : scope_)
          if (v.ty == t.ty) same.push_back(v);
        // The term is bound once (zipping it with itself must not double the text).
        std::string l = fresh("l");
        std::string other = same.empty() || in_.ConsumeBool()
                                ? l
                                : same[pick(0, static_cast<int>(same.size()) - 1)].name;
        std::string combine = "p._1";
        if (rest.empty()) {
          static const char* ops[] = {"p._1 * p._2", "p._1 + p._2", "p._1 - p._2"};
          combine = ops[pick(0, 2)];
        } else if (in_.ConsumeBool()) {
          combine = "p._2";
        }
        return {paren("let " + l + " = " + t.text + " in zip(" + l + ")(" + other +
                      ") |> map(fun(p => " + combine + "))"),
                t.ty};
      }
      case 10: {  // let
        std::string v = fresh("l");
        scope_.push_back({v, t.ty});
        Term body = chain(depth - 1, Term{v, t.ty});
        scope_.pop_back();
        return {paren("let " + v + " = " + t.text + " in " + body.text), body.ty};
      }
      case 11:
        return {paren(t.text + " |> reverse"), t.ty};
      case 12:
        if (auto w = with_loop(t)) return *w;
        break;
      case 13:
        if (auto m = masked_vectors(t)) return *m;
        break;
      default:
        break;
    }
    // Nothing applied: map a scalar function over the innermost arrays, or stop.
    if (depth > 0 && t.ty.dims.size() == 1) {
      auto [v, body] = lambda_body(1, Ty{});
      if (body.ty.scalar())
        return {paren(t.text + " |> map(fun(" + v + " => " + body.text + "))"), t.ty};
    }
    return t;
  }

  FuzzedDataProvider& in_;
  std::vector<Var> scope_;
  int fresh_ = 0;
  int budget_ = 24;  // steps in the whole program
};

}  // namespace

std::string generate_program(FuzzedDataProvider& in) {
  return Generator(in).program();
}

}  // namespace risec::fuzz
