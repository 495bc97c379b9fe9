// Binomial options pricing, one option at a time (the baseline of the vector strategy).
let main = lowerToC;
