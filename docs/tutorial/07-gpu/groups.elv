// Lesson 7: lesson 3's blocks of rows on a GPU: the two row maps fused, the rows in
// blocks of 8, one work group per block (mapWorkGroup), one work item per row of a
// block (mapLocal); each work item computes its dot product sequentially.
let main = DFNF ; (mapFusion @ topDown)
  ; (splitJoin(8) @ outermost(isApplied(isMap)))
  ; (mapWorkGroup(0) @ outermost(isApplied(isMap)))
  ; (mapLocal(0) @ outermost(isApplied(isMap)))
  ; lowerToC;
