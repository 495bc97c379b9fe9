// Tuning results reused (see tuned.h).
#include "driver/tuned.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

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

bool record_best(TrialDb& db, const TunedKey& key, const TunedRecord& record) {
  return db.record_best(key, record);
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
  // The record's text is a strategy file of its own (its imports absolute).
  auto src =
      std::make_shared<SourceFile>(SourceFile{"<tuning record in " + path + ">", r->strategy});
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
