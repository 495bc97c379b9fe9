// The GPU targets' device probe (see gpu_device.h).
#include "driver/gpu_device.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

#include "runtime/jit.h"
#include "support/diagnostics.h"

namespace risec::driver {

namespace {

// The probe: a unit whose entry writes into its output buffer either
// "ok\nNAME\nGPU(0/1)\nUNITS\nMAX_GROUP\nLOCAL_BYTES\nWARP\n" or "no\nREASON\n". It loads
// the runtime with dlopen, so that a machine without one gets a reason, not a link
// error.
const char* const kProbeCommon = R"(#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
)";

const char* const kOpenCLProbe = R"(
typedef int32_t (*GetPlatforms)(uint32_t, void**, uint32_t*);
typedef int32_t (*GetInfo)(void*, uint32_t, size_t, void*, size_t*);
typedef int32_t (*GetDevices)(void*, uint64_t, uint32_t, void**, uint32_t*);
void risec_probe__risec_call(void* const* buffers, const int* sizes) {
  char* out = (char*)buffers[0];
  (void)sizes;
  void* lib = dlopen("libOpenCL.so.1", RTLD_NOW);
  if (!lib) lib = dlopen("libOpenCL.so", RTLD_NOW);
  if (!lib) { snprintf(out, 2048, "no\nno OpenCL runtime (libOpenCL.so.1 not found)\n"); return; }
  GetPlatforms get_platforms = (GetPlatforms)dlsym(lib, "clGetPlatformIDs");
  GetInfo platform_info = (GetInfo)dlsym(lib, "clGetPlatformInfo");
  GetDevices get_devices = (GetDevices)dlsym(lib, "clGetDeviceIDs");
  GetInfo device_info = (GetInfo)dlsym(lib, "clGetDeviceInfo");
  if (!get_platforms || !platform_info || !get_devices || !device_info) {
    snprintf(out, 2048, "no\nthe OpenCL runtime lacks clGetPlatformIDs\n");
    return;
  }
  void* platforms[16];
  uint32_t np = 0;
  if (get_platforms(16, platforms, &np) != 0) np = 0;
  const char* want = getenv("RISEC_OPENCL_PLATFORM");
  for (uint32_t i = 0; i < np && i < 16; ++i) {
    char pname[256] = "";
    platform_info(platforms[i], 0x0902 /* CL_PLATFORM_NAME */, sizeof pname, pname, NULL);
    if (want && *want) {
      char* end = NULL;
      long idx = strtol(want, &end, 10);
      if (!(*end == 0 ? idx == (long)i : strstr(pname, want) != NULL)) continue;
    }
    void* dev = NULL;
    uint32_t nd = 0;
    if (get_devices(platforms[i], 0xFFFFFFFFull /* CL_DEVICE_TYPE_ALL */, 1, &dev, &nd) != 0 || nd == 0)
      continue;
    char dname[256] = "";
    uint64_t type = 0, local = 0;
    uint32_t units = 1;
    size_t group = 1;
    device_info(dev, 0x102B /* CL_DEVICE_NAME */, sizeof dname, dname, NULL);
    device_info(dev, 0x1000 /* CL_DEVICE_TYPE */, sizeof type, &type, NULL);
    device_info(dev, 0x1002 /* CL_DEVICE_MAX_COMPUTE_UNITS */, sizeof units, &units, NULL);
    device_info(dev, 0x1004 /* CL_DEVICE_MAX_WORK_GROUP_SIZE */, sizeof group, &group, NULL);
    device_info(dev, 0x1023 /* CL_DEVICE_LOCAL_MEM_SIZE */, sizeof local, &local, NULL);
    snprintf(out, 2048, "ok\nOpenCL: platform %s, device %s\n%d\n%u\n%zu\n%llu\n%d\n", pname, dname,
             (type & 4 /* CL_DEVICE_TYPE_GPU */) ? 1 : 0, units, group, (unsigned long long)local,
             (type & 4) ? 32 : 8);
    return;
  }
  snprintf(out, 2048, "no\nno OpenCL platform with a device%s%s\n",
           want ? " matches RISEC_OPENCL_PLATFORM=" : "", want ? want : "");
}
)";

