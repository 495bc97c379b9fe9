// What the GPU targets (OpenCL, CUDA) print alike: imperative DPIA split into kernel
// launches, strided parallel loops, local (shared) memory declared once per kernel,
// private arrays per work item, barriers, and the launch sizes the host function
// uses. It extends the C printer: commands, views and scalar code print as C. The
// two printers (codegen/opencl, codegen/cuda) differ only in the hooks below (the
// spelling of ids, barriers, address spaces and kernel heads) and in their host code.
//
// Launch model (docs/targets.md): the program's top-level commands are split into
// launches, one kernel each, run in sequence: a mapGlobal or mapWorkGroup loop at the
// top (with what it contains) is a parallel launch; any other top-level command (a
// sequential computation) is a kernel run by one work item. Allocations at the top
// are global buffers the host creates and passes to the kernels that use them.
// Parallel loops are strided: `for (i = <id>(d); i < n; i += <size>(d))` over global
// ids, work groups or work items in a group, so any launch size computes the whole
// result. Local memory is declared once per kernel (at kernel scope), private arrays
// per work item.
// Barriers: the local memory an outermost mapLocal writes (other work items read it
// later) is synchronised before the next mapLocal that reads or rewrites it, so copies
// of several tiles share one barrier; a barrier also precedes a mapLocal that
// overwrites local memory read since the last barrier, and ends the body of a loop the
// whole group runs (mapWorkGroup, or a sequential loop inside it) when writes are not
// yet synchronised or its next iteration would overwrite local memory still being read.
// A private array distributed over the work items (dpia/distribute.h) sizes the group
// by its distributing mapLocals, and the host stops when fewer work items are launched.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "codegen/c/c_printer.h"

namespace risec::codegen::gpu {

// The host's failure report and launch-size helpers (C, also valid C++):
// risec_device_failf(format, ...) reports a failure of the device or its runtime through
// RISEC_DEVICE_FAILED(what) (by default the message and abort(); in-process code records
// it, runtime::with_fault_recording) and returns 1; risec_env_size(var, d) reads
// entry d of "N,M,..." in $var; risec_launch_size(global_var, local_var, dims, global,
// local, need, grouped, max_group, max_items) applies those overrides to the program's
// sizes, clamps the group to what the device allows (halving its widest dimension)
// and rounds the global size up to whole groups; it fails (-1) when a group has fewer
// than need[d] work items (a distributed private array's), and returns whether there
// is a group size (grouped, or one given in $local_var). With NULL variables (a kernel
// run by one work item, which has no strided loop) nothing overrides the sizes.
extern const char* const kLaunchSizeHelpers;
// The most work items (or work groups) risec_launch_size launches in a dimension: the
// largest step of a strided parallel loop.
inline constexpr int64_t kMaxStride = int64_t{1} << 30;

// OpenCL's name of a number type in its vector types (float for float4, long for
// long2, ...), or null for other types; CUDA's are the same but for 64-bit integers.
const char* vector_scalar(rise::ScalarKind k);

// What a kernel's printing may depend on: the work items per group its launch has
// by default in each dimension, when the program fixes them (0: it does not, or the
// launch has no groups).
struct LaunchInfo {
  int64_t block[3] = {0, 0, 0};
};

class GpuPrinter : public CPrinter {
 public:
  explicit GpuPrinter(const CGenOptions& opts) : CPrinter(opts) { soa_arrays_ = false; }

 protected:
  // ---- hooks of the kernel language
  // "OpenCL", "CUDA": for messages.
  virtual std::string gpu_name() const = 0;
  // The barrier statement of a work group (without `;`).
  virtual std::string barrier() const = 0;
  // The first index and the stride of a parallel loop of `kind` in dimension `dim`.
  virtual CExpr loop_start(dpia::LoopKind kind, int dim) = 0;
  virtual CExpr loop_step(dpia::LoopKind kind, int dim) = 0;
  // The declaration of an array of `n` elements in local (once per kernel) or
  // private memory (per work item), without `;`.
  virtual std::string kernel_array(dpia::Space space, const std::string& elem,
                                   const std::string& name, int64_t n) = 0;
  // A kernel parameter pointing to global memory of element type `type`.
  virtual std::string global_param(const std::string& type, const std::string& name,
                                   bool written) = 0;
  // What precedes the kernel's name and parameters ("__kernel void ").
  virtual std::string kernel_head() const = 0;
  // Called before a kernel's body is printed (its launch sizes known), and what
  // precedes its name (kernel_head() unless a target adds to it).
  virtual void begin_kernel(const LaunchInfo& info) { (void)info; }
  virtual std::string kernel_prefix() const { return kernel_head(); }
  // Statements before a parallel loop (a pragma).
  virtual void before_parallel_loop(const Command& loop, std::vector<CStmtP>& out) {
    (void)loop;
    (void)out;
  }
  // Whether a program with symbolic sizes gets each kernel twice: with 32-bit index
  // arithmetic (`int`: 64-bit integer arithmetic is emulated, and slow, on GPUs) and
  // with int64_t (NAME_kK_i64), the host choosing by its sizes (narrow_bounds_).
  // CUDA does (its helpers are overloaded for both); OpenCL keeps int64_t (`long`).
  virtual bool dual_width_kernels() const { return false; }
  // The kernel parameter (last) through which a kernel that checks indices reports a
  // failure to the host (OpenCL: a small buffer); "" when the target has none.
  virtual std::string fault_param() const { return ""; }

