// Binomial options pricing with vectors as wide as the machine's (`lanes`): each lane
// is an option, the loop over the tree's leaves runs on vectors (the leaf index
// broadcast); any number of options (the last n % lanes are scalar).
let main = (vectorizeRemainder(lanes) @ outermost(isFullyApplied(isMap))) ; lowerToC;
