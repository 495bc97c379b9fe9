// The OpenCL plumbing bench_opencl's peers share (bench/opencl/): the device, its
// context and profiling queue, device buffers, and the kernel time of an event.
#pragma once

#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <string>
#include <vector>

namespace risec::bench::opencl {

// Why a peer has no time (an OpenCL error, a failed build, a wrong result).
struct Failure {
  std::string what;
};

inline void ok(cl_int e, const char* what) {
  if (e != CL_SUCCESS) throw Failure{std::string(what) + ": OpenCL error " + std::to_string(e)};
}

// A string property of a device or platform (clGetDeviceInfo, clGetPlatformInfo).
template <typename Get, typename Obj, typename Info>
std::string info_string(Get get, Obj obj, Info what) {
  size_t n = 0;
  get(obj, what, 0, nullptr, &n);
  std::string s(n, '\0');
  get(obj, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

// The first device of the first platform that has one (GPUs preferred), its context
// and an in-order queue with profiling.
struct Cl {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;

  Cl() {
    cl_uint np = 0;
    ok(clGetPlatformIDs(0, nullptr, &np), "clGetPlatformIDs");
    if (np == 0) throw Failure{"no OpenCL platform"};
    std::vector<cl_platform_id> ps(np);
    ok(clGetPlatformIDs(np, ps.data(), nullptr), "clGetPlatformIDs");
    for (cl_device_type type :
         {cl_device_type{CL_DEVICE_TYPE_GPU}, cl_device_type{CL_DEVICE_TYPE_ALL}}) {
      for (cl_platform_id p : ps) {
        cl_device_id d = nullptr;
        cl_uint nd = 0;
        if (clGetDeviceIDs(p, type, 1, &d, &nd) == CL_SUCCESS && nd > 0) {
          platform = p;
          device = d;
          break;
        }
      }
      if (device) break;
    }
    if (!device) throw Failure{"no OpenCL device"};
    cl_int e = CL_SUCCESS;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &e);
    ok(e, "clCreateContext");
    queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &e);
    ok(e, "clCreateCommandQueue");
  }
  ~Cl() {
    if (queue) clReleaseCommandQueue(queue);
    if (context) clReleaseContext(context);
  }
  Cl(const Cl&) = delete;
  Cl& operator=(const Cl&) = delete;

  std::string describe() const {
    return info_string(clGetDeviceInfo, device, CL_DEVICE_NAME) + " (" +
           info_string(clGetPlatformInfo, platform, CL_PLATFORM_NAME) + ", " +
           info_string(clGetDeviceInfo, device, CL_DEVICE_VERSION) + ")";
  }
};

// A device buffer holding a copy of host data (or uninitialised room for `bytes`).
class DeviceBuffer {
 public:
  DeviceBuffer(const Cl& cl, size_t bytes, const void* host) {
    cl_int e = CL_SUCCESS;
    mem_ = clCreateBuffer(cl.context, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                          const_cast<void*>(host), &e);
    ok(e, "clCreateBuffer");
  }
  ~DeviceBuffer() { clReleaseMemObject(mem_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  cl_mem mem() const { return mem_; }

 private:
  cl_mem mem_ = nullptr;
};

inline void read_back(const Cl& cl, const DeviceBuffer& b, void* host, size_t bytes) {
  ok(clEnqueueReadBuffer(cl.queue, b.mem(), CL_TRUE, 0, bytes, host, 0, nullptr, nullptr),
     "clEnqueueReadBuffer");
}

// The kernel time of a finished command: its profiling START..END, in seconds.
inline double event_seconds(cl_event ev) {
  cl_ulong start = 0, end = 0;
  ok(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr),
     "clGetEventProfilingInfo");
  ok(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr),
     "clGetEventProfilingInfo");
  return static_cast<double>(end - start) * 1e-9;
}

}  // namespace risec::bench::opencl
