// bilateral: the default lowering with the range weight's division by 0.1 a
// multiplication by 10 (reciprocalDivision)
let main = simplify ; try(parallelOutput) ; normalize(reciprocalDivision) ; lowerToC ; try(unrollReductions(25));
