// conv2d for the OpenCL target: a work item per output pixel in a 2-D launch, the
// rows in dimension 1 and the columns in dimension 0 (neighbouring work items read
// neighbouring pixels); each window's 25 products summed in one fused sequential
// reduction.
let main = DFNF ; normalize(fuseReduceMap)
  ; (mapGlobal(1) @ outermost(isApplied(isMap)))
  ; (mapGlobal(0) @ outermost(isApplied(isMap)))
  ; normalize(oclReduceSeq(Private))
  ; lowerToC;
