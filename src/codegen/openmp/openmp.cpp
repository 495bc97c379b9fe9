// OpenMP clauses for parallel loops (see openmp.h).
#include "codegen/openmp/openmp.h"

#include "rise/printer.h"
#include "support/diagnostics.h"

namespace risec::codegen::openmp {

using rise::TypeKind;

Reduction reduction(const std::string& op, const std::string& c_var, const rise::Type& dt,
                    const std::string& vector_c_type) {
  Reduction r;
  if (dt->kind == TypeKind::Scalar) {
    std::string sym = op == "add" ? "+" : op == "mul" ? "*" : op == "fmin" ? "min" : "max";
    r.clause = "reduction(" + sym + ":" + c_var + ")";
    return r;
  }
  if (dt->kind == TypeKind::Vector && (op == "add" || op == "mul")) {
    const std::string& vt = vector_c_type;
    r.id = "risec_" + op + "_" + vt;
    r.declaration = "#pragma omp declare reduction(" + r.id + " : " + vt + " : omp_out " +
                    (op == "add" ? "+" : "*") + "= omp_in) initializer(omp_priv = " + vt +
                    "_broadcast(" + (op == "add" ? "0" : "1") + "))\n";
    r.clause = "reduction(" + r.id + ":" + c_var + ")";
    return r;
  }
  user_error("reducePar over " + rise::print(dt) + " with " + op +
             " is not supported by the OpenMP backend");
}

bool collapsible(const dpia::Command& outer) {
  if (!outer.reduction_op.empty() || outer.body.empty()) return false;
  const dpia::CommandP& inner = outer.body[0];
  return inner->kind == dpia::Command::For && inner->loop == dpia::LoopKind::Par &&
         inner->reduction_op.empty() && !inner->n.is_const(1);
}

std::string parallel_for(const std::string& clause) {
  return "omp parallel for" + clause;
}

}  // namespace risec::codegen::openmp
