// OpenMP clauses for parallel loops (see openmp.h).
#include "codegen/openmp/openmp.h"

#include <algorithm>
#include <optional>

#include "codegen/c/c_printer.h"

#include "rise/printer.h"
#include "support/diagnostics.h"

namespace risec::codegen::openmp {

using rise::TypeKind;

Reduction reduction(const rise::PrimitiveInfo& op, const std::string& c_var, const rise::Type& dt,
                    const std::string& vector_c_type, const std::string& min_max_helper) {
  Reduction r;
  // OpenMP's spelling of the reduction operator (its row's omp_reduction column)
  const char* sym = op.omp_reduction;
  if (!min_max_helper.empty() && dt->kind == TypeKind::Scalar) {
    // Float fmin/fmax: OpenMP's min/max combine partial results with a comparison
    // whose result for a NaN operand is unspecified, and start each thread at the
    // least (greatest) value, -inf (inf), which is not fmax's identity when every
    // element is NaN. A declared reduction combines with the C helper (a NaN operand
    // gives the other one, as the interpreter's std::fmax) and starts at NaN, the
    // identity of fmax and fmin: the result is the interpreter's whatever the split.
    r.id = "risec_" + op.name + "_" + rise::scalar_name(dt->scalar) + "_reduction";
    r.declaration = "#pragma omp declare reduction(" + r.id + " : " + scalar_c(dt->scalar) +
                    " : omp_out = " + min_max_helper +
                    "(omp_out, omp_in)) initializer(omp_priv = NAN)\n";
    r.clause = "reduction(" + r.id + ":" + c_var + ")";
    return r;
  }
  if (sym && dt->kind == TypeKind::Scalar) {
    r.clause = "reduction(" + std::string(sym) + ":" + c_var + ")";
    return r;
  }
  bool add = op.is(rise::PrimId::Add);
  if (dt->kind == TypeKind::Vector && (add || op.is(rise::PrimId::Mul))) {
    const std::string& vt = vector_c_type;
    r.id = "risec_" + op.name + "_" + vt;
    r.declaration = "#pragma omp declare reduction(" + r.id + " : " + vt + " : omp_out " + sym +
                    "= omp_in) initializer(omp_priv = " + vt + "_broadcast(" + (add ? "0" : "1") +
                    "))\n";
    r.clause = "reduction(" + r.id + ":" + c_var + ")";
    return r;
  }
  user_error("reducePar over " + rise::print(dt) + " with " + op.name +
             " is not supported by the OpenMP backend");
}

bool collapsible(const dpia::Command& outer) {
  // An outer schedule hands out outer iterations (rows): collapsed, its chunk would
  // count the nest's elements, so a scheduled outer loop stays alone.
  if (outer.reduction || outer.body.empty() || !outer.schedule.is_default()) return false;
  const dpia::CommandP& inner = outer.body[0];
  return inner->kind == dpia::Command::For && inner->loop == dpia::LoopKind::Par &&
         !inner->reduction && !inner->n.is_const(1);
}

std::string schedule_clause(const rise::ParSchedule& s, const arith::Nat& count,
                            const std::string& trips) {
  if (s.is_default()) return "";
  if (s.kind != rise::ParSchedule::Kind::Static || s.chunk <= 0)
    return " schedule(" + rise::schedule_text(s) + ")";
  const std::string chunk = std::to_string(s.chunk);
  if (std::optional<int64_t> n = count.as_const())
    return " schedule(static, " + std::to_string(std::max<int64_t>(1, std::min(*n, s.chunk))) + ")";
  return " schedule(static, (" + trips + ") < " + chunk + " ? ((" + trips + ") > 0 ? (" + trips +
         ") : 1) : " + chunk + ")";
}

std::string parallel_for(const std::string& clause) {
  return "omp parallel for" + clause;
}

}  // namespace risec::codegen::openmp
