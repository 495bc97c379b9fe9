// Generated code run in a forked child (runtime/isolated.h) after this process has
// run OpenCL code itself, as a process embedding risec does (the C++ API's Kernel
// and the Python module call generated code in process). The child inherits PoCL's
// state but not its worker threads, and an OpenCL program's first launch there
// waited forever; it now runs as a fresh process. A C program still runs forked.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "driver/commands.h"
#include "driver/run.h"
#include "e2e_util.h"
#include "runtime/isolated.h"
#include "runtime/jit.h"

namespace risec::e2e {
namespace {

TEST(ForkAfterOpenCL, ProgramsRunAfterThisProcessRanOpenCL) {
  // All in a child of the test, in a process group of its own: PoCL stays out of
  // the test binary (its allocations would be leaks under LeakSanitizer), and a
  // program that waits forever is killed with the group.
  std::fflush(nullptr);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setpgid(0, 0);
    ::alarm(90);
    int status = 0;
    try {
      rise::Program p = driver::load_program(source_path("examples/scal/scal.rise"));
      elevate::Strategy s = driver::load_strategy(source_path("examples/scal/global.elv"));
      driver::CompileRequest req;
      req.program = &p;
      req.strategy = &s;
      req.target = "opencl";
      driver::Compiled ocl = driver::compile(req);
      std::vector<float> x(64), y(64);
      for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) - 10.0f;
      float alpha = 3;
      runtime::Module here(
          runtime::build_shared_object(ocl.unit.source, driver::c_compile_options(ocl)).path,
          ocl.unit.name);
      here.call({y.data(), &alpha, x.data()}, {64});
      if (y[5] != alpha * x[5]) status = 1;
      if (!runtime::gpu_runtime_loaded()) status = 2;
      for (const char* target : {"opencl", "c", "opencl"}) {
        CheckOptions o;
        o.target = target;
        o.seed = 7;
        CheckReport r = run_and_compare(
            source_path("examples/scal/scal.rise"),
            std::string(target) == "c" ? "" : "examples/scal/global.elv", "n=64", o);
        if (!r.comparison.ok) {
          std::fprintf(stderr, "%s: %s\n", target, r.comparison.first_mismatch.c_str());
          status = 3;
        }
      }
    } catch (const Error& e) {
      std::fprintf(stderr, "%s\n", e.what());
      status = 4;
    }
    ::_exit(status);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ::kill(-pid, SIGKILL);  // a program left waiting, if any
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status)
                                 << " (SIGALRM: a program waited forever)";
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "1: the in-process call, 2: OpenCL not seen as loaded, 3: a mismatch, 4: an error";
}

}  // namespace
}  // namespace risec::e2e
