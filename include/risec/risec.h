// The public C++ API of risec: parse and check a RISE program, rewrite it with an
// ELEVATE strategy (a .elv text or file, or one built in C++ from the library's
// combinators and rules), generate code for a target, and compile, load and call
// that code on your own buffers. docs/api.md has a complete example.
//
// Every type here is a small value (copies share immutable state); the compiler's
// own headers stay private. Every failure is a risec::Error (risec/error.h) with the
// same located message and kind as the command line's (exit_code(e.kind()) is the
// exit code `risec` would give); format_error(e) renders it as the command line does.
// Functions that run the compiler run it on a thread with a large stack, as the
// command line does, so deep programs give errors rather than stack overflows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "risec/error.h"

namespace risec {

// Values of size parameters, by name: {{"n", 1024}, {"m", 512}}.
using Sizes = std::map<std::string, int64_t>;

// ---------------------------------------------------------------------------------
// Element types, parameters and arrays
// ---------------------------------------------------------------------------------

// The element types of buffers (RISE's scalar types).
enum class ScalarType { Bool, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64 };
// "f32", "i64", ...
std::string scalar_type_name(ScalarType t);
// Bytes per element (a bool is one byte).
size_t scalar_type_size(ScalarType t);

// One data parameter of the generated function (or its output).
struct Parameter {
  std::string name;  // the RISE parameter name ("output" for the result)
  std::string type;  // its RISE type, e.g. "n.m.f32"
  // The scalar type of its elements (the lanes of a vector type); nullopt for
  // pairs, which are C structs (pass them as raw bytes).
  std::optional<ScalarType> element;
};

// A caller's n-dimensional array (a NumPy array, a DLPack tensor, a std::vector with
// a shape): its element type, shape and strides. It is only a view: the memory stays
// the caller's. Vector types (n.vec[f32, 4]) have their lanes as the last dimension.
struct ArrayRef {
  void* data = nullptr;
  ScalarType element = ScalarType::F32;
  std::vector<int64_t> shape;    // empty: a scalar (one element)
  std::vector<int64_t> strides;  // in elements, per dimension; empty: row-major

  int64_t count() const;  // the number of elements (the product of the shape)
  size_t bytes() const;   // count() * scalar_type_size(element)
  // Whether the elements lie row-major without gaps (strides of extents 1 ignored),
  // as generated code reads and writes them.
  bool row_major() const;
  // Copy the elements, in row-major order, to `dst` (count() elements) / from `src`.
  void copy_to(void* dst) const;
  void copy_from(const void* src) const;
};

// An array the library made (the interpreter's results): row-major, owned.
struct Array {
  ScalarType element = ScalarType::F32;
  std::vector<int64_t> shape;
  std::vector<unsigned char> bytes;
};

// ---------------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------------

class Strategy;
// An argument of a library strategy: a strategy, a number, a list of numbers
// (tileND([32, 32])) or a name (an address space such as "global", or a variable).
using StrategyArg = std::variant<Strategy, int64_t, std::vector<int64_t>, std::string>;

class Strategy {
 public:
  // The strategy `main` of a .elv text or file (spec/strategies.md). `params` gives
  // values to the file's `param` declarations as "NAME=V" texts (each `--param` of the
  // command line; a parameter not given takes its first value). Throws a located
  // Error (User) when it does not parse, Error (Usage) for a bad parameter value.
  static Strategy parse(const std::string& text, const std::string& name = "<strategy>",
                        const std::vector<std::string>& params = {});
  static Strategy load(const std::string& path, const std::vector<std::string>& params = {});
  // An entry of the strategy library by name (`risec rules` lists them), applied to
  // its arguments: Strategy::library("splitJoin", {int64_t{4}}). Throws Error (User)
  // for an unknown name or arguments that do not fit.
  static Strategy library(const std::string& name, const std::vector<StrategyArg>& args = {});

  const std::string& name() const;

