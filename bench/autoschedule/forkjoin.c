// The cost of starting and ending an OpenMP parallel loop (a fork and a join) on this
// machine, for the autoscheduler's cost model (kForkJoinSpin and kForkJoinPassive in
// src/driver/cost_model.cpp; docs/tuning.md): REGIONS back-to-back `parallel for`
// loops of one iteration per thread (nothing to compute), and the same loop after a
// stretch of sequential work (the other threads have then waited: spinning, or asleep
// under OMP_WAIT_POLICY=passive), less the work alone; the minimum of ROUNDS rounds.
// bench/autoschedule/forkjoin.sh builds and runs it under each OMP_WAIT_POLICY.
//   cc -O2 -fopenmp forkjoin.c -o forkjoin && OMP_NUM_THREADS=2 ./forkjoin [regions] [rounds]
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static volatile float sink[64];

// Sequential arithmetic on one thread (an epilogue or a layer computed by one thread).
static double work(int n) {
  double x = 1.0;
  for (int i = 0; i < n; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

int main(int argc, char** argv) {
  const int regions = argc > 1 ? atoi(argv[1]) : 2000;
  const int rounds = argc > 2 ? atoi(argv[2]) : 20;
  const int threads = omp_get_max_threads();
  const int n = 50000;  // iterations of work(): a dependent chain, about 4 cycles each
  double best = 1e30, best_work = 1e30, best_both = 1e30, sum = 0;
  for (int r = 0; r < rounds; ++r) {
    double t0 = omp_get_wtime();
    for (int k = 0; k < regions; ++k) {
#pragma omp parallel for
      for (int i = 0; i < threads; ++i) sink[i] += 1.0f;
    }
    double t = (omp_get_wtime() - t0) / regions;
    if (t < best) best = t;
    // The work alone, then the work and a parallel loop after it: by then the other
    // threads have waited 50 us (spinning, or asleep under OMP_WAIT_POLICY=passive).
    t0 = omp_get_wtime();
    for (int k = 0; k < regions / 10; ++k) sum += work(n);
    t = (omp_get_wtime() - t0) / (regions / 10);
    if (t < best_work) best_work = t;
    t0 = omp_get_wtime();
    for (int k = 0; k < regions / 10; ++k) {
      sum += work(n);
#pragma omp parallel for
      for (int i = 0; i < threads; ++i) sink[i] += 1.0f;
    }
    t = (omp_get_wtime() - t0) / (regions / 10);
    if (t < best_both) best_both = t;
  }
  printf("threads %d: a parallel loop's fork and join %.2f us back to back, %.2f us after "
         "%.0f us of sequential work (min of %d rounds)%s\n",
         threads, best * 1e6, (best_both - best_work) * 1e6, best_work * 1e6, rounds,
         sum < 0 ? "!" : "");
  return 0;
}
