// The C printer: imperative DPIA, after the backend-neutral passes (dpia/unroll,
// split_loop, memory_placement, outline), printed as one C99 translation unit. It is
// a class so that a backend that is C with extras extends it rather than copying it,
// the way Halide's CodeGen_OpenCL_Dev extends CodeGen_C: the hooks below say how a
// loop of each kind is emitted, how a buffer in each address space and placement is
// declared, and what comes before the function. codegen/openmp is the example.
// Files: c_backend.cpp resolves views into C reads and writes, c_expressions.cpp
// prints types, literals and scalar operations, c_printer.cpp prints commands and the
// unit.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "codegen/c/c_backend.h"
#include "codegen/c_ast.h"
#include "dpia/distribute.h"
#include "dpia/imperative.h"
#include "dpia/name_supply.h"
#include "dpia/not_nan.h"
#include "dpia/split_loop.h"
#include "dpia/view_resolution.h"

namespace risec::codegen {

// A position inside a value while a view is resolved (rise/primitives.h).
using rise::Path;
using rise::PathElem;
using rise::PrimId;
// The IR names the printers of codegen/ use (this header is codegen's own).
using dpia::Acceptor;
using dpia::AcceptorP;
using dpia::Command;
using dpia::CommandP;
using dpia::Expression;
using dpia::ExpressionP;
using rise::Nat;
using rise::Type;
using rise::TypeKind;

const char* scalar_c(rise::ScalarKind k);
// Index helpers (risec_min, risec_floordiv, ...) over the index type `t` (int or int64_t).
std::string index_helpers(const std::string& t);
// The pragmas before them that keep a unit warning-free under GCC and Clang.
std::string helper_warning_pragmas();
// The default RISEC_PRECONDITION_FAILED (a message and abort()), unless defined.
extern const char* const kPreconditionHelper;
// The codes of bounds failures and risec_bounds_fail, the host's report of one
// (bounds_checks.cpp).
extern const char* const kBoundsCodes;
extern const char* const kBoundsHostHelper;
// A C string literal for plain text.
std::string c_string(const std::string& text);
// A Nat printed as C, with its precedence.
CExpr nat_expr(const arith::Nat& n);
// The bytes of `count` elements of C type `elem`, as a size_t expression that is
// SIZE_MAX where the true number does not fit (so the allocation fails and says so):
// sums and products of the sizes are computed with kSizeHelpers' saturating
// operations, not in the index type, where n*m*k of three large sizes wrapped around
// to a small buffer the code then wrote past.
std::string size_bytes(const std::string& elem, const arith::Nat& count);
// risec_size_mul/add/sub/div: the saturating size_t operations size_bytes prints.
extern const char* const kSizeHelpers;
// A sum over the common denominator of its coefficients: (constant + the sum of
// coefficient * monomial) / denominator, all integers (k*m*n/4 is (1/4)*kmn:
// denominator 4, coefficient 1). Throws arith::ArithError where one does not fit 64 bits.
struct IntegerSum {
  int64_t denominator = 1;
  int64_t constant = 0;
  std::vector<std::pair<int64_t, arith::Nat>> terms;
};
IntegerSum integer_sum(const arith::Node& sum);

// The Nats that nat_expr and CPrinter::cond_expr print while a PrintedNats is in scope
// on this thread are appended to the innermost one (and passed on to the one around it
// when it ends). Views produce index terms only as they are printed (a join's `k / m`,
// a reorder's function applied to a loop index), so the index width is checked against
// these too, after printing (index_width.cpp, printed_terms_narrow).
class PrintedNats {
 public:
  PrintedNats();
  ~PrintedNats();
  PrintedNats(const PrintedNats&) = delete;
  PrintedNats& operator=(const PrintedNats&) = delete;
  const std::vector<arith::Nat>& nats() const { return nats_; }
  // Appends `n` to the innermost PrintedNats, if there is one.
  static void note(const arith::Nat& n);
  static void note(const arith::Cond& c);

