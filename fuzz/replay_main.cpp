// A driver for the fuzz targets without libFuzzer (docs/fuzzing.md, "Replays in the
// suite"): it runs the target on each input file once, then on mutants of them made
// by a seeded generator, so that the same inputs run every time and a failure
// reproduces with the same command. It is linked into the sanitizer build with each
// target's own source, where the compiler is instrumented and leaks are checked; the
// coverage-guided search stays with libFuzzer (fuzz/run_fuzzers.sh, clang).
//
//   TARGET_replay [--mutants N] [--seed S] [--dict FILE] [--max-len L] [--save FILE] PATH...
//
// A PATH is a file or a folder (its regular files, not recursively). Each input is
// written to FILE (--save) before it runs, so that an input which ends the process (a
// sanitizer report, an abort from fuzz::bug) is left there to reproduce:
// `TARGET_replay FILE` runs it alone.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// Defined by the targets that set up their process once (differential_fuzzer).
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

using Bytes = std::string;

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(stderr,
               "replay: %s\nusage: replay [--mutants N] [--seed S] [--dict FILE] [--max-len L] "
               "[--save FILE] PATH...\n",
               what.c_str());
  std::exit(2);
}

Bytes read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) usage_error("cannot read '" + p.string() + "'");
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// libFuzzer's dictionary format: one token per line, `"text"` or `name="text"`, with
// \\, \" and \xHH escapes; '#' starts a comment line. A line that is none of these is
// an error naming it.
std::vector<Bytes> read_dictionary(const std::string& file) {
  if (!std::filesystem::is_regular_file(file))
    usage_error("the dictionary '" + file + "' is not a readable file");
  std::ifstream in(file);
  if (!in) usage_error("cannot read the dictionary '" + file + "'");
  std::vector<Bytes> tokens;
  std::string line;
  auto bad = [&](size_t number, const std::string& why) {
    usage_error(file + ":" + std::to_string(number) + ": " + why);
  };
  auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
  for (size_t number = 1; std::getline(in, line); ++number) {
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    size_t open = line.find('"');
    size_t close = line.find_last_not_of(" \t\r");
    if (open == std::string::npos || close <= open || line[close] != '"')
      bad(number, "a token is written \"text\" or name=\"text\"");
    Bytes token;
    for (size_t i = open + 1; i < close; ++i) {
      if (line[i] != '\\') {
        token += line[i];
      } else if (i + 1 < close && (line[i + 1] == '\\' || line[i + 1] == '"')) {
        token += line[++i];
      } else if (i + 3 < close && line[i + 1] == 'x' && hex(line[i + 2]) && hex(line[i + 3])) {
        token += static_cast<char>(std::stoi(line.substr(i + 2, 2), nullptr, 16));
        i += 3;
      } else {
        bad(number, "a backslash starts \\\\, \\\" or \\xHH (two hexadecimal digits)");
      }
    }
    if (!token.empty()) tokens.push_back(token);
  }
  return tokens;
}

// One to four edits of a seed, each one of: a bit flipped, a byte replaced, a run
// deleted, a run of the input copied elsewhere in it, a dictionary token inserted, or
// the tail replaced by another seed's tail (a crossover).
class Mutator {
 public:
  Mutator(uint64_t seed, std::vector<Bytes> dict, size_t max_len)
      : rng_(seed), dict_(std::move(dict)), max_len_(max_len) {}

  Bytes mutate(const std::vector<Bytes>& seeds) {
    Bytes b = seeds[below(seeds.size())];
    for (size_t n = 1 + below(4); n > 0; --n) edit(b, seeds);
    if (b.size() > max_len_) b.resize(max_len_);
    return b;
  }

