// The public API on arrays in memory (include/risec/risec.h): strided views of the
// caller's arrays, sizes from shapes, the interpreter, kernels called on arrays, and
// the words of messages. Everything a binding to another language needs (the Python
// package, python/src/risec_py.cpp), so that it includes only the public headers.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <utility>

#include "driver/api_impl.h"
#include "driver/array_overlap.h"
#include "driver/run.h"
#include "driver/sizes_from_inputs.h"
#include "rise/interp.h"
#include "rise/printer.h"
#include "runtime/layout.h"
#include "support/buffer.h"
#include "support/diagnostics.h"

namespace risec {

static_assert(static_cast<int>(ScalarType::F64) == static_cast<int>(runtime::DType::F64) &&
                  static_cast<int>(ScalarType::Bool) == static_cast<int>(runtime::DType::Bool),
              "ScalarType mirrors runtime::DType");

using api::on_large_stack;

namespace {

[[noreturn]] void bad_array_argument(const std::string& msg) {
  throw Error(ErrorKind::Usage, msg);
}

// Copies between a strided array and row-major memory, one element at a time
// (memcpy of the element size: no alignment is assumed on either side).
void strided_copy(const ArrayRef& a, unsigned char* row, bool to_row) {
  const size_t es = scalar_type_size(a.element);
  if (a.row_major()) {
    if (a.count() == 0) return;
    if (to_row)
      std::memcpy(row, a.data, a.bytes());
    else
      std::memcpy(a.data, row, a.bytes());
    return;
  }
  const size_t rank = a.shape.size();
  const int64_t n = a.count();
  if (n == 0) return;
  std::vector<int64_t> idx(rank, 0);
  auto* base = static_cast<unsigned char*>(a.data);
  const int64_t inner = a.shape[rank - 1];
  const int64_t inner_stride = a.strides[rank - 1] * static_cast<int64_t>(es);
  for (int64_t done = 0; done < n; done += inner) {
    int64_t off = 0;
    for (size_t d = 0; d + 1 < rank; ++d) off += idx[d] * a.strides[d];
    unsigned char* p = base + off * static_cast<int64_t>(es);
    for (int64_t i = 0; i < inner; ++i, row += es, p += inner_stride) {
      if (to_row)
        std::memcpy(row, p, es);
      else
        std::memcpy(p, row, es);
    }
    for (size_t d = rank - 1; d-- > 0;) {  // the odometer over the outer dimensions
      if (++idx[d] < a.shape[d]) break;
      idx[d] = 0;
    }
  }
}

// The dimensions of a value of type `t` (array extents, then vector lanes) at `sizes`.
std::vector<int64_t> shape_at(const rise::Type& type, const Sizes& sizes) {
  arith::Substitution known;
  for (const auto& [v, value] : sizes) known.emplace(v, arith::Nat(value));
  std::vector<int64_t> out;
  rise::Type t = type;
  auto extent = [&](const arith::Nat& n) {
    std::optional<int64_t> v;
    try {
      v = arith::substitute(n, known).as_const();
    } catch (const arith::ArithError& e) {
      bad_array_argument("the extent " + n.to_string() + " has no value at these sizes (" +
                         e.what() + ")");
    }
    if (!v)
      bad_array_argument("the extent " + n.to_string() + " has no value at these sizes (" +
                         sizes_word() + ")");
    if (*v < 0)
      bad_array_argument("the extent " + n.to_string() + " is " + std::to_string(*v) +
                         " at these sizes: sizes cannot be negative");
    out.push_back(*v);
  };
  while (t->kind == rise::TypeKind::Array) {
    extent(t->size);
    t = t->a;
  }
  if (t->kind == rise::TypeKind::Vector) extent(t->size);
  return out;
}

// Program::infer_sizes without its own large-stack thread.
Sizes infer(const rise::Program& program, const std::string& entry,
            const std::vector<std::string>& names, const std::vector<std::vector<int64_t>>& shapes,
            Sizes sizes) {
  std::map<std::string, std::string> where;
  std::map<std::string, std::vector<int64_t>> by_name;
  for (size_t i = 0; i < names.size() && i < shapes.size(); ++i) {
    where[names[i]] = argument_given(i, names[i]);
    by_name[names[i]] = shapes[i];
  }
  driver::sizes_from_shapes(
      program, entry, where, [&](const std::string& n) { return by_name.at(n); }, &sizes,
      "the arrays' shapes do not determine it");
  return sizes;
}

// `a` as the overlap test takes it (strides in bytes; row-major when none are given,
// or a wrong number, which row_major() refuses).
driver::StridedView strided_view(const ArrayRef& a) {
  driver::StridedView v;
  v.base = reinterpret_cast<uintptr_t>(a.data);
  v.element_bytes = static_cast<int64_t>(scalar_type_size(a.element));
  v.extents = a.shape;
  int64_t step = v.element_bytes;
  v.strides.resize(a.shape.size());
  for (size_t d = a.shape.size(); d-- > 0;) {
    v.strides[d] = a.strides.size() != a.shape.size() ? step : a.strides[d] * v.element_bytes;
    step *= a.shape[d];
  }
  return v;
}

// Whether two different indices of `a` (its strides in elements) may share an
// element: a sufficient test for their absence is that, the
// dimensions of extent > 1 sorted by |stride|, each |stride| is at least the span of
// the dimensions before it (so a zero stride on such a dimension is an overlap).
bool may_self_overlap(const ArrayRef& a) {
  const std::vector<int64_t>& shape = a.shape;
  const std::vector<int64_t>& strides = a.strides;
  // Row-major, or no strides given (row_major() refuses strides not matching the shape).
  if (a.row_major()) return false;
  std::vector<std::pair<int64_t, int64_t>> dims;  // (|stride|, extent)
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) return false;  // no element at all
    if (shape[d] > 1) dims.emplace_back(strides[d] < 0 ? -strides[d] : strides[d], shape[d]);
  }
  std::sort(dims.begin(), dims.end());
  int64_t span = 1;  // elements covered by the dimensions so far, at unit stride
  for (const auto& [stride, extent] : dims) {
    if (stride < span) return true;
    span += stride * (extent - 1);
  }
  return false;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  return runtime::shape_string(shape);
}

