// The harness of blocked_cputime.sh: the variants mm_v0 .. mm_v<NV-1> (risec's
// generated code, each compiled with its entry renamed) and OpenBLAS's cblas_sgemm,
// C = A * B at N x N x N, called in turn (interleaved rounds after one checked
// warm-up round), timed by wall clock or, with CPUTIME set, by the process's CPU
// time: a one-thread call is then not charged for the time other processes hold its
// core (a loaded machine), only for what it executes.
#define _POSIX_C_SOURCE 200112L
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void cblas_sgemm(int, int, int, int, int, int, float, const float*, int, const float*, int, float,
                 float*, int);
void openblas_set_num_threads(int);

#include "variants.h"  // NV, the variants' declarations, vfn[] and vname[]

static int use_cpu = 0;
static double now(void) {
  struct timespec t;
  clock_gettime(use_cpu ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 10;
  int threads = argc > 2 ? atoi(argv[2]) : 1;
  if (reps < 1 || reps > 200 || threads < 1) return 2;
  use_cpu = getenv("CPUTIME") != NULL;
  size_t cnt = (size_t)N * N;
  float *A, *B, *R, *C;
  if (posix_memalign((void**)&A, 64, cnt * 4) || posix_memalign((void**)&B, 64, cnt * 4) ||
      posix_memalign((void**)&R, 64, cnt * 4) || posix_memalign((void**)&C, 64, cnt * 4))
    return 1;
  srand(1);
  for (size_t i = 0; i < cnt; i++) {
    A[i] = rand() / (float)RAND_MAX - 0.5f;
    B[i] = rand() / (float)RAND_MAX - 0.5f;
  }
  openblas_set_num_threads(1);
  cblas_sgemm(101, 111, 111, N, N, N, 1, A, N, B, N, 0, R, N);
  static double tm[NV + 1][200];
  int bad = 0;
  for (int r = -1; r < reps; r++) {
    for (int v = 0; v <= NV; v++) {
      double t0;
      if (v == NV) {
        openblas_set_num_threads(threads);
        t0 = now();
        cblas_sgemm(101, 111, 111, N, N, N, 1, A, N, B, N, 0, C, N);
      } else {
        omp_set_num_threads(threads);
        t0 = now();
        vfn[v](C, A, B);
      }
      double dt = now() - t0;
      if (r >= 0) tm[v][r] = dt;
      if (r < 0 && v < NV) {
        double e = 0;
        for (size_t i = 0; i < cnt; i++) e = fmax(e, fabs(C[i] - R[i]));
        if (e > 1e-3) printf("MISMATCH %s %g\n", vname[v], e), bad = 1;
      }
    }
    struct timespec s = {0, 100000000};  // OpenBLAS's threads stop spinning
    nanosleep(&s, 0);
  }
  double bmin = 0, bmed = 0;
  printf("N = %d, %d thread(s), %s, %d rounds\n", N, threads,
         use_cpu ? "process CPU time" : "wall clock", reps);
  for (int v = NV; v >= 0; v--) {
    qsort(tm[v], reps, sizeof(double), cmp);
    double mn = tm[v][0] * 1e3, md = tm[v][reps / 2] * 1e3;
    if (v == NV) bmin = mn, bmed = md;
    printf("%-34s min %8.2f ms  median %8.2f ms  vs OpenBLAS: min %.3f  median %.3f\n",
           v == NV ? "OpenBLAS sgemm" : vname[v], mn, md, bmin / mn, bmed / md);
  }
  FILE* f = fopen("/proc/loadavg", "r");
  char l[100] = "?";
  if (f && fgets(l, sizeof l, f)) printf("load average at end: %s", l);
  return bad;
}
