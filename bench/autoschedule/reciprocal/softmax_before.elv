// softmax as `risec tune --budget 60` chose before the division decision (build/tune60q)
let main = DFNF ; parallelOutput ; normalize(vectorizeReductionRemainder(lanes)) ; lowerToC;
