// Lesson 3: fuse the two maps over the rows, so that no array of dot products is
// stored between them, then lower the rest as the default does.
let main = DFNF ; (mapFusion @ topDown) ; lowerToC;