  struct Impl;
  const Impl& impl() const { return *impl_; }
  explicit Strategy(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<const Impl> impl_;
};

// The combinators and traversals of the library as C++ functions (the .elv names
// in comments). Rules and anything else are Strategy::library(name, args).
namespace strategies {
Strategy id();                                           // id
Strategy seq(const Strategy& a, const Strategy& b);      // a ; b
Strategy lchoice(const Strategy& a, const Strategy& b);  // a <+ b
Strategy try_(const Strategy& s);                        // try(s)
Strategy repeat(const Strategy& s);                      // repeat(s)
Strategy top_down(const Strategy& s);                    // topDown(s)
Strategy bottom_up(const Strategy& s);                   // bottomUp(s)
Strategy normalize(const Strategy& s);                   // normalize(s)
Strategy body(const Strategy& s);                        // body(s)
// s @ outermost(pred): s applied at the outermost location where pred holds.
Strategy outermost(const Strategy& pred, const Strategy& s);
Strategy innermost(const Strategy& pred, const Strategy& s);
Strategy lower_to_c();  // lowerToC: the default lowering for C and OpenMP
}  // namespace strategies

// a >> b is seq(a, b) (`a ; b`); a | b is lchoice(a, b) (`a <+ b`).
Strategy operator>>(const Strategy& a, const Strategy& b);
Strategy operator|(const Strategy& a, const Strategy& b);

// ---------------------------------------------------------------------------------
// Programs
// ---------------------------------------------------------------------------------

class Function;

class Program {
 public:
  // Parse a .rise text (spec/rise-syntax.md) or file; `name` is the file name used
  // in error locations. Throws a located Error (User) on a syntax error, Error
  // (User) when the file cannot be read.
  static Program parse(const std::string& text, const std::string& name = "<program>");
  static Program load(const std::string& path);

  // The names of the definitions, in order (the last is the default entry).
  std::vector<std::string> definitions() const;
  // The program printed back in RISE syntax.
  std::string print() const;
  // Resolve and type-check the definition `entry` (the last one when empty), with
  // the sizes given specialised (sizes left out stay symbolic). Throws a located
  // Error (User) on a type error.
  Function check(const std::string& entry = "", const Sizes& sizes = {}) const;
  // The sizes of `entry` that the shapes of its data inputs determine (one shape per
  // input, in parameter order; an extent n + 2 or 2 * n gives n where exact), added to
  // `given`. Error (User) naming the input and dimension when a rank or an extent
  // disagrees, an extent makes a size 0, or a size stays unknown.
  Sizes infer_sizes(const std::vector<std::vector<int64_t>>& shapes, const Sizes& given = {},
                    const std::string& entry = "") const;

  struct Impl;
  const Impl& impl() const { return *impl_; }
  explicit Program(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<const Impl> impl_;
};

// A checked entry of a program (possibly rewritten by a strategy).
class Function {
 public:
  const std::string& name() const;
  // Its type in RISE syntax, e.g. "(n: Nat) -> f32 -> n.f32 -> n.f32".
  std::string type() const;
  // The side conditions on symbolic sizes it needs, e.g. "4 divides n (split)".
  std::vector<std::string> requirements() const;
  // Its data parameters, in order (types symbolic in the sizes not given to check).
  std::vector<Parameter> parameters() const;
  // "def NAME = ..." in RISE syntax (with `types`, lambda parameters annotated).
  std::string print(bool types = false) const;
  // The function rewritten by `s`. Throws a located Error (User) naming the rule that
  // failed when the strategy fails.
  Function rewrite(const Strategy& s) const;

  struct Impl;
  const Impl& impl() const { return *impl_; }
  explicit Function(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<const Impl> impl_;
};

// ---------------------------------------------------------------------------------
// Code generation
// ---------------------------------------------------------------------------------

struct CompileOptions {
  std::string entry;                 // the definition to compile; empty: the last one
  Sizes sizes;                       // sizes fixed at compile time (the rest are parameters)
  std::optional<Strategy> strategy;  // how to compute it; none: lowerToC
  std::string target = "c";          // "c", "openmp" or "opencl"
  bool trace = false;                // report each rule applied on stderr (--trace)
  bool simplify = true;              // without a strategy: simplify before lowerToC
  // c and openmp: short innermost loops whose trip count the vector width does not
  // divide run as blocks, the last one shifted inwards (docs/codegen.md; --no-shift-tails)
  bool shift_tails = true;
  // Data-dependent indices (natAsIndex, casts to idx[n], index arithmetic, inputs of
  // indices) are checked in the generated code: a failure stops the program with the
  // interpreter's message, an Error (Fault) of a Kernel's call (docs/guarantees.md;
  // --no-bounds-checks turns it off)
  bool bounds_checks = true;
  // Inputs known at compile time (--bind): parameter name -> .npy file. Each one's
  // values become constants folded into the code and the parameter leaves the
  // function's inputs; the sizes its shape determines are fixed (docs/cli.md).
  std::map<std::string, std::string> bind;
  // c and openmp: each top-level loop nest of the generated function times itself
  // (`risec run --profile`, docs/cli.md); another target is a usage error
  bool profile = false;
  // Use the best strategy `risec tune` recorded for this program, entry, sizes, target
  // and CPU (docs/tuning.md, "Results reused"; --tuned); without a record, the default
  // lowering after one note on stderr. Not together with `strategy` (Usage error).
  bool tuned = false;
  // The tuning database `tuned` reads; empty: tuning.db in the cache directory.
  std::string tuning_db;
  // The same from memory (the Python package's arrays): parameter name -> the array,
  // read (copied into the program) during compile(); no file is written. A name may
  // not be in both maps.
  std::map<std::string, ArrayRef> bind_arrays;
};

// Generated code: what `risec compile` writes.
class Source {
 public:
  const std::string& name() const;    // the C function's name
  const std::string& target() const;  // "c", "openmp", "opencl" or "cuda"
  const std::string& code()
      const;  // the .c translation unit (OpenCL: the host code; CUDA: the .cu)
  const std::string& header() const;   // the .h declaring the function
  const std::string& kernels() const;  // OpenCL: the .cl kernels ("" otherwise)
  // The sizes the function still takes as int parameters, in order.
  std::vector<std::string> size_parameters() const;
  std::vector<Parameter> inputs() const;  // the data inputs, in order
  Parameter output() const;
  // The sizes fixed at compile time (CompileOptions::sizes and the bound inputs' shapes).
  Sizes fixed_sizes() const;
  // The imperative DPIA the code was printed from (--dump-dpia), for debugging.
  std::string dpia() const;

