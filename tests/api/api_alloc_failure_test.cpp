// A failed allocation of an intermediate array in C or OpenMP code called in this
// process (docs/api.md "Errors"): sizes that make a temporary of 16 TiB, which
// posix_memalign cannot give (the child's address space is limited too, so that an
// overcommitting kernel refuses it as well). The call is an Error (External, exit code
// 4) naming the function and the bytes, the process goes on, and the next call at a
// normal size gives the right result. The temporary is in the function's own sequence of
// statements (the C target: the function returns) or inside an OpenMP parallel loop's
// outlined body (each iteration skips its scope; a second stage after that loop is not
// run: RISEC_STOPPED()). Without RISEC_ALLOC_FAILED's
// recording the call ends the process (abort()). Only the public headers.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "in_child.h"
#include "risec/risec.h"

namespace {

// out[i] = xs[i] * (the sum of ys)^2, through an m*m temporary per element of xs.
const char* const kAllocRows =
    R"(def rows = depFun((n: Nat, m: Nat) => fun(xs: n.i32 => fun(ys: m.i32 =>
  xs |> map(fun(a => ys |> map(fun(b => ys |> map(fun(c => a * b * c)))) |> toMem
     |> map(fun(r => r |> reduce(fun(p, q => p + q))(0))) |> reduce(fun(p, q => p + q))(0))))))
)";

// The same, doubled by a second stage: the first stage's result is a temporary, and a
// failure in the first parallel loop stops the function before the second
// (RISEC_STOPPED()).
const char* const kAllocRowsTwice =
    R"(def rows = depFun((n: Nat, m: Nat) => fun(xs: n.i32 => fun(ys: m.i32 =>
  xs |> map(fun(a => ys |> map(fun(b => ys |> map(fun(c => a * b * c)))) |> toMem
     |> map(fun(r => r |> reduce(fun(p, q => p + q))(0))) |> reduce(fun(p, q => p + q))(0)))
     |> toMem |> map(fun(v => v * 2)))))
)";

// m = 2^21: the temporary holds 2^42 i32, 2^44 bytes.
constexpr int64_t kAllocHugeM = int64_t{1} << 21;

// The address space of this process limited to what it uses and 4 GiB more.
bool alloc_limit_address_space() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return false;
  unsigned long pages = 0;
  const bool read = std::fscanf(f, "%lu", &pages) == 1;
  std::fclose(f);
  if (!read) return false;
  const rlim_t limit = static_cast<rlim_t>(pages) * 4096 + (rlim_t{4} << 30);
  struct rlimit r {
    limit, limit
  };
  return ::setrlimit(RLIMIT_AS, &r) == 0;
}

// Calls `k` with n = 3 and the given m; "" when the result is right (xs[i] * (the sum of
// ys)^2 * factor), else what is wrong.
std::string alloc_rows_call(const risec::Kernel& k, int64_t m, int32_t factor,
                            std::vector<int32_t>* seen = nullptr) {
  std::vector<int32_t> xs{2, -1, 3};
  std::vector<int32_t> local(3, -7);
  std::vector<int32_t>& out = seen ? *seen : local;
  out.assign(3, -7);
  std::vector<int32_t> ys(static_cast<size_t>(m));
  int32_t sum = 0;
  for (int64_t i = 0; i < m; ++i) {
    ys[static_cast<size_t>(i)] = static_cast<int32_t>(i % 5 - 2);
    sum += ys[static_cast<size_t>(i)];
  }
  k(out, {xs, ys}, {{"n", 3}, {"m", m}});
  for (size_t i = 0; i < xs.size(); ++i)
    if (out[i] != xs[i] * sum * sum * factor)
      return "out[" + std::to_string(i) + "] = " + std::to_string(out[i]) + ", expected " +
             std::to_string(xs[i] * sum * sum * factor);
  return "";
}

