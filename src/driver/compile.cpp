// The compilation pipeline (see compile.h).
#include "driver/compile.h"

#include <algorithm>

#include "dpia/disjoint_check.h"
#include "dpia/functional.h"
#include "dpia/passes.h"
#include "dpia/target.h"
#include "dpia/translate.h"
#include "driver/bind.h"
#include "driver/commands.h"
#include "driver/memory_check.h"
#include "driver/sizes_from_inputs.h"
#include "elevate/default_lowering.h"
#include "elevate/library.h"
#include "support/words.h"

namespace risec::driver {

namespace {

// The default lowering's limit for simplify (expression nodes of the checked entry).
constexpr size_t kSimplifyNodes = 600;

// Whether e has at most `limit` nodes (counted without recursion: programs may be
// thousands of levels deep).
bool at_most_nodes(const rise::Expr& e, size_t limit) {
  std::vector<rise::Expr> todo = {e};
  size_t n = 0;
  while (!todo.empty()) {
    rise::Expr t = todo.back();
    todo.pop_back();
    if (++n > limit) return false;
    for (const rise::Expr& k : rise::children(t)) todo.push_back(k);
  }
  return true;
}

}  // namespace

elevate::DefaultLowering default_lowering_for(const rise::Expr& high, const std::string& name,
                                              bool simplify) {
  std::optional<dpia::Target> target = dpia::Target::named(name);
  if (!target)
    throw Error(ErrorKind::Usage,
                "unknown target '" + name + "' (available: c, openmp, opencl, cuda)");
  // The default lowering simplifies first (docs/cli.md, --no-simplify), programs of
  // at most kSimplifyNodes nodes: simplify's passes are not linear in the program's
  // length, and long generated chains gain nothing from them.
  const bool small = at_most_nodes(high, kSimplifyNodes);
  // For OpenMP, the map that writes the result runs in parallel when there is one
  // (parallelOutput); on the CPU targets, reductions of up to 25 taps are unrolled, so
  // that the C backend splits the borders off stencils (docs/cli.md "The default
  // lowering"). The unrolling walks the program recursively: small programs only, as
  // simplify.
  elevate::DefaultLowering d;
  d.simplify = simplify && small;
  d.parallel = target->backend == dpia::Target::Backend::OpenMP;
  // For OpenCL and CUDA, the same maps over global threads (compile_default falls back
  // to fewer dimensions, then to none, where compile's checks refuse the mapping). CUDA
  // runs on a GPU: a nest of two parallel maps in two dimensions. An OpenCL device is
  // not known here and is often a CPU (PoCL), where a work item per pixel made stencils
  // ~50x slower than one per row (gaussian 2048^2: 120 ms vs 2.2 ms): one dimension.
  if (target->backend == dpia::Target::Backend::Cuda) d.global_dims = 2;
  if (target->backend == dpia::Target::Backend::OpenCL) d.global_dims = 1;
  const bool cpu = target->backend == dpia::Target::Backend::C ||
                   target->backend == dpia::Target::Backend::OpenMP;
  if (!cpu || !small) d.unroll_taps = 0;
  return d;
}

rise::SizeMap fixed_sizes(const CompileRequest& req) {
  rise::SizeMap sizes;
  if (req.sizes) sizes = *req.sizes;
  if (req.bind && !req.bind->empty())
    sizes_from_inputs(*req.program, req.entry, {}, &sizes, *req.bind, false);
  if (req.bind_arrays && !req.bind_arrays->empty()) {
    const auto& arrays = *req.bind_arrays;
    std::map<std::string, std::string> where;
    for (const auto& [name, a] : arrays) where.emplace(name, bind_given(name, ""));
    sizes_from_shapes(
        *req.program, req.entry, where, [&](const std::string& n) { return arrays.at(n).shape; },
        &sizes, "");
  }
  return sizes;
}

namespace {

// What a type holds that no entry can take or give: functions (held-out M: `xs |>
// map(add)` gave an array of functions, then exit 70) and masks (vec[bool, n], which live
// in registers: inputs and results of them were read and written wrong).
std::string not_exchangeable(const rise::Type& t) {
  if (!t) return "";
  switch (t->kind) {
    case rise::TypeKind::Fun:
    case rise::TypeKind::DepFun:
      return "a function";
    case rise::TypeKind::Vector:
      return rise::is_mask(t) ? "masks (vec[bool, n], which live in registers, not in memory)" : "";
    case rise::TypeKind::Array:
      return not_exchangeable(t->a);
    case rise::TypeKind::Pair: {
      std::string a = not_exchangeable(t->a);
      return a.empty() ? not_exchangeable(t->b) : a;
    }
    default:
      return "";
  }
}

// The entry's parameters and result are data an entry exchanges.
void require_exchangeable(rise::Type t, const Span& span) {
  while (t && t->kind == rise::TypeKind::DepFun) t = t->b;
  int k = 0;
  for (; t && t->kind == rise::TypeKind::Fun; t = t->b, ++k)
    if (std::string what = not_exchangeable(t->a); !what.empty())
      user_error("the entry's parameter " + std::to_string(k + 1) + " (of type " +
                     rise::print(t->a) + ") holds " + what +
                     ": an entry takes and gives arrays, pairs and scalars",
                 span);
  if (std::string what = not_exchangeable(t);
      !what.empty() && t && t->kind != rise::TypeKind::DepFun)
    user_error("the entry's result (of type " + rise::print(t) + ") holds " + what +
                   ": an entry takes and gives arrays, pairs and scalars",
               span);
}

// compile's second half: `out.low`, the entry after the strategy, specialised to the
// bound inputs, translated to DPIA, checked and printed for `target`.
void translate_and_print(const CompileRequest& req, const dpia::Target* target, bool binding,
                         Compiled& out) {
  if (binding) out.low = apply_strategy(elevate::make_strategy("specialise"), out.low, req.trace);
  check_addressable(out.low);

  // Remaining size parameters become int parameters of the C function.
  rise::Expr e = out.low.expr;
  while (e->kind == rise::ExprKind::DepLambda) {
    if (e->binder_kind != rise::Kind::Nat)
      user_error("the entry's type parameter '" + e->name + "' must be given to compile it",
                 e->span);
    out.size_names.push_back(e->name);
    e = e->fn;
  }
  require_exchangeable(out.high.type, e->span);
  // A bare primitive (`def f = split`) keeps implicit parameters ({m: Nat} -> {t: Data}
  // -> ...) that only a use determines (held-out K: an internal error).
  if (e->type && e->type->kind == rise::TypeKind::DepFun)
    user_error("the entry's type has parameters that nothing determines (" + rise::print(e->type) +
                   "): compile a function whose parameters are written with their types, "
                   "e.g. fun(x: (4*n).f32 => x |> split(4))",
               e->span);
  dpia::Phrase f = dpia::from_rise(e, *target);
  dpia::check(f);
  std::vector<dpia::Input> inputs;
  dpia::CommandP prog =
      dpia::remove_dead_temporaries(dpia::translate(f, "output", &inputs, out.size_names));
  dpia::check(prog);
  // Parallel loops write disjoint places, or the program is refused (exit 1).
  dpia::check_disjoint_writes(prog);
  out.dpia = prog;
  rise::Type out_dt = e->type;
  for (size_t i = 0; i < inputs.size(); ++i) out_dt = out_dt->b;
  codegen::CGenOptions opts;
  opts.target = *target;
  opts.bounds_checks = req.bounds_checks;
  opts.profile = req.profile;
  opts.annotate_sources = req.annotate_sources;
  opts.shift_tails = req.shift_tails && (target->backend == dpia::Target::Backend::C ||
                                         target->backend == dpia::Target::Backend::OpenMP);
  // The program's side conditions on symbolic sizes (those the strategy's result
  // needs too, once each), checked when the function is called. A condition on
  // anything but the entry's size parameters cannot be checked there: an error.
  for (const rise::Checked* c : {&out.high, &out.low})
    for (const rise::SideCondition& sc : c->conditions) {
      bool seen = false;
      for (const codegen::SizeCondition& have : opts.size_conditions)
        seen = seen || have.condition.same(sc);
      if (seen) continue;
      arith::Nat n = sc.kind == rise::SideCondition::Kind::Divides
                         ? sc.divides.divisor + sc.divides.dividend
                         : sc.value;
      for (const auto& [name, range] : arith::free_vars(n))
        if (std::find(out.size_names.begin(), out.size_names.end(), name) == out.size_names.end())
          user_error("the program needs " + sc.describe() + " (" + sc.primitive + "), which " +
                         "depends on " + name +
                         ", a size bound inside the program: it cannot be checked when the "
                         "function is called, so the code could read or write out of bounds; "
                         "make the size provably divisible (e.g. by its type)",
                     sc.span);
      std::string what = sc.describe() + " (" + sc.primitive;
      if (sc.span.known()) what += " at " + location(sc.span);
      opts.size_conditions.push_back({sc, what + ")"});
    }
  out.unit =
      codegen::generate_c(out.entry_name, prog, "output", out_dt, inputs, out.size_names, opts);
}

// The default lowering of `base.high` (everything else of `base` done): on the GPU
// targets its mapping over global threads in two dimensions first (CUDA), then in one
// (OpenCL starts here), then none (one work item), the first that compile's checks (disjoint
// writes, address spaces, the nesting the hardware runs) accept; on OpenMP its parallel
// loops, then none where those checks refuse them (held-out finding F2: a result
// written through reverse or split/transpose, whose parallel writes the disjointness
// check cannot prove apart); `chosen` gets the one compiled.
Compiled compile_default(const CompileRequest& req, const dpia::Target* target, bool binding,
                         const Compiled& base, elevate::DefaultLowering* chosen) {
  elevate::DefaultLowering d = default_lowering_for(base.high.expr, req.target, req.simplify);
  // A trace shows the mapping compiled, not the ones refused: found first without it.
  if ((req.trace || req.tracer) && (d.global_dims > 0 || d.parallel)) {
    CompileRequest quiet = req;
    quiet.trace = false;
    quiet.tracer = nullptr;
    compile_default(quiet, target, binding, base, &d);
  }
  for (;;) {
    Compiled out = base;
    try {
      out.low = apply_strategy(elevate::default_lowering(d), out.high, req.trace, req.tracer);
      translate_and_print(req, target, binding, out);
      if (chosen) *chosen = d;
      return out;
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::User || (d.global_dims == 0 && !d.parallel)) throw;
      if (d.global_dims > 0)
        --d.global_dims;
      else
        d.parallel = false;
    }
  }
}

}  // namespace

