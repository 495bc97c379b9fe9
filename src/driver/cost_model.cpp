// The autoscheduler's cost model (see cost_model.h).
#include "driver/cost_model.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <thread>

#include <unistd.h>

#include "driver/lane_stride.h"
#include "driver/memory_check.h"
#include "elevate/rule_util.h"
#include "rise/primitives.h"
#include "support/cpu.h"

namespace risec::driver {

namespace {

using rise::Expr;
using rise::ExprKind;

// Weights of the score, in operation units: a loop iteration's overhead (counter,
// branch, index arithmetic), a byte stored and read back. Starting a parallel loop
// costs CostMachine::fork_join_cycles (an operation unit taken as a cycle).
constexpr double kIteration = 0.5;
constexpr double kByte = 0.125;
// A parallel loop's fork and join on 2 threads, in cycles (2.6 a ns), measured by
// bench/autoschedule/forkjoin.sh on the 2-core Xeon (KVM, 2026-11-29): with libgomp's
// default wait policy 0.9 us back to back (the other thread spins; on an overloaded
// machine that spinning thread competes with the one working, and a loop after 300 us
// of sequential work cost milliseconds); under OMP_WAIT_POLICY=passive 3 to 10 us back
// to back and 5 us after sequential work at load 3.6 (62 us at load 12): the sleeping
// thread is woken by the kernel.
constexpr double kForkJoinSpin = 2600;
constexpr double kForkJoinPassive = 13000;
// A stored array that fits a core's L2 cache (a strip's buffer of producer rows,
// schedule_strips.h) is read back from the cache: its bytes cost this fraction.
constexpr double kInCache = 0.25;
// A floating-point division, in operations: a vector division issues one every 4 to 16
// cycles where a multiplication issues two a cycle (reciprocalDivision's gain).
constexpr double kDivision = 8;
// An elementary function (exp, log, tanh, sin, cos, tan, erf, pow), in operations: a
// range reduction and a polynomial, 15 to 30 instructions a value (risec_exp_f32:
// docs/codegen.md), so that a candidate computing one twice (softmax's exponentials
// recomputed where the sum and the output read them) costs what it does.
constexpr double kElementary = 16;
bool elementary(const rise::PrimitiveInfo& p) {
  using rise::PrimId;
  return p.is(PrimId::Exp) || p.is(PrimId::Log) || p.is(PrimId::Tanh) || p.is(PrimId::Sin) ||
         p.is(PrimId::Cos) || p.is(PrimId::Tan) || p.is(PrimId::Erf) || p.is(PrimId::Pow);
}

// A chunk of iterations a dynamic or guided schedule hands out (an atomic counter and
// a call), and the share of a statically scheduled loop's uneven work its slowest
// thread does on top of an even share.
constexpr double kChunk = 20;
constexpr double kImbalance = 0.5;
// The share of the host's vector lanes the C compiler's own vectorisation of a plain
// innermost loop is credited with (GCC prefers 256-bit vectors on AVX-512 hosts; a
// loop's remainder and unaligned ends run on scalars).
constexpr double kAutoVector = 0.5;
// A vector read whose lanes are not consecutive in memory is gathered lane by lane (a
// load and an insert per lane, lane_stride.h): this many operations per lane.
constexpr double kGatherLane = 1;

// Whether the iterations of a loop running `fn` may cost unequal time: fn contains a
// data-dependent loop (iterateWhile), or a select on one bool whose branches (only one
// of which runs) differ by at least half the larger one's work and 16 operations: a
// triangular mask around a reduction, a cheap border beside an expensive inside.
bool uneven_work(const Expr& fn, const CostMachine& m);

// Whether `fn` runs a loop of its own (a map, reduction or scan that is not unrolled, or
// an iterateWhile): the loop around it is then not the innermost.
bool runs_a_loop(const Expr& fn) {
  return rise::any_subexpr(fn, [](const Expr& s) {
    if (s->kind != ExprKind::Primitive || !s->prim) return false;
    const rise::PrimitiveInfo& p = *s->prim;
    if (p.is(rise::PrimId::IterateWhile)) return true;
    return (p.family == rise::Family::Map || p.family == rise::Family::Reduce ||
            p.family == rise::Family::Scan) &&
           p.loop != rise::LoopKind::SeqUnroll;
  });
}

struct Walk {
  const CostMachine& m;
  CostFeatures& f;
  double traffic = 0;    // bytes, divided by the threads that share them
  double divisions = 0;  // floating-point divisions, in operations beyond the one counted
  double gather = 0;     // operations gathering vectors lane by lane (kGatherLane)
  LaneEnv env;           // each enclosing map's parameter: the element it runs over
  // The C compiler's vector width for the scalar arithmetic being visited: above 1
  // inside an innermost map (kAutoVector).
  double autovec = 1;

