// A generator of random parallel mappings (strategies), shared by the suite
// (tests/e2e/disjoint_writes_test.cpp, seeded) and the libFuzzer target
// differential_fuzzer (driven by the fuzzer's bytes): the first few maps (outermost
// first) lowered to a nest the hardware runs (for OpenMP: mapPar or mapSeq each; for
// the GPU: mapGlobal in one or two dimensions, or mapWorkGroup with mapLocal or a
// second mapWorkGroup inside), after an optional split of the outermost map into
// blocks of 4 (so that work groups and their work items have a nest to take); maybe
// reductions made parallel or given a private accumulator. Every step is under `try`,
// so the strategy applies to any program.
//
// The draws go through `below(k)` (a number in [0, k)).
#pragma once

#include <string>
#include <vector>

namespace risec::fuzz {

template <class Below>
std::string random_mapping(Below&& below, bool gpu) {
  std::vector<std::string> levels;
  if (!gpu) {
    for (int k = 1 + static_cast<int>(below(3)); k > 0; --k)
      levels.push_back(below(3) ? "mapPar" : "mapSeq");
  } else {
    std::string d = below(2) ? "0" : "1", e = d == "0" ? "1" : "0";
    if (below(2)) {
      levels = {"mapGlobal(" + d + ")"};
      if (below(3)) levels.push_back(below(3) ? "mapGlobal(" + e + ")" : "mapSeq");
      if (below(2)) levels.push_back(below(2) ? "mapGlobal(" + e + ")" : "mapSeq");
    } else {
      levels = {"mapWorkGroup(" + d + ")"};
      static const char* const inner[] = {"mapLocal(D)", "mapLocal(E)", "mapWorkGroup(E)",
                                          "mapSeq"};
      for (int k = 1 + static_cast<int>(below(2)); k > 0; --k) {
        std::string l = inner[below(4)];
        if (l.back() == ')') l.replace(l.size() - 2, 1, l[l.size() - 2] == 'D' ? d : e);
        levels.push_back(l);
      }
    }
  }
  std::string s = "DFNF";
  if (below(2)) s += " ; try(topDown(fuseReduceMap))";
  if (below(2)) s += " ; try(splitJoin(4) @ outermost(isApplied(isMap))) ; DFNF";
  for (const std::string& l : levels) s += " ; try(" + l + " @ outermost(isApplied(isMap)))";
  if (!gpu && below(3) == 0) s += " ; try(reducePar @ outermost(isApplied(isReduce)))";
  if (gpu && below(3) == 0) s += " ; try(normalize(oclReduceSeq(Private)))";
  return s + " ; lowerToC";
}

}  // namespace risec::fuzz