elevate::DefaultLowering default_lowering_checked(const rise::Checked& high,
                                                  const std::string& name) {
  elevate::DefaultLowering d = default_lowering_for(high.expr, name);
  if (d.global_dims == 0 && !d.parallel) return d;
  std::optional<dpia::Target> target = dpia::Target::named(name);
  CompileRequest req;
  req.target = name;
  Compiled base;
  base.entry_name = "entry";
  base.high = high;
  compile_default(req, &*target, false, base, &d);
  return d;
}

Compiled compile(const CompileRequest& req) {
  std::optional<dpia::Target> target = dpia::Target::named(req.target);
  if (!target)
    throw Error(ErrorKind::Usage,
                "unknown target '" + req.target + "' (available: c, openmp, opencl, cuda)");
  if (req.profile && target->backend != dpia::Target::Backend::C &&
      target->backend != dpia::Target::Backend::OpenMP)
    throw Error(ErrorKind::Usage, "--profile times the stages of the c and openmp targets; on " +
                                      req.target + " `run` reports the kernels' time");
  Compiled out;
  const rise::Program& p = *req.program;
  rise::require_definitions(p);
  out.entry_name = req.entry.empty() ? p.defs.back().name : req.entry;
  // Bound inputs fix the sizes their shapes determine, replace their parameters by
  // their values before the strategy, and are folded into the code after it.
  static const std::map<std::string, std::string> no_files;
  static const BoundArrays no_arrays;
  const auto& files = req.bind ? *req.bind : no_files;
  const auto& arrays = req.bind_arrays ? *req.bind_arrays : no_arrays;
  const bool binding = !files.empty() || !arrays.empty();
  out.sizes = fixed_sizes(req);
  out.high = rise::check_program(p, req.entry, req.sizes || binding ? &out.sizes : nullptr);
  check_addressable(out.high);
  if (binding) out.high = bind_inputs(out.high, files, arrays);
  if (!req.strategy) return compile_default(req, &*target, binding, out, nullptr);
  out.low = apply_strategy(*req.strategy, out.high, req.trace, req.tracer);
  translate_and_print(req, &*target, binding, out);
  return out;
}

}  // namespace risec::driver
