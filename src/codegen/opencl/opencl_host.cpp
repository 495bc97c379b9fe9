// The OpenCL target's host function (see opencl_printer.h): the C target's
// signature; it embeds the kernels' source, builds them once (on the platform
// $RISEC_OPENCL_PLATFORM names, by index or part of its name, else the first with a
// device), copies the inputs into device buffers, launches the kernels in order and
// reads the output back. The buffers are kept between calls (re-created when a size
// changes them) until NAME__risec_release, which frees every OpenCL object; a lock
// serialises calls. Launch sizes come from the program's parallel loops unless
// $RISEC_OPENCL_GLOBAL / $RISEC_OPENCL_LOCAL ("N" or "N,M,...") say otherwise. It
// exports the kernels' time of the last call (profiling events) as
// NAME__risec_kernel_ms and the platform and device as NAME__risec_device. A failure
// of OpenCL (no platform, an API call's error, kernels that do not build) is reported
// through RISEC_DEVICE_FAILED (gpu_printer.h): by default the message and abort(); code
// loaded in-process records it, and the host function then releases what it made
// (a failed set-up entirely, so that the next call sets up again), unlocks and returns.
#include <sstream>

#include "codegen/c/c_names.h"
#include "codegen/opencl/opencl_printer.h"

namespace risec::codegen::opencl {

namespace {

// The host's OpenCL set-up and launch helpers, shared by every kernel.
const char* const kOpenclHostRuntime = R"(static cl_context risec_ctx;
static cl_command_queue risec_queue;
static cl_program risec_prog;
static cl_device_id risec_dev;
static int risec_ready;

/* An OpenCL call's error: reported (risec_device_failf), then the function goes to its
   label risec_failed, which releases what it made and returns the failure. */
static int risec_cl_fail(cl_int err, const char* what) {
  return risec_device_failf("OpenCL error %d in %s", (int)err, what);
}
#define RISEC_CL_ERR(err, what) do { cl_int risec_e = (err); if (risec_e != CL_SUCCESS) { risec_cl_fail(risec_e, what); goto risec_failed; } } while (0)
#define RISEC_CL(call) RISEC_CL_ERR(call, #call)

/* Reads a result back; an empty one (an array with a zero extent: OpenCL refuses
   transfers of 0 bytes) is not read, but the kernels are waited for. 1 on failure. */
static int risec_cl_read(cl_mem b, size_t bytes, void* host) {
  if (bytes) RISEC_CL(clEnqueueReadBuffer(risec_queue, b, CL_TRUE, 0, bytes, host, 0, NULL, NULL));
  else RISEC_CL(clFinish(risec_queue)); /* the kernels ran, as a blocking read waits for them */
  return 0;
risec_failed:
  return 1;
}

/* The platform: $RISEC_OPENCL_PLATFORM as an index or a part of its name, else the
   first one with a device; then the context, queue and program. 1 on failure, with
   what it made left for risec_cl_unmake. */
static int risec_cl_init(const char* source, char* device_text, size_t device_len) {
  cl_platform_id platforms[16];
  cl_uint np = 0;
  RISEC_CL(clGetPlatformIDs(16, platforms, &np));
  const char* want = getenv("RISEC_OPENCL_PLATFORM");
  cl_platform_id chosen = NULL;
  char pname[256] = "";
  for (cl_uint i = 0; i < np && !chosen; ++i) {
    char name[256] = "";
    clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (want && *want) {
      char* end = NULL;
      long idx = strtol(want, &end, 10);
      if (!(*end == 0 ? idx == (long)i : strstr(name, want) != NULL)) continue;
    }
    cl_uint nd = 0;
    if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 1, &risec_dev, &nd) != CL_SUCCESS || nd == 0)
      continue;
    chosen = platforms[i];
    memcpy(pname, name, sizeof pname);
  }
  if (!chosen)
    return risec_device_failf("no OpenCL platform with a device%s%s", want ? " matches RISEC_OPENCL_PLATFORM=" : "", want ? want : "");
  char dname[256] = "";
  clGetDeviceInfo(risec_dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
  snprintf(device_text, device_len, "platform %s, device %s", pname, dname);
  cl_int err;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)chosen, 0};
  risec_ctx = clCreateContext(props, 1, &risec_dev, NULL, NULL, &err);
  RISEC_CL_ERR(err, "clCreateContext");
  risec_queue = clCreateCommandQueue(risec_ctx, risec_dev, CL_QUEUE_PROFILING_ENABLE, &err);
  RISEC_CL_ERR(err, "clCreateCommandQueue");
  risec_prog = clCreateProgramWithSource(risec_ctx, 1, &source, NULL, &err);
  RISEC_CL_ERR(err, "clCreateProgramWithSource");
  if (clBuildProgram(risec_prog, 1, &risec_dev, "", NULL, NULL) != CL_SUCCESS) {
    static char log[65536];
    log[0] = 0;
    clGetProgramBuildInfo(risec_prog, risec_dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    log[sizeof log - 1] = 0;
    return risec_device_failf("the OpenCL kernels do not build:\n%s", log);
  }
  return 0;
risec_failed:
  return 1;
}