 private:
  size_t below(size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng_);
  }

  void edit(Bytes& b, const std::vector<Bytes>& seeds) {
    static const char kInteresting[] = {'\0', '\xff', '0', '1', '9', '-', '(', ')', '.', ' ', '\n'};
    switch (below(dict_.empty() ? 5 : 6)) {
      case 0:
        if (!b.empty()) b[below(b.size())] ^= static_cast<char>(1u << below(8));
        break;
      case 1:
        if (!b.empty())
          b[below(b.size())] =
              below(2) ? static_cast<char>(below(256)) : kInteresting[below(sizeof kInteresting)];
        break;
      case 2:
        if (!b.empty()) {
          size_t at = below(b.size());
          b.erase(at, 1 + below(std::min<size_t>(b.size() - at, 16)));
        }
        break;
      case 3:
        if (!b.empty()) {
          size_t from = below(b.size());
          Bytes run = b.substr(from, 1 + below(std::min<size_t>(b.size() - from, 32)));
          b.insert(below(b.size() + 1), run);
        }
        break;
      case 4: {
        const Bytes& other = seeds[below(seeds.size())];
        size_t cut = below(b.size() + 1);
        size_t from = below(other.size() + 1);
        b = b.substr(0, cut) + other.substr(from);
        break;
      }
      default:
        b.insert(below(b.size() + 1), dict_[below(dict_.size())]);
        break;
    }
  }

  std::mt19937_64 rng_;
  std::vector<Bytes> dict_;
  size_t max_len_;
};

// A whole number of decimal digits that fits in 64 bits: no sign, space or base.
uint64_t to_count(const std::string& flag, const char* text) {
  const std::string t = text;
  const bool digits = !t.empty() && t.find_first_not_of("0123456789") == std::string::npos;
  errno = 0;
  const unsigned long long v = digits ? std::strtoull(t.c_str(), nullptr, 10) : 0;
  if (!digits) usage_error(flag + " needs a whole number, not '" + t + "'");
  if (errno == ERANGE) usage_error(flag + " " + t + " is out of range (at most 2^64 - 1)");
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  size_t mutants = 0, max_len = 4096;
  uint64_t seed = 1;
  std::string dict_file, save;
  std::vector<std::filesystem::path> paths;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--mutants")
      mutants = to_count(a, value());
    else if (a == "--seed")
      seed = to_count(a, value());
    else if (a == "--max-len")
      max_len = to_count(a, value());
    else if (a == "--dict")
      dict_file = value();
    else if (a == "--save")
      save = value();
    else if (a.rfind("--", 0) == 0)
      usage_error("unknown option " + a);
    else
      paths.emplace_back(a);
  }
  if (const char* s = std::getenv("RISEC_FUZZ_SEED"); s && *s)
    seed = to_count("RISEC_FUZZ_SEED", s);

  std::vector<std::filesystem::path> files;
  for (const auto& p : paths) {
    if (std::filesystem::is_directory(p)) {
      std::vector<std::filesystem::path> in_dir;
      for (const auto& e : std::filesystem::directory_iterator(p))
        if (e.is_regular_file()) in_dir.push_back(e.path());
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else if (std::filesystem::is_regular_file(p)) {
      files.push_back(p);
    } else {
      usage_error("no such file or folder: '" + p.string() + "'");
    }
  }
  if (files.empty()) usage_error("no inputs");
  if (max_len == 0) usage_error("--max-len must be at least 1");
  // The inputs are never written: --save must name another file.
  if (!save.empty()) {
    std::error_code ec;
    for (const auto& f : files)
      if (std::filesystem::equivalent(f, save, ec))
        usage_error("--save '" + save + "' is one of the inputs, which are not overwritten");
  }

  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  std::vector<Bytes> seeds;
  for (const auto& f : files) seeds.push_back(read_bytes(f));
  auto run = [&](const Bytes& input) {
    if (!save.empty()) {
      std::ofstream out(save, std::ios::binary | std::ios::trunc);
      out.write(input.data(), static_cast<std::streamsize>(input.size()));
      if (!out) usage_error("cannot write '" + save + "'");
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  };
  for (const Bytes& s : seeds) run(s.size() > max_len ? s.substr(0, max_len) : s);
  Mutator m(seed, dict_file.empty() ? std::vector<Bytes>{} : read_dictionary(dict_file), max_len);
  for (size_t i = 0; i < mutants; ++i) run(m.mutate(seeds));
  std::printf("replay: %zu input%s and %zu mutant%s (seed %llu) ran without a finding\n",
              seeds.size(), seeds.size() == 1 ? "" : "s", mutants, mutants == 1 ? "" : "s",
              static_cast<unsigned long long>(seed));
  return 0;
}