 private:
  std::vector<arith::Nat> nats_;
  PrintedNats* outer_;
};
// The precedence of a scalar operator of the primitive table (its c_prec column,
// which numbers C's levels as Prec does).
constexpr Prec c_precedence(rise::OpPrec p) {
  return static_cast<Prec>(p);
}
static_assert(c_precedence(rise::OpPrec::Eq) == kPrecEq &&
              c_precedence(rise::OpPrec::Rel) == kPrecRel &&
              c_precedence(rise::OpPrec::Add) == kPrecAdd &&
              c_precedence(rise::OpPrec::Mul) == kPrecMul &&
              c_precedence(rise::OpPrec::Unary) == kPrecUnary);

// The variable through which CPrinter::consecutive probes a vector's lanes (an access
// recorded with it is no read of the program's).
inline constexpr const char* kLaneProbe = "risec_lane";

// The bytes of an element of type t (a scalar, a vector padded to a power of two
// lanes, an index), which is also its alignment (runtime/layout.h).
size_t element_bytes(const Type& t);

struct Storage {
  rise::Type dt;
  bool pointer;  // accessed as name[flat index] (buffers and arrays); else a plain variable
  // A private array distributed over the work items (dpia/distribute.h): dt is one work
  // item's part, indexed through dpia::work_item_path.
  std::shared_ptr<const dpia::Distribution> distribution = nullptr;
  // An array of pairs stored as one array per component (structure of arrays: name_1,
  // name_2_1, ...; CPrinter::soa_parts): pairs of scalars, so that a component is read
  // and written contiguously and loops over it vectorise without shuffles, and pairs
  // holding arrays, which have no other layout (an array inside a pair becomes inner
  // dimensions of its component's array).
  bool soa = false;
};

class CPrinter {
 public:
  explicit CPrinter(const CGenOptions& opts) : opts_(opts) {}
  virtual ~CPrinter() = default;

  // The translation unit for `program` (placed and ready to print).
  CUnit print_unit(const std::string& entry_name, const dpia::CommandP& program,
                   const std::string& output, const rise::Type& out_dt,
                   const std::vector<dpia::Input>& inputs, const std::vector<std::string>& sizes);

  // The index type of the unit printed last (after print_unit and the GPU printers'
  // units: the host's and, but for 32-bit kernels beside 64-bit ones, the kernels').
  const std::string& index_type() const { return idx_type_; }
  // Whether 32-bit kernels printed beside 64-bit ones (GpuPrinter::dual_width_) have an
  // index term with no bound over the sizes: generate_c prints the unit again with
  // CGenOptions::wide_indices.
  bool narrow_unproven() const { return narrow_unproven_; }

 protected:
  // ---- hooks for backends that extend C
  // A loop that is not unrolled (trip count not 0 or 1). C: a sequential loop is split
  // at clamps (dpia/split_loop) where it can be, and an innermost one (or the parts of
  // a split one) may run with a shifted tail (dpia/shift_tail); every kind is a plain
  // `for` otherwise (a parallel loop runs sequentially).
  virtual void emit_loop(const Command& loop, std::vector<CStmtP>& out);
  // A top-level loop under --profile: emitted by emit_loop between two readings of a
  // clock, the difference added to its stage's total (profile.cpp).
  void emit_timed_stage(const Command& loop, std::vector<CStmtP>& out);
  // The clock and the stage totals the timed stages use, before the function.
  std::string profile_text() const;
  // The declaration of a buffer of `count` elements of C type `elem` in `space`:
  // a local array (Stack) or allocated memory (Heap, freed by the caller's code).
  virtual CStmtP declare_buffer(const std::string& name, const std::string& elem, const Nat& count,
                                dpia::Space space, dpia::Placement placement, bool restrict_ptr);
  // The statement freeing the heap buffer `name` declared by declare_buffer: its
  // allocation site keeps the block for the next call (risec_release), or, for a
  // buffer declared otherwise, free().
  CStmtP free_buffer(const std::string& name);
  // The heap buffers `names` just declared into `out` (risec_alloc: null when the
  // memory is not there), then `rest` (their scope and release) run only when they
  // were allocated (c_printer.cpp).
  void checked_allocation(const std::vector<std::string>& names, std::vector<CStmtP>& out,
                          const std::function<void(std::vector<CStmtP>&)>& rest);
  std::vector<CStmtP> stop_statements(const std::vector<std::string>& also = {});
  void stop_labels(std::vector<CStmtP>& body);
  // The declaration `decl` ("float acc") of a scalar or vector variable in `space`:
  // in C a plain local variable.
  virtual CStmtP declare_variable(const std::string& decl, dpia::Space space);
  // Text between the typedefs and the function (outlined functions, declarations).
  virtual std::string before_function() { return ""; }
  // Declarations the header adds after the function's: the release of the kept heap
  // buffers (C, OpenMP) or of the device objects (the GPU targets).
  virtual std::string header_declarations(const std::string& fn);
  // The declaration, before the function, of a table of constants (Command::table)
  // named `name` of `count` elements of C type `elem` with initialiser `values`
  // ("1.0f, 2.0f, ..."): C `static const`.
  virtual std::string table_declaration(const std::string& elem, const std::string& name,
                                        size_t count, const std::string& values);
  // Registers the table of constants of New command c (its storage and C name) and
  // declares it once in table_text_.
  void declare_table(const Command& c);
  // The statements at the entry of the function (C: checks of size preconditions).
  virtual std::string function_prologue(const std::string& fn,
                                        const std::vector<std::string>& sizes);

