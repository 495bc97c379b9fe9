// Reading and writing NumPy .npy files (see npy.h). The header is a Python dict
// literal such as {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }; it is
// parsed by a small recursive-descent reader over exactly the literals numpy writes.
#include "runtime/npy.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>
#include <utility>

#include "support/diagnostics.h"
#include "support/memory.h"

namespace risec::runtime {

static_assert(std::endian::native == std::endian::little,
              ".npy data is copied as is, which assumes a little-endian host");

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kHeaderAlign = 64;
// numpy writes headers of a few hundred bytes; a longer one is refused before reading.
constexpr uint64_t kMaxHeaderBytes = uint64_t{1} << 20;
// numpy >= 1.24 leaves room after the dict for the first extent to grow to this many
// digits, so that a file can be appended to in place; we write the same bytes.
constexpr size_t kGrowthAxisMaxDigits = 21;

[[noreturn]] void fail(const std::string& name, const std::string& message) {
  throw Error(ErrorKind::User, name + ": " + message);
}

// --- descr <-> DType ---------------------------------------------------------------

// The descr numpy writes for each type.
constexpr std::pair<DType, std::string_view> kDescrs[] = {
    {DType::Bool, "|b1"}, {DType::I8, "|i1"},  {DType::I16, "<i2"}, {DType::I32, "<i4"},
    {DType::I64, "<i8"},  {DType::U8, "|u1"},  {DType::U16, "<u2"}, {DType::U32, "<u4"},
    {DType::U64, "<u8"},  {DType::F32, "<f4"}, {DType::F64, "<f8"},
};

std::string_view descr_of(DType t) {
  for (const auto& [type, descr] : kDescrs) {
    if (type == t) return descr;
  }
  internal_error("unknown runtime dtype");
}

DType dtype_of_descr(const std::string& descr, const std::string& name) {
  // A byte-order character, a kind and a size in bytes: '<f4', '|b1', '=i8'.
  for (const auto& [t, numpy_descr] : kDescrs) {
    if (descr.size() != 3 || descr.substr(1) != numpy_descr.substr(1)) continue;
    const char order = descr[0];
    // Byte order does not matter for one-byte types; '=' is native (little) order.
    if (order == '<' || order == '=' || (dtype_size(t) == 1 && (order == '|' || order == '>'))) {
      return t;
    }
    if (order == '>' || order == '!') {
      fail(name, "big-endian arrays ('" + descr +
                     "') are not supported; convert with a.astype(a.dtype.newbyteorder('<'))");
    }
  }
  fail(name, "unsupported dtype '" + descr +
                 "' (supported: bool, int8-int64, uint8-uint64, float32, float64)");
}

// --- header dict parser --------------------------------------------------------------

struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& name) : text_(text), name_(name) {}

  Header parse() {
    Header h;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    expect('{');
    while (!accept('}')) {
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == '[') {
          fail(name_, "structured dtypes are not supported");
        }
        h.descr = string_literal();
        seen_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = boolean_literal();
        seen_order = true;
      } else if (key == "shape") {
        h.shape = shape_tuple();
        seen_shape = true;
      } else {
        malformed("unexpected key '" + key + "'");
      }
      if (!accept(',')) {
        expect('}');
        break;
      }
    }
    skip_space();
    if (pos_ != text_.size()) malformed("unexpected text after the dict");
    if (!seen_descr) malformed("missing key 'descr'");
    if (!seen_order) malformed("missing key 'fortran_order'");
    if (!seen_shape) malformed("missing key 'shape'");
    return h;
  }

 private:
  [[noreturn]] void malformed(const std::string& what) {
    fail(name_, "malformed .npy header (" + what + " at header offset " + std::to_string(pos_) +
                    "): " + std::string(text_));
  }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool accept(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void expect(char c) {
    if (!accept(c)) malformed(std::string("expected '") + c + "'");
  }

  std::string string_literal() {
    skip_space();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      malformed("expected a string");
    }
    const char quote = text_[pos_++];
    const size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) malformed("unterminated string");
    std::string s(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }

  bool boolean_literal() {
    skip_space();
    for (auto [word, value] :
         {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return value;
      }
    }
    malformed("expected True or False");
  }

  int64_t integer_literal() {
    skip_space();
    const size_t start = pos_;
    int64_t value = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      const int digit = text_[pos_] - '0';
      if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) {
        malformed("extent too large");
      }
      value = value * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) malformed("expected a non-negative integer");
    if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;  // Python 2 long
    return value;
  }

  // "()", "(5,)", "(3, 4)", "(3, 4,)".
  std::vector<int64_t> shape_tuple() {
    std::vector<int64_t> shape;
    expect('(');
    while (!accept(')')) {
      shape.push_back(integer_literal());
      if (!accept(',')) {
        expect(')');
        break;
      }
    }
    return shape;
  }

  std::string_view text_;
  const std::string& name_;
  size_t pos_ = 0;
};

