// Names in generated C. The unit is loaded into processes that also hold the C
// library, libm, glibc's libmvec and the OpenMP runtime, and it includes their
// headers; a generated symbol or variable named like one of theirs is either a C
// compile error (`exp2` declared by math.h with another type) or, worse, silently
// replaced at load time (an entry `j1` whose own calls reach libm's Bessel function).
// The scheme (docs/codegen.md, "Names in generated code"):
//   - a user's name is kept when it is not reserved;
//   - a reserved name is a C keyword, any name starting with '_' or "risec"/"RISEC"
//     (ours), `main`, any identifier the libraries export or their headers declare
//     or define, and those the OpenCL and CUDA hosts' headers declare
//     (c_reserved_names.inc, made by scripts/gen_c_reserved_names.sh), or an OpenCL C
//     keyword, builtin function, type or macro (`local`, `vload4`, `dot`, ...:
//     opencl_names.inc; these not for the entry, a host function),
//     or a C++ keyword or CUDA built-in the .cu files use (`new`, `threadIdx`, ...);
//   - reserved names get a prefix by role: the entry `risec_entry_NAME`, a variable
//     or parameter `risec_u_NAME`; foreign functions are always `risec_foreign_NAME`
//     (static); helpers are `risec_` + a fixed word, never one of those prefixes.
#pragma once

#include <string>

#include "arith/nat.h"

namespace risec::codegen {

// Whether generated code must not use `name` as is (see above).
bool c_name_reserved(const std::string& name);

// Whether `name` is a keyword of C (C89 to C23, GNU C), a keyword, type or built-in of
// OpenCL C or CUDA C++ that generated code prints, or a macro of math.h and stddef.h
// (NAN, NULL): a parameter of that name, kept as the user wrote it (a foreign
// function's), fails or is shadowed on some target.
bool c_keyword(const std::string& name);

// The C name of the exported entry function for the RISE entry `name`.
std::string c_entry_name(const std::string& name);

// The longest a kernel's name (OpenCL, CUDA) may be: PoCL names files and folders of
// its cache after a kernel (a name of 251 characters failed its "final linking").
inline constexpr size_t kMaxKernelNameLength = 64;

// `name` when at most `max` characters long; else its first characters, `_` and 16 hex
// digits of a hash of the whole name, `max` characters in all (the same name gives the
// same answer; two long names sharing a prefix differ in the hash).
std::string bounded_identifier(const std::string& name, size_t max = kMaxKernelNameLength);

// The C name of a foreign function.
std::string c_foreign_name(const std::string& name);

// A Nat with every variable whose C name differs from its own renamed to it (so that
// indices print the names the declarations use).
arith::Nat c_named(const arith::Nat& n);
arith::Cond c_named(const arith::Cond& c);

}  // namespace risec::codegen