  // ---- the unit's parts (c_printer.cpp), shared by backends with a C host function
  // Tells the name supply every name in scope (dpia/name_supply.h): the program's and
  // the parameters'. Before bind_parameters.
  void reserve_names(const CommandP& program, const std::vector<dpia::Input>& inputs,
                     const std::vector<std::string>& sizes);
  // A name the printer derives from a variable's (`i1_b` for the blocks of the loop
  // over i1), or a split loop's part: `name` unless something in scope has it, then a
  // fresh one; the same for the same `name` within the function.
  std::string derived_name(const std::string& name);
  // The C name of the array holding one component (`suffix`: `_1`, `_2_1`, ...) of a
  // memory variable stored one array per component: a derived name of its own.
  std::string part_name(const std::string& var, const std::string& suffix);
  // Storage and C names of the output and inputs.
  void bind_parameters(const std::string& output, const Type& out_dt,
                       const std::vector<dpia::Input>& inputs,
                       const std::vector<std::string>& sizes);
  // The entry's C signature (u.name), recording its parameters in u.params.
  std::string signature(CUnit& u, const std::string& output, const Type& out_dt,
                        const std::vector<dpia::Input>& inputs,
                        const std::vector<std::string>& sizes);
  // The runtime's uniform entry point `fn`__risec_call calling the entry.
  std::string call_wrapper(const std::string& fn, const std::string& sig, const Type& out_dt,
                           const std::vector<dpia::Input>& inputs,
                           const std::vector<std::string>& sizes);
  // The .h: `types` (typedefs), the layout of the arguments, the preconditions.
  std::string header_text(const std::string& entry_name, const std::string& sig,
                          const std::string& types, const Type& out_dt,
                          const std::vector<dpia::Input>& inputs,
                          const std::vector<std::string>& sizes);
  // `(void)size;` for each size the function body does not mention.
  static std::string unused_sizes(const std::string& body_text,
                                  const std::vector<std::string>& sizes);

  // ---- commands (c_printer.cpp)
  void gen(const CommandP& c, std::vector<CStmtP>& out);
  void gen_command(const CommandP& c, std::vector<CStmtP>& out);
  void gen_copy(const CommandP& body, std::vector<CStmtP>& out);
  bool split_loop(const Command& c, std::vector<CStmtP>& out);
  // A sequential loop with its last block of iterations shifted inwards
  // (dpia/shift_tail.h), when the options ask for it and the loop qualifies.
  bool shifted_tail(const Command& c, std::vector<CStmtP>& out);
  // The software prefetches that start each iteration of a loop the rule prefetch
  // marked (Command::prefetch; prefetch.cpp); none for other loops.
  std::vector<CStmtP> prefetches(const Command& loop);
  dpia::BodyAccesses accesses(const CommandP& body);
  std::string cname(const std::string& var);

