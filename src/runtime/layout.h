// The memory layout of RISE data in generated C, and conversion of interpreter
// values to and from it: how the runtime passes inputs to compiled code and reads
// its output back, so that both can be compared with the interpreter.
//
// The layout is C's for the types the C backend emits (codegen/c/c_backend.h):
//   - scalars: their C type (bool is one byte, 0 or 1); idx[n] and natType: `int`;
//   - vec[t, n]: a GCC vector of n lanes, size n * sizeof(t), aligned to its size;
//   - (a, b): `typedef struct { A _1; B _2; } risec_pair_A_B;` with natural alignment
//     (the second field at the first offset after _1 aligned for B; the size rounded
//     up to the struct's alignment);
//   - n.t: n elements of t back to back (row-major, flattened), no padding between
//     them (a C type's size is a multiple of its alignment).
// Data whose elements are pairs holding arrays (n.(m.f32, k.i32), (n.f32, n.f32)) is
// stored one array per component, as the generated code stores it: the components in
// order (_1 before _2, nested pairs split too), each an array over the outer
// dimensions and then the arrays inside the element, each starting at the next offset
// aligned for its elements (for (n.f32, n.f32): n floats, then n floats).
#pragma once

#include <cstddef>

#include "rise/type.h"
#include "rise/value.h"
#include "support/buffer.h"

namespace risec::runtime {

struct CLayout {
  size_t size = 0;   // bytes of one value (all elements of an array)
  size_t align = 1;  // alignment it needs
};

// The layout of a concrete data type (sizes must be constants: risec::Error User
// "size n has no value; pass --size" otherwise; internal error for a non-data type).
CLayout c_layout(const rise::Type& t);

// The offset of the second component of a pair type.
size_t pair_second_offset(const rise::Type& pair_type);

// A value of data type `t` in C layout, in a 64-byte aligned buffer of exactly
// c_layout(t).size bytes (padding zeroed). Throws risec::Error (User) when the type
// needs more than 64-byte alignment.
AlignedBuffer to_c_buffer(const rise::Value& v, const rise::Type& t);
// Write the value at `dst`, which must hold c_layout(t).size bytes.
void write_c(const rise::Value& v, const rise::Type& t, std::byte* dst);

// The value of data type `t` stored in C layout at `src` (c_layout(t).size bytes).
// Throws risec::Error (User) for an idx[n] outside [0, n) or a negative natType.
rise::Value from_c_bytes(const std::byte* src, const rise::Type& t);

}  // namespace risec::runtime
