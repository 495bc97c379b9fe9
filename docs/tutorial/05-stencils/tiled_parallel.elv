// Lesson 5: tiles of 8 x 8, the rows of tiles in parallel (OpenMP). DFNF after tile
// tidies the nest so that the outermost map is the loop over rows of tiles.
let main = DFNF ; (tile(8, 8) @ outermost(mapNest(2))) ; DFNF
  ; (parallel @ outermost(isApplied(isMap))) ; lowerToC;
