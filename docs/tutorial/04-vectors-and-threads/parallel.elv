// Lesson 4: the map as an OpenMP parallel loop (needs --target openmp).
let main = (parallel @ outermost(isApplied(isMap))) ; lowerToC;
