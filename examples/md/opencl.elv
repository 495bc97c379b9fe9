// The OpenCL strategy of Lift's version: a work item per output element
// (mapGlobal), its reduction fused with the map that feeds it into one sequential loop
// whose accumulator is private to the work item.
let main = DFNF ; normalize(fuseReduceMap)
  ; (mapGlobal(0) @ outermost(isApplied(isMap)))
  ; normalize(oclReduceSeq(Private))
  ; lowerToC;
