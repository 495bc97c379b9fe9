// `risec run --profile` (docs/cli.md): each top-level loop nest of the generated
// function is a stage that times itself. The stage is named after the primitive that
// made its outermost loop and where that primitive is in the source (the loop's
// Command::origin and span, set by the translation), so that the profile says which
// part of the RISE program the time went to, after any rewriting. Only the C and
// OpenMP printers time stages: a stage of the OpenMP target is timed around its
// parallel region, by the thread that starts it.
#include <set>
#include <string>

#include "codegen/c/c_printer.h"

namespace risec::codegen {

namespace {

ProfileStage stage_of(const Command& loop) {
  ProfileStage s;
  s.what = loop.origin ? loop.origin->name : "loop";
  if (!loop.span.known()) return s;
  const LineCol lc = loop.span.start();
  s.where = loop.span.file->name + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.col);
  // The line of the source, without its indentation, at most 72 bytes.
  const std::string& text = loop.span.file->text;
  size_t begin = text.rfind('\n', loop.span.begin == 0 ? 0 : loop.span.begin - 1);
  begin = begin == std::string::npos || loop.span.begin == 0 ? 0 : begin + 1;
  size_t end = text.find('\n', loop.span.begin);
  std::string line = text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  line.erase(0, line.find_first_not_of(" \t"));
  if (line.size() > 72) line = line.substr(0, 69) + "...";
  s.source = line;
  return s;
}

}  // namespace

void CPrinter::emit_timed_stage(const Command& loop, std::vector<CStmtP>& out) {
  if (static_cast<int>(profile_stages_.size()) >= kMaxProfileStages) {
    // Past the limit, loops are not timed: their time shows as the rest of the call.
    ++profile_untimed_;
    ++profile_depth_;
    emit_loop(loop, out);
    --profile_depth_;
    return;
  }
  const std::string k = std::to_string(profile_stages_.size());
  ProfileStage stage = stage_of(loop);
  // The arrays the stage writes that exist before it (the output, a let's buffer), as the
  // generated code names it: rewritten programs often place several stages at one
  // primitive of the source, and their buffers tell them apart.
  std::set<std::string> arrays_before;
  for (const auto& [name, st] : storage_)
    if (st.pointer) arrays_before.insert(name);
  ++profile_depth_;
  const dpia::BodyAccesses found = accesses(loop.body[0]);
  --profile_depth_;
  for (const dpia::BodyAccesses::Access& a : found.named) {
    if (!a.write || !arrays_before.count(a.name)) continue;
    const std::string name = cname(a.name);
    if (("," + stage.writes + ",").find("," + name + ",") != std::string::npos) continue;
    stage.writes += (stage.writes.empty() ? "" : ",") + name;
  }
  profile_stages_.push_back(std::move(stage));
  const std::string start = "risec_profile_start" + k;
  std::vector<CStmtP> block{c_decl("const double " + start + " = risec_profile_now()")};
  ++profile_depth_;
  emit_loop(loop, block);
  --profile_depth_;
  block.push_back(c_expr_stmt(function_name_ + "__risec_profile_ms[" + k +
                              "] += risec_profile_now() - " + start));
  out.push_back(c_block(std::move(block)));
}

std::string CPrinter::profile_text() const {
  if (!opts_.profile) return "";
  const size_t n = profile_stages_.size();
  std::string t =
      "#include <time.h>\n"
      "static inline double risec_profile_now(void) { struct timespec t; "
      "clock_gettime(CLOCK_MONOTONIC, &t); return (double)t.tv_sec * 1e3 + (double)t.tv_nsec "
      "* 1e-6; }\n";
  // The totals of the stages in milliseconds, over every call since the code was loaded.
  t += "double " + function_name_ + "__risec_profile_ms[" + std::to_string(n ? n : 1) + "];\n";
  t += "const int " + function_name_ + "__risec_profile_stages = " + std::to_string(n) + ";\n";
  return t;
}

}  // namespace risec::codegen
