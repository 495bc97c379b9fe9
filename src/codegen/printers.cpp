// Which printer prints which target: the one place a new backend is registered
// (see docs/architecture.md, "Adding a backend").
#include "codegen/c/c_backend.h"
#include "codegen/c/c_printer.h"
#include "codegen/cuda/cuda_printer.h"
#include "codegen/opencl/opencl_printer.h"
#include "codegen/openmp/openmp_printer.h"
#include "dpia/distribute.h"
#include "dpia/memory_placement.h"
#include "dpia/unroll.h"

namespace risec::codegen {

namespace {

// The unit `print` prints with a fresh printer. The printers choose 32-bit indices from
// the program's own index terms (needs_wide_indices); views add terms only as they are
// printed, so every term printed is checked afterwards, and where one may leave `int`
// (or, for 32-bit kernels beside 64-bit ones, has no bound over the sizes) the unit is
// printed again with 64-bit indices.
template <class Printer, class Print>
CUnit print_checked(const CGenOptions& options, const Print& print) {
  if (!options.wide_indices) {
    PrintedNats printed;
    Printer p(options);
    CUnit u = print(p);
    if (!p.narrow_unproven() &&
        (p.index_type() != "int" || printed_terms_narrow(printed.nats(), {}, nullptr)))
      return u;
  }
  CGenOptions wide = options;
  wide.wide_indices = true;
  Printer p(wide);
  return print(p);
}

}  // namespace

CUnit generate_c(const std::string& entry_name, const dpia::CommandP& program,
                 const std::string& output, const rise::Type& out_dt,
                 const std::vector<dpia::Input>& inputs, const std::vector<std::string>& sizes,
                 const CGenOptions& options) {
  // The backend-neutral passes that decide before printing: private arrays
  // distributed over work items shrunk to one work item's part, memory placement,
  // heap arrays hoisted out of sequential loops, then unrolling (copies keep their
  // placement). Index-set splitting needs the indices that views produce, so the
  // printer asks dpia/split_loop as it meets each loop.
  dpia::CommandP placed =
      dpia::unroll(dpia::hoist_allocations(dpia::place_memory(dpia::distribute_private(program))));
  switch (options.target.backend) {
    case dpia::Target::Backend::Cuda:
      return print_checked<cuda::CudaPrinter>(options, [&](cuda::CudaPrinter& p) {
        return p.print_cuda_unit(entry_name, placed, output, out_dt, inputs, sizes);
      });
    case dpia::Target::Backend::OpenCL:
      return print_checked<opencl::OpenCLPrinter>(options, [&](opencl::OpenCLPrinter& p) {
        return p.print_opencl_unit(entry_name, placed, output, out_dt, inputs, sizes);
      });
    case dpia::Target::Backend::OpenMP:
      return print_checked<openmp::OpenMPPrinter>(options, [&](openmp::OpenMPPrinter& p) {
        return p.print_unit(entry_name, placed, output, out_dt, inputs, sizes);
      });
    case dpia::Target::Backend::C:
      break;
  }
  return print_checked<CPrinter>(options, [&](CPrinter& p) {
    return p.print_unit(entry_name, placed, output, out_dt, inputs, sizes);
  });
}

}  // namespace risec::codegen
