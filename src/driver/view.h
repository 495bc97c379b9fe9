// `risec view` (docs/cli.md, "view"): one self-contained HTML page that shows a
// program, its strategy and each rule the strategy applied, the program after it,
// the imperative DPIA and the generated code side by side, linked by source
// locations: a click on a loop of the DPIA or of the code, or on a step, marks the
// line of the program it comes from, and a click on a line of the program marks
// every loop and step that comes from it.
#pragma once

#include <string>

#include "driver/options.h"

namespace risec::driver {

int cmd_view(const ViewArgs& o);

// The HTML-escaped text (& < > " ').
std::string html_escape(const std::string& text);

}  // namespace risec::driver
