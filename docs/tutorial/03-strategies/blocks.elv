// Lesson 3: fused.elv, then the rows in blocks of 8: a loop over blocks and a loop
// over the rows of a block (what a GPU strategy or a cache tile starts from).
let fused = DFNF ; (mapFusion @ topDown);
let main = fused ; (splitJoin(8) @ outermost(isApplied(isMap))) ; lowerToC;
