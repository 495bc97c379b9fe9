// The OpenMP printer (see openmp_printer.h).
#include "codegen/openmp/openmp_printer.h"

#include <algorithm>

#include "codegen/openmp/openmp.h"
#include "dpia/interchange.h"
#include "dpia/outline.h"

namespace risec::codegen::openmp {

void OpenMPPrinter::emit_loop(const Command& c, std::vector<CStmtP>& out) {
  // Nested parallel loops run sequentially inside the outer parallel one.
  if (c.loop != dpia::LoopKind::Par || in_parallel_) return CPrinter::emit_loop(c, out);
  // A parallel loop over the columns of a transposed view walks its stores down the
  // columns: swapped, it runs in parallel over the rows with contiguous stores inside.
  if (!c.reduction && c.body[0]->kind == Command::For)
    if (auto swapped = dpia::interchange_for_contiguity(c, accesses(c.body[0]->body[0])))
      return emit_loop(**swapped, out);
  // Split at the borders of padCst/padClamp reads like a sequential loop: a part of
  // one iteration runs in the calling thread, every longer part is a parallel loop.
  // Several longer parts (the interior and a border of two rows) share one parallel
  // region, each an `omp for nowait` (their iterations are disjoint parts of one
  // parallel loop): one fork and one barrier per stage, not one per part.
  if (!c.reduction && !in_region_)
    if (auto parts = dpia::split_at_clamps(
            c, [&](const CommandP& b) { return accesses(b); },
            [&](const std::string& part) { return derived_name(part); }, false)) {
      const auto longer = std::count_if(parts->begin(), parts->end(),
                                        [](const dpia::LoopPart& p) { return !p.len.is_const(1); });
      std::vector<CStmtP> region;
      in_region_ = longer > 1;
      for (const dpia::LoopPart& p : *parts) {
        if (p.len.is_const(1))
          gen_copy(p.body, out);
        else
          emit_loop(
              with_schedule(*dpia::cm_for(p.var, p.len, dpia::LoopKind::Par, p.body), c.schedule),
              in_region_ ? region : out);
      }
      if (in_region_) {
        out.push_back(c_pragma("omp parallel"));
        out.push_back(c_scope(std::move(region)));
      }
      in_region_ = false;
      return;
    }
  std::string v = cname(c.var);
  std::string clause;
  if (c.reduction) clause = " " + reduction_clause(*c.reduction, c.reduction_var);
  // A perfect nest of parallel loops without an outer schedule is collapsed; the
  // nest's schedule is the inner loop's.
  rise::ParSchedule schedule = c.schedule;
  arith::Nat trips = c.n;
  if (clause.empty() && collapsible(c)) {
    clause = " collapse(2)";
    schedule = c.body[0]->schedule;
    trips = c.n * c.body[0]->n;
  }
  const std::string sched = schedule_clause(schedule, trips, nat_expr(trips).text);
  // Inside a region of several parts: a worksharing loop that does not wait.
  const auto pragma = [&](const std::string& clauses) {
    return in_region_ ? "omp for" + clauses + " nowait" : parallel_for(clauses);
  };
  if (clause.empty()) {
    if (CStmtP call = outline_parallel_body(c, v)) {
      out.push_back(c_pragma(pragma(sched)));
      uses_openmp_ = true;
      out.push_back(c_for(v, nat_expr(c.n), {call}, idx_type_));
      return;
    }
  }
  out.push_back(c_pragma(pragma(clause + sched)));
  uses_openmp_ = true;
  in_parallel_ = true;
  std::vector<CStmtP> body;
  gen(c.body[0], body);
  in_parallel_ = false;
  out.push_back(c_for(v, nat_expr(c.n), std::move(body), idx_type_));
}

// `c` (a loop command) with the schedule `s`.
Command OpenMPPrinter::with_schedule(Command c, const rise::ParSchedule& s) {
  c.schedule = s;
  return c;
}

std::string OpenMPPrinter::before_function() {
  std::string s;
  if (!reductions_text_.empty()) s += "#ifdef _OPENMP\n" + reductions_text_ + "#endif\n\n";
  return s + outlined_text_;
}

// `reduction(+:acc)`; vector accumulators get a declared reduction (once).
std::string OpenMPPrinter::reduction_clause(const rise::PrimitiveInfo& op, const std::string& var) {
  const Storage& st = storage_.at(var);
  std::string vt = st.dt->kind == TypeKind::Vector ? vector_type(st.dt) : "";
  std::string min_max;
  const bool fmax = op.is(rise::PrimId::Fmax);
  if ((fmax || op.is(rise::PrimId::Fmin)) && st.dt->kind == TypeKind::Scalar &&
      rise::is_float(st.dt->scalar))
    min_max = float_min_max(fmax, st.dt->scalar);
  openmp::Reduction r = reduction(op, cname(var), st.dt, vt, min_max);
  if (!r.id.empty() && !typedefs_.count(r.id)) {
    typedefs_.insert(r.id);
    reductions_text_ += r.declaration;
  }
  return r.clause;
}

// ------------------------------------------------------------ outlining
// GCC outlines an OpenMP loop body into a function whose pointers lose `restrict`
// (they travel in a struct), which costs the mm ladder a factor of three. So the
// body becomes a static function of its own with restrict parameters, called from
// the parallel loop. Returns null when the body cannot be outlined (it writes a
// scalar declared outside the loop, or uses a data-dependent index).
CStmtP OpenMPPrinter::outline_parallel_body(const Command& loop, const std::string& v) {
  dpia::Captures u = dpia::captures(loop);
  const std::set<std::string>& bound = u.bound;
  std::vector<std::string> params, args;
  params.push_back(idx_type_ + " " + v);
  args.push_back(v);
  for (const std::string& n : u.nats) {
    if (bound.count(n)) continue;
    // A size or loop variable, under its C name (c_names.h); anything else (a
    // data-dependent index) is not passed.
    std::string cn = c_identifier(n);
    if (cn != n && cn != "risec_u_" + n) return nullptr;
    params.push_back(idx_type_ + " " + cn);
    args.push_back(cn);
  }
  std::set<std::string> mem;
  mem.insert(u.read.begin(), u.read.end());
  mem.insert(u.written.begin(), u.written.end());
  for (const std::string& m : mem) {
    if (bound.count(m)) continue;
    auto it = storage_.find(m);
    if (it == storage_.end()) return nullptr;
    const Storage& st = it->second;
    bool written = u.written.count(m) > 0;
    if (st.soa) {  // one array per component: a restrict pointer for each
      for (const SoaPart& p : soa_parts(leaf(st.dt))) {
        params.push_back((written ? "" : "const ") + c_type(p.leaf) + "* restrict " +
                         part_name(m, p.suffix));
        args.push_back(part_name(m, p.suffix));
      }
      continue;
    }
    std::string ty = c_type(st.dt);
    if (st.pointer) {
      params.push_back((written ? "" : "const ") + ty + "* restrict " + cname(m));
      args.push_back(cname(m));
    } else {
      if (written) return nullptr;
      params.push_back(ty + " " + cname(m));
      args.push_back(cname(m));
    }
  }
  std::vector<CStmtP> body;
  bool saved = in_parallel_;
  in_parallel_ = true;
  gen(loop.body[0], body);
  in_parallel_ = saved;
  // A derived name: no parameter of the entry may hide it.
  std::string fn = derived_name(function_name_ + "__par" + std::to_string(++outlined_counter_));
  std::string sig = "static void " + fn + "(";
  for (size_t i = 0; i < params.size(); ++i) sig += (i ? ", " : "") + params[i];
  sig += ")";
  std::string text = print(c_block(body), 1);
  // A size the body does not mention (it only shaped a type) is still passed, and
  // marked used: generated code compiles without warnings under -Wall -Wextra.
  std::string unused;
  for (size_t i = 1; i < args.size() && i < params.size(); ++i)
    if (params[i].rfind(idx_type_ + " ", 0) == 0 && !mentions_identifier(text, args[i]))
      unused += "  (void)" + args[i] + ";\n";
  outlined_text_ += sig + " {\n" + unused + text + "}\n\n";
  std::string call = fn + "(";
  for (size_t i = 0; i < args.size(); ++i) call += (i ? ", " : "") + args[i];
  return c_expr_stmt(call + ")");
}

}  // namespace risec::codegen::openmp
