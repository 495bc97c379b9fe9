// softmax with the new decisions: the division by the row's sum a multiplication by its
// reciprocal, every map over scalars vectorised (exponentials and the scaling)
let main = DFNF ; parallelOutput ; normalize(reciprocalDivision)
  ; normalize(vectorizeReduction2Remainder(lanes))
  ; normalize(vectorize(lanes) @ innermost(isFullyApplied(isMap))) ; lowerToC;
