// read_npy reads a file in steps, never more than its header announces (plus one
// byte): these tests check that it says exactly what parse_npy says of the whole
// file's bytes, on many truncated, oversized and mutated files, and that endless
// devices fail after their first bytes instead of being read until memory runs out.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <unistd.h>

#include "runtime/npy.h"
#include "support/buffer.h"
#include "support/diagnostics.h"
#include "support/random.h"

namespace risec::runtime {
namespace {

// The outcome of reading: the array's bytes, or the error with the file's name cut.
std::string outcome(const std::function<NdArray()>& read, const std::string& name) {
  try {
    NdArray a = read();
    std::string out = "ok " + std::to_string(static_cast<int>(a.dtype)) + " rank " +
                      std::to_string(a.shape.size()) + ": ";
    return out + std::string(reinterpret_cast<const char*>(a.data.data()), a.nbytes());
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User) << e.message();
    std::string m = e.message();
    EXPECT_EQ(m.rfind(name + ": ", 0), 0u) << m;
    return "error " + m.substr(name.size());
  }
}

class TempFile {
 public:
  TempFile()
      : path_((std::filesystem::temp_directory_path() /
               ("risec_npy_read_" + std::to_string(getpid()) + ".npy"))
                  .string()) {}
  ~TempFile() { std::filesystem::remove(path_); }
  const std::string& write(const std::string& bytes) {
    std::ofstream(path_, std::ios::binary | std::ios::trunc) << bytes;
    return path_;
  }

 private:
  std::string path_;
};

TEST(NpyReadFile, AgreesWithParsingTheWholeFile) {
  std::vector<std::string> files;
  for (DType t : {DType::F32, DType::Bool}) {
    for (std::vector<int64_t> shape : std::vector<std::vector<int64_t>>{{}, {0}, {3}, {2, 5}}) {
      NdArray a = make_array(t, shape);
      fill_random(a, 7);
      files.push_back(serialize_npy(a));
    }
  }
  TempFile tmp;
  int cases = 0;
  auto same = [&](const std::string& bytes) {
    const std::string& path = tmp.write(bytes);
    EXPECT_EQ(outcome([&] { return read_npy(path); }, path),
              outcome([&] { return parse_npy(bytes, path); }, path));
    ++cases;
  };
  for (const std::string& f : files) {
    for (size_t cut = 0; cut <= f.size(); ++cut) same(f.substr(0, cut));  // every prefix
    for (size_t extra = 1; extra <= 70; extra += 3) same(f + std::string(extra, 'x'));
    // One byte changed anywhere in the prefix and the header: lengths, versions, dicts.
    for (size_t i = 0; i < std::min<size_t>(f.size(), 128); ++i) {
      std::string g = f;
      g[i] = static_cast<char>(g[i] ^ (i % 2 ? 0x01 : 0x40));
      same(g);
    }
  }
  EXPECT_GT(cases, 1000);
}

TEST(NpyReadFile, EndlessDevicesFailAfterTheirFirstBytes) {
  for (const char* dev : {"/dev/zero", "/dev/urandom"}) {
    if (!std::filesystem::exists(dev)) continue;
    try {
      read_npy(dev);
      ADD_FAILURE() << dev << " was read as an array";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::User);
      EXPECT_NE(e.message().find("not a .npy file"), std::string::npos) << e.message();
    }
  }
}

}  // namespace
}  // namespace risec::runtime