  struct Impl;
  const Impl& impl() const { return *impl_; }
  explicit Source(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<const Impl> impl_;
};

// Check the entry, apply the strategy (lowerToC without one) and generate code for
// the target. Throws a located Error (User) for errors of the program or strategy,
// Error (Usage) for an unknown target.
Source compile(const Program& program, const CompileOptions& options = {});

// The reference interpreter (`risec eval`) on the entry's data inputs, in order, with
// sizes from their shapes (and `sizes`): one array per result, or one per component
// of a result holding pairs. The inputs are read where they are (any strides).
std::vector<Array> interpret(const Program& program, const std::vector<ArrayRef>& inputs,
                             const std::string& entry = "", const Sizes& sizes = {});

// ---------------------------------------------------------------------------------
// Running generated code
// ---------------------------------------------------------------------------------

// The ScalarType of a C++ element type (no `value` for other types).
template <class T>
struct ScalarTypeOf {};
#define RISEC_SCALAR_TYPE_OF(T, S)                     \
  template <>                                          \
  struct ScalarTypeOf<T> {                             \
    static constexpr ScalarType value = ScalarType::S; \
  };
RISEC_SCALAR_TYPE_OF(bool, Bool)
RISEC_SCALAR_TYPE_OF(int8_t, I8)
RISEC_SCALAR_TYPE_OF(int16_t, I16)
RISEC_SCALAR_TYPE_OF(int32_t, I32)
RISEC_SCALAR_TYPE_OF(int64_t, I64)
RISEC_SCALAR_TYPE_OF(uint8_t, U8)
RISEC_SCALAR_TYPE_OF(uint16_t, U16)
RISEC_SCALAR_TYPE_OF(uint32_t, U32)
RISEC_SCALAR_TYPE_OF(uint64_t, U64)
RISEC_SCALAR_TYPE_OF(float, F32)
RISEC_SCALAR_TYPE_OF(double, F64)
#undef RISEC_SCALAR_TYPE_OF

// A view of caller-owned memory passed to a kernel: the elements are in row-major
// (C) order, flattened, as the generated header documents. Inputs are only read
// (so const memory is accepted); the output is written.
struct Buffer {
  void* data = nullptr;
  size_t bytes = 0;
  std::optional<ScalarType> element;  // checked against the parameter when set

  Buffer() = default;
  // Raw bytes (pairs, or any layout you build yourself): only the size is checked.
  // `data` may be null only when there are no bytes (an empty array).
  Buffer(void* p, size_t nbytes) : data(p), bytes(nbytes) {}
  Buffer(const void* p, size_t nbytes) : data(const_cast<void*>(p)), bytes(nbytes) {}
  // `count` elements of a scalar type (float, double, int8_t ... uint64_t, bool).
  template <class T, class U = std::remove_const_t<T>, ScalarType S = ScalarTypeOf<U>::value>
  Buffer(T* p, size_t count) : data(const_cast<U*>(p)), bytes(count * sizeof(U)), element(S) {}
  // A whole container with data() and size() (std::vector<float>, std::array, ...).
  template <class C, class = decltype(std::declval<C&>().data()),
            class = decltype(std::declval<C&>().size())>
  Buffer(C& c) : Buffer(c.data(), c.size()) {}  // NOLINT: implicit on purpose
};

// Generated code compiled with the C compiler ($CC, default cc, with the flags of
// `risec run`; cached as `risec run` caches) and loaded into this process.
class Kernel {
 public:
  // Compile and load `source`. Throws Error (External) with the compiler's output
  // when the C compiler fails, and for the CUDA target when there is no CUDA GPU
  // (compile() alone still gives the code).
  explicit Kernel(const Source& source);

