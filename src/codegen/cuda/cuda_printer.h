// The CUDA target's printer: imperative DPIA as one CUDA C++ file (the unit's
// source, OUT.cu) holding the kernels and an extern "C" host function with the C
// target's signature that allocates device buffers, copies the inputs, launches the
// kernels in order, times them with CUDA events and copies the output back; every
// CUDA call's error is checked and reported (RISEC_DEVICE_FAILED: by default a message
// and abort(); in-process code returns with the message recorded). Launches,
// parallel loops, local memory and barriers are the GPU printer's
// (codegen/gpu/gpu_printer.h), the same as OpenCL's; what is CUDA's:
// threadIdx/blockIdx/blockDim/gridDim loops, `__shared__` memory, __syncthreads(),
// vector types (float4, with the operators CUDA lacks) and the host code
// (cuda_host.cpp).
#pragma once

#include <string>
#include <vector>

#include "codegen/gpu/gpu_printer.h"

namespace risec::codegen::cuda {

class CudaPrinter : public gpu::GpuPrinter {
 public:
  using GpuPrinter::GpuPrinter;

  // The unit: source (the .cu file) and header (the C declaration).
  CUnit print_cuda_unit(const std::string& entry_name, const dpia::CommandP& program,
                        const std::string& output, const rise::Type& out_dt,
                        const std::vector<dpia::Input>& inputs,
                        const std::vector<std::string>& sizes);

 protected:
  std::string gpu_name() const override { return "CUDA"; }
  std::string barrier() const override { return "__syncthreads()"; }
  CExpr loop_start(dpia::LoopKind kind, int dim) override;
  CExpr loop_step(dpia::LoopKind kind, int dim) override;
  std::string kernel_array(dpia::Space space, const std::string& elem, const std::string& name,
                           int64_t n) override;
  std::string global_param(const std::string& type, const std::string& name, bool written) override;
  std::vector<std::string> local_memory(const std::vector<LocalArray>& arrays, Launch& l) override;
  std::string kernel_head() const override { return "__global__ void "; }
  bool dual_width_kernels() const override { return true; }
  std::string index_check_helper() override;
  std::string table_declaration(const std::string& elem, const std::string& name, size_t count,
                                const std::string& values) override {
    return "__device__ const " + elem + " " + name + "[" + std::to_string(count) + "] = {" +
           values + "};\n";
  }
  void begin_kernel(const gpu::LaunchInfo& info) override;
  std::string kernel_prefix() const override;
  void before_parallel_loop(const Command& loop, std::vector<CStmtP>& out) override;
  // Its vectors' operators wrap signed lanes themselves (vector_type).
  CExpr vector_bits(CExpr v, const Type&) override { return v; }
  std::string vector_type(const Type& t) override;
  CExpr vector_lane(CExpr v, const Nat& i) override;
  CExpr vector_compare(CExpr cmp, const Type& arg_vt, const Type& mask_t) override;
  CExpr vector_blend(const Type& vt, const std::vector<CExpr>& args) override;
  CExpr mask_reduction(bool all, const Type& mask_t, CExpr m) override;
  CExpr vector_math(const rise::PrimitiveInfo& op, const Type& vt,
                    const std::vector<CExpr>& args) override;

 private:
  std::string host_text(const std::string& sig, const std::string& output, const Type& out_dt,
                        const std::vector<dpia::Input>& inputs,
                        const std::vector<std::string>& sizes);

  std::string vector_text_;  // the vector helpers (float4_load, operators, ...)
  // The kernel being printed is a template over its block size (RISEC_BX, RISEC_BY,
  // RISEC_BZ; 0 for the instance that reads blockDim): its group size is fixed by the
  // program (info_.block).
  gpu::LaunchInfo info_;
  bool block_template_ = false;
};

}  // namespace risec::codegen::cuda
