// The C backend: imperative DPIA to one self-contained C99 translation unit (plus a
// header). Views become index expressions here: every read or write is resolved
// through the chain of source or destination views down to a flat, row-major
// buffer, and the index is simplified by arith, so `M[i + m*j]` comes out rather
// than a tower of `/` and `%`. SIMD vectors are GCC/Clang vector-extension types.
// generate_c runs the backend-neutral passes and prints with the target's printer:
// CPrinter (c_printer.h) for "c", openmp::OpenMPPrinter, which extends it, for
// "openmp" (codegen/printers.cpp chooses).
#pragma once

#include <string>
#include <vector>

#include "dpia/target.h"
#include "dpia/translate.h"
#include "rise/check.h"

namespace risec::codegen {

struct CParam {
  std::string name;  // C parameter name
  rise::Type dt;     // the data type (inputs and output) or null for a size
  bool is_size = false;
};

// A stage of a profiled unit: a top-level loop nest, named after the primitive that
// made its outermost loop ("mapPar") and where that is in the source.
struct ProfileStage {
  std::string what;    // the primitive, or "loop" for one the translation made itself
  std::string where;   // FILE:LINE:COL, or empty when the loop has no source
  std::string source;  // that line of the source, trimmed
  std::string writes;  // the variables it writes that exist before it, comma-separated
};
// At most this many stages are timed; later top-level loops count as "the rest".
constexpr int kMaxProfileStages = 256;

struct CUnit {
  std::string name;            // the exported C function (c_entry_name of the entry's name)
  std::string source;          // the .c translation unit
  std::string header;          // the .h declaration and layout documentation
  std::vector<CParam> params;  // in call order: output, sizes, inputs
  bool uses_openmp = false;
  // The OpenCL target: the kernels (OUT.cl), which `source` (the host) embeds and
  // launches; linked with -lOpenCL.
  std::string kernel_source;
  bool uses_opencl = false;
  // The CUDA target: `source` is CUDA C++ (OUT.cu: the kernels and the host
  // function), compiled by nvcc.
  bool uses_cuda = false;
  // --profile (CGenOptions::profile): the stages the code times, in order
  // (codegen/c/profile.cpp); empty otherwise.
  std::vector<ProfileStage> profile_stages;
  int profile_untimed = 0;  // top-level loops past kMaxProfileStages, not timed
};

// A condition on the symbolic sizes the program needs (4 | n for split(4) on an
// n-array), checked at the entry of the generated function.
struct SizeCondition {
  rise::SideCondition condition;
  std::string description;  // for the message, e.g. "4 divides n (split at f.rise:3:9)"
};

struct CGenOptions {
  // What the code runs on: parallel loops become OpenMP pragmas when the target runs
  // LoopKind::Par (the openmp target).
  dpia::Target target;
  // Checked, with every symbolic size being at least 1, at the entry of the function
  // (unless compiled with -DRISEC_NO_CHECKS); a violation calls
  // RISEC_PRECONDITION_FAILED(function, description), by default a message and abort().
  std::vector<SizeCondition> size_conditions;
  // Short innermost sequential loops of a constant trip count that the vector width
  // does not divide run as blocks whose last one is shifted inwards (dpia/shift_tail.h). For the
  // CPU targets (c, openmp); `--no-shift-tails` turns it off.
  bool shift_tails = false;
  // Data-dependent indices (natAsIndex, casts to idx[n], index arithmetic, inputs of
  // indices) are checked in the generated code (codegen/c/bounds_checks.cpp);
  // `--no-bounds-checks` turns it off.
  bool bounds_checks = true;
  // Each top-level loop nest of the function times itself (run --profile; the c and
  // openmp targets): `ENTRY__risec_profile_ms[k]` accumulates stage k's milliseconds
  // over calls, `ENTRY__risec_profile_stages` is their number (codegen/c/profile.cpp).
  bool profile = false;
  // `risec view`: a comment `/* at FILE:LINE:COL (PRIMITIVE) */` before each loop that
  // a primitive of the source made, for the viewer to link the loop to its source.
  bool annotate_sources = false;
  // Loops, sizes and indices in int64_t whatever the sizes (and no 32-bit GPU kernels):
  // what generate_c asks for when the index terms printed with `int` were not all
  // proven to fit it (index_width.cpp).
  bool wide_indices = false;
};

// Generate C for an imperative program writing `output` (data type `out_dt`) from
// `inputs`, with `sizes` the names of symbolic sizes that become int parameters.
CUnit generate_c(const std::string& entry_name, const dpia::CommandP& program,
                 const std::string& output, const rise::Type& out_dt,
                 const std::vector<dpia::Input>& inputs, const std::vector<std::string>& sizes,
                 const CGenOptions& options);

// A valid, readable C identifier from a RISE name, for a variable or parameter: the
// name itself unless C, the C library or risec reserves it (then `risec_u_NAME`; see
// c_names.h).
std::string c_identifier(const std::string& name);

}  // namespace risec::codegen