  // ---- types, literals, scalar operations (c_expressions.cpp)
  std::string c_type(const Type& t);
  static Type leaf(const Type& t);
  static std::vector<Nat> dims(const Type& t);
  static Nat count(const Type& t);
  // The C type of a vector (vec[t, n]) and its helpers (NAME_load, NAME_store,
  // NAME_broadcast): GCC vector-extension types; OpenCL's are its own (float4).
  virtual std::string vector_type(const Type& t);
  std::string pair_type(const Type& t);
  // `text` (the definition of the type `name` and its helpers) between include guards
  // named after the type: RISEC_DEFINED_name.
  static std::string type_guarded(const std::string& name, const std::string& text);
  CExpr cond_expr(const arith::Cond& c);
  CExpr literal(const ExpressionP& e, const Path& p);
  // A NaN or an infinity of f32 or f64 (f64 set), in an expression or, while
  // in_table_ is set, in a table's initialiser: C's NAN, INFINITY, -INFINITY.
  virtual CExpr nonfinite_literal(double v, bool f64);
  // The bits of vector v as the vector type `to` of the same size (signed integer lanes
  // computed in unsigned ones, which wrap).
  virtual CExpr vector_bits(CExpr v, const Type& to);
  static bool is_float_type(const Type& t);
  CExpr scalar_op(const ExpressionP& e, const Path& p);
  CExpr math_call(const rise::PrimitiveInfo& op, const Type& t, const std::vector<CExpr>& args);
  // Lane i of a vector: v[i] in GNU C; OpenCL names a constant lane v.sI.
  virtual CExpr vector_lane(CExpr v, const Nat& i);
  // A math function on a vector: C has none (a lane loop); OpenCL's are overloaded.
  virtual CExpr vector_math(const rise::PrimitiveInfo& op, const Type& vt,
                            const std::vector<CExpr>& args);
  // Masks (vec[bool, n]): a comparison of vectors `cmp` as a mask, a lane-wise select
  // (args: mask, a, b), and any/all lanes of a mask.
  virtual CExpr vector_compare(CExpr cmp, const Type& arg_vt, const Type& mask_t);
  virtual CExpr vector_blend(const Type& vt, const std::vector<CExpr>& args);
  virtual CExpr mask_reduction(bool all, const Type& mask_t, CExpr m);
  std::string foreign_function(const rise::ForeignFun& f);
  static bool safe_divisor(const ExpressionP& d, rise::ScalarKind k);
  std::string checked_division(const rise::PrimitiveInfo& op, const Type& t);
  // The parameter through which checked_division's helpers record a failure in a
  // kernel that cannot stop (OpenCL: the index checks' fault buffer); empty: they call
  // RISEC_ARITHMETIC_FAILED.
  virtual std::string division_fault_param() const { return ""; }
  std::string int_from_double(rise::ScalarKind k);
  std::string float_min_max(bool max, rise::ScalarKind k);
  // fmax or fmin of floats (scalars or vectors) on the CPU targets: with an operand
  // provably never NaN (dpia/not_nan.h) one comparison and select, which the C compiler
  // turns into a single max/min instruction; else the library's rule (float_min_max, on
  // vectors in compares and blends). None for other calls and targets.
  std::optional<CExpr> cpu_min_max(const Expression& e, const Type& t,
                                   const std::vector<CExpr>& args);

  // ---- bounds checks of data-dependent indices (bounds_checks.cpp)
  // The checked form of an index made from data (a Cast to idx[n], index arithmetic),
  // or none when the options turn checks off or the value is in range by its type.
  std::optional<CExpr> checked_index(const ExpressionP& e, const std::vector<CExpr>& args);
  // The definitions of risec_index(v, n, kind) and risec_nat(v) (a signed integer cast
  // to natType, int64_t), which the checked forms call: in C, a call of
  // risec_bounds_fail when v is outside [0, n) (negative).
  virtual std::string index_check_helper();
  // The host's checks, on entry, of inputs with idx[n] (or natType) elements.
  std::string input_index_checks(const std::vector<dpia::Input>& inputs);

