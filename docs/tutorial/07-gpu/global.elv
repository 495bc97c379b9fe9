// Lesson 7: one work item (GPU thread) per element: the map over dimension 0 of the
// launch. The loop is strided, so any number of work items covers the array.
let main = (mapGlobal(0) @ outermost(isApplied(isMap))) ; lowerToC;