// Every size the kernel still takes has a value in `all` (the sizes given and the fixed
// ones), else the words of Kernel::operator() for the first one missing.
void require_kernel_sizes(const Source::Impl& s, const Sizes& all) {
  const std::vector<std::string>& names = s.compiled.size_names;
  for (const std::string& name : names) {
    if (all.count(name)) continue;
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
    bad_array_argument("size " + name + " has no value; the kernel " + s.compiled.unit.name +
                       " takes the sizes " + list);
  }
}

// Vectors whose width is not a power of two take the next one in C (a vec[f32, 3]
// takes 16 bytes: runtime::c_layout): an array of parameter type `t` whose elements
// are such vectors, as (lanes, padded lanes); {0, 0} for any other type.
std::pair<int64_t, int64_t> padded_lanes(const rise::Type& type) {
  rise::Type t = type;
  while (t->kind == rise::TypeKind::Array) t = t->a;
  if (t->kind != rise::TypeKind::Vector) return {0, 0};
  const int64_t lanes = rise::const_size(t->size);
  const auto padded =
      static_cast<int64_t>(runtime::c_layout(t).size / runtime::c_layout(t->a).size);
  if (lanes == 0 || padded == lanes) return {0, 0};
  return {lanes, padded};
}

// Copies `groups` vectors of `lanes` elements of `es` bytes between a dense layout
// and the padded one (`padded` lanes each; the padding is left as it is).
void repack_lanes(const unsigned char* from, unsigned char* to, int64_t groups, int64_t lanes,
                  int64_t padded, size_t es, bool to_padded) {
  const size_t dense_step = static_cast<size_t>(lanes) * es;
  const size_t padded_step = static_cast<size_t>(padded) * es;
  for (int64_t g = 0; g < groups; ++g) {
    const size_t i = static_cast<size_t>(g);
    if (to_padded)
      std::memcpy(to + i * padded_step, from + i * dense_step, dense_step);
    else
      std::memcpy(to + i * dense_step, from + i * padded_step, dense_step);
  }
}

}  // namespace

// ---- arrays ----

size_t scalar_type_size(ScalarType t) {
  return runtime::dtype_size(static_cast<runtime::DType>(t));
}

int64_t ArrayRef::count() const {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}

size_t ArrayRef::bytes() const {
  return static_cast<size_t>(count()) * scalar_type_size(element);
}