  // ---- view resolution: reads and writes (c_backend.cpp)
  CExpr var_access(const std::string& name, const Path& path);
  // The memory location behind the most recent variable access (to decide whether
  // the lanes of a vector are consecutive in memory).
  struct Loc {
    std::string var;
    Nat flat;
    bool projected;  // a member of a struct, a lane of a vector: not a plain scalar array
    std::string text;
  };
  std::optional<Loc> last_loc_;
  dpia::BodyAccesses* record_ = nullptr;  // collects the indices and guards generated (split_loop)
  std::optional<Nat> lane_offset(const std::function<CExpr(const Nat&)>& access, const Nat& lanes);
  bool consecutive(const std::function<CExpr(const Nat&)>& access, const Nat& lanes);
  bool aligned_start(const Nat& lanes, const Span& span);
  std::set<std::string> size_names_;  // the entry's size parameters
  CExpr leaf_access(CExpr base, Type t, const Path& path, size_t from);
  // A component of an array element stored apart (Storage::soa): the C name suffix
  // (_1, _2_1, ...), the extents of the arrays inside the element above it, and its
  // type (a scalar or a vector: below a pair stored apart every pair is, so that the
  // parts of a type are the same on every target).
  struct SoaPart {
    std::string suffix;
    std::vector<Nat> dims;
    Type leaf;
  };
  // Whether a pair is stored one component apart from the other: always when it holds
  // an array (C has no flat layout for it), and when it is a pair of scalars on the
  // printers that store those so (soa_arrays_).
  bool soa_split(const Type& t) const;
  // The components of an element of type t; empty when t is no pair stored apart.
  std::vector<SoaPart> soa_parts(const Type& t) const;
  CExpr soa_access(const std::string& name, const Storage& s, const Nat& flat, const Path& path,
                   size_t from);
  // The arrays holding buffer `var` (the output, an input or a temporary): one per
  // component when it is stored per component (Storage::soa), else one, suffix "".
  // The GPU targets pass each to the kernels and create each on the host.
  struct BufferPart {
    std::string suffix;  // of the C name
    Type leaf;           // the element type
    Nat count;           // the number of elements
    // Bytes from the start of an input or output stored per component: the parts one
    // after another, each aligned for its elements (runtime/layout.h).
    Nat offset;
  };
  std::vector<BufferPart> buffer_parts(const std::string& var) const;
  // Where part p of the output or an input `var` starts in the one buffer passed for it
  // (a C expression: the parameter, or a char pointer offset to the part).
  std::string part_address(const std::string& var, const BufferPart& p, bool writable);
  // The C type a parameter of type dt points to: void for data stored per component
  // (rise::stored_per_component), passed in one buffer whose components the code reads
  // at buffer_parts' offsets (runtime/layout.h).
  std::string param_type(const Type& dt);
  // Declarations of the component pointers of the inputs and the output passed so,
  // those that `body_text` mentions.
  std::string interface_parts(const std::string& body_text);
  CExpr read(const ExpressionP& e, const Path& p);
  CExpr read_resolved(const dpia::ResolvedRead& r);
  struct Target {
    CExpr lvalue;
    bool vstore = false;
    std::string vtype;
    std::vector<CExpr> lanes;  // a vector stored lane by lane (not consecutive in memory)
  };
  Target write_target(const AcceptorP& a, const Path& p);

