// The OpenCL target's printer: imperative DPIA as OpenCL C kernels (the unit's
// kernel_source, OUT.cl) and a C host function with the C target's signature (the
// unit's source) that embeds them, creates buffers, sets arguments, launches and
// reads back. It extends the C printer: commands, views and scalar code print as C;
// what differs are the hooks below.
//
// Launch model (docs/targets.md): the program's top-level commands are split into
// launches, one kernel each, run in sequence: a mapGlobal or mapWorkGroup loop at the
// top (with what it contains) is a parallel launch; any other top-level command (a
// sequential computation) is a kernel run by one work item. Allocations at the top
// are global buffers the host creates and passes to the kernels that use them.
// Parallel loops are strided: `for (i = get_global_id(d); i < n; i += get_global_size(d))`
// (get_group_id/get_num_groups, get_local_id/get_local_size likewise), so any
// launch size computes the whole result. Local memory is declared once per kernel
// (`__local`, at kernel scope as OpenCL 1.2 requires), private arrays per work item.
// A barrier follows the outermost mapLocal that writes local memory (other work
// items read it next), precedes one that overwrites local memory read since the last
// barrier, and ends the body of a loop the whole group runs (mapWorkGroup, or a
// sequential loop inside it) whose next iteration would overwrite local memory still
// being read.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "codegen/c/c_printer.h"

namespace risec::codegen::opencl {

class OpenCLPrinter : public CPrinter {
 public:
  using CPrinter::CPrinter;

  // The unit: kernel_source (OpenCL C) and source/header (the C host function).
  CUnit print_opencl_unit(const std::string& entry_name, const dpia::CommandP& program,
                          const std::string& output, const rise::Type& out_dt,
                          const std::vector<dpia::Input>& inputs,
                          const std::vector<std::string>& sizes);

 protected:
  void emit_loop(const Command& loop, std::vector<CStmtP>& out) override;
  CStmtP declare_buffer(const std::string& name, const std::string& elem, const Nat& count,
                        dpia::Space space, dpia::Placement placement, bool restrict_ptr) override;
  CStmtP declare_variable(const std::string& decl, dpia::Space space) override;
  std::string vector_type(const Type& t) override;
  CExpr vector_lane(CExpr v, const Nat& i) override;
  CExpr vector_math(const rise::PrimitiveInfo& op, const Type& vt,
                    const std::vector<CExpr>& args) override;

 private:
  // One kernel launch (see above).
  struct Launch {
    std::string kernel;  // the kernel's name
    CommandP body;
    dpia::LoopKind level = dpia::LoopKind::None;  // Global, WorkGroup, or None: one work item
    std::vector<std::string> memory;              // the buffers it uses (DPIA names), in order
    // Per dimension: the trip counts that size the launch (global threads; work
    // groups and work items per group), as C expressions over the sizes ("" when
    // the program does not say).
    std::string global[3], groups[3], local[3];
    bool has_local[3] = {false, false, false};  // a mapLocal runs in the dimension
    // The fewest work items per group a private array distributed over them needs
    // (dpia/distribute.h), as C expressions ("" when none).
    std::string need_local[3];
    int dims = 1;
  };
  struct HostBuffer {
    std::string name;  // DPIA name
    Type dt;
  };

  void split(const CommandP& c);
  std::string kernel_text(Launch& l, const std::vector<std::string>& sizes);
  void launch_sizes(const CommandP& c, Launch& l);
  std::string host_text(const std::string& entry_name, const std::string& sig,
                        const std::string& output, const Type& out_dt,
                        const std::vector<dpia::Input>& inputs,
                        const std::vector<std::string>& sizes);
  bool touches_local(const Command& c, bool written);
  // The local arrays c writes (or reads).
  std::set<std::string> locals_touched(const Command& c, bool written) const;
  // A barrier: every write and read of local memory so far is synchronised.
  void barrier(std::vector<CStmtP>& out);
  bool group_uniform() const;
  void end_of_group_loop(const Command& loop, std::vector<CStmtP>& body);

  std::vector<Launch> launches_;
  std::vector<HostBuffer> host_buffers_;
  std::set<std::string> size_names_;
  std::set<std::string> local_cnames_;   // __local arrays declared (C names)
  std::set<std::string> local_vars_;     // local arrays of the program (DPIA names)
  std::vector<std::string> host_order_;  // kernel parameter order: output, inputs, buffers
  std::string kernel_source_;
  std::string vector_text_;          // the kernels' vector helpers (float4_load, ...)
  std::string host_vector_text_;     // the host's names for the vector types
  std::vector<CStmtP> local_decls_;  // of the kernel being printed
  // Local memory was read by the group's work items since the last barrier (in the
  // order the kernel is printed).
  bool reads_pending_ = false;
  // Local arrays written by the work items of a group since the last barrier: a
  // barrier comes before the next mapLocal that reads (or rewrites) one of them, so
  // copies of several tiles share one barrier.
  std::set<std::string> unsynced_writes_;
  bool in_kernel_ = false;
  std::vector<const Command*> gpu_loops_;  // the GPU-level loops around the code printed
};

}  // namespace risec::codegen::opencl
