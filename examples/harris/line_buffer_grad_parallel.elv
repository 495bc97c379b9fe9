param u in [32, 35, 17];
let slideOfRowSlides = argument(function(argument(body(isApplied(isPrimitive(slide))))));
let isSlide = isApplied(isPrimitive(slide));
let isProduct = isApplied(isApplied(isPrimitive(mul)));
let productRows = function(argument(body(function(argument(body(isProduct))))));
let zippedRows = function(argument(body(isApplied(isApplied(isPrimitive(zip))))));
let rows = normalize(inlineLet) ; DFNF
  ; tryAll(slideOfRowSlides ; slideBeforeMap)
  ; tryAll(isSlide ; argument(productRows) ; slideBeforeMap)
  ; tryAll(isSlide ; argument(zippedRows) ; slideBeforeMap)
  ; normalize(mapFusion);
let joinStages = mapOutsideZip
  ; argument(slideOutsideZip ; argument(argument(zipShared)) ; argument(slideBeforeMap));
let stages = repeat(bottomUp(joinStages) ; normalize(mapFusion));
let ringOfPairs = argument(argument(zipRows) ; slideBeforeMap)
  @ outermost(isFullyApplied(isMap));
let gradients = tryAll(mapOutsideZip ; argument(zipSame)) ; normalize(mapFusion);
let clean = normalize(betaReduction <+ fstReduction <+ sndReduction);
let lineBuffers = rows ; stages ; ringOfPairs ; normalize(mapFusion) ; gradients ; clean
  ; normalize(mapFusion) ; clean;
let chunks = (argument(slideOverlap(u)) @ outermost(isFullyApplied(isMap)))
  ; (joinBeforeMapF @ outermost(isFullyApplied(isMap)))
  ; (argument(mapFusion) @ outermost(isApplied(isPrimitive(join))))
  ; (argument(argument(slideBeforeMap)) @ outermost(isApplied(isPrimitive(join))))
  ; (argument(mapFusion) @ outermost(isApplied(isPrimitive(join))));
let main = lineBuffers ; chunks
  ; (function(argument(body(argument(circularBuffer)))) @ outermost(isFullyApplied(isMap)))
  ; DFNF ; normalize(expandReduce) ; specialise
  ; (mapPar @ outermost(isFullyApplied(isMap)))
  ; (mapSeq @ outermost(isFullyApplied(isMap)))
  ; (mapSeq @ outermost(isFullyApplied(isMap)));
