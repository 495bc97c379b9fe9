// Matrix multiplication for the GPU targets sized for an H100/H200 (CUDA; also valid for
// OpenCL): gpu_tiled.elv's shape (docs/strategies.md "GPU mm") with larger tiles and
// both k-tiles kept transposed in local memory. Sizes (edit together):
//   128 x 128  the block of C of a work group   (tile(128, 128); needs 128 | n, 128 | m)
//   16         the k-tile                       (splitStrategy(16); needs 16 | k)
//   8 x 8      the register block of a work item (tile(8, 8), three times)
// so a work group is 16 x 16 = 256 work items, each with 64 accumulators.
//   - In each k-tile step, A's 128 x 16 tile and B's 16 x 128 tile are copied into local
//     memory both as [k][128] (storeInMemory of transpose(copy(transpose(tile))): the
//     copy stores the transposed tile, the step reads it through a transpose). A is
//     stored transposed, B in its natural layout: the work items' reads of one k are
//     then 128 consecutive floats of each tile (A's broadcast across a warp's columns,
//     B's at a stride of 8 floats), where gpu_tiled's layout puts all of a warp's
//     reads of B in one bank. B's copy reads rows of B (coalesced), its columns over
//     mapLocal(0).
//   - 64 multiply-adds per 16 floats read from local memory (8 x 8 register block).
// Not expressed yet: double buffering of the tiles (a second pair of local tiles
// loaded while the first is read), vector (float4) reads of local memory.
let computing = isApplied(isMap) ; containsComputation;
let copyOut = isFullyApplied(isMap) ; argument(isFullyApplied(isReduceSeq));
let overWorkItems(p) =
  (function(mapLocal(1)) @ outermost(isFullyApplied(isMap)
                                     ; argument(isFullyApplied(isPrimitive(split)) ; argument(p))))
  ; (function(argument(body(function(mapLocal(0)))))
       @ outermost(isFullyApplied(isPrimitive(mapLocal))
                   ; argument(isFullyApplied(isPrimitive(split)) ; argument(p))));
// A tile stored transposed: transpose(transpose(t)), the inner transpose copied with
// its k (outer) over mapLocal(1) and its 128 rows or columns (inner) over mapLocal(0).
let copyTransposed = transposePairAfter
  ; argument(idAfter ; idToCopy
             ; function(argument(body(idAfter ; idToCopy ; function(mapLocal(0)))))
             ; function(mapLocal(1)) ; toLocal);
let main = DFNF ; (fuseReduceMap @ topDown)
  ; (tile(128, 128) @ outermost(mapNest(2)))
  ; (reduceMapFission @ outermost(isApplied(isApplied(isReduceSeq))))
  ; (splitStrategy(16) @ innermost(isFullyApplied(isReduce)))
  ; reorder([1, 2, 5, 3, 4, 6])
  ; (mapWorkGroup(1) @ outermost(computing))
  ; (mapWorkGroup(0) @ outermost(computing))
  ; (tile(8, 8) @ outermost(mapNest(2)))
  ; (mapLocal(1) @ outermost(computing))
  ; (mapLocal(0) @ outermost(computing))
  ; (mapReduceInterchange @ innermost(isFullyApplied(isMap))) ; DFNF
  ; (mapReduceInterchange @ innermost(isFullyApplied(isMap))) ; DFNF
  ; DFNF ; (idAfter @ outermost(isFullyApplied(isReduceSeq)))
  ; (idToCopy @ topDown)
  ; (function(argument(body(idAfter ; idToCopy))) @ outermost(copyOut))
  ; (tile(8, 8) @ outermost(copyOut)) ; DFNF
  ; overWorkItems(isFullyApplied(isReduceSeq))
  ; (function(function(argument(storeInMemory(isFullyApplied(isPrimitive(fst)), copyTransposed))))
       @ outermost(isFullyApplied(isReduceSeq)))
  ; (function(function(argument(storeInMemory(isFullyApplied(isPrimitive(snd)), copyTransposed))))
       @ outermost(isFullyApplied(isReduceSeq)))
  ; (function(argument(idAfter ; idToCopy ; function(argument(body(idAfter ; idToCopy)))
                       ; tile(8, 8))) @ outermost(isFullyApplied(isReduceSeq)))
  ; DFNF ; overWorkItems(isFullyApplied(isPrimitive(generate)))
  ; normalize(oclReduceSeq(Private)) ; lowerToC
  ; normalize(isFullyApplied(isMapSeq) ; unroll);