  // ---- C printer hooks, the same for both
  void emit_loop(const Command& loop, std::vector<CStmtP>& out) override;
  CStmtP declare_buffer(const std::string& name, const std::string& elem, const Nat& count,
                        dpia::Space space, dpia::Placement placement, bool restrict_ptr) override;
  CStmtP declare_variable(const std::string& decl, dpia::Space space) override;

  // One kernel launch (see above).
  struct Launch {
    std::string kernel;       // the kernel's name (NAME_kK, unless a parameter has that name)
    std::string kernel_wide;  // its int64_t instance's (NAME_kK_i64), with dual_width_
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
    // Bytes of dynamic local (shared) memory the launch needs, as a C expression; ""
    // when its local arrays are static.
    std::string dynamic_local;
    std::string dynamic_local_names;  // those arrays, for messages
    // Bytes of the private arrays a work item declares (8 an element, as memory
    // placement counts them): a mapGlobal launch with many gets a group size of its own
    // (shape), as a platform choosing thousands of work items a group could give their
    // copies more memory than a CPU device's stack has.
    int64_t private_bytes = 0;
    LaunchInfo info;
    bool fault = false;  // it checks indices: its last parameter is fault_param()
  };
  // A kernel's local arrays, in the order they are declared.
  struct LocalArray {
    std::string elem, name;
    int64_t n = 0;
  };
  // The declarations (without `;`) of a kernel's local arrays; the default declares
  // each with kernel_array. May set l.dynamic_local (CUDA, above 48 KiB).
  virtual std::vector<std::string> local_memory(const std::vector<LocalArray>& arrays, Launch& l);
  // A temporary between launches (its storage_ says its type and layout).
  struct HostBuffer {
    std::string name;  // DPIA name
  };
  // The launch size of `l` for the host, per dimension, as C expressions of type
  // size_t: global work items (grouped: groups times items per group) and items per
  // group. Work items per group are the mapLocal's length, 64 where it depends on
  // more than the sizes (any number is correct: the loops are strided). need: the
  // fewest work items per group the launch runs correctly with ("0": any).
  struct Shape {
    std::string global[3], local[3], need[3];
    bool grouped = false;
    int dims = 1;
  };
  static Shape shape(const Launch& l);

  // Binds the parameters, splits `program` into launches_ (named NAME_kK) and prints
  // their kernels, which it returns; sets u.name.
  std::string kernels(CUnit& u, const std::string& entry_name, const dpia::CommandP& program,
                      const std::string& output, const rise::Type& out_dt,
                      const std::vector<dpia::Input>& inputs,
                      const std::vector<std::string>& sizes);
  // The device buffers of buffer `m` (the output, an input or a temporary between
  // launches): one per component where it is stored so (CPrinter::buffer_parts), each
  // a kernel parameter of its own.
  struct DeviceBuffer {
    std::string name;   // risec_b_NAME, risec_b_NAME_1, ...
    std::string elem;   // the C element type
    std::string bytes;  // its size, a C expression of type size_t
    std::string host;   // its part of the output's or an input's host memory
  };
  std::vector<DeviceBuffer> device_buffers(const std::string& m);
  // Every device buffer of the unit (output, inputs, temporaries), in host_order_.
  std::vector<DeviceBuffer> all_device_buffers();
  // The name of the static variable holding the byte size of buffer b's allocation.
  static std::string kept_size(const DeviceBuffer& b);
  // The header's declarations of NAME__risec_release and NAME__risec_buffers_created:
  // the device buffers are kept between calls (see docs/architecture.md).
  std::string header_declarations(const std::string& fn) override;

  std::vector<Launch> launches_;
  std::vector<HostBuffer> host_buffers_;
  // When the kernels come in both widths (dual_width_kernels): the quantities over the
  // sizes that must stay below 2^31 for the 32-bit kernels (narrow_index_bounds);
  // empty when there is one width.
  std::vector<Nat> narrow_bounds_;
  bool dual_width_ = false;
  std::vector<std::string> host_order_;  // kernel parameter order: output, inputs, buffers

 private:
  void split(const CommandP& c);
  std::string kernel_text(Launch& l, const std::string& name,
                          const std::vector<std::string>& sizes);
  void launch_sizes(const CommandP& c, Launch& l);
  bool touches_local(const Command& c, bool written) const;
  // The local arrays c writes (or reads).
  std::set<std::string> locals_touched(const Command& c, bool written) const;
  // A barrier: every write and read of local memory so far is synchronised.
  void synchronise(std::vector<CStmtP>& out);
  bool group_uniform() const;
  void end_of_group_loop(const Command& loop, std::vector<CStmtP>& body);

  std::set<std::string> size_names_;
  std::set<std::string> local_cnames_;    // local arrays declared (C names)
  std::set<std::string> local_vars_;      // local arrays of the program (DPIA names)
  std::vector<CStmtP> local_decls_;       // of the kernel being printed
  std::vector<LocalArray> local_arrays_;  // of the kernel being printed
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

}  // namespace risec::codegen::gpu
