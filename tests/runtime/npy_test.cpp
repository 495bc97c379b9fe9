// Tests of .npy reading and writing and of the runtime's arrays: round trips for
// every element type, byte-exact output against headers written out by hand as numpy
// writes them, other format versions, and every malformed-file error.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "runtime/npy.h"
#include "support/buffer.h"
#include "support/diagnostics.h"
#include "support/random.h"

namespace risec::runtime {
namespace {

const std::vector<DType> kAllDTypes = {DType::Bool, DType::I8,  DType::I16, DType::I32,
                                       DType::I64,  DType::U8,  DType::U16, DType::U32,
                                       DType::U64,  DType::F32, DType::F64};

std::string bytes_of(const NdArray& a) {
  return std::string(reinterpret_cast<const char*>(a.data.data()), a.nbytes());
}

// A version 1.0 file with the given header dict text (padded as numpy pads it) and
// raw data.
std::string npy_v1(const std::string& dict, const std::string& data) {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

TEST(DType, NamesAndSizes) {
  for (DType t : kAllDTypes) {
    EXPECT_EQ(dtype_from_name(dtype_name(t)), t);
  }
  EXPECT_EQ(dtype_name(DType::U16), "u16");
  EXPECT_EQ(dtype_size(DType::Bool), 1u);
  EXPECT_EQ(dtype_size(DType::I16), 2u);
  EXPECT_EQ(dtype_size(DType::F32), 4u);
  EXPECT_EQ(dtype_size(DType::U64), 8u);
  EXPECT_FALSE(dtype_from_name("float").has_value());
  EXPECT_FALSE(dtype_from_name("").has_value());
}

TEST(AlignedBuffer, AlignedZeroedAndMovable) {
  for (size_t n : {0u, 1u, 63u, 64u, 65u, 1000u}) {
    AlignedBuffer b(n);
    ASSERT_NE(b.data(), nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 64, 0u);
    EXPECT_EQ(b.size(), n);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(std::to_integer<int>(b.data()[i]), 0);
  }
  AlignedBuffer a(16);
  a.data()[3] = std::byte{7};
  const std::byte* p = a.data();
  AlignedBuffer moved(std::move(a));
  EXPECT_EQ(moved.data(), p);
  EXPECT_EQ(moved.size(), 16u);
  EXPECT_EQ(a.data(), nullptr);  // a moved-from buffer is empty
  EXPECT_EQ(a.size(), 0u);
  AlignedBuffer assigned(8);
  assigned = std::move(moved);
  EXPECT_EQ(assigned.data(), p);
  AlignedBuffer copy = assigned.clone();
  EXPECT_NE(copy.data(), p);
  EXPECT_EQ(std::to_integer<int>(copy.data()[3]), 7);
}

TEST(NdArray, CountAndMakeArray) {
  EXPECT_EQ(make_array(DType::F32, {}).count(), 1);
  EXPECT_EQ(make_array(DType::F32, {}).nbytes(), 4u);
  EXPECT_EQ(make_array(DType::I16, {3, 4}).nbytes(), 24u);
  EXPECT_EQ(make_array(DType::F64, {3, 0, 2}).count(), 0);
  EXPECT_THROW(make_array(DType::F32, {-1}), Error);
  EXPECT_THROW(make_array(DType::F64, {int64_t{1} << 40, int64_t{1} << 40}), Error);
  EXPECT_EQ(shape_string({}), "()");
  EXPECT_EQ(shape_string({5}), "(5,)");
  EXPECT_EQ(shape_string({3, 4}), "(3, 4)");
}

TEST(Npy, RoundTripEveryDTypeAndShape) {
  const std::vector<std::vector<int64_t>> shapes = {{},     {0},       {1},       {7},
                                                    {2, 3}, {3, 0, 2}, {2, 3, 4}, {1, 1, 1, 5}};
  uint64_t seed = 1;
  for (DType t : kAllDTypes) {
    for (const auto& shape : shapes) {
      NdArray a = make_array(t, shape);
      fill_random(a, seed++);
      const std::string bytes = serialize_npy(a);
      EXPECT_EQ(bytes.size() % 64, a.nbytes() % 64) << "header not 64-byte aligned";
      NdArray b = parse_npy(bytes, "mem.npy");
      EXPECT_EQ(b.dtype, t);
      EXPECT_EQ(b.shape, shape);
      EXPECT_EQ(bytes_of(b), bytes_of(a)) << dtype_name(t) << " " << shape_string(shape);
    }
  }
}

TEST(Npy, FileRoundTrip) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("risec_npy_test_" + std::to_string(getpid()) + ".npy"))
                               .string();
  NdArray a = make_array(DType::F64, {4, 5});
  fill_random(a, 42);
  write_npy(path, a);
  NdArray b = read_npy(path);
  std::filesystem::remove(path);
  EXPECT_EQ(b.dtype, DType::F64);
  EXPECT_EQ(b.shape, (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(bytes_of(b), bytes_of(a));
}

TEST(Npy, FileErrors) {
  EXPECT_THROW(read_npy("/nonexistent/dir/x.npy"), Error);
  EXPECT_THROW(read_npy(std::filesystem::temp_directory_path().string()), Error);
  EXPECT_THROW(write_npy("/nonexistent/dir/x.npy", make_array(DType::F32, {2})), Error);
  try {
    read_npy("/nonexistent/dir/x.npy");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User);
    EXPECT_NE(e.message().find("/nonexistent/dir/x.npy"), std::string::npos);
  }
}

// np.save(f, np.arange(6, dtype=np.float32).reshape(2, 3)) with numpy >= 1.24 (older
// versions, without the growth room, happen to write the same bytes here).
TEST(Npy, SerializeF32ExactBytes) {
  NdArray a = make_array(DType::F32, {2, 3});
  for (int i = 0; i < 6; ++i) a.as<float>()[i] = static_cast<float>(i);

  // The dict (59 chars), 20 spaces of room for the first extent to grow to 21
  // digits, then 38 spaces of padding and '\n': 10 + 118 = 128 bytes in all.
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  ASSERT_EQ(dict.size(), 59u);
  std::string expected("\x93NUMPY\x01\x00\x76\x00", 10);  // header length 118 = 0x76
  expected += dict + std::string(20 + 38, ' ') + "\n";
  ASSERT_EQ(expected.size(), 128u);
  const unsigned char data[] = {
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x40,  // 0 1 2
      0x00, 0x00, 0x40, 0x40, 0x00, 0x00, 0x80, 0x40, 0x00, 0x00, 0xa0, 0x40,  // 3 4 5
  };
  expected.append(reinterpret_cast<const char*>(data), sizeof data);
  EXPECT_EQ(serialize_npy(a), expected);
}

// np.save(f, np.array([1, -2, 300], dtype=np.int64)) with numpy >= 1.24.
TEST(Npy, SerializeI64ExactBytes) {
  NdArray a = make_array(DType::I64, {3});
  a.as<int64_t>()[0] = 1;
  a.as<int64_t>()[1] = -2;
  a.as<int64_t>()[2] = 300;

  const std::string dict = "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }";
  ASSERT_EQ(dict.size(), 57u);
  std::string expected("\x93NUMPY\x01\x00\x76\x00", 10);
  expected += dict + std::string(20 + 40, ' ') + "\n";
  ASSERT_EQ(expected.size(), 128u);
  const unsigned char data[] = {
      0x01, 0,    0,    0,    0,    0,    0,    0,     // 1
      0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,  // -2
      0x2c, 0x01, 0,    0,    0,    0,    0,    0,     // 300
  };
  expected.append(reinterpret_cast<const char*>(data), sizeof data);
  EXPECT_EQ(serialize_npy(a), expected);
}

TEST(Npy, SerializeScalarAndWideHeaders) {
  // A scalar gets no growth room: 10 + 55 + 1 = 66, padded to 128.
  NdArray s = make_array(DType::F64, {});
  const std::string bytes = serialize_npy(s);
  EXPECT_EQ(bytes.size(), 128u + 8u);
  EXPECT_EQ(bytes.substr(10, 55), "{'descr': '<f8', 'fortran_order': False, 'shape': (), }");
  EXPECT_EQ(bytes[127], '\n');
  // Many dimensions push the header past one 64-byte block; it stays aligned.
  NdArray m = make_array(DType::U8, std::vector<int64_t>(20, 1));
  const std::string mb = serialize_npy(m);
  EXPECT_EQ((mb.size() - 1) % 64, 0u);
  EXPECT_EQ(mb[mb.size() - 2], '\n');
  EXPECT_EQ(parse_npy(mb, "m.npy").shape, m.shape);
}

// A header longer than format 1.0's 2-byte length (thousands of dimensions) is written
// as format 2.0 (4-byte length), as numpy does, and reads back; the one below the limit
// stays 1.0.
TEST(Npy, LongHeadersAreWrittenAsVersion2) {
  for (size_t rank : {size_t{21000}, size_t{21900}, size_t{22000}, size_t{30000}}) {
    NdArray a = make_array(DType::I16, std::vector<int64_t>(rank, 1));
    a.as<int16_t>()[0] = -3;
    const std::string bytes = serialize_npy(a);
    const bool v2 = bytes[6] == '\x02';
    EXPECT_EQ(bytes[7], '\0');
    const size_t prefix = v2 ? 12 : 10;
    uint32_t len = 0;
    for (size_t b = 0; b < prefix - 8; ++b)
      len |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[8 + b])) << (8 * b);
    EXPECT_EQ(prefix + len + 2, bytes.size()) << rank;
    EXPECT_EQ((prefix + len) % 64, 0u) << rank;
    EXPECT_EQ(bytes[prefix + len - 1], '\n');
    // "1, " per dimension: 21000 fit in 16 bits (63,000 bytes), 21900 do not.
    EXPECT_EQ(v2, rank > 21000) << rank;
    EXPECT_LE(len, v2 ? 0xffffffffu : 65535u);
    NdArray back = parse_npy(bytes, "long.npy");
    EXPECT_EQ(back.shape, a.shape);
    EXPECT_EQ(back.as<int16_t>()[0], -3);
  }
}

