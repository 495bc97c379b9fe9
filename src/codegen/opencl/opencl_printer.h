// The OpenCL target's printer: imperative DPIA as OpenCL C kernels (the unit's
// kernel_source, OUT.cl) and a C host function with the C target's signature (the
// unit's source) that embeds them, creates buffers, sets arguments, launches and
// reads back. Launches, parallel loops, local memory and barriers are the GPU
// printer's (codegen/gpu/gpu_printer.h); what is OpenCL's: get_global_id and its
// kin, `__local`, barrier(CLK_LOCAL_MEM_FENCE), vector types (float4, vload4) and
// the host function (opencl_host.cpp).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "codegen/gpu/gpu_printer.h"

namespace risec::codegen::opencl {

class OpenCLPrinter : public gpu::GpuPrinter {
 public:
  using GpuPrinter::GpuPrinter;

  // The unit: kernel_source (OpenCL C) and source/header (the C host function).
  CUnit print_opencl_unit(const std::string& entry_name, const dpia::CommandP& program,
                          const std::string& output, const rise::Type& out_dt,
                          const std::vector<dpia::Input>& inputs,
                          const std::vector<std::string>& sizes);

 protected:
  std::string gpu_name() const override { return "OpenCL"; }
  std::string barrier() const override { return "barrier(CLK_LOCAL_MEM_FENCE)"; }
  CExpr loop_start(dpia::LoopKind kind, int dim) override;
  CExpr loop_step(dpia::LoopKind kind, int dim) override;
  std::string kernel_array(dpia::Space space, const std::string& elem, const std::string& name,
                           int64_t n) override;
  std::string global_param(const std::string& type, const std::string& name, bool written) override;
  std::string kernel_head() const override { return "__kernel void "; }
  std::string fault_param() const override { return "__global long* risec_fault"; }
  std::string index_check_helper() override;
  std::string division_fault_param() const override { return fault_param(); }
  std::string table_declaration(const std::string& elem, const std::string& name, size_t count,
                                const std::string& values) override {
    return "__constant " + elem + " " + name + "[" + std::to_string(count) + "] = {" + values +
           "};\n";
  }
  CExpr vector_bits(CExpr v, const Type& to) override {
    return c_call("as_" + vector_type(to), {std::move(v)});
  }
  CExpr nonfinite_literal(double v, bool f64) override;
  std::string vector_type(const Type& t) override;
  CExpr vector_lane(CExpr v, const Nat& i) override;
  CExpr vector_compare(CExpr cmp, const Type& arg_vt, const Type& mask_t) override;
  CExpr vector_blend(const Type& vt, const std::vector<CExpr>& args) override;
  CExpr mask_reduction(bool all, const Type& mask_t, CExpr m) override;
  CExpr vector_math(const rise::PrimitiveInfo& op, const Type& vt,
                    const std::vector<CExpr>& args) override;

 private:
  std::string host_text(const std::string& entry_name, const std::string& sig,
                        const std::string& output, const Type& out_dt,
                        const std::vector<dpia::Input>& inputs,
                        const std::vector<std::string>& sizes);
  // `text` with each of the unit's vector type names (float4) spelled as the host's
  // OpenCL header names it (cl_float4): the header's signature and types.
  std::string host_vector_names(const std::string& text) const;

  std::string kernel_source_;
  std::string vector_text_;             // the kernels' vector helpers (float4_load, ...)
  std::string host_vector_text_;        // the host's names for the vector types
  std::set<std::string> host_vectors_;  // those names (float4), which the header spells cl_float4
  std::set<std::string> nan_helpers_;   // the NaN helpers declared (nonfinite_literal)
};

}  // namespace risec::codegen::opencl
