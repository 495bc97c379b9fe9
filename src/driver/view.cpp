#include "driver/view.h"

#include <iostream>
#include <regex>
#include <sstream>
#include <vector>

#include "driver/commands.h"
#include "driver/compile.h"
#include "rise/printer.h"
#include "support/files.h"

namespace risec::driver {

namespace {

// At most this many rule applications are listed (simplify alone applies hundreds);
// the count of the others is said.
constexpr size_t kMaxSteps = 2000;
constexpr size_t kMaxTermText = 4000;

struct Step {
  std::string rule;
  std::string where;  // FILE:L:C of the term it rewrote, or empty
  std::string before, after;
};

std::string shortened(std::string text) {
  if (text.size() > kMaxTermText) text = text.substr(0, kMaxTermText) + " ...";
  return text;
}

// The line of `file` that a location text FILE:L:C names, or 0 (another file, such as
// the prelude, or no location).
int line_in(const std::string& where, const std::string& file) {
  static const std::regex loc(R"(^(.*):(\d+):(\d+)$)");
  std::smatch m;
  if (!std::regex_match(where, m, loc) || m[1].str() != file) return 0;
  return std::stoi(m[2].str());
}

// A text block whose lines that carry a location `at FILE:L:C` (the DPIA's `// at`,
// the code's `/* at ... */`) link to line L of the program, and so does the line after
// a comment that is only a location (the loop it precedes).
std::string linked_lines(const std::string& text, const std::string& file) {
  static const std::regex at(R"(\bat ([^ ()]+:\d+:\d+))");
  std::ostringstream out;
  std::istringstream in(text);
  int carried = 0;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    int src = 0;
    bool only_location = false;
    if (std::regex_search(line, m, at)) {
      src = line_in(m[1].str(), file);
      const std::string trimmed = line.substr(line.find_first_not_of(' '));
      only_location = trimmed.rfind("/* at ", 0) == 0;
    }
    if (!src) src = carried;
    carried = only_location ? src : 0;
    if (src)
      out << "<span class=\"ln linked\" data-src=\"" << src << "\">" << html_escape(line)
          << "</span>\n";
    else
      out << "<span class=\"ln\">" << html_escape(line) << "</span>\n";
  }
  return out.str();
}

const char* kStyle = R"(
body { font-family: sans-serif; margin: 0; background: #fafafa; color: #222; }
header { padding: 8px 16px; background: #263238; color: #eceff1; }
header h1 { font-size: 16px; margin: 0; }
header p { margin: 4px 0 0 0; font-size: 13px; }
#status { font-family: monospace; }
main { display: grid; grid-template-columns: 1fr 1fr; gap: 8px; padding: 8px; }
section { background: #fff; border: 1px solid #cfd8dc; border-radius: 4px; min-width: 0; }
section h2 { font-size: 14px; margin: 0; padding: 6px 8px; background: #eceff1; }
pre { margin: 0; padding: 6px 8px; font-size: 12px; overflow: auto; max-height: 38vh; }
.ln { display: block; white-space: pre; }
.linked { cursor: pointer; border-left: 3px solid #90caf9; padding-left: 4px; }
.src { cursor: pointer; }
.src .no { color: #90a4ae; display: inline-block; width: 3.5em; user-select: none; }
.marked { background: #fff59d; }
ol { margin: 0; padding: 6px 8px 6px 40px; font-size: 12px; max-height: 30vh; overflow: auto; }
li.step.linked { border-left: 3px solid #90caf9; }
li.step pre { max-height: 12em; background: #f5f5f5; }
)";

// Clicks: on anything linked (a step, a DPIA or code line), mark the program line it
// comes from and everything else linked to it; on a program line, the same for it.
const char* kScript = R"(
function mark(line) {
  document.querySelectorAll('.marked').forEach(function (e) { e.classList.remove('marked'); });
  var src = document.getElementById('src-' + line);
  if (src) { src.classList.add('marked'); src.scrollIntoView({block: 'nearest'}); }
  var linked = document.querySelectorAll('[data-src="' + line + '"]');
  linked.forEach(function (e) { e.classList.add('marked'); });
  if (linked.length) linked[0].scrollIntoView({block: 'nearest'});
  document.getElementById('status').textContent =
      'line ' + line + ' of the program: ' + linked.length + ' linked step(s) and line(s)';
}
document.addEventListener('click', function (ev) {
  if (ev.target.closest('summary')) return;
  var t = ev.target.closest('[data-src], [data-line]');
  if (t) mark(t.getAttribute('data-src') || t.getAttribute('data-line'));
});
)";

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

int cmd_view(const ViewArgs& o) {
  require_strategy_for_params(o.params, o.strategy);
  if (!o.output.empty()) check_outputs({o.output});
  const std::string program_text = read_text_file(o.file, "the program");
  rise::Program p = load_program(o.file);
  rise::SizeMap sizes = parse_sizes(o.sizes_text);
  std::optional<elevate::Strategy> strategy;
  std::string strategy_text;
  if (!o.strategy.empty()) {
    strategy = load_strategy(o.strategy, o.params);
    strategy_text = strategy_source(o.strategy)->text;
  }
  std::vector<Step> steps;
  size_t applied = 0;
  elevate::Tracer tracer;
  tracer.on_rule = [&](const std::string& rule, const rise::Expr& before, const rise::Expr& after) {
    if (++applied > kMaxSteps) return;
    steps.push_back({rule, before->span.known() ? location(before->span) : "",
                     shortened(rise::print_expr(before)), shortened(rise::print_expr(after))});
  };
  CompileRequest req;
  req.program = &p;
  req.entry = o.entry;
  req.sizes = sizes.empty() ? nullptr : &sizes;
  req.strategy = strategy ? &*strategy : nullptr;
  req.target = o.target;
  req.simplify = !o.no_simplify;
  req.tracer = &tracer;
  req.annotate_sources = true;
  const Compiled c = compile(req);

  // The file name as the locations write it (the program's SourceRef).
  const std::string file = o.file;
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>risec view: "
    << html_escape(c.entry_name) << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
  h << "<header><h1>" << html_escape(file) << ": " << html_escape(c.entry_name) << "</h1><p>target "
    << html_escape(o.target) << ", strategy "
    << html_escape(o.strategy.empty() ? std::string("the default lowering") : o.strategy);
  for (const auto& [name, value] : c.sizes) h << ", " << html_escape(name) << " = " << value;
  h << " &middot; <span id=\"status\">click a line, a step or a loop</span></p></header>\n<main>\n";

  h << "<section id=\"program\"><h2>Program</h2><pre>";
  {
    std::istringstream in(program_text);
    int n = 0;
    for (std::string line; std::getline(in, line);) {
      ++n;
      h << "<span class=\"ln src\" id=\"src-" << n << "\" data-line=\"" << n
        << "\"><span class=\"no\">" << n << "</span>" << html_escape(line) << "</span>\n";
    }
  }
  h << "</pre></section>\n";

  h << "<section id=\"strategy\"><h2>Strategy: " << steps.size() << " rule application(s)";
  if (applied > steps.size()) h << " listed of " << applied;
  h << "</h2><pre>"
    << html_escape(strategy ? strategy_text
                            : std::string("// no --strategy: the default lowering (docs/cli.md)"))
    << "</pre><ol id=\"steps\">\n";
  for (const Step& s : steps) {
    const int src = line_in(s.where, file);
    h << "<li class=\"step" << (src ? " linked\" data-src=\"" + std::to_string(src) : std::string())
      << "\"><b>" << html_escape(s.rule) << "</b>"
      << (s.where.empty() ? std::string() : " at " + html_escape(s.where))
      << "<details><summary>before and after</summary><pre>" << html_escape(s.before)
      << "</pre><pre>" << html_escape(s.after) << "</pre></details></li>\n";
  }
  h << "</ol></section>\n";

  rise::PrintOptions po;
  h << "<section id=\"rewritten\"><h2>After the strategy</h2><pre>"
    << html_escape("def " + c.entry_name + " = " + rise::print_expr(c.low.expr, po))
    << "</pre></section>\n";
  h << "<section id=\"dpia\"><h2>Imperative DPIA</h2><pre>"
    << linked_lines(dpia::print_located(c.dpia), file) << "</pre></section>\n";
  h << "<section id=\"code\" style=\"grid-column: 1 / span 2\"><h2>Generated code ("
    << html_escape(o.target) << ")</h2><pre>";
  if (!c.unit.kernel_source.empty()) h << linked_lines(c.unit.kernel_source, file) << "\n";
  h << linked_lines(c.unit.source, file) << "</pre></section>\n";
  h << "</main>\n<script>" << kScript << "</script>\n</body>\n</html>\n";

  if (o.output.empty()) {
    std::cout << h.str();
    return 0;
  }
  write_output_file(o.output, h.str());
  std::cerr << "view: wrote " << o.output << "\n";  // stderr: -o /dev/stdout stays HTML
  return 0;
}

}  // namespace risec::driver
