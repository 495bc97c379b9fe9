// $RISEC_LANES (the vector width, support/cpu.h) set for one scope of a test and
// restored after it: for tests of a property of the model at one width, whatever
// the CPU running them has.
#pragma once

#include <cstdlib>
#include <string>

namespace risec::driver {

class ScopedLanes {
 public:
  explicit ScopedLanes(const char* width) {
    const char* old = std::getenv("RISEC_LANES");
    had_ = old != nullptr;
    if (old) saved_ = old;
    set(width);
  }
  void set(const char* width) { setenv("RISEC_LANES", width, 1); }
  ~ScopedLanes() {
    if (had_)
      setenv("RISEC_LANES", saved_.c_str(), 1);
    else
      unsetenv("RISEC_LANES");
  }
  ScopedLanes(const ScopedLanes&) = delete;
  ScopedLanes& operator=(const ScopedLanes&) = delete;

 private:
  bool had_ = false;
  std::string saved_;
};

}  // namespace risec::driver
