// A parallel loop's OpenMP schedule: carried by the mapPar and reducePar nodes of a
// RISE expression (rise::ExprNode::schedule), DPIA's phrases and loop commands, and
// printed by the OpenMP backend as the loop's `schedule` clause (docs/codegen.md).
#pragma once

#include <climits>
#include <cstdint>
#include <optional>
#include <string>

namespace risec::rise {

// How an OpenMP parallel loop (mapPar, reducePar) hands its iterations to the threads:
// the `schedule` clause of its pragma, chosen by the strategy rule ompSchedule.
// Default prints no clause (the OpenMP runtime's choice: static in GCC's libgomp);
// chunk 0 is the kind's own default chunk. Only the OpenMP target has such loops.
struct ParSchedule {
  enum class Kind : uint8_t { Default, Static, Dynamic, Guided };
  Kind kind = Kind::Default;
  int64_t chunk = 0;
  bool operator==(const ParSchedule&) const = default;
  bool is_default() const { return kind == Kind::Default; }
};
// The largest chunk (OpenMP's chunk is an int).
inline constexpr int64_t kMaxScheduleChunk = INT32_MAX;
// The clause's arguments: "dynamic, 4", "static"; "" for the default.
std::string schedule_text(const ParSchedule& s);
// The kind called `name` (static, dynamic, guided), or none.
std::optional<ParSchedule::Kind> schedule_kind(const std::string& name);

}  // namespace risec::rise
