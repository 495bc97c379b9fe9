// The analysis behind outlining a parallel loop body into a function of its own:
// which memory variables the body reads and writes, which size variables it needs
// and which names it binds itself. A backend that outlines (the OpenMP printer, to
// keep `restrict` on the body's pointers) turns the free ones into parameters;
// printing the function stays in the printer.
#pragma once

#include <set>
#include <string>

#include "dpia/imperative.h"

namespace risec::dpia {

struct Captures {
  std::set<std::string> read;     // memory variables read (expressions)
  std::set<std::string> written;  // memory variables written (acceptor roots)
  std::set<std::string> nats;     // size and index variables in indices and types
  std::set<std::string> bound;    // loop variables and allocations inside (not captured)
};

// What the body of `loop` (a For) uses; its own variable counts as bound.
Captures captures(const Command& loop);

}  // namespace risec::dpia