uint64_t read_le(std::string_view bytes, size_t offset, size_t width) {
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i) {
    v |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  }
  return v;
}

// Where the data of a .npy file starts and how many bytes it must have, from the
// file's first bytes (magic, version, header length and the whole header).
struct DataLayout {
  DType dtype;
  std::vector<int64_t> shape;
  size_t data_start = 0;
  uint64_t needed = 0;     // count * element size, when !too_large
  bool too_large = false;  // the byte count does not fit in 64 bits
};

// The length of the prefix plus header announced by the first bytes of a file
// (0 when `bytes` is too short to say or is not a .npy file: parse_npy says why).
uint64_t announced_header_end(std::string_view bytes) {
  if (bytes.size() < kMagic.size() + 2 || bytes.substr(0, kMagic.size()) != kMagic) return 0;
  const int major = static_cast<unsigned char>(bytes[6]);
  if (bytes[7] != 0 || major < 1 || major > 3) return 0;
  const size_t len_width = major == 1 ? 2 : 4;
  const size_t header_start = kMagic.size() + 2 + len_width;
  if (bytes.size() < header_start) return 0;
  return header_start + read_le(bytes, kMagic.size() + 2, len_width);
}

DataLayout data_layout(std::string_view bytes, const std::string& name) {
  if (bytes.substr(0, kMagic.size()) != kMagic) {
    fail(name, "not a .npy file (it does not start with the magic string \\x93NUMPY)");
  }
  if (bytes.size() < kMagic.size() + 2) fail(name, "truncated .npy file (no format version)");
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  if (minor != 0 || major < 1 || major > 3) {
    fail(name, "unsupported .npy format version " + std::to_string(major) + "." +
                   std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  }
  const size_t len_width = major == 1 ? 2 : 4;
  const size_t header_start = kMagic.size() + 2 + len_width;
  if (bytes.size() < header_start) fail(name, "truncated .npy file (no header length)");
  const uint64_t header_len = read_le(bytes, kMagic.size() + 2, len_width);
  if (bytes.size() - header_start < header_len) {
    fail(name, "truncated .npy header (" + std::to_string(header_len) + " bytes announced, " +
                   std::to_string(bytes.size() - header_start) + " present)");
  }
  const Header h = HeaderParser(bytes.substr(header_start, header_len), name).parse();

  if (h.fortran_order) {
    fail(name,
         "Fortran-order arrays are not supported; save a C-order array "
         "(np.save(f, np.ascontiguousarray(a)))");
  }
  const DType dtype = dtype_of_descr(h.descr, name);

  // The data must be exactly count * element size bytes. Check before allocating, so
  // that a header announcing a huge shape cannot exhaust memory.
  const size_t data_start = header_start + header_len;
  uint64_t needed = dtype_size(dtype);
  bool too_large = false;
  for (int64_t extent : h.shape) {
    const uint64_t e = static_cast<uint64_t>(extent);
    if (e != 0 && needed > std::numeric_limits<uint64_t>::max() / e) too_large = true;
    needed *= e;  // wraps when too_large; then only the message uses it
  }
  if (std::find(h.shape.begin(), h.shape.end(), 0) != h.shape.end()) {
    needed = 0;
    too_large = false;
  }
  return DataLayout{dtype, h.shape, data_start, needed, too_large};
}

}  // namespace

