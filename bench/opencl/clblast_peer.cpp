// CLBlast as a peer of bench_opencl (clblast_peer.h).
#include "bench/opencl/clblast_peer.h"

#ifdef RISEC_HAVE_CLBLAST

#include <clblast_c.h>
#include <dlfcn.h>

#include <algorithm>
#include <string>

namespace {

// While a CLBlast run is timed: the events of the kernels launched, each held (retained
// or created here) until the run is summed. nullptr otherwise.
std::vector<cl_event>* recording = nullptr;

using EnqueueKernel = cl_int (*)(cl_command_queue, cl_kernel, cl_uint, const size_t*, const size_t*,
                                 const size_t*, cl_uint, const cl_event*, cl_event*);

}  // namespace

// Every kernel launch in this program (CLBlast's and bench_opencl's own) comes here
// first, then goes on to the OpenCL library's definition.
extern "C" CL_API_ENTRY cl_int CL_API_CALL
clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims, const size_t* offset,
                       const size_t* global, const size_t* local, cl_uint waits,
                       const cl_event* wait_list, cl_event* event) {
  static const auto next =
      reinterpret_cast<EnqueueKernel>(dlsym(RTLD_NEXT, "clEnqueueNDRangeKernel"));
  if (!next) return CL_INVALID_OPERATION;
  if (!recording) return next(queue, kernel, dims, offset, global, local, waits, wait_list, event);
  cl_event own = nullptr;
  cl_int e =
      next(queue, kernel, dims, offset, global, local, waits, wait_list, event ? event : &own);
  if (e == CL_SUCCESS) {
    if (event) {
      clRetainEvent(*event);
      recording->push_back(*event);
    } else {
      recording->push_back(own);
    }
  }
  return e;
}

namespace risec::bench::opencl {

const char* clblast_missing() {
  return nullptr;
}

namespace {

void check(CLBlastStatusCode s, const char* routine) {
  if (s != CLBlastSuccess)
    throw Failure{std::string(routine) + " failed: CLBlast status " + std::to_string(s)};
}

// One routine call; `event` receives its last kernel's event.
void call(const BlasCall& c, cl_command_queue* queue, cl_event* event) {
  if (const Gemv* g = std::get_if<Gemv>(&c)) {
    check(CLBlastSgemv(CLBlastLayoutRowMajor,
                       g->transpose ? CLBlastTransposeYes : CLBlastTransposeNo, g->rows, g->cols,
                       g->alpha, g->a, 0, g->cols, g->x, 0, 1, g->beta, g->y, 0, 1, queue, event),
          "CLBlastSgemv");
    return;
  }
  // Row-major C = A B is column-major C^T = B^T A^T: the call that needs the fewest
  // layout changes from CLBlast (its GEMM kernel reads its second operand transposed;
  // the row-major call would transpose A and C instead).
  const Gemm& g = std::get<Gemm>(c);
  check(CLBlastSgemm(CLBlastLayoutColMajor, CLBlastTransposeNo, CLBlastTransposeNo, g.m, g.n, g.k,
                     1.0f, g.b, 0, g.m, g.a, 0, g.k, 0.0f, g.c, 0, g.m, queue, event),
        "CLBlastSgemm");
}

}  // namespace

LibraryRun clblast_run(const Cl& cl, const std::vector<BlasCall>& calls) {
  std::vector<cl_event> seen, returned;
  auto release = [&] {
    recording = nullptr;
    for (cl_event e : seen) clReleaseEvent(e);
    for (cl_event e : returned) clReleaseEvent(e);
  };
  cl_command_queue queue = cl.queue;
  LibraryRun run;
  try {
    recording = &seen;
    for (const BlasCall& c : calls) {
      cl_event ev = nullptr;
      call(c, &queue, &ev);
      if (ev) returned.push_back(ev);
    }
    recording = nullptr;
    ok(clFinish(queue), "clFinish");
    for (cl_event e : returned)
      if (std::find(seen.begin(), seen.end(), e) == seen.end())
        throw Failure{"CLBlast launched a kernel bench_opencl did not see: its time is unknown"};
    for (cl_event e : seen) run.seconds += event_seconds(e);
    run.kernels = static_cast<int>(seen.size());
  } catch (...) {
    release();
    throw;
  }
  release();
  return run;
}

}  // namespace risec::bench::opencl

#else  // built without CLBlast

namespace risec::bench::opencl {

const char* clblast_missing() {
  return "CLBlast not found when bench_opencl was built (Debian: libclblast-dev, "
         "scripts/setup.sh installs it)";
}

LibraryRun clblast_run(const Cl&, const std::vector<BlasCall>&) {
  throw Failure{clblast_missing()};
}

}  // namespace risec::bench::opencl

#endif
