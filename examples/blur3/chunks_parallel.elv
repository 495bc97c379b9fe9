// blur3 in chunks of rows (as Halide's expert schedule computes the row pass per tile,
// and OpenCV's sepFilter2D keeps a buffer of row-pass rows): each chunk of u - 2 output
// rows (a parallel iteration) first blurs the u input rows it needs along the rows into
// a buffer of its own, then blurs that buffer down the columns. The row pass stays in
// the cache for the column pass (the default lowering stores the whole image of it
// first). u - 2 must divide n (n = 4096: u = 66; n = 1024: u = 34; the default u = 5
// fits the test size n = 9).
// The derivation is blur5's (docs/strategies.md, "Blurs in chunks of rows"), imported:
// its `main` applies to blur3 as it is. The clamped border's padding moves before the
// row pass with padClampBeforeMap where blur5's zero border uses padCstBeforeMap.
import "../blur5/chunks_parallel.elv";
param u in [5, 66, 34];
main;