  // An array of type t written and read back, `trips` times on `div` threads: in the
  // cache when one fits a core's L2 (kInCache).
  void stored(const rise::Type& t, double trips, double div) {
    const double bytes = static_cast<double>(data_bytes(t).value_or(0));
    traffic += 2.0 * bytes * trips / div * (bytes <= static_cast<double>(m.l2) ? kInCache : 1.0);
  }

  // `trips`: how often e runs; `div`: the threads it runs on (1 outside a parallel
  // loop).
  void visit(const Expr& e, double trips, double div) {
    if (e->kind == ExprKind::App) {
      const std::optional<elevate::util::PrimCall> call = elevate::util::as_prim_call(e);
      const rise::PrimitiveInfo* p = call ? call->head->prim : nullptr;
      const std::vector<Expr> args = call ? call->args : std::vector<Expr>{};
      if (p && p->family == rise::Family::Memory && !p->is(rise::PrimId::Let) && args.size() == 1 &&
          args[0]->type) {
        stored(args[0]->type, trips, div);
        visit(args[0], trips, div);
        return;
      }
      // A let's array value is a stage stored whole and read back, as toMem's.
      if (p && p->is(rise::PrimId::Let) && args.size() == 2 && args[0]->type &&
          args[0]->type->kind == rise::TypeKind::Array)
        stored(args[0]->type, trips, div);
      const bool loop = p && (p->family == rise::Family::Map || p->family == rise::Family::Reduce ||
                              p->family == rise::Family::Scan);
      // The array a loop runs over: its data argument, or, for a loop not yet given it
      // (the inner map of mapPar(mapSeq(f)), a point-free nest), its function type's
      // parameter: each call of the function runs the loop.
      rise::Type over;
      if (loop && static_cast<int>(args.size()) == p->arity && args.back()->type &&
          args.back()->type->kind == rise::TypeKind::Array)
        over = args.back()->type;
      else if (loop && !args.empty() && static_cast<int>(args.size()) == p->arity - 1 && e->type &&
               e->type->kind == rise::TypeKind::Fun && e->type->a &&
               e->type->a->kind == rise::TypeKind::Array)
        over = e->type->a;
      if (over) {
        const double n = static_cast<double>(over->size.as_const().value_or(1));
        const bool unrolled = p->loop == rise::LoopKind::SeqUnroll;
        const bool parallel = p->loop == rise::LoopKind::Par && div == 1;
        double inner_div = div;
        if (parallel) {
          inner_div = std::min<double>(m.threads, n);
          f.parallel_regions += trips;
        }
        // An innermost map, sequential or parallel (its function runs no loop: a
        // window's taps unrolled), is a plain loop the C compiler vectorises, once the
        // borders of the windows it reads are split off (taps_step): its arithmetic
        // and iterations on vectors of kAutoVector of the host's lanes.
        const double saved = autovec;
        if (p->family == rise::Family::Map &&
            (p->loop == rise::LoopKind::Seq || p->loop == rise::LoopKind::Par) &&
            !runs_a_loop(args[0]))
          autovec = std::max(1.0, std::floor(static_cast<double>(m.lanes) * kAutoVector));
        f.iterations += trips * n / inner_div * (unrolled ? 0.25 : 1.0) / autovec;
        const double before = f.parallel_ops;
        if (p->family == rise::Family::Reduce && args[0]->kind == ExprKind::Primitive &&
            args[0]->prim &&
            (args[0]->prim->family == rise::Family::Arith ||
             args[0]->prim->family == rise::Family::Math))
          operator_value(trips * n, inner_div);
        if (p->family == rise::Family::Map && args.size() == 2)
          gathered(args[1], trips * n, inner_div);
        const bool binds =
            p->family == rise::Family::Map && args.size() == 2 && args[0]->kind == ExprKind::Lambda;
        std::optional<std::pair<Expr, std::vector<int64_t>>> shadowed;
        if (binds) {
          if (auto b = env.find(args[0]->name); b != env.end()) shadowed = b->second;
          env[args[0]->name] = {args[1], {static_cast<int64_t>(n) / 2}};
        }
        visit(args[0], trips * n, inner_div);
        if (binds) {
          if (shadowed)
            env[args[0]->name] = *shadowed;
          else
            env.erase(args[0]->name);
        }
        autovec = saved;
        if (parallel && inner_div > 1) schedule(*call, n, trips, f.parallel_ops - before, args[0]);
        for (size_t i = 1; i < args.size(); ++i) visit(args[i], trips, div);
        return;
      }
      // select(ok, a * r, a / b) with a scalar condition (reciprocalDivision's guard,
      // decided once outside the loop): C evaluates one branch, and the guard holds
      // for every ordinary divisor, so the multiplication is what runs.
      if (p && p->is(rise::PrimId::Select) && args.size() == 3 &&
          args[0]->kind == rise::ExprKind::Ident && args[0]->type &&
          args[0]->type->kind == rise::TypeKind::Scalar &&
          elevate::util::match_prim(args[2], rise::PrimId::Div, 2)) {
        visit(args[1], trips, div);
        return;
      }
      if (p && (p->family == rise::Family::Arith || p->family == rise::Family::Math) &&
          static_cast<int>(args.size()) == p->arity && e->type) {
        const double lanes = e->type->kind == rise::TypeKind::Vector
                                 ? static_cast<double>(e->type->size.as_const().value_or(1))
                                 : 1.0;
        // A vector operation costs one per register it spans (vectorize(lanes * 2):
        // two); a scalar one in a loop the C compiler vectorises a share of one.
        const double cost =
            (lanes > 1 ? std::max(1.0, std::ceil(lanes / static_cast<double>(m.lanes)))
                       : 1.0 / autovec) *
            (elementary(*p) ? kElementary : 1.0);
        f.ops += trips / div * cost;
        f.elements += trips * lanes / div;
        if (lanes == 1 && autovec == 1) f.ops_scalar += trips / div;
        if (lanes == 1 && autovec > 1) f.autovec_elements += trips / div;
        if (div > 1) f.parallel_ops += trips / div * cost;
        if (p->is(rise::PrimId::Div) &&
            (e->type->kind == rise::TypeKind::Scalar || e->type->kind == rise::TypeKind::Vector) &&
            rise::is_float(e->type->scalar))
          divisions += (kDivision - 1) * trips / div * cost;
        for (const Expr& a : args) visit(a, trips, div);
        return;
      }
    }
    for (const Expr& k : rise::children(e)) visit(k, trips, div);
  }

