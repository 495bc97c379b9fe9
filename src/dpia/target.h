// What code is generated for: a Target value replaces the target name compared as a
// string in the driver and the capability bools the functional translation checked.
// It says which loop kinds the target runs (a parallel primitive for a target that
// cannot run its loop is a located error), which address spaces it has, and the
// machine's vector width and core count (detected for the host). Both DPIA (which
// primitives are allowed) and code generation (how loops are printed) read it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dpia/functional.h"

namespace risec::dpia {

struct Target {
  // Which printer prints it (codegen/printers.cpp).
  enum class Backend { C, OpenMP, OpenCL, Cuda };
  std::string name = "c";
  Backend backend = Backend::C;
  // The GPU targets' widest vector type (OpenCL 16 lanes, CUDA 4); 0: any power of two.
  int max_vector_lanes = 0;
  int vector_lanes = 1;  // f32 lanes of the widest vector unit (support/cpu.h)
  int cores = 1;         // hardware threads
  std::vector<Space> spaces{Space::Default};
  std::vector<LoopKind> loops{LoopKind::Seq, LoopKind::SeqUnroll};

  bool runs(LoopKind k) const;
  bool has(Space s) const;

  // The target called `name` ("c", "openmp", "opencl", "cuda") on this machine, or none.
  static std::optional<Target> named(const std::string& name);
  // The plain C target with the host's vector width and core count.
  static Target host();
  // The names `named` accepts, for messages.
  static std::vector<std::string> names();
};

}  // namespace risec::dpia