/* Makes *b a buffer of `bytes` bytes: the one of the last call when it has that size,
   else a new one (counted in *created). An empty one (an array with a zero extent:
   OpenCL refuses buffers of 0 bytes) has one byte nothing reads or writes. 1 on failure
   (*b then NULL). */
static int risec_buffer(cl_mem* b, size_t* have, size_t bytes, cl_mem_flags flags,
                        unsigned long* created) {
  if (*b && *have == bytes) return 0;
  if (*b) clReleaseMemObject(*b);
  *b = NULL;
  *have = 0;
  cl_int err;
  cl_mem m = clCreateBuffer(risec_ctx, flags, bytes ? bytes : 1, NULL, &err);
  if (err != CL_SUCCESS && bytes == (size_t)-1) /* risec_size_*: the size does not fit */
    return risec_device_failf("OpenCL error %d in clCreateBuffer of 2^64 bytes or more", (int)err);
  if (err != CL_SUCCESS)
    return risec_device_failf("OpenCL error %d in clCreateBuffer of %lu bytes", (int)err, (unsigned long)bytes);
  *b = m;
  *have = bytes;
  ++*created;
  return 0;
}

/* Launch kernel k with the sizes risec_launch_size decides; no group size (the
   platform chooses) when neither the program nor $RISEC_OPENCL_LOCAL gives one. A
   kernel run by one work item (one) ignores $RISEC_OPENCL_GLOBAL/LOCAL: it has no
   strided loop, so more work items would each run all of it on the same buffers.
   1 on failure. */
static int risec_launch(cl_kernel k, cl_uint dims, size_t* global, size_t* local,
                        const size_t* need, int grouped, int one, cl_event* ev) {
  size_t max_group = 1, max_items[16] = {1, 1, 1};
  RISEC_CL(clGetKernelWorkGroupInfo(k, risec_dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof max_group, &max_group, NULL));
  RISEC_CL(clGetDeviceInfo(risec_dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof max_items, max_items, NULL));
  int sized = risec_launch_size(one ? NULL : "RISEC_OPENCL_GLOBAL", one ? NULL : "RISEC_OPENCL_LOCAL", dims, global, local, need, grouped, max_group, max_items);
  if (sized < 0) return 1;
  RISEC_CL(clEnqueueNDRangeKernel(risec_queue, k, dims, NULL, global, sized ? local : NULL, 0, NULL, ev));
  return 0;
risec_failed:
  return 1;
}
)";

}  // namespace

