// The CUDA target's host function (see cuda_printer.h): the C target's signature,
// extern "C"; it checks that there is a GPU (a clear message when cudaGetDeviceCount
// fails or finds none), allocates device buffers (on the first
// call, kept for the next ones and re-allocated when a size changes them, until
// NAME__risec_release frees them; a lock serialises calls), copies the inputs in
// (cudaMemcpyDefault: the caller's arrays may be host or device memory, such as the
// Python package's CUDA tensors), launches the kernels in order on the default
// stream and copies the output back. Every CUDA call is checked: a failure
// is reported through RISEC_DEVICE_FAILED (gpu_printer.h; by default the message, the
// call with CUDA's error name and text, and abort(): risec run reports it, exit 4;
// in-process code records it and the function returns, runtime/jit.h). Launch sizes come from the
// program's parallel loops unless $RISEC_CUDA_GLOBAL / $RISEC_CUDA_LOCAL ("N" or "N,M,...", threads
// in all and per block, as OpenCL's global and local sizes) say otherwise. It exports the kernels'
// time of the last call (CUDA events around the launches) as NAME__risec_kernel_ms and the device
// as NAME__risec_device.
#include <sstream>

#include "codegen/c/c_names.h"
#include "codegen/cuda/cuda_printer.h"

namespace risec::codegen::cuda {

using dpia::LoopKind;

namespace {

const char* const kCudaHostRuntime = R"C(static int risec_ready;
static struct cudaDeviceProp risec_prop;
static size_t risec_at_least_1(size_t bytes) { return bytes ? bytes : 1; }

/* A CUDA call's error: reported (risec_device_failf), then the function goes to its
   label risec_failed, which releases what it made and returns the failure (the
   variables it needs there are declared before the first check: C++). */
static int risec_cuda_fail(cudaError_t e, const char* what) {
  return risec_device_failf("CUDA error in %s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
}
#define RISEC_CUDA(call) do { cudaError_t risec_e = (call); if (risec_e != cudaSuccess) { risec_cuda_fail(risec_e, #call); goto risec_failed; } } while (0)

/* Whether a quantity over the sizes fits the 32-bit kernels' index arithmetic. */
inline int risec_fits_int(int64_t x) { return x < INT64_C(2147483648) && x > -INT64_C(2147483648); }

/* Fails (1), with a message naming the kernel and its arrays, when the device cannot
   give a block `bytes` of shared memory (its opt-in limit per block). */
inline int risec_shared_bytes(const char* kernel, const char* arrays, size_t bytes) {
  if (bytes > (size_t)risec_prop.sharedMemPerBlockOptin)
    return risec_device_failf("risec: the kernel %s needs %lu bytes of shared memory (%s), more than the %lu a block of %s may have",
                              kernel, (unsigned long)bytes, arrays, (unsigned long)risec_prop.sharedMemPerBlockOptin, risec_prop.name);
  return 0;
}

/* The current device (CUDA_VISIBLE_DEVICES chooses), once there is one. 1 on failure. */
static int risec_cuda_init(char* device_text, size_t device_len) {
  int n = 0, dev = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0)
    return risec_device_failf("no CUDA GPU: %s; the CUDA target needs an NVIDIA GPU and its driver",
                              e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount found no device");
  RISEC_CUDA(cudaGetDevice(&dev));
  RISEC_CUDA(cudaGetDeviceProperties(&risec_prop, dev));
  snprintf(device_text, device_len, "device %d, %s (sm_%d%d)", dev, risec_prop.name,
           risec_prop.major, risec_prop.minor);
  risec_ready = 1;
  return 0;
risec_failed:
  return 1;
}

/* Makes *b a buffer of `bytes` bytes: the one of the last call when it has that size,
   else a new one (counted in *created). 1 on failure (*b then NULL). */
static int risec_buffer(void** b, size_t* have, size_t bytes, unsigned long* created) {
  cudaError_t e;
  if (*b && *have == bytes) return 0;
  if (*b) RISEC_CUDA(cudaFree(*b)); /* on failure *b stays, for the release */
  *b = NULL;
  *have = 0;
  /* an empty array (a zero extent) gets one byte nothing reads, as on OpenCL */
  e = cudaMalloc(b, risec_at_least_1(bytes));
  if (e != cudaSuccess) {
    (void)cudaGetLastError(); /* an allocation's error is not sticky: cleared */
    *b = NULL;
    if (bytes == (size_t)-1) /* risec_size_*: the size does not fit */
      return risec_device_failf("CUDA error in cudaMalloc of 2^64 bytes or more: %s (%s)",
                                cudaGetErrorName(e), cudaGetErrorString(e));
    return risec_device_failf("CUDA error in cudaMalloc of %lu bytes: %s (%s)", (unsigned long)bytes,
                              cudaGetErrorName(e), cudaGetErrorString(e));
  }
  *have = bytes;
  ++*created;
  return 0;
risec_failed:
  return 1;
}

/* The grid and blocks of a launch of `kernel`: global[d] threads (the program's, or
   $RISEC_CUDA_GLOBAL) in blocks of local[d] (the program's work items per group, or
   $RISEC_CUDA_LOCAL; 256 threads, or 32 x 8, for a mapGlobal launch), at most what
   the kernel and the device allow, but at least need[d] (else it fails: 1); the grid is
   clamped to the device's limits (the loops are strided, so every size is correct). A
   kernel run by one thread (one) ignores $RISEC_CUDA_GLOBAL/LOCAL: it has no strided
   loop, so more threads would each run all of it on the same buffers. */
static int risec_shape(const void* kernel, unsigned dims, size_t* global, size_t* local,
                       const size_t* need, int one, dim3* grid, dim3* block) {
  struct cudaFuncAttributes attr;
  size_t max_items[3] = {(size_t)risec_prop.maxThreadsDim[0], (size_t)risec_prop.maxThreadsDim[1],
                         (size_t)risec_prop.maxThreadsDim[2]};
  unsigned g[3] = {1, 1, 1}, b[3] = {1, 1, 1};
  RISEC_CUDA(cudaFuncGetAttributes(&attr, kernel));
  if (risec_launch_size(one ? NULL : "RISEC_CUDA_GLOBAL", one ? NULL : "RISEC_CUDA_LOCAL", dims,
                        global, local, need, 1,
                        (size_t)attr.maxThreadsPerBlock, max_items) < 0)
    return 1;
  for (unsigned d = 0; d < dims; ++d) {
    size_t blocks = global[d] / local[d];
    if (blocks > (size_t)risec_prop.maxGridSize[d]) blocks = (size_t)risec_prop.maxGridSize[d];
    g[d] = (unsigned)blocks;
    b[d] = (unsigned)local[d];
  }
  *grid = dim3(g[0], g[1], g[2]);
  *block = dim3(b[0], b[1], b[2]);
  return 0;
risec_failed:
  return 1;
}
)C";

}  // namespace

std::string CudaPrinter::host_text(const std::string& sig, const std::string& output,
                                   const Type& out_dt, const std::vector<dpia::Input>& inputs,
                                   const std::vector<std::string>& sizes) {
  const std::string& fn = function_name_;
  std::ostringstream src;
  src << "/* The kernels' time in the last call (CUDA events), and where they ran. */\n";
  src << "extern \"C\" {\ndouble " << fn << "__risec_kernel_ms;\nchar " << fn
      << "__risec_device[512];\n}\n\n";
  src << "#include <pthread.h>\n"
      << gpu::kLaunchSizeHelpers << kSizeHelpers << kCudaHostRuntime << "\n";
  // The device buffers kept between calls, with their sizes.
  const std::vector<DeviceBuffer> kept = all_device_buffers();
  for (const DeviceBuffer& b : kept)
    src << "static " << b.elem << "* " << b.name << ";\nstatic size_t " << kept_size(b) << ";\n";
  src << "static pthread_mutex_t risec_lock = PTHREAD_MUTEX_INITIALIZER;\n";
  const std::string created = fn + "__risec_buffers_created";
  src << "extern \"C\" {\nunsigned long " << created << ";\n}\n\n";

  // The body: every failure goes to risec_failed (RISEC_CUDA, a helper's 1), whose
  // variables are declared before the first (C++: no jump past an initialisation).
  const std::string n = std::to_string(launches_.size());
  std::ostringstream body;
  if (dual_width_) body << "  int risec_narrow = 1;\n";
  body << "  dim3 risec_grid[" << n << "], risec_block[" << n << "];\n"
       << "  cudaEvent_t risec_start = NULL, risec_stop = NULL;\n  float risec_ms = 0;\n";
  if (uses_index_checks_) body << "  long long risec_f[3] = {0, 0, 0};\n";
  body << "  pthread_mutex_lock(&risec_lock);\n";
  body << "  if (!risec_ready && risec_cuda_init(" << fn << "__risec_device, sizeof " << fn
       << "__risec_device))\n    goto risec_failed;\n";
  // Buffers: the output, the inputs (copied in on every call: the caller's memory may
  // have changed), the temporaries between launches.
  auto buffer = [&](const std::string& m, bool copy) {
    for (const DeviceBuffer& b : device_buffers(m)) {
      body << "  if (risec_buffer((void**)&" << b.name << ", &" << kept_size(b) << ", " << b.bytes
           << ", &" << created << ")) goto risec_failed;\n";
      if (copy)
        body << "  RISEC_CUDA(cudaMemcpy(" << b.name << ", " << b.host << ", " << b.bytes
             << ", cudaMemcpyDefault));\n";
    }
  };
  buffer(output, false);
  for (const auto& in : inputs) buffer(in.name, true);
  for (const HostBuffer& b : host_buffers_) buffer(b.name, false);
  // 32-bit kernels when every quantity over the sizes fits (dual_width_kernels).
  if (dual_width_) {
    for (const Nat& b : narrow_bounds_) {
      body << "  risec_narrow = risec_narrow && risec_fits_int(" << nat_expr(b).text << ");\n";
    }
  }
  // The instances of launch l's kernel: of either width (dual_width_), and a template
  // over the block size (fixed: the program's; else <0, 0, 0>, reading blockDim).
  auto fixed_block = [](const Launch& l) {
    return std::to_string(l.info.block[0]) + ", " + std::to_string(l.info.block[1]) + ", " +
           std::to_string(l.info.block[2]);
  };
  auto instance = [&](const Launch& l, bool narrow, bool fixed) {
    std::string name = narrow || !dual_width_ ? l.kernel : l.kernel_wide;
    if (l.info.block[0] == 0) return name;
    return name + "<" + (fixed ? fixed_block(l) : std::string("0, 0, 0")) + ">";
  };
  auto instances = [&](const Launch& l) {
    std::vector<std::string> out;
    for (bool narrow : {true, false}) {
      if (!narrow && !dual_width_) continue;
      for (bool fixed : {true, false})
        if (!fixed || l.info.block[0] > 0) out.push_back(instance(l, narrow, fixed));
    }
    return out;
  };
  // The instance sizing the launch: any block size.
  auto kernel = [&](const Launch& l) {
    return dual_width_ ? "(risec_narrow ? (const void*)(" + instance(l, true, false) +
                             ") : (const void*)(" + instance(l, false, false) + "))"
                       : "(const void*)(" + instance(l, true, false) + ")";
  };
  // Every launch's shape first: the events then time the kernels, not the host's work.
  for (size_t k = 0; k < launches_.size(); ++k) {
    const Launch& l = launches_[k];
    Shape sh = shape(l);
    // A mapGlobal launch has no group size of its own: 256 threads a block (32 x 8
    // in two or more dimensions); one thread for a sequential kernel.
    if (l.level == LoopKind::Global)
      for (int d = 0; d < 3; ++d)
        sh.local[d] = d >= sh.dims   ? "1"
                      : sh.dims == 1 ? "256"
                      : d == 0       ? "32"
                      : d == 1       ? "8"
                                     : "1";
    body << "  {\n    size_t risec_global[3] = {" << sh.global[0] << ", " << sh.global[1] << ", "
         << sh.global[2] << "}, risec_local[3] = {" << sh.local[0] << ", " << sh.local[1] << ", "
         << sh.local[2] << "}, risec_need[3] = {" << sh.need[0] << ", " << sh.need[1] << ", "
         << sh.need[2] << "};\n";
    // Shared memory beyond 48 KiB: dynamic, the kernel's limit raised to it.
    if (!l.dynamic_local.empty()) {
      body << "    if (risec_shared_bytes(\"" << l.kernel << "\", \"" << l.dynamic_local_names
           << "\", " << l.dynamic_local << "))\n      goto risec_failed;\n";
      for (const std::string& kn : instances(l))
        body << "    RISEC_CUDA(cudaFuncSetAttribute((const void*)(" << kn
             << "), cudaFuncAttributeMaxDynamicSharedMemorySize, (int)(" << l.dynamic_local
             << ")));\n";
    }
    body << "    if (risec_shape(" << kernel(l) << ", " << sh.dims
         << ", risec_global, risec_local, risec_need, " << (l.level == LoopKind::None ? 1 : 0)
         << ", &risec_grid[" << k << "], &risec_block[" << k
         << "]))\n      goto risec_failed;\n  }\n";
  }
  // The kernels' index checks start with no failure (CudaPrinter::index_check_helper).
  if (uses_index_checks_)
    body << "  {\n    long long risec_zero[3] = {0, 0, 0};\n    RISEC_CUDA(cudaMemcpyToSymbol("
            "risec_fault, risec_zero, sizeof risec_zero));\n  }\n";
  body << "  RISEC_CUDA(cudaEventCreate(&risec_start));\n"
       << "  RISEC_CUDA(cudaEventCreate(&risec_stop));\n"
       << "  RISEC_CUDA(cudaEventRecord(risec_start, 0));\n";
  for (size_t k = 0; k < launches_.size(); ++k) {
    const Launch& l = launches_[k];
    std::string args;
    for (const std::string& m : l.memory)
      for (const DeviceBuffer& b : device_buffers(m)) args += (args.empty() ? "" : ", ") + b.name;
    for (const std::string& s : sizes) args += (args.empty() ? "" : ", ") + c_identifier(s);
    std::string shared = l.dynamic_local.empty() ? "" : ", " + l.dynamic_local;
    std::string launch = "<<<risec_grid[" + std::to_string(k) + "], risec_block[" +
                         std::to_string(k) + "]" + shared + ">>>(" + args + ");\n";
    // Of the width chosen, and the instance for the block size when it is the program's.
    auto of_width = [&](bool narrow, const std::string& pad) {
      if (l.info.block[0] == 0) return pad + instance(l, narrow, false) + launch;
      std::string b = "risec_block[" + std::to_string(k) + "]";
      return pad + "if (" + b + ".x == " + std::to_string(l.info.block[0]) + " && " + b +
             ".y == " + std::to_string(l.info.block[1]) + " && " + b +
             ".z == " + std::to_string(l.info.block[2]) + ")\n" + pad + "  " +
             instance(l, narrow, true) + launch + pad + "else\n" + pad + "  " +
             instance(l, narrow, false) + launch;
    };
    if (dual_width_)
      body << "  if (risec_narrow) {\n"
           << of_width(true, "    ") << "  } else {\n"
           << of_width(false, "    ") << "  }\n";
    else
      body << of_width(true, "  ");
    body << "  RISEC_CUDA(cudaGetLastError());\n";
  }
  body << "  RISEC_CUDA(cudaEventRecord(risec_stop, 0));\n"
       << "  RISEC_CUDA(cudaEventSynchronize(risec_stop));\n"
       << "  RISEC_CUDA(cudaEventElapsedTime(&risec_ms, risec_start, risec_stop));\n"
       << "  " << fn << "__risec_kernel_ms = risec_ms;\n";
  for (const DeviceBuffer& b : device_buffers(output))
    body << "  RISEC_CUDA(cudaMemcpy(" << b.host << ", " << b.name << ", " << b.bytes
         << ", cudaMemcpyDefault));\n";
  if (uses_index_checks_)
    body << "  RISEC_CUDA(cudaMemcpyFromSymbol(risec_f, risec_fault, sizeof risec_f));\n";
  // (each forgotten first: the clean-up after a failure does not destroy it again)
  for (const char* e : {"risec_start", "risec_stop"})
    body << "  {\n    cudaEvent_t risec_event = " << e << ";\n    " << e
         << " = NULL;\n    RISEC_CUDA(cudaEventDestroy(risec_event));\n  }\n";
  // Unlocked before a failure is reported: RISEC_BOUNDS_FAILED may return to the caller.
  body << "  pthread_mutex_unlock(&risec_lock);\n";
  if (uses_index_checks_)
    body << "  if (risec_f[0] != 0) risec_bounds_fail(" << c_string(fn)
         << ", (int)risec_f[0], risec_f[1], risec_f[2]);\n";
  // A failure reported through a RISEC_DEVICE_FAILED that returns (in-process code):
  // nothing is left running on the caller's memory (a copy between device arrays does
  // not block), the events are destroyed; the buffers made stay for the next call or
  // the release. (An error of a kernel, a trap, ends CUDA's context: every later call
  // of the process fails, as CUDA has it.)
  body << "  return;\nrisec_failed:\n"
       << "  if (risec_start) (void)cudaEventDestroy(risec_start);\n"
       << "  if (risec_stop) (void)cudaEventDestroy(risec_stop);\n"
       << "  if (risec_ready) (void)cudaDeviceSynchronize();\n"
       << "  pthread_mutex_unlock(&risec_lock);\n";
  // The release frees the buffers, not checked: it may run as the process ends, after
  // the CUDA runtime has shut down.
  std::ostringstream release;
  release << "void " << fn << "__risec_release(void) {\n  pthread_mutex_lock(&risec_lock);\n";
  for (const DeviceBuffer& b : kept)
    release << "  if (" << b.name << ") (void)cudaFree(" << b.name << ");\n  " << b.name
            << " = NULL;\n  " << kept_size(b) << " = 0;\n";
  release << "  pthread_mutex_unlock(&risec_lock);\n}\n";

  src << "extern \"C\" " << sig << " {\n"
      << function_prologue(fn, sizes) << input_index_checks(inputs) << body.str() << "}\n\n";
  src << "extern \"C\" {\n"
      << call_wrapper(fn, sig, out_dt, inputs, sizes) << release.str() << "}\n";
  return src.str();
}

}  // namespace risec::codegen::cuda
