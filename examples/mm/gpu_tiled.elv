// Matrix multiplication for the GPU targets, register-blocked with a private
// accumulator per work item that lives across the loop over k-tiles (the shape of
// Lift's and Shine's tiled mm; docs/strategies.md "GPU mm"). Sizes (edit together):
//   32 x 32  the block of C of a work group   (tile(32, 32); needs 32 | n, 32 | m)
//   8        the k-tile                       (splitStrategy(8); needs 8 | k)
//   4 x 4    the register block of a work item (tile(4, 4), twice: compute and copy-out)
// so a work group is 8 x 8 work items (32 / 4 in each dimension).
//   - blocks of C: rows over mapWorkGroup(1), columns over mapWorkGroup(0);
//   - the reduction over k-tiles is at work-group level, its 32 x 32 accumulator
//     oclReduceSeq(Private): each work item updates its own 4 x 4 block of it in each
//     k-tile (mapLocal(1) x mapLocal(0) over the blocks), with the loop over the
//     k-tile outside the block (16 unrolled multiply-adds per 8 values read);
//   - in each k-tile step the group first copies the 32 x 8 tiles of A and B into
//     local memory (storeInMemory with a copy over mapLocal(1) x mapLocal(0), toLocal):
//     a barrier after both copies, one at the end of the step. A's rows are 8
//     consecutive floats: read as float4 (vectorize(4), vload4/vstore4); B's tile is
//     read along its rows of m floats (its columns over mapLocal(0), so neighbouring
//     work items read neighbouring floats), which the tile's transposed layout
//     (column, k) keeps from being vectorised;
//   - each work item also zeroes its own block first, and after the last k-tile copies
//     it to C (the same tiling and mapLocals over the initial value and the result):
//     it touches only its own 4 x 4 block of the accumulator.
// The address-space check accepts the accumulator because only mapLocals write and
// read it, and each work item's private copy is shrunk to its 4 x 4 part, indexed
// without the local ids (docs/targets.md "Address spaces", distributed accumulators).
let computing = isApplied(isMap) ; containsComputation;
let copyOut = isFullyApplied(isMap) ; argument(isFullyApplied(isReduceSeq));
// A copy tiled into 4 x 4 blocks of the array p (split(4)(p) |> map(...)): its blocks over
// mapLocal(1) x mapLocal(0).
let overWorkItems(p) =
  (function(mapLocal(1)) @ outermost(isFullyApplied(isMap)
                                     ; argument(isFullyApplied(isPrimitive(split)) ; argument(p))))
  ; (function(argument(body(function(mapLocal(0)))))
       @ outermost(isFullyApplied(isPrimitive(mapLocal))
                   ; argument(isFullyApplied(isPrimitive(split)) ; argument(p))));
// Copies of a tile into local memory: B's with its columns (the outer map) over
// mapLocal(0), A's with its rows over mapLocal(1) and each row as 2 float4 over
// mapLocal(0).
let copyToLocalT = idAfter ; idToCopy
  ; function(argument(body(idAfter ; idToCopy ; function(mapLocal(1)))))
  ; function(mapLocal(0)) ; toLocal;
let copyToLocal4 = idAfter ; idToCopy
  ; function(argument(body(idAfter ; idToCopy ; vectorize(4) ; argument(function(mapLocal(0))))))
  ; function(mapLocal(1)) ; toLocal;
let main = DFNF ; (fuseReduceMap @ topDown)
  // blocks of C, the k reduction split into k-tiles and moved outside the block's maps
  ; (tile(32, 32) @ outermost(mapNest(2)))
  ; (reduceMapFission @ outermost(isApplied(isApplied(isReduceSeq))))
  ; (splitStrategy(8) @ innermost(isFullyApplied(isReduce)))
  ; reorder([1, 2, 5, 3, 4, 6])
  ; (mapWorkGroup(1) @ outermost(computing))
  ; (mapWorkGroup(0) @ outermost(computing))
  // register blocks of 4 x 4 in each k-tile step, 8 x 8 work items
  ; (tile(4, 4) @ outermost(mapNest(2)))
  ; (mapLocal(1) @ outermost(computing))
  ; (mapLocal(0) @ outermost(computing))
  // register blocking: the loop over the k-tile's 8 columns moved outside the 4 x 4
  // block (twice mapReduceInterchange), so each value read from local memory serves
  // 4 multiply-adds; the block's loops are unrolled at the end
  ; (mapReduceInterchange @ innermost(isFullyApplied(isMap))) ; DFNF
  ; (mapReduceInterchange @ innermost(isFullyApplied(isMap))) ; DFNF
  // the copy of the accumulator to C, tiled and distributed the same way
  ; DFNF ; (idAfter @ outermost(isFullyApplied(isReduceSeq)))
  ; (idToCopy @ topDown)
  ; (function(argument(body(idAfter ; idToCopy))) @ outermost(copyOut))
  ; (tile(4, 4) @ outermost(copyOut)) ; DFNF
  ; overWorkItems(isFullyApplied(isReduceSeq))
  // the k-tiles of A and B copied into local memory by the work group in each step
  ; (function(function(argument(storeInMemory(isFullyApplied(isPrimitive(fst)), copyToLocal4))))
       @ outermost(isFullyApplied(isReduceSeq)))
  ; (function(function(argument(storeInMemory(isFullyApplied(isPrimitive(snd)), copyToLocalT))))
       @ outermost(isFullyApplied(isReduceSeq)))
  // the initial accumulator (zeros) written by the work items, each its own block
  ; (function(argument(idAfter ; idToCopy ; function(argument(body(idAfter ; idToCopy)))
                       ; tile(4, 4))) @ outermost(isFullyApplied(isReduceSeq)))
  ; DFNF ; overWorkItems(isFullyApplied(isPrimitive(generate)))
  ; normalize(oclReduceSeq(Private)) ; lowerToC
  ; normalize(isFullyApplied(isMapSeq) ; unroll);
