// The checks before and after a search (search_preflight.h).
#include "driver/search_preflight.h"

#include "dpia/target.h"
#include "driver/memory_check.h"
#include "runtime/jit.h"
#include "support/files.h"

namespace risec::driver {

std::optional<GpuDevice> check_before_search(const std::string& command, const rise::Program& p,
                                             const std::string& entry, const rise::SizeMap& sizes,
                                             const std::string& target, const std::string& output) {
  if (!dpia::Target::named(target))
    throw Error(ErrorKind::Usage,
                "unknown target '" + target + "' (available: c, openmp, opencl, cuda)");
  rise::SizeMap known = sizes;
  const rise::Checked checked = rise::check_program(p, entry, &known);
  check_memory_needs(checked, /*with_interpreter=*/false);
  if (!output.empty()) {
    check_output_file(output, "-o");
    check_outputs({output});
  }
  if (!is_gpu_target(target)) {
    // The C compiler as $CC, $RISEC_CFLAGS and $RISEC_COMPILE_TIMEOUT set it up: a unit
    // of one empty function (found in the cache after the first time). A compiler that
    // cannot start, flags that stop before linking (-c, -E) or an unclosed quote would
    // fail every candidate the same way (and fill the tuning database with failures).
    runtime::CompileOptions o;
    o.openmp = target == "openmp";
    runtime::build_shared_object("void risec_compiler_check(void) {}\n", o);
    return std::nullopt;
  }
  // Every candidate is measured on the device: without one there is nothing to search.
  std::string why;
  std::optional<GpuDevice> d = probe_gpu_device(target, &why);
  if (!d)
    throw Error(ErrorKind::External,
                command + " --target " + target + ": no " + (target == "cuda" ? "CUDA" : "OpenCL") +
                    " device to measure the candidates on (" + why + "); risec " + command +
                    " measures every candidate it tries, so run it on the machine with the "
                    "device (docs/tuning.md, \"GPU targets\")");
  return d;
}

void SearchFailures::note(const Error& e, bool is_default) {
  if (e.kind() != ErrorKind::External && e.kind() != ErrorKind::Mismatch) return;
  if (external_ && (from_default_ || !is_default)) return;
  external_ = e;
  from_default_ = is_default;
}

void SearchFailures::fail(const std::string& what, const std::string& last_reason,
                          Span span) const {
  if (external_) {
    std::string msg = external_->what();
    msg = msg.substr(0, msg.find('\n'));
    const bool wrong = external_->kind() == ErrorKind::Mismatch;
    throw Error(external_->kind(),
                what + "; " + (from_default_ ? "the default" : "the first that ran") +
                    (wrong ? ": " : " failed when it ran: ") + msg,
                external_->span());
  }
  throw Error(ErrorKind::User, what + (last_reason.empty() ? "" : "; " + last_reason), span);
}

}  // namespace risec::driver
