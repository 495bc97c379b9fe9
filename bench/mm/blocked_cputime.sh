#!/usr/bin/env bash
# Points of the register-blocked space (src/driver/schedule_blocked.cpp) beside
# OpenBLAS in one process, for a machine too loaded for wall-clock numbers: each
# point's strategy (the text block_steps writes, openmp target) compiled by risec at
# N^3, then blocked_cputime.c times them and cblas_sgemm interleaved; CPUTIME=1 times
# one-thread calls by the process's CPU time. Run from the repository root after
# building risec.
#   CPUTIME=1 bench/mm/blocked_cputime.sh 1024 4x64x2xcols 8x32x2xcols 16x16x2xrows
#   RISEC_LANES=8 ARCH=-march=x86-64-v3 OPENBLAS_CORETYPE=Haswell CPUTIME=1 \
#     bench/mm/blocked_cputime.sh 1024 4x16x2xcols
# A point is TIxTJxKKxORDER, ORDER rows or cols (the outermost block loop), the
# register-block order (k.i outside the rows), B packed, vectorize(lanes); a TI that
# does not divide N has its last N % TI rows peeled off (peelRemainder) and blocked as
# (N % TI) x TJ, as the autoscheduler does (6x16x2xcols at 1024: 170 blocks of 6 rows,
# then one of 4). A fifth field PANEL (6x16x4xcolsx256) first splits the rows into
# panels of PANEL rows (splitJoin), each blocked as above (A's panel kept in L2).
# Environment: REPS (10), THREADS (1), ARCH (-march=native), OUT (build/mm_blocked).
set -euo pipefail
cd "$(dirname "$0")/../.."
N=$1
shift
OUT=${OUT:-build/mm_blocked}
REPS=${REPS:-10}
mkdir -p "$OUT"
i=0
objs=()
names=()
for point in "$@"; do
  IFS=x read -r ti tj kk order panel <<< "$point"
  o12="1, 2"
  [ "$order" = cols ] && o12="2, 1"
  block() {  # the blocking of a product (or a part of it) in blocks of $1 rows
    echo "tile($1, $tj) ; (reduceMapFission @ outermost(isApplied(isApplied(isReduceSeq))))" \
      "; (splitStrategy($kk) @ innermost(isFullyApplied(isReduce))) ; reorder([$o12, 5, 6, 3, 4])" \
      "; (vectorize(lanes) @ innermost(isFullyApplied(isMap))) ; (parallel @ outermost(isApplied(isMap)))" \
      "; (unroll @ innermost(isFullyApplied(isReduceSeq)))"
  }
  rows=${panel:-$N}
  rest=$((rows % ti))
  if [ "$rest" = 0 ]; then
    per=$(block "$ti")
  else
    per="peelRemainder($ti) ; function(argument($(block "$ti"))) ; argument($(block "$rest"))"
  fi
  cat > "$OUT/p$i.elv" <<E
let main =
    (blockTranspose($tj) @ outermost(isApplied(isTranspose))) ; storeInMemory(isApplied(isTranspose), idAfter ; normalize(liftId) ; (vectorize(lanes) @ innermost(isFullyApplied(isMap))) ; (parallel @ outermost(isApplied(isMap))) ; lowerToC)
  ; DFNF ; normalize(fuseReduceMap)
  ${panel:+; (splitJoin($panel) @ outermost(isProductNest))}
  ; everywhere(isProductNest ; $per)
  ; lowerToC;
E
  build/risec compile examples/mm/mm.rise --strategy "$OUT/p$i.elv" --size "n=$N,m=$N,k=$N" \
    --target openmp -o "$OUT/p$i.c"
  sed -i "s/\bmm\b/mm_v$i/g; s/\bmm__risec_call\b/mm_v${i}__call/; s/risec_local_entry/risec_local_entry$i/g" "$OUT/p$i.c"
  gcc -O3 ${ARCH:--march=native} -ffp-contract=fast -fno-math-errno -fno-trapping-math \
    -std=gnu99 -fopenmp -DRISEC_OMP_SIMD -c "$OUT/p$i.c" -o "$OUT/p$i.o"
  objs+=("$OUT/p$i.o")
  names+=("$point")
  i=$((i + 1))
done
{
  echo "#define NV $i"
  for ((j = 0; j < i; j++)); do echo "void mm_v$j(float*, const float*, const float*);"; done
  echo "static void (*vfn[])(float*, const float*, const float*) = {"
  for ((j = 0; j < i; j++)); do echo "  mm_v$j,"; done
  echo "};"
  echo "static const char* vname[] = {"
  for p in "${names[@]}"; do echo "  \"risec $p\","; done
  echo "};"
} > "$OUT/variants.h"
gcc -O2 -DN="$N" -I"$OUT" -fopenmp bench/mm/blocked_cputime.c "${objs[@]}" -o "$OUT/harness" \
  -lopenblas -lm
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-); lanes ${RISEC_LANES:-host};" \
  "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-its own}; load $(cut -d' ' -f1-3 /proc/loadavg)"
"$OUT/harness" "$REPS" "${THREADS:-1}"