std::string OpenCLPrinter::host_text(const std::string& entry_name, const std::string& sig,
                                     const std::string& output, const Type& out_dt,
                                     const std::vector<dpia::Input>& inputs,
                                     const std::vector<std::string>& sizes) {
  const std::string& fn = function_name_;
  std::ostringstream src;
  src << "/* Generated by risec " RISEC_VERSION " from '" << entry_name
      << "': the OpenCL host function. Do not edit. */\n";
  src << "#define _POSIX_C_SOURCE 200112L\n#define CL_TARGET_OPENCL_VERSION 120\n";
  // CL/cl_platform.h includes <immintrin.h> where __AVX__ is defined, for vector members
  // of its cl_floatN unions that this unit never names (their size and alignment do not
  // depend on it): hidden while the header is read, which takes 0.15 s of GCC's time
  // instead of 0.6 s.
  src << "#pragma push_macro(\"__AVX__\")\n#undef __AVX__\n#include <CL/cl.h>\n"
         "#pragma pop_macro(\"__AVX__\")\n";
  src << "#include <stdbool.h>\n#include <stdint.h>\n#include <stdio.h>\n"
         "#include <pthread.h>\n#include <stdlib.h>\n#include <string.h>\n\n";
  src << helper_warning_pragmas() << index_helpers(idx_type_);
  if (!sizes.empty()) src << kPreconditionHelper;
  const std::string input_checks = input_index_checks(inputs);
  bool fault = false;
  for (const Launch& l : launches_) fault |= l.fault;
  if (fault || !input_checks.empty()) src << kBoundsCodes << kBoundsHostHelper;
  src << host_vector_text_ << typedef_text_ << "\n";
  src << "/* The kernels (" << fn << ".cl). */\nstatic const char risec_kernels_source[] =\n";
  std::istringstream lines(kernel_source_);
  for (std::string line; std::getline(lines, line);) src << "  " << c_string(line + "\n") << "\n";
  src << "  ;\n\n";
  src << "/* The kernels' time in the last call (profiling events), and where they ran. */\n";
  src << "double " << fn << "__risec_kernel_ms;\nchar " << fn << "__risec_device[512];\n\n";
  src << gpu::kLaunchSizeHelpers << kSizeHelpers << kOpenclHostRuntime << "\n";
  src << "static cl_kernel risec_kernels[" << launches_.size() << "];\n";
  // What the set-up made, released when it fails (the next call sets up again) and by
  // NAME__risec_release.
  src << "static void risec_cl_unmake(void) {\n  for (int risec_k = 0; risec_k < "
      << launches_.size()
      << "; ++risec_k)\n    if (risec_kernels[risec_k]) clReleaseKernel(risec_kernels[risec_k]);\n"
         "  memset(risec_kernels, 0, sizeof risec_kernels);\n"
         "  if (risec_prog) clReleaseProgram(risec_prog);\n"
         "  if (risec_queue) clReleaseCommandQueue(risec_queue);\n"
         "  if (risec_ctx) clReleaseContext(risec_ctx);\n"
         "  risec_prog = NULL;\n  risec_queue = NULL;\n  risec_ctx = NULL;\n  risec_ready = 0;\n"
         "}\n";
  // The device buffers kept between calls, with their sizes; the fault buffer of
  // kernels that check indices (code, value, bound of the first failure:
  // OpenCLPrinter::index_check_helper).
  const std::vector<DeviceBuffer> kept = all_device_buffers();
  for (const DeviceBuffer& b : kept)
    src << "static cl_mem " << b.name << ";\nstatic size_t " << kept_size(b) << ";\n";
  if (fault) src << "static cl_mem risec_b_fault;\nstatic size_t risec_size_fault;\n";
  src << "static pthread_mutex_t risec_lock = PTHREAD_MUTEX_INITIALIZER;\n";
  const std::string created = fn + "__risec_buffers_created";
  src << "unsigned long " << created << ";\n\n";

  // The body: every failure goes to risec_failed (RISEC_CL, a helper's 1), whose
  // variables are declared before the first.
  std::ostringstream body;
  if (fault) body << "  cl_long risec_fault[3] = {0, 0, 0};\n";
  body << "  cl_event risec_ev[" << launches_.size() << "];\n"
       << "  memset(risec_ev, 0, sizeof risec_ev);\n";
  body << "  pthread_mutex_lock(&risec_lock);\n";
  body << "  if (!risec_ready) {\n    if (risec_cl_init(risec_kernels_source, " << fn
       << "__risec_device, sizeof " << fn << "__risec_device))\n      goto risec_failed;\n";
  body << "    cl_int risec_err;\n";
  for (size_t k = 0; k < launches_.size(); ++k)
    body << "    risec_kernels[" << k << "] = clCreateKernel(risec_prog, \"" << launches_[k].kernel
         << "\", &risec_err);\n    RISEC_CL_ERR(risec_err, \"clCreateKernel(" << launches_[k].kernel
         << ")\");\n";
  body << "    risec_ready = 1;\n  }\n";
  // Buffers: the output, the inputs (copied in on every call: the caller's memory may
  // have changed), the temporaries between launches.
  auto buffer = [&](const std::string& m, const std::string& flags, bool copy) {
    for (const DeviceBuffer& b : device_buffers(m)) {
      body << "  if (risec_buffer(&" << b.name << ", &" << kept_size(b) << ", " << b.bytes << ", "
           << flags << ", &" << created << ")) goto risec_failed;\n";
      if (copy)  // nothing into an empty buffer (OpenCL refuses transfers of 0 bytes)
        body << "  if ((" << b.bytes << ") != 0) RISEC_CL(clEnqueueWriteBuffer(risec_queue, "
             << b.name << ", CL_FALSE, 0, " << b.bytes << ", " << b.host << ", 0, NULL, NULL));\n";
    }
  };
  buffer(output, "CL_MEM_READ_WRITE", false);
  for (const auto& in : inputs) buffer(in.name, "CL_MEM_READ_ONLY", true);
  for (const HostBuffer& b : host_buffers_) buffer(b.name, "CL_MEM_READ_WRITE", false);
  if (fault)
    body << "  if (risec_buffer(&risec_b_fault, &risec_size_fault, sizeof risec_fault, "
            "CL_MEM_READ_WRITE, &"
         << created
         << ")) goto risec_failed;\n  RISEC_CL(clEnqueueWriteBuffer(risec_queue, risec_b_fault, "
            "CL_FALSE, 0, sizeof risec_fault, risec_fault, 0, NULL, NULL));\n";
  for (size_t k = 0; k < launches_.size(); ++k) {
    const Launch& l = launches_[k];
    std::string kern = "risec_kernels[" + std::to_string(k) + "]";
    int arg = 0;
    for (const std::string& m : l.memory)
      for (const DeviceBuffer& b : device_buffers(m))
        body << "  RISEC_CL(clSetKernelArg(" << kern << ", " << arg++ << ", sizeof(cl_mem), &"
             << b.name << "));\n";
    for (const std::string& s : sizes)
      body << "  RISEC_CL(clSetKernelArg(" << kern << ", " << arg++ << ", sizeof "
           << c_identifier(s) << ", &" << c_identifier(s) << "));\n";
    if (l.fault)
      body << "  RISEC_CL(clSetKernelArg(" << kern << ", " << arg++
           << ", sizeof(cl_mem), &risec_b_fault));\n";
    Shape sh = shape(l);
    body << "  {\n    size_t risec_global[3] = {" << sh.global[0] << ", " << sh.global[1] << ", "
         << sh.global[2] << "}, risec_local[3] = {" << sh.local[0] << ", " << sh.local[1] << ", "
         << sh.local[2] << "}, risec_need[3] = {" << sh.need[0] << ", " << sh.need[1] << ", "
         << sh.need[2] << "};\n";
    body << "    if (risec_launch(" << kern << ", " << sh.dims
         << ", risec_global, risec_local, risec_need, " << (sh.grouped ? 1 : 0) << ", "
         << (l.level == dpia::LoopKind::None ? 1 : 0) << ", &risec_ev[" << k
         << "]))\n      goto risec_failed;\n  }\n";
  }
  // The reads block: the in-order queue has run the writes and kernels before them.
  for (const DeviceBuffer& b : device_buffers(output))
    body << "  if (risec_cl_read(" << b.name << ", " << b.bytes << ", " << b.host
         << ")) goto risec_failed;\n";
  if (fault)
    body << "  RISEC_CL(clEnqueueReadBuffer(risec_queue, risec_b_fault, CL_TRUE, 0, sizeof "
            "risec_fault, risec_fault, 0, NULL, NULL));\n";
  body << "  {\n    double risec_ms = 0;\n    for (int risec_k = 0; risec_k < " << launches_.size()
       << "; ++risec_k) {\n"
       << "      cl_ulong risec_t0 = 0, risec_t1 = 0;\n"
       << "      RISEC_CL(clGetEventProfilingInfo(risec_ev[risec_k], CL_PROFILING_COMMAND_START, "
          "sizeof risec_t0, &risec_t0, NULL));\n"
       << "      RISEC_CL(clGetEventProfilingInfo(risec_ev[risec_k], CL_PROFILING_COMMAND_END, "
          "sizeof risec_t1, &risec_t1, NULL));\n"
       << "      risec_ms += (double)(risec_t1 - risec_t0) * 1e-6;\n      "
          "clReleaseEvent(risec_ev[risec_k]);\n      risec_ev[risec_k] = NULL;\n    }\n";
  body << "    " << fn << "__risec_kernel_ms = risec_ms;\n  }\n";
  // Unlocked before a failure is reported: RISEC_BOUNDS_FAILED may return to the caller.
  body << "  pthread_mutex_unlock(&risec_lock);\n";
  if (fault)
    body << "  if ((int)risec_fault[0] != 0) risec_bounds_fail(" << c_string(fn)
         << ", (int)risec_fault[0], (long long)risec_fault[1], (long long)risec_fault[2]);\n";
  // A failure reported through a RISEC_DEVICE_FAILED that returns (in-process code):
  // nothing is left running on the caller's memory (the writes from it are not
  // blocking), the events are released, a set-up that failed is undone (the next call
  // tries again); the buffers made stay for the next call or the release.
  body << "  return;\nrisec_failed:\n"
       << "  for (int risec_k = 0; risec_k < " << launches_.size() << "; ++risec_k)\n"
       << "    if (risec_ev[risec_k]) clReleaseEvent(risec_ev[risec_k]);\n"
       << "  if (risec_ready) clFinish(risec_queue);\n  else risec_cl_unmake();\n"
       << "  pthread_mutex_unlock(&risec_lock);\n";

  // The release: every buffer, then the kernels, program, queue and context.
  std::ostringstream release;
  release << "void " << fn << "__risec_release(void) {\n  pthread_mutex_lock(&risec_lock);\n";
  auto free_buffer = [&](const std::string& name, const std::string& size) {
    release << "  if (" << name << ") clReleaseMemObject(" << name << ");\n  " << name
            << " = NULL;\n  " << size << " = 0;\n";
  };
  for (const DeviceBuffer& b : kept) free_buffer(b.name, kept_size(b));
  if (fault) free_buffer("risec_b_fault", "risec_size_fault");
  release << "  risec_cl_unmake();\n  pthread_mutex_unlock(&risec_lock);\n}\n\n";

  src << sig << " {\n" << function_prologue(fn, sizes) << input_checks << body.str() << "}\n\n";
  src << release.str();
  src << call_wrapper(fn, sig, out_dt, inputs, sizes);
  return src.str();
}

}  // namespace risec::codegen::opencl
