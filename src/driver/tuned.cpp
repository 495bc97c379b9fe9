// Tuning results reused (see tuned.h).
#include "driver/tuned.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "driver/gpu_device.h"
#include "elevate/parser.h"
#include "rise/printer.h"
#include "runtime/jit.h"
#include "support/cpu.h"
#include "support/diagnostics.h"
#include "support/files.h"
#include "support/words.h"

namespace risec::driver {

namespace {

// FNV-1a, 64 bits: the same text gives the same hash in every build of risec.
std::string stable_hash(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace

std::string default_db_path() {
  return runtime::cache_dir() + "/tuning.db";
}

std::string target_code(const std::string& target, bool shift_tails, bool bounds_checks) {
  return target + (shift_tails ? "" : " --no-shift-tails") +
         (bounds_checks ? "" : " --no-bounds-checks");
}

TunedKey tuned_key(const rise::Program& program, const std::string& entry,
                   const rise::SizeMap& sizes, const std::string& target_code) {
  TunedKey k;
  k.program = stable_hash(rise::print_program(program));
  k.entry = entry.empty() && !program.defs.empty() ? program.defs.back().name : entry;
  for (const auto& [name, value] : sizes)
    k.sizes += (k.sizes.empty() ? "" : ",") + name + "=" + std::to_string(value);
  k.target = target_code;
  // A GPU target's time is the device's: its records are keyed by the device's name
  // (gpu_device.h), not the CPU's.
  const std::string target = target_code.substr(0, target_code.find(' '));
  // A CPU record's strategy keeps `lanes` symbolic (the autoscheduler's vectorize(lanes))
  // and is valid only at the width it was tuned at ($RISEC_LANES may name another): the
  // width is part of the machine's key, so another width falls back to the default
  // lowering with the usual note rather than applying a strategy that fails there.
  k.cpu = is_gpu_target(target) ? gpu_device_key(target)
                                : cpu_model() + " (lanes " + std::to_string(machine_lanes()) + ")";
  k.version = RISEC_VERSION;
  return k;
}

namespace {

// A record's strategy carries the texts its imports had when it was measured, as
// comment lines after it (`// risec: imported PATH` then `//|` and each line), so that
// --tuned applies what was measured after the files move, change or disappear
// (held-out L: the record named them by absolute path and broke, or silently used an
// edited helper).
constexpr const char* kImportedMark = "// risec: imported ";

std::string with_import_texts(const std::string& strategy) {
  auto src = std::make_shared<SourceFile>(SourceFile{"<tuning record>", strategy});
  std::vector<SourceRef> imports;
  try {
    imports = elevate::strategy_imports(src);
  } catch (const Error&) {
    return strategy;  // not a strategy file (a test's record): kept as it is
  }
  std::string out = strategy;
  for (const SourceRef& f : imports) {
    if (!out.empty() && out.back() != '\n') out += '\n';
    out += kImportedMark + f->name + "\n";
    size_t at = 0;
    while (true) {
      const size_t end = f->text.find('\n', at);
      out += "//|" + f->text.substr(at, end == std::string::npos ? std::string::npos : end - at) +
             "\n";
      if (end == std::string::npos) break;
      at = end + 1;
    }
  }
  return out;
}

// The imported texts a record carries (path -> text).
std::map<std::string, std::string> import_texts_of(const std::string& record) {
  std::map<std::string, std::string> texts;
  std::string* current = nullptr;
  bool first = true;
  std::istringstream in(record);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(kImportedMark, 0) == 0) {
      current = &texts[line.substr(std::string(kImportedMark).size())];
      first = true;
    } else if (current && line.rfind("//|", 0) == 0) {
      *current += (first ? "" : "\n") + line.substr(3);
      first = false;
    } else {
      current = nullptr;
    }
  }
  return texts;
}

}  // namespace

bool record_best(TrialDb& db, const TunedKey& key, const TunedRecord& record) {
  TunedRecord r = record;
  r.strategy = with_import_texts(record.strategy);
  return db.record_best(key, r);
}

std::optional<TunedRecord> lookup_best(TrialDb& db, const TunedKey& key) {
  return db.lookup_best(key);
}

std::optional<elevate::Strategy> tuned_strategy(const TunedKey& key, const std::string& db_path) {
  const std::string path = db_path.empty() ? default_db_path() : db_path;
  std::optional<TunedRecord> r;
  std::vector<std::string> other_sizes;
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  if (exists) {
    note_input(path, "the tuning database");
    TrialDb db(path, /*read_only=*/true);  // a lookup changes nothing
    r = lookup_best(db, key);
    if (!r) other_sizes = db.recorded_sizes(key);
  }
  if (!r) {
    // A database that does not exist holds no record (docs/tuning.md); the note says
    // so, since a mistyped --db is the likely cause. It names what the key holds
    // (sizes, entry, target), and the sizes that do have a record, since a record is
    // never used at other sizes.
    std::string at = key.sizes.empty() ? "without sizes (generic code)" : "at sizes " + key.sizes;
    std::string others;
    for (const std::string& s : other_sizes) others += (others.empty() ? "" : "; ") + s;
    std::cerr << "note: no tuning record for this program on " << key.cpu << " " << at << " (entry "
              << key.entry << ", target " << key.target << ")"
              << (exists ? "" : " (the tuning database " + path + " does not exist)")
              << (others.empty() ? "" : " (records at other sizes: " + others + ")")
              << "; using the default lowering\n";
    return std::nullopt;
  }
  // The record's text is a strategy file of its own (its imports absolute, their texts
  // as measured carried with it; a record made before they were is read from disk).
  auto src =
      std::make_shared<SourceFile>(SourceFile{"<tuning record in " + path + ">", r->strategy});
  elevate::ImportTexts measured(import_texts_of(r->strategy));
  return elevate::parse_strategy_file(src);
}

void tuned_with_strategy() {
  const std::optional<Interface> i = current_interface();
  std::string msg = i == Interface::Cpp      ? "tuned = true takes the strategy from the tuning "
                                               "database: leave CompileOptions::strategy unset"
                    : i == Interface::Python ? "tuned=True takes the strategy from the tuning "
                                               "database: do not pass strategy="
                                             : "--tuned takes the strategy from the tuning "
                                               "database: remove --strategy";
  throw Error(ErrorKind::Usage, msg);
}

}  // namespace risec::driver