void alloc_expect_failure_then_result(const risec::Kernel& k, int32_t factor,
                                      const std::string& where, bool output_untouched = false) {
  std::vector<int32_t> seen;
  try {
    alloc_rows_call(k, kAllocHugeM, factor, &seen);
    ADD_FAILURE() << where << ": no error";
  } catch (const risec::Error& e) {
    EXPECT_EQ(e.kind(), risec::ErrorKind::External) << where << ": " << e.message();
    EXPECT_EQ(risec::exit_code(e.kind()), 4) << where;
    EXPECT_EQ(e.message(), "rows: cannot allocate 17592186044416 bytes for an intermediate array")
        << where;
  }
  // the stage writing the output did not run
  if (output_untouched) {
    EXPECT_EQ(seen, std::vector<int32_t>(3, -7)) << where;
  }
  EXPECT_EQ(alloc_rows_call(k, 7, factor), "") << where << ": the call after the failure";
  // and once more: the failure left nothing recorded behind
  EXPECT_EQ(alloc_rows_call(k, 16, factor), "") << where << ": the second call after the failure";
}

TEST(ApiAllocFailure, HugeTemporaryIsAnErrorAndTheKernelStaysUsable) {
  for (const char* target : {"c", "openmp"}) {
    risec::CompileOptions o;
    o.target = target;
    const bool openmp = std::string(target) == "openmp";
    if (openmp)
      o.strategy = risec::Strategy::parse("try(parallel @ outermost(isApplied(isMap))) ; lowerToC");
    risec::Kernel k = risec::jit(risec::Program::parse(kAllocRows), o);
    const std::string& code = k.source().code();
    ASSERT_NE(code.find("risec_alloc(&risec_site_"), std::string::npos) << code;
    // the C target's temporary is hoisted to the function's statements (the function
    // returns); OpenMP's is in the outlined body of the parallel loop (its scope is
    // skipped)
    if (openmp) {
      EXPECT_NE(code.find("omp parallel"), std::string::npos) << code;
      EXPECT_NE(code.find("  if (tmp"), std::string::npos) << code;
    } else {
      EXPECT_NE(code.find("  if (!(tmp"), std::string::npos) << code;
    }
    const int status = risec::test::run_in_child([&] {
      if (!alloc_limit_address_space()) {
        std::fprintf(stderr, "cannot limit the address space\n");
        return 2;
      }
      alloc_expect_failure_then_result(k, 1, target);
      return 0;
    });
    EXPECT_EQ(status, 0) << target << ": 1: a failed expectation, 2: an error (on stderr)";
  }
}

// Compiles `program` (entry `fn`, sizes n and m, inputs xs: n.i32 and ys: m.i32) for c
// and openmp; a call at sizes whose temporary does not fit 64 bits (xs and ys all ones)
// must fail saying so, and a small call after it give `want`. Before, the index type's
// product of the sizes wrapped around to a small number, risec_alloc gave a small
// block and the code wrote past it; the sizes are now computed with saturating
// operations (codegen size_bytes).
void expect_size_overflow_then_small(const char* program, const std::string& fn, int64_t n,
                                     int64_t m, size_t outputs,
                                     const std::vector<int32_t>& small_xs,
                                     const std::vector<int32_t>& small_ys,
                                     const std::vector<int32_t>& want) {
  for (const char* target : {"c", "openmp"}) {
    risec::CompileOptions o;
    o.target = target;
    risec::Kernel k = risec::jit(risec::Program::parse(program), o);
    ASSERT_NE(k.source().code().find("risec_size_mul("), std::string::npos) << k.source().code();
    const int status = risec::test::run_in_child([&] {
      std::vector<int32_t> xs(static_cast<size_t>(n), 1), ys(static_cast<size_t>(m), 1);
      std::vector<int32_t> out(outputs, -7);
      try {
        k(out, {xs, ys}, {{"n", n}, {"m", m}});
        std::fprintf(stderr, "%s: no error\n", target);
        return 1;
      } catch (const risec::Error& e) {
        if (e.message() != fn + ": cannot allocate 2^64 bytes or more for an intermediate array") {
          std::fprintf(stderr, "%s: %s\n", target, e.message().c_str());
          return 1;
        }
      }
      out.assign(want.size(), -7);
      k(out, {small_xs, small_ys},
        {{"n", static_cast<int64_t>(small_xs.size())},
         {"m", static_cast<int64_t>(small_ys.size())}});
      return out == want ? 0 : 1;
    });
    EXPECT_EQ(status, 0) << fn << " on " << target << ": 1: a wrong result or message (on stderr)";
  }
}

