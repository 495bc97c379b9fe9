// Targets (see target.h): host detection and the named ones.
#include "dpia/target.h"

#include <algorithm>
#include <thread>

#include "support/cpu.h"

namespace risec::dpia {

namespace {

int host_cores() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

}  // namespace

bool Target::runs(LoopKind k) const {
  return std::find(loops.begin(), loops.end(), k) != loops.end();
}

bool Target::has(Space s) const {
  return std::find(spaces.begin(), spaces.end(), s) != spaces.end();
}

Target Target::host() {
  Target t;
  t.vector_lanes = static_cast<int>(machine_lanes());
  t.cores = host_cores();
  return t;
}

std::optional<Target> Target::named(const std::string& name) {
  Target t = host();
  if (name == "c") return t;
  if (name == "openmp") {
    t.name = name;
    t.backend = Target::Backend::OpenMP;
    t.loops.push_back(LoopKind::Par);
    return t;
  }
  if (name == "opencl" || name == "cuda") {
    // Kernels launched by a host function: the GPU levels of parallelism and the
    // OpenCL address spaces (CUDA's global, __shared__ and per-thread memory), the
    // same rules for both.
    t.name = name;
    t.backend = name == "cuda" ? Target::Backend::Cuda : Target::Backend::OpenCL;
    t.max_vector_lanes = name == "cuda" ? 4 : 16;
    t.loops.insert(t.loops.end(), {LoopKind::Global, LoopKind::WorkGroup, LoopKind::Local});
    t.spaces = {Space::Default, Space::Global, Space::Local, Space::Private};
    return t;
  }
  return std::nullopt;
}

std::vector<std::string> Target::names() {
  return {"c", "openmp", "opencl", "cuda"};
}

}  // namespace risec::dpia