TEST(Npy, ReadsVersions2And3AndOtherSpellings) {
  const std::string dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }";
  std::string header = dict;
  while ((12 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  const int32_t values[] = {5, -7};
  const std::string data(reinterpret_cast<const char*>(values), sizeof values);
  for (char major : {'\x02', '\x03'}) {
    std::string file = std::string("\x93NUMPY", 6) + major + '\0';
    file += static_cast<char>(header.size());
    file += std::string(3, '\0');
    file += header + data;
    NdArray a = parse_npy(file, "v2.npy");
    EXPECT_EQ(a.dtype, DType::I32);
    EXPECT_EQ(a.shape, (std::vector<int64_t>{2}));
    EXPECT_EQ(a.as<int32_t>()[1], -7);
  }

  struct Case {
    const char* descr;
    DType type;
  };
  for (Case c : {Case{"<i1", DType::I8}, Case{"|i1", DType::I8}, Case{"<u1", DType::U8},
                 Case{"|b1", DType::Bool}, Case{"=f8", DType::F64}, Case{"=u2", DType::U16},
                 Case{"<u8", DType::U64}}) {
    const std::string file =
        npy_v1(std::string("{'descr': '") + c.descr + "', 'fortran_order': False, 'shape': (), }",
               std::string(dtype_size(c.type), '\x01'));
    EXPECT_EQ(parse_npy(file, "s.npy").dtype, c.type) << c.descr;
  }

  // Keys in another order, double quotes, a trailing comma in the shape, Python 2
  // longs, no trailing comma after the last entry.
  const std::string odd = npy_v1(R"({"shape": (2L, 1,), "fortran_order": False, "descr": "<i2"})",
                                 std::string(4, '\0'));
  NdArray o = parse_npy(odd, "odd.npy");
  EXPECT_EQ(o.dtype, DType::I16);
  EXPECT_EQ(o.shape, (std::vector<int64_t>{2, 1}));
}

TEST(Npy, BoolsReadAsZeroOrOne) {
  const std::string file =
      npy_v1("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", std::string("\0\1\7", 3));
  NdArray a = parse_npy(file, "b.npy");
  EXPECT_EQ(bytes_of(a), std::string("\0\1\1", 3));
}

// Every malformed input throws a User error naming the file; none crashes.
void expect_user_error(const std::string& bytes, const std::string& fragment) {
  try {
    parse_npy(bytes, "bad.npy");
    ADD_FAILURE() << "no error; expected one mentioning '" << fragment << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User);
    EXPECT_EQ(e.message().rfind("bad.npy: ", 0), 0u) << e.message();
    EXPECT_NE(e.message().find(fragment), std::string::npos) << e.message();
  }
}