  // ---- state
  const CGenOptions& opts_;
  std::map<std::string, Storage> storage_;
  // The name a let binds in the source for the New whose buffer declare_buffer
  // declares ("" for the compiler's own temporaries), for messages.
  std::string declaring_source_;
  std::map<std::string, std::string> cnames_;
  dpia::NameSupply names_;                      // every name in scope (reserve_names)
  std::map<std::string, std::string> derived_;  // derived_name's answers
  std::vector<std::string> interface_;          // the output, then the inputs (bind_parameters)
  std::map<std::string, std::string> double_buffers_;  // double buffer -> final output
  std::set<std::string> typedefs_;
  std::string typedef_text_;  // the types (vectors with their load/store/broadcast, pairs)
  std::set<std::string> foreigns_;
  std::string foreign_text_;  // definitions of the foreign functions called
  std::set<std::string> arith_helpers_;
  // The values of the program being printed that are provably never NaN.
  dpia::NotNan not_nan_;
  // The functions the generated code calls (checked division, fmin/fmax, int_from_double,
  // vector lane math, blends, mask tests), printed after the types in the order
  // appended. A helper is appended once its text is complete, and the helpers its body
  // calls are made while that text is built, so each comes before its users.
  std::string helper_text_;
  std::set<std::string> tables_;
  std::string table_text_;  // the tables of constants (declare_table)
  bool in_table_ = false;   // literals are printed into a table's initialiser
  std::set<std::string> simd_decls_;
  std::string simd_text_;
  int tmp_counter_ = 0;
  std::string function_name_;
  // --profile (profile.cpp): the stages timed so far, and how deep in a timed loop
  // nest the printer is (only top-level loops are timed).
  std::vector<ProfileStage> profile_stages_;
  int profile_depth_ = 0;
  int profile_untimed_ = 0;  // top-level loops past kMaxProfileStages
  bool uses_alloc_ = false;
  // The heap buffers' allocation sites (risec_site_K), by buffer name.
  std::map<std::string, int> buffer_sites_;
  int sites_ = 0;
  // The function's own sequence of statements (print_unit), the heap buffers held
  // there, and how many allocations elsewhere were guarded (checked_allocation). A
  // failure there jumps to the release of the innermost buffer held (stop_statements),
  // which goes on to the buffer held before it, so that each release is printed once
  // (not once per failure: quadratic for long chains of stages): stop node k (from 1)
  // is stop_nodes_[k - 1], printed at the function's end by stop_labels; live_stops_
  // are the nodes of the buffers held, innermost last.
  struct StopNode {
    std::string buffer;
    int parent;           // the node of the buffer held before it; 0: return
    bool target = false;  // a failure jumps here
  };
  const std::vector<CStmtP>* top_level_ = nullptr;
  std::vector<StopNode> stop_nodes_;
  std::vector<int> live_stops_;
  int guarded_allocations_ = 0;
  bool uses_index_checks_ = false;  // a checked_index was printed (risec_index)
  // The helpers whose callers pass the fault buffer (division_fault_param).
  std::vector<std::string> fault_helpers_;
  bool uses_block_loops_ = false;  // a loop with a shifted tail (RISEC_BLOCK_LOOP)
  // Arrays of pairs of scalars as one array per component (Storage::soa): the CPU
  // printers; the GPU printers keep arrays of structs of scalars (pairs holding arrays are
  // stored per component on every target).
  bool soa_arrays_ = true;
  bool uses_openmp_ = false;
  // The C type of loop variables, size parameters and the index helpers: int where
  // every size, index and array length is known and below 2^31, else int64_t
  // (index_width.cpp).
  std::string idx_type_ = "int";
  bool narrow_unproven_ = false;  // narrow_unproven()
};

// Whether the program's loops and indices need 64 bits: a symbolic size (it may be
// 2^31 or more), or a known trip count, index bound, array length or intermediate
// value of an index expression (`i*i` in `i*i % n`) that may reach 2^31.
bool needs_wide_indices(const dpia::CommandP& program, const rise::Type& out_dt,
                        const std::vector<dpia::Input>& inputs,
                        const std::vector<std::string>& sizes);

// Whether 32-bit indices can be right for some values of the symbolic `sizes`: no
// array, trip count or intermediate of an index expression is known to reach 2^31, and
// every intermediate has a bound over the sizes (which narrow_index_bounds lists).
bool narrow_possible(const dpia::CommandP& program, const rise::Type& out_dt,
                     const std::vector<dpia::Input>& inputs, const std::vector<std::string>& sizes);

// Whether C computes every intermediate value of each of `printed` (arith::print's
// C text, partial sums and products included) within 32-bit `int`: provably in
// [-2^31, 2^31). A lone constant needs no check (a C literal takes a type it fits).
// With symbolic `sizes`, the bounds over the sizes that must then stay below 2^31 in
// magnitude are appended to `bounds` (a host checks them before it runs 32-bit code);
// a term with no bound over the sizes makes the answer false.
bool printed_terms_narrow(const std::vector<arith::Nat>& printed,
                          const std::vector<std::string>& sizes, std::vector<arith::Nat>* bounds);

// What must stay below 2^31 in magnitude for a program with symbolic sizes to index
// with 32-bit ints: every quantity over the sizes only in its commands and types (trip
// counts, array lengths, element counts) and the bounds over the sizes of every
// intermediate value of its index expressions. Flat indices into an array are below its
// element count, so a host that checks these may run kernels printed with `int`.
std::vector<arith::Nat> narrow_index_bounds(const dpia::CommandP& program, const rise::Type& out_dt,
                                            const std::vector<dpia::Input>& inputs,
                                            const std::vector<std::string>& sizes);

}  // namespace risec::codegen