  // A reduction's operator given as a bare primitive (`reducePar(static, 8)(add)`):
  // one operation per element, in parallel where the loop is. Counted apart from
  // `ops` (which the score reads, and which has never counted them), for the share of
  // the arithmetic in parallel loops that --explain shows.
  void operator_value(double trips, double div) {
    f.operator_ops += trips / div;
    if (div > 1) f.parallel_operator_ops += trips / div;
  }

  // A map over xs whose elements hold vectors, run `runs` times on `div` threads: each
  // of an element's vectors whose lanes are not consecutive (lane_stride) is gathered.
  void gathered(const Expr& xs, double runs, double div) {
    rise::Type t = xs->type ? xs->type->a : nullptr;
    double vectors = 1;
    for (; t && t->kind == rise::TypeKind::Array; t = t->a)
      vectors *= static_cast<double>(t->size.as_const().value_or(1));
    if (!t || t->kind != rise::TypeKind::Vector) return;
    const std::optional<int64_t> stride = lane_stride(xs, env);
    // lanes two apart: two loads and a shuffle (the C backend's _load_even), about a
    // load more than consecutive lanes, not a gather
    if (!stride || *stride == 1) return;
    if (*stride == 2 && t->size.as_const().value_or(0) >= 4) {
      gather += runs * vectors / div * 2;
      return;
    }
    f.gathers += runs * vectors / div;
    gather +=
        runs * vectors / div * static_cast<double>(t->size.as_const().value_or(1)) * kGatherLane;
  }

  // What the schedule of a parallel loop (n iterations, run `trips` times, whose body
  // did `inside` operations per thread) costs: a dynamic or guided one its chunks, the
  // default static one (contiguous blocks) the imbalance of uneven iterations; static
  // with a chunk deals small blocks round-robin, which evens them out.
  void schedule(const elevate::util::PrimCall& loop, double n, double trips, double inside,
                const Expr& fn) {
    const rise::ParSchedule& s = loop.head->schedule;
    using K = rise::ParSchedule::Kind;
    if (s.kind == K::Dynamic) {
      f.chunks += trips * std::ceil(n / static_cast<double>(std::max<int64_t>(1, s.chunk)));
    } else if (s.kind == K::Guided) {
      f.chunks += trips * std::min(n, m.threads * std::log2(n + 1));
    } else if (s.chunk == 0 && uneven_work(fn, m)) {
      f.imbalance += inside;
    }
  }
};

bool uneven_work(const Expr& fn, const CostMachine& m) {
  auto work = [&](const Expr& e) {
    CostFeatures g;
    CostMachine one = m;
    one.threads = 1;
    Walk w{one, g};
    w.visit(e, 1, 1);
    return g.ops + g.iterations;
  };
  std::vector<Expr> todo = {fn};
  while (!todo.empty()) {
    Expr e = todo.back();
    todo.pop_back();
    if (e->kind == ExprKind::Primitive && e->prim && e->prim->is(rise::PrimId::IterateWhile))
      return true;
    if (auto c = elevate::util::as_prim_call(e); c && c->is(rise::PrimId::Select) &&
                                                 c->args.size() == 3 && c->args[0]->type &&
                                                 c->args[0]->type->kind == rise::TypeKind::Scalar) {
      const double a = work(c->args[1]), b = work(c->args[2]);
      if (std::abs(a - b) >= 16 && std::abs(a - b) * 2 >= std::max(a, b)) return true;
    }
    for (const Expr& k : rise::children(e)) todo.push_back(k);
  }
  return false;
}

std::string percent(double x) {
  std::ostringstream s;
  s << static_cast<int>(x * 100 + 0.5) << "%";
  return s.str();
}

}  // namespace

CostMachine host_cost_machine(const std::string& target) {
  CostMachine m;
  m.lanes = machine_lanes();
  m.threads = 1;
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
  if (long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE); l1 > 0) m.l1 = l1;
  if (long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE); l2 > 0) m.l2 = l2;
