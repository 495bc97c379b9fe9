// Formatting of located errors and the "did you mean" helper shared by the RISE and
// strategy front ends.
#include "support/diagnostics.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <exception>
#include <sstream>

namespace risec {

LineCol Span::start() const {
  if (!file) return {};
  LineCol lc{1, 1};
  unsigned limit = std::min<unsigned>(begin, static_cast<unsigned>(file->text.size()));
  for (unsigned i = 0; i < limit; ++i) {
    if (file->text[i] == '\n') {
      ++lc.line;
      lc.col = 1;
    } else {
      ++lc.col;
    }
  }
  return lc;
}

Span Span::merge(const Span& a, const Span& b) {
  if (!a.known()) return b;
  if (!b.known()) return a;
  return Span{a.file, std::min(a.begin, b.begin), std::max(a.end, b.end)};
}

namespace {
std::atomic<const char*> g_activity{nullptr};  // set on the large-stack thread, read in main
}  // namespace

ActivityScope::ActivityScope(const char* activity)
    : previous_(g_activity.exchange(activity)), exceptions_(std::uncaught_exceptions()) {}

ActivityScope::~ActivityScope() {
  if (std::uncaught_exceptions() == exceptions_) g_activity.store(previous_);
}

const char* current_activity() {
  return g_activity.load();
}

int exit_code(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::User:
      return 1;
    case ErrorKind::Usage:
      return 2;
    case ErrorKind::Mismatch:
      return 3;
    case ErrorKind::External:
    case ErrorKind::Fault:
      return 4;
    case ErrorKind::Internal:
      return 70;
  }
  return 70;
}

std::string word_at(const Span& s) {
  if (!s.known()) return "";
  const std::string& t = s.file->text;
  size_t end = s.begin;
  while (end < t.size() && (std::isalnum(static_cast<unsigned char>(t[end])) || t[end] == '_'))
    ++end;
  return s.begin < end ? t.substr(s.begin, end - s.begin) : std::string();
}

void user_error(const std::string& message, const Span& span) {
  throw Error(ErrorKind::User, message, span);
}

void internal_error(const std::string& message, const Span& span) {
  throw Error(ErrorKind::Internal, "internal error: " + message, span);
}

std::string location(const Span& span) {
  if (!span.known()) return "";
  LineCol lc = span.start();
  return span.file->name + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.col);
}

std::string format_error(const Error& e) {
  std::ostringstream out;
  const Span& s = e.span();
  if (s.known()) {
    out << location(s) << ": error: " << e.message() << "\n";
    const std::string& text = s.file->text;
    unsigned b = std::min<unsigned>(s.begin, static_cast<unsigned>(text.size()));
    size_t line_start = text.rfind('\n', b == 0 ? std::string::npos : b - 1);
    line_start = (line_start == std::string::npos || b == 0) ? 0 : line_start + 1;
    if (b > 0 && text[b - 1] == '\n') line_start = b;
    size_t line_end = text.find('\n', line_start);
    if (line_end == std::string::npos) line_end = text.size();
    // A long line (a generated program on one line) is shown only around the
    // error: at most kShown characters, "..." marking what is cut.
    constexpr size_t kShown = 160, kBefore = 60;
    std::string before, after;
    if (line_end - line_start > kShown) {
      if (b > line_start + kBefore) {
        line_start = b - kBefore;
        before = "...";
      }
      if (line_end > line_start + kShown) {
        line_end = line_start + kShown;
        after = "...";
      }
    }
    out << before << text.substr(line_start, line_end - line_start) << after << "\n";
    std::string caret(before.size(), ' ');
    for (size_t i = line_start; i < b; ++i) caret += (text[i] == '\t') ? '\t' : ' ';
    size_t width = 1;
    if (s.end > s.begin) {
      width = std::min<size_t>(s.end, line_end) > b ? std::min<size_t>(s.end, line_end) - b : 1;
    }
    caret += '^';
    if (width > 1) caret += std::string(width - 1, '~');
    out << caret << "\n";
  } else {
    out << "risec: error: " << e.message() << "\n";
  }
  if (!e.note().empty()) {
    out << e.note();
    if (e.note().back() != '\n') out << "\n";
  }
  return out.str();
}

// Optimal-string-alignment distance: insertions, deletions, substitutions and
// adjacent transpositions each cost one (so "valeu" is one edit from "value").
static size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string nearest_name(const std::string& name, const std::vector<std::string>& candidates) {
  // A name that differs only in case is the one meant (`N` for `n`), whatever is nearer
  // by edits.
  auto lower = [](std::string x) {
    for (char& ch : x) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return x;
  };
  const std::string lname = lower(name);
  for (const auto& c : candidates)
    if (c != name && lower(c) == lname) return c;
  std::string best;
  size_t best_d = std::string::npos;
  for (const auto& c : candidates) {
    size_t d = edit_distance(name, c);
    if (d < best_d || (d == best_d && c < best)) {
      best_d = d;
      best = c;
    }
  }
  // Accept roughly one typo per three characters.
  size_t limit = std::max<size_t>(1, name.size() / 3);
  if (best_d == std::string::npos || best_d > limit) return "";
  return best;
}

}  // namespace risec
