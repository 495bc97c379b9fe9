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
      return cuda::CudaPrinter(options).print_cuda_unit(entry_name, placed, output, out_dt, inputs,
                                                        sizes);
    case dpia::Target::Backend::OpenCL:
      return opencl::OpenCLPrinter(options).print_opencl_unit(entry_name, placed, output, out_dt,
                                                              inputs, sizes);
    case dpia::Target::Backend::OpenMP:
      return openmp::OpenMPPrinter(options).print_unit(entry_name, placed, output, out_dt, inputs,
                                                       sizes);
    case dpia::Target::Backend::C:
      break;
  }
  return CPrinter(options).print_unit(entry_name, placed, output, out_dt, inputs, sizes);
}

}  // namespace risec::codegen
