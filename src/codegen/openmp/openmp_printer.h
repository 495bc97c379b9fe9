// The OpenMP target's printer: the C printer (codegen/c) with parallel loops. It
// overrides how a LoopKind::Par loop is emitted: `#pragma omp parallel for`, with
// `collapse(2)` over a perfect nest of two parallel loops, a `reduction` clause for
// reducePar and a `schedule` clause for a loop ompSchedule scheduled (openmp.h); otherwise the body
// outlined into a static function with `restrict` parameters (the captures come from dpia/outline).
// Nested parallel loops run sequentially inside the outer one. Everything else is printed by
// CPrinter.
#pragma once

#include "codegen/c/c_printer.h"

namespace risec::codegen::openmp {

class OpenMPPrinter : public CPrinter {
 public:
  using CPrinter::CPrinter;

 protected:
  void emit_loop(const Command& loop, std::vector<CStmtP>& out) override;
  // Declared reductions (under #ifdef _OPENMP) and the outlined loop bodies.
  std::string before_function() override;

 private:
  std::string reduction_clause(const rise::PrimitiveInfo& op, const std::string& var);
  CStmtP outline_parallel_body(const Command& loop, const std::string& v);
  static Command with_schedule(Command c, const rise::ParSchedule& s);

  std::string reductions_text_;
  std::string outlined_text_;
  int outlined_counter_ = 0;
  bool in_parallel_ = false;
  bool in_region_ = false;  // printing the parts of a split loop in one parallel region
};

}  // namespace risec::codegen::openmp
