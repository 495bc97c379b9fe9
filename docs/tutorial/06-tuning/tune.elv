// Lesson 6: lesson 5's tiled_parallel.elv as a template: the tile's height and width
// are parameters, each with the values to try (the first is the default).
param th in [8, 4, 16, 32];   // output rows per tile
param tw in [8, 16, 32, 64];  // output columns per tile
constraint th * tw <= 1024;   // at most 1024 pixels per tile
let main = DFNF ; (tile(th, tw) @ outermost(mapNest(2))) ; DFNF
  ; (parallel @ outermost(isApplied(isMap))) ; lowerToC;