#endif
  if (target == "openmp") {
    m.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (const char* t = std::getenv("OMP_NUM_THREADS")) {
      const int v = std::atoi(t);
      if (v > 0) m.threads = v;
    }
    // OMP_WAIT_POLICY=passive (any case): idle threads sleep, and each fork wakes them.
    std::string policy = std::getenv("OMP_WAIT_POLICY") ? std::getenv("OMP_WAIT_POLICY") : "";
    for (char& ch : policy) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    m.fork_join_cycles = policy == "passive" ? kForkJoinPassive : kForkJoinSpin;
  }
  return m;
}

CostFeatures estimate_cost(const rise::Checked& lowered, const CostMachine& m, int64_t tile,
                           int inputs) {
  CostFeatures f;
  f.memory = memory_cost(lowered);
  Walk w{m, f};
  w.visit(lowered.expr, 1, 1);
  // The operations run in parallel count a thread's share already (parallel_ops is
  // what each thread does; make it a share of the whole for the fraction).
  const double serial = f.ops - f.parallel_ops;
  const double whole_parallel = f.parallel_ops * m.threads;
  f.parallel_ops = whole_parallel;
  f.ops = serial + whole_parallel;
  f.score = (serial + whole_parallel / m.threads) + kIteration * f.iterations + kByte * w.traffic +
            m.fork_join_cycles * f.parallel_regions + kChunk * f.chunks + kImbalance * f.imbalance +
            w.divisions + w.gather;
  if (tile > 0) {
    f.tile_footprint = tile * tile * 4 * (inputs + 1);
    // A tile whose data leave the L2 cache gains nothing from tiling.
    if (f.tile_footprint > m.l2) f.score *= 1.2;
  }
  f.parallel_operator_ops *= m.threads;
  f.operator_ops = f.operator_ops - f.parallel_operator_ops / m.threads + f.parallel_operator_ops;
  f.reasons.push_back(percent(f.arithmetic_parallel_fraction()) +
                      " of the arithmetic in parallel loops on " + std::to_string(m.threads) +
                      " thread(s)");
  f.reasons.push_back(percent(f.vector_fraction()) + " of the computed values on vectors" +
                      (f.autovec_elements > 0
                           ? " (" + percent(f.autovec_elements / f.elements) +
                                 " in plain inner loops the C compiler vectorises)"
                           : std::string()));
  if (f.gathers > 0)
    f.reasons.push_back(std::to_string(static_cast<int64_t>(f.gathers)) +
                        " vector read(s) gathered lane by lane (lanes not consecutive in memory)");
  f.reasons.push_back(std::to_string(f.memory.stores) + " array(s) stored, " +
                      std::to_string(f.memory.traffic) + " bytes of memory traffic");
  if (tile > 0)
    f.reasons.push_back("a tile's data: " + std::to_string(f.tile_footprint) + " bytes (" +
                        (f.tile_footprint <= m.l1   ? "fits the L1 cache"
                         : f.tile_footprint <= m.l2 ? "fits the L2 cache"
                                                    : "larger than the L2 cache: penalised") +
                        ")");
  if (f.imbalance > 0)
    f.reasons.push_back(
        "a parallel loop's iterations cost unequal time (a select between unequal branches "
        "or a data-dependent loop): its static schedule leaves threads waiting");
  if (f.chunks > 0)
    f.reasons.push_back(std::to_string(static_cast<int64_t>(f.chunks)) +
                        " chunk(s) handed out by a dynamic or guided schedule");
  if (f.parallel_regions > 1)
    f.reasons.push_back(std::to_string(static_cast<int64_t>(f.parallel_regions)) +
                        " parallel loops started (each a fork and join)");
  return f;
}

}  // namespace risec::driver