bool ArrayRef::row_major() const {
  if (strides.empty() || count() == 0) return true;
  if (strides.size() != shape.size())
    bad_array_argument("an array of rank " + std::to_string(shape.size()) + " has " +
                       std::to_string(strides.size()) + " strides");
  int64_t expected = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] != 1 && strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

void ArrayRef::copy_to(void* dst) const {
  strided_copy(*this, static_cast<unsigned char*>(dst), true);
}

void ArrayRef::copy_from(const void* src) const {
  strided_copy(*this, static_cast<unsigned char*>(const_cast<void*>(src)), false);
}

// ---- programs ----

Sizes Program::infer_sizes(const std::vector<std::vector<int64_t>>& shapes, const Sizes& given,
                           const std::string& entry) const {
  return on_large_stack([&] {
    std::vector<std::string> names;
    for (const auto& p : driver::value_parameters(rise::check_program(impl_->program, entry)))
      names.push_back(p.name);
    return infer(impl_->program, entry, names, shapes, given);
  });
}

std::vector<Parameter> Function::parameters() const {
  std::vector<Parameter> out;
  for (const driver::EntryParam& p : driver::value_parameters(impl_->checked))
    out.push_back({p.name, rise::print(p.type), api::element_of(p.type)});
  return out;
}

std::vector<Array> interpret(const Program& program, const std::vector<ArrayRef>& inputs,
                             const std::string& entry, const Sizes& sizes) {
  return on_large_stack([&] {
    const rise::Program& rp = program.impl().program;
    rise::require_definitions(rp);
    std::vector<std::string> names;
    for (const auto& p : driver::value_parameters(rise::check_program(rp, entry)))
      names.push_back(p.name);
    if (names.size() != inputs.size())
      bad_array_argument("the entry takes " + std::to_string(names.size()) + " array(s), " +
                         std::to_string(inputs.size()) + " given");
    std::vector<std::vector<int64_t>> shapes;
    for (const ArrayRef& a : inputs) shapes.push_back(a.shape);
    rise::SizeMap s = infer(rp, entry, names, shapes, sizes);
    rise::Checked c = rise::check_program(rp, entry, &s);
    std::vector<driver::EntryParam> params = driver::entry_parameters(c);
    std::vector<rise::Value> values;
    for (size_t i = 0; i < params.size(); ++i) {
      runtime::NdArray a;
      a.dtype = static_cast<runtime::DType>(inputs[i].element);
      a.shape = inputs[i].shape;
      a.data = runtime::AlignedBuffer(inputs[i].bytes());
      inputs[i].copy_to(a.data.data());
      try {
        values.push_back(rise::from_ndarray(a, params[i].type));
      } catch (const Error& e) {
        throw Error(e.kind(), argument_given(i, params[i].name) + ": " + e.message(), e.span(),
                    e.note());
      }
    }
    rise::Value f = driver::interpret(c, values);
    std::vector<Array> out;
    for (const runtime::NdArray& a : rise::to_ndarrays(f, driver::entry_result_type(c))) {
      const auto* p = reinterpret_cast<const unsigned char*>(a.data.data());
      out.push_back({static_cast<ScalarType>(a.dtype), a.shape,
                     std::vector<unsigned char>(p, p + a.nbytes())});
    }
    return out;
  });
}

// ---- kernels on arrays ----

std::vector<int64_t> Kernel::shape(const std::string& parameter, const Sizes& sizes) const {
  InterfaceScope words(Interface::Cpp, /*unless_set=*/true);
  const Source::Impl& s = source().impl();
  Sizes all = s.fixed_sizes;
  for (const auto& [k, v] : sizes) all[k] = v;
  require_kernel_sizes(s, all);
  // held-out O: a size breaking a condition (k divides n - k) was "RuntimeError: 3 does
  // not divide 8" in Python, or NumPy's "negative dimensions" for the result
  api::check_conditions(s, all);
  if (parameter == "output") return shape_at(s.output_type, all);
  for (size_t i = 0; i < s.inputs.size(); ++i)
    if (s.inputs[i].name == parameter) return shape_at(s.input_types[i], all);
  bad_array_argument("the kernel " + s.compiled.unit.name + " has no parameter '" + parameter +
                     "'");
}