// A temporary of m^3 elements per element of xs: 2^66 at m = 2^22.
TEST(ApiAllocFailure, ASizeProductPast64BitsIsAnErrorNotAWrappedBuffer) {
  const char* const cube =
      R"(def cube = depFun((n: Nat, m: Nat) => fun(xs: n.i32 => fun(ys: m.i32 =>
  xs |> map(fun(a => ys |> map(fun(b => ys |> map(fun(c => ys |> map(fun(d => a * b * c * d))))))
     |> toMem |> map(fun(p => p |> map(fun(r => r |> reduce(fun(u, v => u + v))(0)))
     |> reduce(fun(u, v => u + v))(0))) |> reduce(fun(u, v => u + v))(0))))))
)";
  // xs[i] * (the sum of ys)^3
  expect_size_overflow_then_small(cube, "cube", 2, int64_t{1} << 22, 2, {2, -1}, {1, 2, -1},
                                  {16, -8});
}

// A temporary of (n/4) * m^2 elements, a division in its size: 2^64 at n = m = 2^22
// (held-out G: the division was printed in the index type, the product wrapping to 0).
TEST(ApiAllocFailure, ASizeWithADivisionPast64BitsIsAnErrorNotAWrappedBuffer) {
  const char* const quarter =
      R"(def quarter = depFun((n: Nat, m: Nat) => fun(xs: n.i32 => fun(ys: m.i32 =>
  xs |> split(4) |> map(fun(w => ys |> map(fun(b => ys |> map(fun(c =>
      (w |> reduce(fun(u, v => u + v))(0)) * b * c))))))
     |> toMem |> map(fun(p => p |> map(fun(r => r |> reduce(fun(u, v => u + v))(0)))
     |> reduce(fun(u, v => u + v))(0))))))
)";
  // the sum of each 4 xs * (the sum of ys)^2
  const int64_t big = int64_t{1} << 22;
  expect_size_overflow_then_small(quarter, "quarter", big, big, big / 4, {1, 2, 3, 4, 5, 6, 7, 8},
                                  {1, 2, -1}, {40, 104});
}

TEST(ApiAllocFailure, FailureInAParallelLoopStopsBeforeTheNextStage) {
  risec::CompileOptions o;
  o.target = "openmp";
  o.strategy = risec::Strategy::parse(
      "let par = parallel @ outermost(isApplied(isMap)); let main = par ; par ; lowerToC;");
  risec::Kernel k = risec::jit(risec::Program::parse(kAllocRowsTwice), o);
  const std::string& code = k.source().code();
  const size_t stop = code.find("  if (RISEC_STOPPED()) {");
  ASSERT_NE(stop, std::string::npos) << code;
  // between the two parallel loops
  EXPECT_LT(code.find("omp parallel"), stop) << code;
  EXPECT_NE(code.find("omp parallel", stop), std::string::npos) << code;
  const int status = risec::test::run_in_child([&] {
    if (!alloc_limit_address_space()) {
      std::fprintf(stderr, "cannot limit the address space\n");
      return 2;
    }
    alloc_expect_failure_then_result(k, 2, "openmp, two stages", true);
    return 0;
  });
  EXPECT_EQ(status, 0) << "1: a failed expectation, 2: an error (on stderr)";
}

}  // namespace
