#!/usr/bin/env bash
# mm with AVX2 code against OpenBLAS's Haswell kernel (issue 34): the register-blocked
# forms the autoscheduler chooses between at N^3 (default 2048), with risec's software
# prefetching of packed B (@D: the rule prefetch(D), D bytes ahead, as the autoscheduler
# writes it) and GCC's (+pf, -fprefetch-loop-arrays) or neither, one thread, process CPU time (steadier than wall clock
# on a loaded machine), REPS interleaved rounds; a second pass on 2 threads by wall
# clock unless THREADS2=0. Run from the repository root after building risec:
#   bench/mm/avx2_ab.sh [N]
#   6x16x2xcols           6 x 16 register block, k split 2, B packed, column blocks
#                         outermost, the whole product (the last N % 6 rows peeled)
#   6x16x2xcolsx126x512   the same in panels of 126 rows with kc 512 chunks (the quiet
#                         search's choice at 2048^3, bench/results/journal/2026-11-29-mmavx2.md)
#   6x16x2xcolsx126       panels of 126 rows without kc chunks
#   ...@960, @1024, @2048 the k loop prefetching packed B that many bytes ahead (960:
#                         the autoscheduler's model's distance for 6 x 16, k split 2)
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-2048}
POINTS=(6x16x2xcols 6x16x2xcols@960 6x16x2xcols@2048 6x16x2xcols+pf 6x16x2xcolsx126x512
  6x16x2xcolsx126 6x16x2xcolsx126@960)
export RISEC_LANES=8 ARCH=-march=x86-64-v3 OPENBLAS_CORETYPE=Haswell
REPS=${REPS:-20} CPUTIME=1 OUT=build/mm_avx2_ab bench/mm/blocked_cputime.sh "$N" "${POINTS[@]}"
if [ "${THREADS2:-1}" != 0 ]; then
  REPS=${REPS:-20} THREADS=2 OUT=build/mm_avx2_ab2 bench/mm/blocked_cputime.sh "$N" "${POINTS[@]}"
fi