Sizes Kernel::sizes(const std::vector<std::vector<int64_t>>& shapes, const Sizes& given) const {
  InterfaceScope words(Interface::Cpp, /*unless_set=*/true);
  const Source::Impl& s = source().impl();
  const std::string& fn = s.compiled.unit.name;
  // A shape for each input at most (fewer leave sizes to `given`).
  if (shapes.size() > s.inputs.size())
    bad_array_argument("the kernel " + fn + " takes " + std::to_string(s.inputs.size()) +
                       " input(s), " + std::to_string(shapes.size()) + " shapes given");
  Sizes out = s.fixed_sizes;
  // Every size given is one of the entry's, and one fixed at compile time keeps its value.
  std::vector<std::string> known = s.compiled.size_names;
  for (const auto& [k, v] : s.fixed_sizes) known.push_back(k);
  for (const auto& [k, v] : given) {
    if (std::find(known.begin(), known.end(), k) == known.end()) {
      const std::string near = nearest_name(k, known);
      bad_array_argument(size_given(k) + ": the kernel " + fn + " has no size named '" + k + "'" +
                         (near.empty() ? std::string() : "; did you mean '" + near + "'?"));
    }
    if (v < 1)
      bad_array_argument(size_given(k) + " = " + std::to_string(v) + ": sizes must be positive");
    if (auto f = s.fixed_sizes.find(k); f != s.fixed_sizes.end() && f->second != v)
      bad_array_argument(size_given(k) + " = " + std::to_string(v) + ", but " + k +
                         " was fixed to " + std::to_string(f->second) + " at compile time");
    out[k] = v;
  }
  return on_large_stack([&] {
    std::vector<std::string> names;
    for (const Parameter& p : s.inputs) names.push_back(p.name);
    return infer(s.program, s.entry, names, shapes, out);
  });
}