  const Source& source() const;

  // Call the function: `output` receives the result, `inputs` are the data inputs in
  // order, `sizes` gives every size the function still takes as a parameter. Each
  // buffer's byte size (and element type, when known) must match its parameter at
  // these sizes: a mismatch, a missing size, sizes that break a condition the
  // program needs (4 divides n) or a wrong number of inputs is an Error (Usage)
  // naming the parameter or condition. The code runs in this process. A fault of the
  // data that the generated code checks (an index out of range, an integer division
  // by zero or overflow) is an Error (Fault) with risec run's words ("the program
  // stopped: f: natAsIndex(4): 7 is out of range") once the call has returned; the
  // output may then be partly written. Any other fault of the code (a crash in a
  // foreign function, an OpenCL or CUDA runtime failure) is this process's.
  void operator()(const Buffer& output, const std::vector<Buffer>& inputs,
                  const Sizes& sizes = {}) const;

  // The number of bytes the input parameter named `parameter` needs at `sizes`. The
  // name "output" means the result only when no input has that name (an input may
  // be called anything): output_bytes says it whatever the inputs are called.
  size_t bytes(const std::string& parameter, const Sizes& sizes = {}) const;
  // Its shape at `sizes` (array extents, then vector lanes; a scalar has none).
  std::vector<int64_t> shape(const std::string& parameter, const Sizes& sizes = {}) const;

  // Every size of a call: `given` (each a size of the kernel, positive, and equal to
  // its value when fixed at compile time, else an Error (Usage) naming the nearest
  // name), the fixed ones, and those the inputs' shapes determine (Program::infer_sizes).
  // At most one shape per input, in order (more is an Error (Usage)).
  Sizes sizes(const std::vector<std::vector<int64_t>>& shapes, const Sizes& given = {}) const;

  // The call on arrays: each one's element type and shape are checked against its
  // parameter at `sizes` (Error (Usage) naming it). Row-major arrays are passed as
  // they are, without a copy; others are copied into a row-major temporary (an input)
  // or written through one (the output). Vectors of a width that is no power of two
  // (vec[f32, 3]) are (n, 3) arrays here and padded (4 lanes each) in a temporary, the
  // layout bytes() and a Buffer call take. The memory must be the host's. An output
  // sharing a byte with an input is refused (exactly: interleaved or tiled views of one
  // buffer that share none are called).
  void call(const ArrayRef& output, const std::vector<ArrayRef>& inputs,
            const Sizes& sizes = {}) const;

  // The number of bytes the output (the result) needs at `sizes`.
  size_t output_bytes(const Sizes& sizes = {}) const;

  // CompileOptions::profile (c, openmp): each stage of the code (a top-level loop
  // nest, as `risec run --profile` prints them) with the milliseconds it took, summed
  // over the calls since the code was loaded; empty without profile.
  struct Stage {
    std::string what;    // the primitive that made its outermost loop ("mapPar")
    std::string where;   // FILE:LINE:COL of that primitive, or empty
    std::string source;  // that line of the program, trimmed
    std::string writes;  // the arrays it writes (the generated code's names), comma-separated
    double ms = 0;       // total over the calls
  };
  std::vector<Stage> profile() const;

  struct Impl;

 private:
  std::shared_ptr<const Impl> impl_;
};

// compile, then Kernel: the one-call path.
Kernel jit(const Program& program, const CompileOptions& options = {});

// The version of the library ("0.1.0").
std::string version();

// The words messages use for what a caller gave: the C++ API's by default
// (sizes["n"], bind["w"]); a binding to another language sets its own, for the calls
// this thread makes while the scope lives (the Python package: sizes['n'], bind['w'],
// argument 1 (x)).
enum class Words { Cpp, Python };
class WordsScope {
 public:
  explicit WordsScope(Words w);
  ~WordsScope();
  WordsScope(const WordsScope&) = delete;
  WordsScope& operator=(const WordsScope&) = delete;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace risec
