// Two properties of calling kernels through the public API: the test between the
// output and an input is exact for strided views of one buffer (views that
// interleave or tile it without sharing a byte are called, the results checked
// against the interpreter; views that share a byte are refused), checked against a
// brute-force walk of both views' bytes; and a damaged object in the cache of
// compiled code is built again instead of failing every later compile.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "risec/risec.h"

namespace {

const char* kTwiceRows = R"(def twice_rows = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>
  x |> map(fun(r => r |> map(fun(v => v * 2.0f + 1.0f))))))
)";

// The byte addresses of a 2-D view's elements (strides in elements).
std::set<uintptr_t> alias_view_bytes(const risec::ArrayRef& a) {
  std::set<uintptr_t> out;
  const auto base = reinterpret_cast<uintptr_t>(a.data);
  for (int64_t i = 0; i < a.shape[0]; ++i)
    for (int64_t j = 0; j < a.shape[1]; ++j)
      for (uintptr_t b = 0; b < sizeof(float); ++b)
        out.insert(base +
                   static_cast<uintptr_t>((i * a.strides[0] + j * a.strides[1]) *
                                          static_cast<int64_t>(sizeof(float))) +
                   b);
  return out;
}

// A view of `storage` of shape (n, m) with strides of -3..3 (non-zero), placed at a
// random offset where all of it fits; false when it does not fit.
bool alias_random_view(std::mt19937& g, std::vector<float>& storage, int64_t n, int64_t m,
                       risec::ArrayRef* a) {
  std::uniform_int_distribution<int64_t> stride(1, 3);
  int64_t s0 = stride(g) * (g() % 2 ? -1 : 1), s1 = stride(g) * (g() % 2 ? -1 : 1);
  if (g() % 2) s0 *= m;  // rows apart by whole rows sometimes: tilings
  const int64_t lo = std::min<int64_t>(0, s0 * (n - 1)) + std::min<int64_t>(0, s1 * (m - 1));
  const int64_t hi = std::max<int64_t>(0, s0 * (n - 1)) + std::max<int64_t>(0, s1 * (m - 1));
  const auto size = static_cast<int64_t>(storage.size());
  if (hi - lo >= size) return false;
  const int64_t offset = -lo + static_cast<int64_t>(g() % static_cast<uint64_t>(size - (hi - lo)));
  a->data = storage.data() + offset;
  a->element = risec::ScalarType::F32;
  a->shape = {n, m};
  a->strides = {s0, s1};
  return true;
}

TEST(ApiAliasCache, OutputInputSharingIsExactForStridedViews) {
  risec::Program p = risec::Program::parse(kTwiceRows);
  risec::Kernel k = risec::jit(p);
  std::mt19937 g(4242);
  int called = 0, refused = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<float> storage(48);
    for (size_t i = 0; i < storage.size(); ++i) storage[i] = static_cast<float>(i) - 20;
    const int64_t n = 1 + g() % 4, m = 1 + g() % 4;
    risec::ArrayRef x, out;
    if (!alias_random_view(g, storage, n, m, &x) || !alias_random_view(g, storage, n, m, &out))
      continue;
    const std::set<uintptr_t> xb = alias_view_bytes(x), ob = alias_view_bytes(out);
    if (ob.size() != static_cast<size_t>(n * m) * sizeof(float)) continue;  // self-overlap
    bool shared = false;
    for (uintptr_t b : ob) shared |= xb.count(b) > 0;
    // The interpreter on x's values, copied before the call.
    std::vector<float> xs;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j)
        xs.push_back(static_cast<const float*>(x.data)[i * x.strides[0] + j * x.strides[1]]);
    risec::ArrayRef xr;
    xr.data = xs.data();
    xr.shape = {n, m};
    std::string error;
    try {
      k.call(out, {x}, {{"n", n}, {"m", m}});
    } catch (const risec::Error& e) {
      error = e.message();
    }
    // The output's own test is sufficient, not exact (docs/api.md): what it refuses
    // says nothing here.
    if (error.find("the output's elements overlap") != std::string::npos) continue;
    if (shared) {
      EXPECT_NE(error.find("the output shares memory with inputs[0] (x)"), std::string::npos)
          << "trial " << trial << ": " << error;
      ++refused;
      continue;
    }
    ASSERT_EQ(error, "") << "trial " << trial << ": views sharing no byte were refused";
    ++called;
    std::vector<risec::Array> want = risec::interpret(p, {xr});
    const auto* w = reinterpret_cast<const float*>(want.at(0).bytes.data());
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j)
        ASSERT_EQ(static_cast<const float*>(out.data)[i * out.strides[0] + j * out.strides[1]],
                  w[i * m + j])
            << "trial " << trial << " (" << i << ", " << j << ")";
  }
  // Both kinds occur often enough to mean something.
  EXPECT_GT(called, 300);
  EXPECT_GT(refused, 300);
}

