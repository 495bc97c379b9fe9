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
#include "support/files.h"
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

// What the prefix and the header of a file say about its data.
struct Layout {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  size_t data_start = 0;   // the offset of the data
  uint64_t needed = 0;     // the bytes of data the shape needs
  bool too_large = false;  // more than 2^64 bytes
};

// The offset of the header, after the checks of the magic string and the version.
size_t header_offset(std::string_view bytes, const std::string& name) {
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
  return kMagic.size() + 2 + (major == 1 ? 2 : 4);
}

// The prefix and the header (which `bytes` must hold whole; the data may be missing).
Layout parse_layout(std::string_view bytes, const std::string& name) {
  const size_t header_start = header_offset(bytes, name);
  if (bytes.size() < header_start) fail(name, "truncated .npy file (no header length)");
  const size_t len_width = header_start - kMagic.size() - 2;
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
  Layout l;
  l.dtype = dtype_of_descr(h.descr, name);
  l.shape = h.shape;
  l.data_start = header_start + header_len;
  l.needed = dtype_size(l.dtype);
  for (int64_t extent : h.shape) {
    const uint64_t e = static_cast<uint64_t>(extent);
    if (e != 0 && l.needed > std::numeric_limits<uint64_t>::max() / e) l.too_large = true;
    l.needed *= e;  // wraps when too_large; then only the message uses it
  }
  if (std::find(h.shape.begin(), h.shape.end(), 0) != h.shape.end()) {
    l.needed = 0;
    l.too_large = false;
  }
  return l;
}

// The data is not the size the shape needs: `present` bytes (or more, with
// `at_least`: a device or a pipe, read only up to one byte past the need).
[[noreturn]] void data_size_mismatch(const std::string& name, const Layout& l, uint64_t present,
                                     bool at_least = false) {
  const bool truncated = l.too_large || present < l.needed;
  fail(name, std::string(truncated ? "truncated" : "oversized") + " .npy data: shape " +
                 shape_string(l.shape) + " of " + dtype_name(l.dtype) + " needs " +
                 (l.too_large ? std::string("more than 2^64") : std::to_string(l.needed)) +
                 " bytes, the file has " + (at_least ? "more than " : "") +
                 std::to_string(at_least ? l.needed : present));
}

}  // namespace

NdArray parse_npy(std::string_view bytes, const std::string& name) {
  const Layout l = parse_layout(bytes, name);
  // The data must be exactly count * element size bytes. Check before allocating, so
  // that a header announcing a huge shape cannot exhaust memory.
  const uint64_t present = bytes.size() - l.data_start;
  if (l.too_large || present != l.needed) data_size_mismatch(name, l, present);

  NdArray array = make_array(l.dtype, l.shape);
  if (l.needed > 0) std::memcpy(array.data.data(), bytes.data() + l.data_start, l.needed);
  if (l.dtype == DType::Bool) {
    // numpy only writes 0 and 1; any other byte is read as true, as C would.
    uint8_t* b = array.as<uint8_t>();
    for (size_t i = 0; i < l.needed; ++i) b[i] = b[i] != 0;
  }
  return array;
}

namespace {

// Reads a file in steps, never more than asked: the header first, then no more data
// than the header announces (plus one byte, to tell an oversized file), so that a
// device or a pipe that never ends (/dev/zero) gives an error after its first bytes
// instead of filling the memory.
class StepReader {
 public:
  explicit StepReader(const std::string& path) : path_(path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) fail(path, "is a directory, not a .npy file");
    in_.open(path, std::ios::binary);
    if (!in_) fail(path, std::string("cannot open: ") + std::strerror(errno));
  }
  // Reads until `bytes` holds `total` bytes or the file ends.
  void read_up_to(uint64_t total) {
    constexpr uint64_t kChunk = uint64_t{1} << 20;
    while (bytes.size() < total && in_) {
      const size_t old = bytes.size();
      bytes.resize(old + static_cast<size_t>(std::min(total - old, kChunk)));
      in_.read(bytes.data() + old, static_cast<std::streamsize>(bytes.size() - old));
      bytes.resize(old + static_cast<size_t>(in_.gcount()));
    }
    if (in_.bad()) fail(path_, "read error");
  }
  // Reads the prefix and the header (no more) and parses them.
  Layout read_layout() {
    read_up_to(kMagic.size() + 2);
    const size_t header_start = header_offset(bytes, path_);
    read_up_to(header_start);
    if (bytes.size() == header_start) {
      const uint64_t header_len =
          read_le(bytes, kMagic.size() + 2, header_start - kMagic.size() - 2);
      if (header_len > kMaxHeaderBytes)
        fail(path_, "the .npy header is " + std::to_string(header_len) + " bytes long, more than " +
                        std::to_string(kMaxHeaderBytes) + " (not a file numpy wrote)");
      read_up_to(header_start + header_len);
    }
    return parse_layout(bytes, path_);
  }