TEST(Npy, Errors) {
  const std::string ok_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
  const std::string ok = npy_v1(ok_dict, std::string(16, '\0'));
  ASSERT_NO_THROW(parse_npy(ok, "ok.npy"));

  expect_user_error("", "magic");
  expect_user_error("PK\x03\x04 a zip file", "magic");
  expect_user_error("\x93NUMP", "magic");
  expect_user_error("\x93NUMPY", "version");
  std::string v4 = ok;
  v4[6] = '\x04';
  expect_user_error(v4, "version 4.0");
  std::string v11 = ok;
  v11[7] = '\x01';
  expect_user_error(v11, "version 1.1");
  expect_user_error(std::string("\x93NUMPY\x01\x00", 8), "header length");
  expect_user_error(std::string("\x93NUMPY\x02\x00\x10\x00", 10), "header length");
  // Every proper prefix of a good file is truncated somewhere.
  for (size_t n = 0; n < ok.size(); ++n) {
    EXPECT_THROW(parse_npy(ok.substr(0, n), "bad.npy"), Error) << n;
  }
  expect_user_error(ok.substr(0, 40), "truncated .npy header");
  expect_user_error(ok.substr(0, ok.size() - 1), "truncated .npy data");
  expect_user_error(ok + "x", "oversized .npy data");

  expect_user_error(
      npy_v1("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", std::string(16, '\0')),
      "Fortran");
  expect_user_error(
      npy_v1("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }", std::string(16, '\0')),
      "big-endian");
  expect_user_error(
      npy_v1("{'descr': '!i8', 'fortran_order': False, 'shape': (2,), }", std::string(16, '\0')),
      "big-endian");
  for (const char* descr : {"<c8", "<f2", "<U3", "|S4", "|O", "<M8[s]", "f4", "<i3", "|f4"}) {
    expect_user_error(
        npy_v1(std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (1,), }",
               std::string(4, '\0')),
        "unsupported dtype");
  }
  expect_user_error(npy_v1("{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (1,), }",
                           std::string(4, '\0')),
                    "structured");
  // Data size not matching the shape, including shapes whose size overflows.
  expect_user_error(
      npy_v1("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", std::string(16, '\0')),
      "needs 24 bytes");
  expect_user_error(
      npy_v1("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", ""),
      "truncated .npy data");
  expect_user_error(npy_v1("{'descr': '<f8', 'fortran_order': False, 'shape': (0, "
                           "4294967296, 4294967296), }",
                           "x"),
                    "oversized .npy data");
  expect_user_error(
      npy_v1("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }", ""),
      "extent too large");

  // Malformed dicts.
  for (const char* dict : {
           "",
           "{",
           "{}",
           "not a dict",
           "{'descr': '<f4', 'fortran_order': False}",
           "{'descr': '<f4', 'shape': (1,)}",
           "{'fortran_order': False, 'shape': (1,)}",
           "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }",
           "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }",
           "{'descr': '<f4', 'fortran_order': False, 'shape': (1 2), }",
           "{'descr': '<f4', 'fortran_order': False, 'shape': [1], }",
           "{'descr': '<f4, 'fortran_order': False, 'shape': (1,), }",
           "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}",
           "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } trailing",
           "{'descr' '<f4', 'fortran_order': False, 'shape': (1,), }",
       }) {
    expect_user_error(npy_v1(dict, std::string(4, '\0')), "malformed .npy header");
  }
}

}  // namespace
}  // namespace risec::runtime