TEST(ApiAliasCache, InterleavedHalvesOfOneBufferAreNoAlias) {
  // y[1::2] = f(y[::2]) and y[::2] = f(y[1::2]) (docs/api.md: "Arrays").
  risec::Kernel k = risec::jit(risec::Program::parse(kTwiceRows));
  std::vector<float> y(18);  // 16 used; 2 more for the shifted view below
  for (size_t i = 0; i < y.size(); ++i) y[i] = static_cast<float>(i);
  risec::ArrayRef even, odd;
  even.data = y.data();
  odd.data = y.data() + 1;
  even.shape = odd.shape = {2, 4};
  even.strides = odd.strides = {8, 2};
  k.call(odd, {even}, {{"n", 2}, {"m", 4}});
  for (size_t i = 0; i < 16; i += 2) {
    EXPECT_EQ(y[i], static_cast<float>(i));
    EXPECT_EQ(y[i + 1], 2.0f * static_cast<float>(i) + 1.0f);
  }
  // A real overlap still is one: the same elements shifted by one.
  risec::ArrayRef shifted = even;
  shifted.data = y.data() + 2;
  EXPECT_THROW(k.call(shifted, {even}, {{"n", 2}, {"m", 4}}), risec::Error);
}

// Sets RISEC_CACHE_DIR to a new directory for one test, then puts it back.
class CacheDirForTest {
 public:
  CacheDirForTest() {
    const char* old = std::getenv("RISEC_CACHE_DIR");
    had_ = old != nullptr;
    if (had_) saved_ = old;
    dir_ = (std::filesystem::temp_directory_path() / "risec-damaged-XXXXXX").string();
    if (!::mkdtemp(dir_.data())) dir_.clear();
    if (!dir_.empty()) ::setenv("RISEC_CACHE_DIR", dir_.c_str(), 1);
  }
  ~CacheDirForTest() {
    if (had_)
      ::setenv("RISEC_CACHE_DIR", saved_.c_str(), 1);
    else
      ::unsetenv("RISEC_CACHE_DIR");
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  const std::string& dir() const { return dir_; }

 private:
  bool had_ = false;
  std::string saved_, dir_;
};

TEST(ApiAliasCache, DamagedCachedObjectIsBuiltAgain) {
  CacheDirForTest cache;
  ASSERT_FALSE(cache.dir().empty());
  risec::Program p = risec::Program::parse(kTwiceRows);
  std::vector<float> x = {1, 2, 3, 4, 5, 6}, y(6);
  { risec::jit(p)(y, {x}, {{"n", 2}, {"m", 3}}); }  // built, loaded and unloaded
  std::vector<std::filesystem::path> objects;
  for (const auto& e : std::filesystem::directory_iterator(cache.dir()))
    if (e.path().extension() == ".so") objects.push_back(e.path());
  ASSERT_EQ(objects.size(), 1u);
  std::string whole;
  {
    std::ifstream in(objects[0], std::ios::binary);
    whole.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_GT(whole.size(), 4096u);
  // Damaged as a copy cut short (mid-header, empty, past the headers but before the
  // segments' end: dlopen would map pages past the end) or from another machine (a
  // whole ELF file of machine EM_NONE, which dlopen refuses).
  std::string other_machine = whole;
  other_machine[18] = other_machine[19] = 0;  // e_machine
  for (const std::string& damage : {std::string("\x7f"
                                                "ELF, cut short"),
                                    std::string(), whole.substr(0, 4096), other_machine}) {
    const std::filesystem::path damaged = objects[0].string() + ".damaged";
    {
      std::ofstream out(damaged, std::ios::binary);
      out << damage;
    }
    std::filesystem::rename(damaged, objects[0]);  // a new file (inode) in its place
    y.assign(6, 0);
    risec::jit(p)(y, {x}, {{"n", 2}, {"m", 3}});  // built again, not an error
    EXPECT_EQ(y, (std::vector<float>{3, 5, 7, 9, 11, 13})) << damage.size();
    EXPECT_GT(std::filesystem::file_size(objects[0]), 4096u) << damage.size();
  }
}

}  // namespace