NdArray parse_npy(std::string_view bytes, const std::string& name) {
  const DataLayout layout = data_layout(bytes, name);
  const DType dtype = layout.dtype;
  const auto& h = layout;
  const size_t data_start = layout.data_start;
  const uint64_t needed = layout.needed;
  const bool too_large = layout.too_large;
  const uint64_t present = bytes.size() - data_start;
  if (too_large || present != needed) {
    fail(name, std::string(too_large || present < needed ? "truncated" : "oversized") +
                   " .npy data: shape " + shape_string(h.shape) + " of " + dtype_name(dtype) +
                   " needs " +
                   (too_large ? std::string("more than 2^64") : std::to_string(needed)) +
                   " bytes, the file has " + std::to_string(present));
  }

  NdArray array = make_array(dtype, h.shape);
  if (needed > 0) std::memcpy(array.data.data(), bytes.data() + data_start, needed);
  if (dtype == DType::Bool) {
    // numpy only writes 0 and 1; any other byte is read as true, as C would.
    uint8_t* b = array.as<uint8_t>();
    for (size_t i = 0; i < needed; ++i) b[i] = b[i] != 0;
  }
  return array;
}

NdArray read_npy(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail(path, "is a directory, not a .npy file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open: ") + std::strerror(errno));
  // Read only what the header announces (plus one byte, to tell an oversized file),
  // so that /dev/zero, a pipe or a header claiming a huge shape cannot make risec
  // read or allocate without bound.
  std::string bytes;
  auto read_until = [&](uint64_t total) {
    constexpr size_t kChunk = size_t{1} << 20;
    while (bytes.size() < total && in) {
      const size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk, total - bytes.size()));
      const size_t old = bytes.size();
      bytes.resize(old + want);
      in.read(bytes.data() + old, static_cast<std::streamsize>(want));
      bytes.resize(old + static_cast<size_t>(in.gcount()));
    }
    if (in.bad()) fail(path, "read error");
  };
  read_until(kMagic.size() + 2 + 4);
  const uint64_t header_end = announced_header_end(bytes);
  if (header_end == 0) return parse_npy(bytes, path);  // not .npy or truncated: says which
  if (header_end > kMaxHeaderBytes)
    fail(path, "the .npy header is " + std::to_string(header_end) + " bytes long, more than " +
                   std::to_string(kMaxHeaderBytes) + " (not a file numpy wrote)");
  read_until(header_end);
  if (bytes.size() < header_end) return parse_npy(bytes, path);  // truncated header
  const DataLayout layout = data_layout(bytes, path);
  const uint64_t limit = memory_limit_bytes();
  if (layout.too_large || layout.needed > limit)
    fail(path, "shape " + shape_string(layout.shape) + " of " + dtype_name(layout.dtype) +
                   " needs " + format_bytes(layout.too_large ? ~uint64_t{0} : layout.needed) +
                   ", more than the memory limit of " + format_bytes(limit) + " (" +
                   memory_limit_source() + ")");
  read_until(layout.data_start + layout.needed + 1);
  return parse_npy(bytes, path);
}

std::string serialize_npy(const NdArray& array) {
  // Exactly what numpy >= 1.24 writes: the dict (keys sorted, each followed by ", "),
  // room for the first extent to grow to kGrowthAxisMaxDigits digits, then spaces and
  // a '\n' so that magic + version + length + header is a multiple of 64 bytes.
  std::string header = "{'descr': '" + std::string(descr_of(array.dtype)) +
                       "', 'fortran_order': False, 'shape': " + shape_string(array.shape) + ", }";
  if (!array.shape.empty()) {
    const size_t digits = std::to_string(array.shape[0]).size();
    if (digits < kGrowthAxisMaxDigits) header.append(kGrowthAxisMaxDigits - digits, ' ');
  }
  const size_t prefix = kMagic.size() + 2 + 2;
  const size_t unpadded = prefix + header.size() + 1;
  header.append(kHeaderAlign - unpadded % kHeaderAlign, ' ');
  header += '\n';
  if (header.size() > std::numeric_limits<uint16_t>::max()) {
    internal_error(".npy header too long for format version 1.0");
  }

  std::string out;
  out.reserve(prefix + header.size() + array.nbytes());
  out += kMagic;
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char*>(array.data.data()), array.nbytes());
  return out;
}

void write_npy(const std::string& path, const NdArray& array) {
  const std::string bytes = serialize_npy(array);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) fail(path, std::string("cannot open for writing: ") + std::strerror(errno));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) fail(path, "write error");
}

}  // namespace risec::runtime
