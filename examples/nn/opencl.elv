// nn for the OpenCL target: a work item per record (mapGlobal), as Rodinia's kernel.
let main = DFNF ; (mapGlobal(0) @ outermost(isApplied(isMap))) ; lowerToC;
