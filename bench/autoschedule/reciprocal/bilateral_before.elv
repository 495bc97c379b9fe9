// bilateral: the default lowering, which `risec tune --budget 60` kept (build/tune60q)
let main = simplify ; try(parallelOutput) ; lowerToC ; try(unrollReductions(25));