  std::string bytes;

 private:
  const std::string& path_;
  std::ifstream in_;
};

}  // namespace

std::vector<int64_t> read_npy_shape(const std::string& path) {
  note_input(path, "an array input");
  StepReader r(path);
  return r.read_layout().shape;
}

NdArray read_npy(const std::string& path) {
  note_input(path, "an array input");
  StepReader r(path);
  const Layout l = r.read_layout();
  std::string& bytes = r.bytes;
  // Refuse before reading what could not be held in memory.
  const uint64_t limit = memory_limit_bytes();
  if (l.too_large || l.needed > limit)
    fail(path, "shape " + shape_string(l.shape) + " of " + dtype_name(l.dtype) + " needs " +
                   format_bytes(l.too_large ? ~uint64_t{0} : l.needed) +
                   ", more than the memory limit of " + format_bytes(limit) + " (" +
                   memory_limit_source() + ")");
  if (l.needed < std::numeric_limits<uint64_t>::max() - l.data_start) {
    r.read_up_to(l.data_start + l.needed + 1);
    if (bytes.size() > l.data_start + l.needed) {
      // Oversized: say by how much when the file has a size (not a device or a pipe).
      std::error_code size_ec;
      const uint64_t size = std::filesystem::is_regular_file(path, size_ec)
                                ? std::filesystem::file_size(path, size_ec)
                                : 0;
      const bool known = !size_ec && size >= bytes.size();
      data_size_mismatch(path, l, known ? size - l.data_start : 0, !known);
    }
  }
  return parse_npy(bytes, path);
}

std::string serialize_npy(const NdArray& array) {
  // Exactly what numpy >= 1.24 writes: the dict (keys sorted, each followed by ", "),
  // room for the first extent to grow to kGrowthAxisMaxDigits digits, then spaces and
  // a '\n' so that magic + version + length + header is a multiple of 64 bytes.
  // Format version 1.0 has a 2-byte header length; a longer header (thousands of
  // dimensions) is written as version 2.0, with a 4-byte length, as numpy does.
  std::string dict = "{'descr': '" + std::string(descr_of(array.dtype)) +
                     "', 'fortran_order': False, 'shape': " + shape_string(array.shape) + ", }";
  if (!array.shape.empty()) {
    const size_t digits = std::to_string(array.shape[0]).size();
    if (digits < kGrowthAxisMaxDigits) dict.append(kGrowthAxisMaxDigits - digits, ' ');
  }
  auto padded = [&](size_t length_bytes) {
    std::string header = dict;
    const size_t unpadded = kMagic.size() + 2 + length_bytes + header.size() + 1;
    header.append(kHeaderAlign - unpadded % kHeaderAlign, ' ');
    header += '\n';
    return header;
  };
  std::string header = padded(2);
  const bool v2 = header.size() > std::numeric_limits<uint16_t>::max();
  if (v2) header = padded(4);
  if (header.size() > std::numeric_limits<uint32_t>::max())
    internal_error(".npy header too long for format version 2.0");

  std::string out;
  out.reserve(kMagic.size() + 6 + header.size() + array.nbytes());
  out += kMagic;
  out += v2 ? '\x02' : '\x01';
  out += '\x00';
  for (int b = 0; b < (v2 ? 4 : 2); ++b)
    out += static_cast<char>((header.size() >> (8 * b)) & 0xff);
  out += header;
  out.append(reinterpret_cast<const char*>(array.data.data()), array.nbytes());
  return out;
}

void write_npy(const std::string& path, const NdArray& array) {
  write_output_file(path, serialize_npy(array));
}

}  // namespace risec::runtime