const char* const kCudaProbe = R"(
typedef int (*Init)(unsigned);
typedef int (*Count)(int*);
typedef int (*Get)(int*, int);
typedef int (*Name)(char*, int, int);
typedef int (*Attr)(int*, int, int);
typedef int (*ErrText)(int, const char**);
void risec_probe__risec_call(void* const* buffers, const int* sizes) {
  char* out = (char*)buffers[0];
  (void)sizes;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) lib = dlopen("libcuda.so", RTLD_NOW);
  if (!lib) { snprintf(out, 2048, "no\nno CUDA driver (libcuda.so.1 not found)\n"); return; }
  Init init = (Init)dlsym(lib, "cuInit");
  Count count = (Count)dlsym(lib, "cuDeviceGetCount");
  Get get = (Get)dlsym(lib, "cuDeviceGet");
  Name name = (Name)dlsym(lib, "cuDeviceGetName");
  Attr attr = (Attr)dlsym(lib, "cuDeviceGetAttribute");
  ErrText text = (ErrText)dlsym(lib, "cuGetErrorString");
  if (!init || !count || !get || !name || !attr) {
    snprintf(out, 2048, "no\nthe CUDA driver lacks cuInit\n");
    return;
  }
  int n = 0, dev = 0, e = init(0);
  if (e == 0) e = count(&n);
  if (e != 0 || n == 0) {
    const char* why = "no device";
    if (e != 0 && text) text(e, &why);
    snprintf(out, 2048, "no\nno CUDA GPU (%s)\n", why ? why : "no device");
    return;
  }
  char dname[256] = "";
  int units = 1, group = 1024, local = 49152, warp = 32, major = 0, minor = 0;
  get(&dev, 0);
  name(dname, sizeof dname, dev);
  attr(&units, 16 /* MULTIPROCESSOR_COUNT */, dev);
  attr(&group, 1 /* MAX_THREADS_PER_BLOCK */, dev);
  attr(&local, 8 /* MAX_SHARED_MEMORY_PER_BLOCK */, dev);
  attr(&warp, 10 /* WARP_SIZE */, dev);
  attr(&major, 75 /* COMPUTE_CAPABILITY_MAJOR */, dev);
  attr(&minor, 76 /* COMPUTE_CAPABILITY_MINOR */, dev);
  snprintf(out, 2048, "ok\nCUDA: %s (sm_%d%d)\n1\n%d\n%d\n%d\n%d\n", dname, major, minor, units,
           group, local, warp);
}
)";

struct Probed {
  std::optional<GpuDevice> device;
  std::string why;
};

Probed run_probe(const std::string& target) {
  Probed p;
  const std::string source =
      std::string(kProbeCommon) + (target == "cuda" ? kCudaProbe : kOpenCLProbe);
  std::string text(2048, '\0');
  try {
    runtime::Artifact a = runtime::build_executable(source, "risec_probe");
    runtime::Executable exe(a.path);
    runtime::Executable::Options eo;
    eo.timeout_s = 60;
    exe.call(text.data(), text.size(), {}, {}, eo);
  } catch (const Error& e) {
    p.why = "the device probe failed: " + std::string(e.what()).substr(0, 300);
    return p;
  }
  text.resize(text.find('\0') == std::string::npos ? text.size() : text.find('\0'));
  std::istringstream in(text);
  std::string status, line;
  std::getline(in, status);
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  if (status != "ok" || lines.size() < 6) {
    p.why = lines.empty() ? "the device probe printed nothing" : lines[0];
    return p;
  }
  GpuDevice d;
  d.name = lines[0];
  try {
    d.gpu = lines[1] == "1";
    d.compute_units = std::max<int64_t>(1, std::stoll(lines[2]));
    d.max_group = std::max<int64_t>(1, std::stoll(lines[3]));
    d.local_bytes = std::max<int64_t>(0, std::stoll(lines[4]));
    d.warp = std::max<int64_t>(1, std::stoll(lines[5]));
  } catch (const std::exception&) {
    p.why = "the device probe printed '" + text + "'";
    return p;
  }
  p.device = d;
  return p;
}

}  // namespace

bool is_gpu_target(const std::string& target) {
  return target == "opencl" || target == "cuda";
}

std::optional<GpuDevice> probe_gpu_device(const std::string& target, std::string* why) {
  static std::mutex mu;
  static std::map<std::string, Probed> done;
  std::lock_guard<std::mutex> lock(mu);
  auto it = done.find(target);
  if (it == done.end()) it = done.emplace(target, run_probe(target)).first;
  if (why) *why = it->second.why;
  return it->second.device;
}

std::string gpu_device_key(const std::string& target) {
  std::string why;
  std::optional<GpuDevice> d = probe_gpu_device(target, &why);
  return d ? d->name
           : std::string(target == "cuda" ? "no CUDA device" : "no OpenCL device") + " (" + why +
                 ")";
}

}  // namespace risec::driver
