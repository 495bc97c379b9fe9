// Element types, aligned storage and array construction for the runtime (see
// buffer.h).
#include "support/buffer.h"

#include <cstring>
#include <limits>
#include <new>
#include <utility>

#include "support/diagnostics.h"

namespace risec::runtime {

namespace {

struct DTypeInfo {
  DType type;
  const char* name;
  size_t size;
};

constexpr DTypeInfo kDTypes[] = {
    {DType::Bool, "bool", 1}, {DType::I8, "i8", 1},   {DType::I16, "i16", 2},
    {DType::I32, "i32", 4},   {DType::I64, "i64", 8}, {DType::U8, "u8", 1},
    {DType::U16, "u16", 2},   {DType::U32, "u32", 4}, {DType::U64, "u64", 8},
    {DType::F32, "f32", 4},   {DType::F64, "f64", 8},
};

const DTypeInfo& info(DType t) {
  for (const DTypeInfo& i : kDTypes) {
    if (i.type == t) return i;
  }
  internal_error("unknown runtime dtype");
}

}  // namespace

size_t dtype_size(DType t) {
  return info(t).size;
}

std::string dtype_name(DType t) {
  return info(t).name;
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (const DTypeInfo& i : kDTypes) {
    if (name == i.name) return i.type;
  }
  return std::nullopt;
}

bool dtype_is_float(DType t) {
  return t == DType::F32 || t == DType::F64;
}

bool dtype_is_signed_int(DType t) {
  return t == DType::I8 || t == DType::I16 || t == DType::I32 || t == DType::I64;
}

bool dtype_is_unsigned_int(DType t) {
  return t == DType::U8 || t == DType::U16 || t == DType::U32 || t == DType::U64;
}

// --- AlignedBuffer ---------------------------------------------------------------

AlignedBuffer::AlignedBuffer(size_t size) {
  // Round the allocation up to whole cache lines (at least one, so that data() is
  // never null); the tail beyond size() is zeroed too.
  const size_t lines = size / kAlignment + 1;
  if (lines > std::numeric_limits<size_t>::max() / kAlignment) throw std::bad_alloc();
  const size_t allocated = lines * kAlignment;
  data_ = static_cast<std::byte*>(::operator new (allocated, std::align_val_t{kAlignment}));
  std::memset(data_, 0, allocated);
  size_ = size;
}

AlignedBuffer::AlignedBuffer(AlignedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

AlignedBuffer::~AlignedBuffer() {
  release();
}

void AlignedBuffer::release() noexcept {
  if (data_ != nullptr) ::operator delete (data_, std::align_val_t{kAlignment});
  data_ = nullptr;
  size_ = 0;
}

AlignedBuffer AlignedBuffer::clone() const {
  if (data_ == nullptr) return AlignedBuffer();
  AlignedBuffer copy(size_);
  if (size_ > 0) std::memcpy(copy.data_, data_, size_);
  return copy;
}

// --- NdArray -----------------------------------------------------------------------

int64_t NdArray::count() const {
  int64_t n = 1;
  for (int64_t extent : shape) n *= extent;
  return n;
}

NdArray NdArray::clone() const {
  return NdArray{dtype, shape, data.clone()};
}

void NdArray::check_element_size(size_t element_size) const {
  if (element_size != dtype_size(dtype)) {
    internal_error("array of " + dtype_name(dtype) + " viewed with an element type of " +
                   std::to_string(element_size) + " bytes");
  }
}

NdArray make_array(DType dtype, std::vector<int64_t> shape) {
  // The byte size must fit in both size_t and int64_t (count() is an int64_t).
  const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  uint64_t bytes = dtype_size(dtype);
  for (int64_t extent : shape) {
    if (extent < 0) {
      throw Error(ErrorKind::User, "array shape " + shape_string(shape) + " has a negative extent");
    }
    const uint64_t e = static_cast<uint64_t>(extent);
    if (e != 0 && bytes > limit / e) {
      throw Error(ErrorKind::User, "array of " + dtype_name(dtype) + " with shape " +
                                       shape_string(shape) + " is too large");
    }
    bytes *= e;
  }
  static_assert(sizeof(size_t) == sizeof(uint64_t), "the runtime needs a 64-bit size_t");
  try {
    AlignedBuffer data(static_cast<size_t>(bytes));
    return NdArray{dtype, std::move(shape), std::move(data)};
  } catch (const std::bad_alloc&) {
    throw Error(ErrorKind::User, "cannot allocate " + std::to_string(bytes) +
                                     " bytes for an array of " + dtype_name(dtype) +
                                     " with shape " + shape_string(shape));
  }
}

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

}  // namespace risec::runtime
