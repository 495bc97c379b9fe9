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
# then one of 4). A fifth field PANEL (6x16x4xcolsx126, a multiple of TI) first splits
# the rows into panels of PANEL rows (splitJoin), each blocked as above, the panel
# loop parallel, the last N % PANEL rows peeled off and blocked without panels; a
# sixth, KC (6x16x4xcolsx126x256), also splits
# the reduction into chunks of KC, the chunk loop between the column and the row
# blocks: the autoscheduler's panel points. An argument ending in .elv is compiled as
# it is (a tuned file), one ending in .c is taken as generated C (its entry `mm`), e.g.
#   RISEC_LANES=8 ARCH=-march=x86-64-v3 OPENBLAS_CORETYPE=Haswell CPUTIME=1 REPS=15 \
#     bench/mm/blocked_cputime.sh 2048 6x16x4xcols 6x16x4xcolsx126 6x16x4xcolsx126x256
# A point or file followed by +pf (6x16x2xcols+pf) is compiled with GCC's software
# prefetching (-fprefetch-loop-arrays, a `#pragma GCC optimize` line at the top of its C).
# A point ending in @D (6x16x2xcols@1024; not with KC) asks for risec's own prefetching
# instead: the rule prefetch(D) on each block's k loop, as the autoscheduler writes it
# (the packed B's lines D bytes ahead, docs/strategies.md).
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
for arg in "$@"; do
  point=${arg%+pf}
  if [[ "$point" == *.c ]]; then  # generated C as it is (e.g. hand-edited), entry `mm`
    cp "$point" "$OUT/p$i.c"
  elif [[ "$point" == *.elv ]]; then  # a strategy file as it is (e.g. risec tune's -o)
    cp "$point" "$OUT/p$i.elv"
  else
    pf=""
    if [[ "$point" == *@* ]]; then  # risec's prefetch(D) on the k loop
      pf="; (prefetch(${point#*@}) @ outermost(isFullyApplied(isReduceSeq)))"
    fi
    IFS=x read -r ti tj kk order panel kc <<< "${point%@*}"
    o12="1, 2"
    [ "$order" = cols ] && o12="2, 1"
    par="; (parallel @ outermost(isApplied(isMap)))"
    [ -n "$panel" ] && par=""  # the panel loop is the parallel one
    block() {  # the blocking of a product (or a part of it) in blocks of $1 rows
      local split="(splitStrategy($kk) @ innermost(isFullyApplied(isReduce)))" ord="$o12, 5, 6, 3, 4"
      if [ -n "$kc" ] && [ "$kc" != 0 ]; then
        split="(splitStrategy($kc) @ innermost(isFullyApplied(isReduce))) ; $split"
        ord="2, 5, 1, 6, 7, 3, 4"
      fi
      echo "tile($1, $tj) ; (reduceMapFission @ outermost(isApplied(isApplied(isReduceSeq))))" \
        "; $split ; reorder([$ord]) ; (vectorize(lanes) @ innermost(isFullyApplied(isMap))) $par" \
        "; (unroll @ innermost(isFullyApplied(isReduceSeq))) $pf"
    }
    peeled() {  # $1 rows in blocks of ti, the last $1 % ti rows a block of their own
      local rest=$(($1 % ti))
      if [ "$1" -lt "$ti" ]; then
        block "$1"
      elif [ "$rest" = 0 ]; then
        block "$ti"
      else
        echo "peelRemainder($ti) ; function(argument($(block "$ti"))) ; argument($(block "$rest"))"
      fi
    }
    if [ -n "$panel" ]; then  # as the autoscheduler's panel points (schedule_blocked.cpp)
      per="splitJoin($panel) ; (($(block "$ti")) @ outermost(isProductNest)) ; (parallel @ outermost(isApplied(isMap)))"
      rest=$((N % panel))
      if [ "$rest" != 0 ]; then
        par="; (parallel @ outermost(isApplied(isMap)))"
        per="peelRemainder($panel) ; function(argument($per)) ; argument($(peeled "$rest"))"
      fi
    else
      per=$(peeled "$N")
    fi
    cat > "$OUT/p$i.elv" <<E
let main =
    (blockTranspose($tj) @ outermost(isApplied(isTranspose))) ; storeInMemory(isApplied(isTranspose), idAfter ; normalize(liftId) ; (vectorize(lanes) @ innermost(isFullyApplied(isMap))) ; (parallel @ outermost(isApplied(isMap))) ; lowerToC)
  ; DFNF ; normalize(fuseReduceMap)
  ; everywhere(isProductNest ; $per)
  ; lowerToC;
E
  fi
  if [[ "$point" != *.c ]]; then
    build/risec compile examples/mm/mm.rise --strategy "$OUT/p$i.elv" --size "n=$N,m=$N,k=$N" \
      --target openmp -o "$OUT/p$i.c"
  fi
  if [ "$arg" != "$point" ]; then  # +pf: GCC's software prefetching in this variant only
    sed -i '1i #pragma GCC optimize("prefetch-loop-arrays")' "$OUT/p$i.c"
  fi
  sed -i "s/\bmm\b/mm_v$i/g; s/\bmm__/mm_v${i}__/g; s/risec_local_entry/risec_local_entry$i/g" "$OUT/p$i.c"
  gcc -O3 ${ARCH:--march=native} -ffp-contract=fast -fno-math-errno -fno-trapping-math \
    -std=gnu99 -fopenmp -DRISEC_OMP_SIMD -c "$OUT/p$i.c" -o "$OUT/p$i.o"
  objs+=("$OUT/p$i.o")
  names+=("$arg")
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
