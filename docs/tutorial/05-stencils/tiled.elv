// Lesson 5: the image in tiles of 8 x 8 output pixels: two loops over the tiles, two
// inside each tile.
let main = (tile(8, 8) @ outermost(mapNest(2))) ; lowerToC;
