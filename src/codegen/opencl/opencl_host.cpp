// The OpenCL target's host function (see opencl_printer.h): the C target's
// signature; it embeds the kernels' source, builds them once (on the platform
// $RISEC_OPENCL_PLATFORM names, by index or part of its name, else the first with a
// device), copies the inputs into buffers, launches the kernels in order and reads
// the output back. Launch sizes come from the program's parallel loops unless
// $RISEC_OPENCL_GLOBAL / $RISEC_OPENCL_LOCAL ("N" or "N,M,...") say otherwise. It
// exports the kernels' time of the last call (profiling events) as
// NAME__risec_kernel_ms and the platform and device as NAME__risec_device.
#include <sstream>

#include "codegen/c/c_names.h"
#include "codegen/opencl/opencl_printer.h"

namespace risec::codegen::opencl {

using dpia::LoopKind;

namespace {

// The host's OpenCL set-up and launch helpers, shared by every kernel.
const char* const kHostRuntime = R"(static cl_context risec_ctx;
static cl_command_queue risec_queue;
static cl_program risec_prog;
static cl_device_id risec_dev;
static int risec_ready;

static void risec_cl_fail(cl_int err, const char* what) {
  fprintf(stderr, "OpenCL error %d in %s\n", (int)err, what);
  abort();
}
#define RISEC_CL(call) do { cl_int risec_e = (call); if (risec_e != CL_SUCCESS) risec_cl_fail(risec_e, #call); } while (0)

/* The platform: $RISEC_OPENCL_PLATFORM as an index or a part of its name, else the
   first one with a device. */
static void risec_cl_init(const char* source, char* device_text, size_t device_len) {
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
  if (!chosen) {
    fprintf(stderr, "no OpenCL platform with a device%s%s\n", want ? " matches RISEC_OPENCL_PLATFORM=" : "", want ? want : "");
    abort();
  }
  char dname[256] = "";
  clGetDeviceInfo(risec_dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
  snprintf(device_text, device_len, "platform %s, device %s", pname, dname);
  cl_int err;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)chosen, 0};
  risec_ctx = clCreateContext(props, 1, &risec_dev, NULL, NULL, &err);
  RISEC_CL(err);
  risec_queue = clCreateCommandQueue(risec_ctx, risec_dev, CL_QUEUE_PROFILING_ENABLE, &err);
  RISEC_CL(err);
  risec_prog = clCreateProgramWithSource(risec_ctx, 1, &source, NULL, &err);
  RISEC_CL(err);
  if (clBuildProgram(risec_prog, 1, &risec_dev, "", NULL, NULL) != CL_SUCCESS) {
    static char log[65536];
    clGetProgramBuildInfo(risec_prog, risec_dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fprintf(stderr, "the OpenCL kernels do not build:\n%s\n", log);
    abort();
  }
  risec_ready = 1;
}

/* Entry d of the comma-separated list in $var, or 0. */
static size_t risec_env_size(const char* var, int d) {
  const char* s = getenv(var);
  for (int i = 0; s && *s; ++i) {
    char* end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s) return 0;
    if (i == d) return (size_t)v;
    s = *end == ',' ? end + 1 : NULL;
  }
  return 0;
}

/* Launch kernel k: global[d] work items (from the program, or $RISEC_OPENCL_GLOBAL),
   in groups of local[d] (when grouped: from the program or $RISEC_OPENCL_LOCAL, at
   most what the device allows); a global size is rounded up to whole groups (the
   loops are strided, so every size is correct). */
static void risec_launch(cl_kernel k, cl_uint dims, size_t* global, size_t* local, int grouped,
                         const size_t* need, cl_event* ev) {
  size_t max_group = 1, max_items[16] = {1, 1, 1};
  RISEC_CL(clGetKernelWorkGroupInfo(k, risec_dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof max_group, &max_group, NULL));
  RISEC_CL(clGetDeviceInfo(risec_dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof max_items, max_items, NULL));
  int given_local = 0;
  for (cl_uint d = 0; d < dims; ++d) {
    size_t g = risec_env_size("RISEC_OPENCL_GLOBAL", (int)d), l = risec_env_size("RISEC_OPENCL_LOCAL", (int)d);
    if (g) global[d] = g;
    if (l) { local[d] = l; given_local = 1; }
    if (global[d] == 0) global[d] = 1;
    if (local[d] == 0) local[d] = 1;
    if (local[d] > max_items[d]) local[d] = max_items[d];
  }
  if (grouped || given_local) {
    for (;;) {
      size_t total = 1;
      cl_uint widest = 0;
      for (cl_uint d = 0; d < dims; ++d) {
        total *= local[d];
        if (local[d] > local[widest]) widest = d;
      }
      if (total <= max_group) break;
      local[widest] = (local[widest] + 1) / 2;
    }
    for (cl_uint d = 0; d < dims; ++d) global[d] = (global[d] + local[d] - 1) / local[d] * local[d];
  }
  /* A private array distributed over the work items needs each of its parts' work items. */
  for (cl_uint d = 0; d < dims; ++d)
    if (local[d] < need[d]) {
      fprintf(stderr, "risec: the kernel needs at least %lu work items in dimension %u of a work group (a private array is distributed over them), but the launch has %lu (RISEC_OPENCL_LOCAL or the device's limit)\n",
              (unsigned long)need[d], (unsigned)d, (unsigned long)local[d]);
      abort();
    }
  RISEC_CL(clEnqueueNDRangeKernel(risec_queue, k, dims, NULL, global, grouped || given_local ? local : NULL, 0, NULL, ev));
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
  src << "#include <CL/cl.h>\n#include <stdbool.h>\n#include <stdint.h>\n#include <stdio.h>\n"
         "#include <stdlib.h>\n#include <string.h>\n\n";
  src << index_helpers(idx_type_);
  if (!sizes.empty()) src << kPreconditionHelper;
  src << host_vector_text_ << typedef_text_ << "\n";
  src << "/* The kernels (" << fn << ".cl). */\nstatic const char risec_kernels_source[] =\n";
  std::istringstream lines(kernel_source_);
  for (std::string line; std::getline(lines, line);) src << "  " << c_string(line + "\n") << "\n";
  src << "  ;\n\n";
  src << "/* The kernels' time in the last call (profiling events), and where they ran. */\n";
  src << "double " << fn << "__risec_kernel_ms;\nchar " << fn << "__risec_device[512];\n\n";
  src << kHostRuntime << "\n";
  src << "static cl_kernel risec_kernels[" << launches_.size() << "];\n\n";

  std::ostringstream body;
  body << "  if (!risec_ready) {\n    risec_cl_init(risec_kernels_source, " << fn
       << "__risec_device, sizeof " << fn << "__risec_device);\n";
  body << "    cl_int err;\n";
  for (size_t k = 0; k < launches_.size(); ++k)
    body << "    risec_kernels[" << k << "] = clCreateKernel(risec_prog, \"" << launches_[k].kernel
         << "\", &err);\n    RISEC_CL(err);\n";
  body << "  }\n  cl_int err;\n";
  // Buffers: the output, the inputs (copied in), the temporaries between launches.
  auto bytes = [&](const Type& dt) {
    return "sizeof(" + c_type(dt) + ") * (size_t)(" + nat_expr(count(dt)).text + ")";
  };
  auto buffer = [&](const std::string& m, const Type& dt, const std::string& flags,
                    const std::string& host) {
    body << "  cl_mem risec_b_" << cname(m) << " = clCreateBuffer(risec_ctx, " << flags << ", "
         << bytes(dt) << ", " << host << ", &err);\n  RISEC_CL(err);\n";
  };
  buffer(output, out_dt, "CL_MEM_READ_WRITE", "NULL");
  for (const auto& in : inputs)
    buffer(in.name, in.dt, "CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR", "(void*)" + cname(in.name));
  for (const HostBuffer& b : host_buffers_) buffer(b.name, b.dt, "CL_MEM_READ_WRITE", "NULL");
  body << "  cl_event risec_ev[" << launches_.size() << "];\n";
  for (size_t k = 0; k < launches_.size(); ++k) {
    const Launch& l = launches_[k];
    std::string kern = "risec_kernels[" + std::to_string(k) + "]";
    int arg = 0;
    for (const std::string& m : l.memory)
      body << "  RISEC_CL(clSetKernelArg(" << kern << ", " << arg++ << ", sizeof(cl_mem), &risec_b_"
           << cname(m) << "));\n";
    for (const std::string& s : sizes)
      body << "  RISEC_CL(clSetKernelArg(" << kern << ", " << arg++ << ", sizeof "
           << c_identifier(s) << ", &" << c_identifier(s) << "));\n";
    bool grouped = l.level == LoopKind::WorkGroup;
    std::string g[3], lo[3];
    for (int d = 0; d < 3; ++d) {
      std::string groups = l.groups[d].empty() ? "1" : "(size_t)(" + l.groups[d] + ")";
      // Work items per group: the mapLocal's length; 64 where it depends on more than
      // the sizes (any number is correct: the loops are strided).
      lo[d] = !grouped || !l.has_local[d] ? "1"
              : l.local[d].empty()        ? "64"
                                          : "(size_t)(" + l.local[d] + ")";
      if (l.level == LoopKind::Global)
        g[d] = l.global[d].empty() ? "1" : "(size_t)(" + l.global[d] + ")";
      else if (grouped)
        g[d] = groups + " * " + lo[d];
      else
        g[d] = "1";
    }
    std::string need[3];
    for (int d = 0; d < 3; ++d)
      need[d] = grouped && !l.need_local[d].empty() ? "(size_t)(" + l.need_local[d] + ")" : "0";
    body << "  {\n    size_t global[3] = {" << g[0] << ", " << g[1] << ", " << g[2]
         << "}, local[3] = {" << lo[0] << ", " << lo[1] << ", " << lo[2] << "}, need[3] = {"
         << need[0] << ", " << need[1] << ", " << need[2] << "};\n";
    body << "    risec_launch(" << kern << ", " << (l.level == LoopKind::None ? 1 : l.dims)
         << ", global, local, " << (grouped ? 1 : 0) << ", need, &risec_ev[" << k << "]);\n  }\n";
  }
  body << "  RISEC_CL(clEnqueueReadBuffer(risec_queue, risec_b_" << cname(output)
       << ", CL_TRUE, 0, " << bytes(out_dt) << ", " << cname(output) << ", 0, NULL, NULL));\n";
  body
      << "  double risec_ms = 0;\n  for (int k = 0; k < " << launches_.size() << "; ++k) {\n"
      << "    cl_ulong t0 = 0, t1 = 0;\n"
      << "    RISEC_CL(clGetEventProfilingInfo(risec_ev[k], CL_PROFILING_COMMAND_START, sizeof t0, "
         "&t0, NULL));\n"
      << "    RISEC_CL(clGetEventProfilingInfo(risec_ev[k], CL_PROFILING_COMMAND_END, sizeof t1, "
         "&t1, NULL));\n"
      << "    risec_ms += (double)(t1 - t0) * 1e-6;\n    clReleaseEvent(risec_ev[k]);\n  }\n";
  body << "  " << fn << "__risec_kernel_ms = risec_ms;\n";
  for (const std::string& m : host_order_)
    body << "  clReleaseMemObject(risec_b_" << cname(m) << ");\n";

  src << sig << " {\n" << function_prologue(fn, sizes) << body.str() << "}\n\n";
  src << call_wrapper(fn, sig, out_dt, inputs, sizes);
  return src.str();
}

}  // namespace risec::codegen::opencl