void Kernel::call(const ArrayRef& output, const std::vector<ArrayRef>& inputs,
                  const Sizes& sizes) const {
  InterfaceScope words(Interface::Cpp, /*unless_set=*/true);
  const Source::Impl& s = source().impl();
  const std::string& fn = s.compiled.unit.name;
  if (inputs.size() != s.inputs.size())
    bad_array_argument("the kernel " + fn + " takes " + std::to_string(s.inputs.size()) +
                       " input(s), " + std::to_string(inputs.size()) + " given");
  Sizes all = s.fixed_sizes;
  for (const auto& [k, v] : sizes) all[k] = v;
  require_kernel_sizes(s, all);
  // Each array's element type and shape; its row-major elements are the parameter's
  // C layout, except for vectors of 3 lanes (or 5, 6, 7, ...), which C pads to 4 (8):
  // those arrays are copied to or from a padded temporary.
  auto check = [&](const ArrayRef& a, const Parameter& p, const rise::Type& t,
                   const std::string& who) {
    if (!a.data && a.count() > 0) bad_array_argument(who + ": the array has no data");
    if (!p.element)
      bad_array_argument(who + ": the parameter " + p.name + ": " + p.type +
                         " holds pairs, which are passed as raw bytes (a Buffer)");
    if (a.element != *p.element)
      bad_array_argument(who + ": the parameter " + p.name + ": " + p.type + " holds " +
                         scalar_type_name(*p.element) + ", the array holds " +
                         scalar_type_name(a.element));
    const std::vector<int64_t> want = shape_at(t, all);
    if (a.shape != want)
      bad_array_argument(who + ": the array's shape is " + shape_text(a.shape) +
                         ", the parameter " + p.name + ": " + p.type + " has shape " +
                         shape_text(want) + " at these sizes");
  };
  // Vector code (GCC's vector types on the CPU targets) may load and store whole aligned
  // vectors of an array (entry types of vectors, asVectorAligned): an array that does not
  // start at the 64 bytes risec's own buffers do is copied like a strided one (held-out
  // O: NumPy's 16-byte-aligned arrays crashed the Python process).
  auto direct = [&](const ArrayRef& a) {
    return a.row_major() &&
           (!s.aligned_vectors ||
            reinterpret_cast<uintptr_t>(a.data) % runtime::AlignedBuffer::kAlignment == 0);
  };
  std::vector<runtime::AlignedBuffer> temporaries;
  auto buffer = [&](const ArrayRef& a, const rise::Type& t) {
    const auto [lanes, padded] = padded_lanes(t);
    if (lanes) {
      const unsigned char* dense = static_cast<const unsigned char*>(a.data);
      if (!a.row_major()) {
        temporaries.emplace_back(a.bytes());
        a.copy_to(temporaries.back().data());
        dense = reinterpret_cast<const unsigned char*>(temporaries.back().data());
      }
      const int64_t groups = a.count() / lanes;
      const size_t bytes = static_cast<size_t>(groups * padded) * scalar_type_size(a.element);
      temporaries.emplace_back(bytes);
      auto* out = reinterpret_cast<unsigned char*>(temporaries.back().data());  // zeroed
      repack_lanes(dense, out, groups, lanes, padded, scalar_type_size(a.element), true);
      return Buffer(static_cast<void*>(out), bytes);
    }
    // bools whose bytes are not 0 or 1 (a NumPy or PyTorch view of other bytes, C's
    // memory): made 0 or 1, as the interpreter reads them (held-out O: `!` of a byte 2
    // was still true)
    const bool bools = a.element == ScalarType::Bool;
    auto canonical = [&] {
      const auto* b = static_cast<const unsigned char*>(a.data);
      return std::all_of(b, b + a.bytes(), [](unsigned char c) { return c <= 1; });
    };
    if (direct(a) && (!bools || canonical())) return Buffer(a.data, a.bytes());
    temporaries.emplace_back(a.bytes());
    a.copy_to(temporaries.back().data());
    if (bools)
      for (std::byte& c : std::span(temporaries.back().data(), a.bytes()))
        c = c != std::byte{0} ? std::byte{1} : std::byte{0};
    return Buffer(temporaries.back().data(), a.bytes());
  };
  check(output, s.output, s.output_type, "the output");
  // Generated code writes each element once, assuming each has its own memory.
  if (may_self_overlap(output))
    bad_array_argument(
        "the output's elements overlap (a broadcast, expand or as_strided view whose strides "
        "make two indices share memory); the kernel's output must be an array of its own");
  const driver::StridedView out_view = strided_view(output);
  std::vector<Buffer> buffers;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string who = argument_given(i, s.inputs[i].name);
    check(inputs[i], s.inputs[i], s.input_types[i], who);
    // The generated code assumes its output is no input (docs/guarantees.md): no
    // element of one may be a byte of the other (views interleaving in one buffer
    // are fine).
    const driver::Sharing sharing = driver::shared_bytes(out_view, strided_view(inputs[i]));
    if (sharing != driver::Sharing::None)
      bad_array_argument(
          "the output " + std::string(sharing == driver::Sharing::Shared ? "shares" : "may share") +
          " memory with " + who + "; the kernel's output must be an array of its own" +
          (sharing == driver::Sharing::Unknown
               ? " (their strides interleave too intricately to tell)"
               : ""));
    buffers.push_back(buffer(inputs[i], s.input_types[i]));
  }
  if (const auto [lanes, padded] = padded_lanes(s.output_type); lanes) {
    const size_t es = scalar_type_size(output.element);
    const int64_t groups = output.count() / lanes;
    runtime::AlignedBuffer out(static_cast<size_t>(groups * padded) * es);
    (*this)(Buffer(out.data(), out.size()), buffers, sizes);
    const auto* from = reinterpret_cast<const unsigned char*>(out.data());
    if (output.row_major()) {
      repack_lanes(from, static_cast<unsigned char*>(output.data), groups, lanes, padded, es,
                   false);
      return;
    }
    runtime::AlignedBuffer dense(output.bytes());
    repack_lanes(from, reinterpret_cast<unsigned char*>(dense.data()), groups, lanes, padded, es,
                 false);
    output.copy_from(dense.data());
    return;
  }
  if (direct(output)) {
    (*this)(Buffer(output.data, output.bytes()), buffers, sizes);
    return;
  }
  runtime::AlignedBuffer out(output.bytes());
  (*this)(Buffer(out.data(), out.size()), buffers, sizes);
  output.copy_from(out.data());
}

// ---- words ----

struct WordsScope::Impl {
  InterfaceScope scope;
};

WordsScope::WordsScope(Words w)
    : impl_(new Impl{InterfaceScope(w == Words::Python ? Interface::Python : Interface::Cpp)}) {}

WordsScope::~WordsScope() = default;

}  // namespace risec
