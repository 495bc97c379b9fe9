// Typed n-dimensional arrays in 64-byte aligned memory: the one representation of
// program inputs and outputs that the runtime hands to generated code, reads from and
// writes to .npy files, fills with seeded random data and compares with the
// interpreter's results.
//
// It lives in support, below rise, because the interpreter's values hold these arrays
// too; the namespace stays runtime:: since the runtime is what hands them to C.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace risec::runtime {

// The scalar types an array may hold (the rise names are bool, i8, ..., f64).
enum class DType { Bool, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64 };

// Bytes per element (a bool is one byte holding 0 or 1).
size_t dtype_size(DType t);
// The rise name: "bool", "i8", ..., "u64", "f32", "f64".
std::string dtype_name(DType t);
// The inverse of dtype_name; nullopt for any other string.
std::optional<DType> dtype_from_name(std::string_view name);
bool dtype_is_float(DType t);
bool dtype_is_signed_int(DType t);
bool dtype_is_unsigned_int(DType t);

// An owned, zero-initialised block of `size` bytes whose start is aligned to
// kAlignment. Move-only; a moved-from or default-constructed buffer is empty
// (data() == nullptr). A buffer of 0 bytes still has a valid, non-null data().
class AlignedBuffer {
 public:
  static constexpr size_t kAlignment = 64;

  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t size);
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  AlignedBuffer(AlignedBuffer&& other) noexcept;
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept;
  ~AlignedBuffer();

  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  size_t size() const { return size_; }
  // An explicit deep copy (copying is never implicit).
  AlignedBuffer clone() const;

 private:
  void release() noexcept;

  std::byte* data_ = nullptr;
  size_t size_ = 0;
};

// A C-order (row-major) array. A scalar has an empty shape and one element.
struct NdArray {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  AlignedBuffer data;

  // Number of elements: the product of the shape (1 for a scalar).
  int64_t count() const;
  size_t nbytes() const { return data.size(); }
  NdArray clone() const;

  // The elements as T; T must have the element size of dtype (bool arrays may be
  // viewed as bool or uint8_t).
  template <class T>
  T* as() {
    check_element_size(sizeof(T));
    return reinterpret_cast<T*>(data.data());
  }
  template <class T>
  const T* as() const {
    check_element_size(sizeof(T));
    return reinterpret_cast<const T*>(data.data());
  }

 private:
  void check_element_size(size_t element_size) const;
};

// A zero-filled array. Throws risec::Error (User) for a negative extent or a shape
// whose byte size does not fit in memory addresses.
NdArray make_array(DType dtype, std::vector<int64_t> shape);

// "(3, 4)", "(5,)", "()": the shape as Python writes a tuple (used by .npy headers
// and in messages).
std::string shape_string(const std::vector<int64_t>& shape);

}  // namespace risec::runtime
