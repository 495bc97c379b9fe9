// Matrix multiplication for the OpenCL target, tiled in local memory and
// register-blocked:
//   - a work group per block of 8 rows of C (mapWorkGroup(0)); it first copies its 8
//     rows of A into local memory (toLocal; the copy's rows spread over mapLocal(1)),
//     which every work item of the group then reads (after a barrier);
//   - register blocking: a work item computes 4 rows of one column of C at once
//     (splitJoin(4), the 4-row map moved inside the column map, then inside the k
//     reduction by mapReduceInterchange: one pass over k with 4 private accumulators,
//     oclReduceSeq(Private), unrolled),
//     so every element of B it loads serves 4 rows;
//   - the 2 groups of 4 rows are mapLocal(1), the columns mapLocal(0) in blocks of 32
//     (a sequential loop over the column blocks: a work group is 32 x 2 work items,
//     whatever m is), so neighbouring work items read neighbouring elements of B.
// Needs 8 | n and 32 | m; the local tile is 8 rows of k floats (32 KiB at k = 1024).
// Lift and CLBlast also tile k, staging k-slices of A and B in local memory inside a
// work-group-level loop whose accumulators stay spread over the work items: that is
// gpu_tiled.elv (a distributed accumulator).
let computing = isApplied(isMap) ; containsComputation;
let atFirstComputing(s) = topDown(isFullyApplied(isMap) ; function(containsComputation) ; s);
let main = DFNF
  ; (splitJoin(8) @ outermost(computing)) ; DFNF
  ; (mapWorkGroup(0) @ outermost(computing))
  // the group's rows of A, copied into local memory (rows over mapLocal(1))
  ; atFirstComputing(argument(idAfter))
  ; (idToCopy @ topDown)
  ; atFirstComputing(argument(function(mapLocal(1))))
  ; atFirstComputing(argument(toLocal))
  // register blocking: 4 rows per work item, one pass over k with 4 accumulators
  ; (splitJoin(4) @ outermost(computing)) ; DFNF
  ; (mapMapInterchange @ innermost(mapNest(2))) ; DFNF
  ; normalize(fuseReduceMap)
  ; (mapReduceInterchange @ innermost(isFullyApplied(isMap))) ; DFNF
  // work items: groups of 4 rows in dimension 1, columns in blocks of 32 in dimension 0
  ; (mapLocal(1) @ outermost(computing))
  ; (splitJoin(32) @ outermost(computing)) ; DFNF
  ; (mapSeq @ outermost(computing))
  ; (mapLocal(0) @ outermost(computing))
  ; normalize(oclReduceSeq(Private))
  ; lowerToC
  ; (unroll @ innermost(isFullyApplied(isMapSeq)));
