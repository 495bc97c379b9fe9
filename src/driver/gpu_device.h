// The device a GPU target's code runs on, as the autoscheduler and the tuning
// database see it (docs/tuning.md, "GPU targets"): found by a small probe program run
// as a child process (built by the C compiler into the compiled-code cache), so that
// risec itself never loads the OpenCL or CUDA runtime (a GPU program forked from a
// process that did would wait forever, runtime/isolated.h). The probe chooses the
// device the generated host code chooses: for OpenCL the first platform with a device,
// or the one $RISEC_OPENCL_PLATFORM names (by index or part of its name); for CUDA
// device 0 of the driver ($CUDA_VISIBLE_DEVICES applies).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace risec::driver {

struct GpuDevice {
  std::string name;           // "OpenCL: platform P, device D" or "CUDA: NAME (sm_90)"
  bool gpu = true;            // a GPU (false: an OpenCL CPU device, e.g. PoCL's pthread device)
  int64_t compute_units = 1;  // OpenCL compute units, CUDA multiprocessors
  int64_t max_group = 256;    // work items per group (threads per block)
  int64_t local_bytes = 0;    // local (shared) memory per group
  int64_t warp = 32;          // work items that run in lock step (the model's coalescing unit)
};

bool is_gpu_target(const std::string& target);

// The target's device, or nullopt with the reason in `why` ("no OpenCL platform with a
// device", "no CUDA driver: libcuda.so.1 not found", ...). Probed once per target
// and process.
std::optional<GpuDevice> probe_gpu_device(const std::string& target, std::string* why);

// What the tuning database keys a GPU target's records by (tuned.h): the device's
// name, or "no <target> device (<why>)" where there is none.
std::string gpu_device_key(const std::string& target);

}  // namespace risec::driver
