// The GPU targets' shared printer (see gpu_printer.h): launches, kernels, parallel
// loops, local memory and barriers.
#include "codegen/gpu/gpu_printer.h"

#include <algorithm>
#include <functional>
#include <sstream>

#include "codegen/c/c_names.h"
#include "dpia/outline.h"
#include "dpia/traverse.h"

namespace risec::codegen::gpu {

using dpia::LoopKind;
using dpia::Space;

const char* const kLaunchSizeHelpers = R"RISEC(#include <stdarg.h>
/* A failure of the device or its runtime (no platform or GPU, an API call's error, kernels
   that do not build, a launch the device cannot make) is reported through
   RISEC_DEVICE_FAILED(what), by default the message on stderr and abort(). Code loaded
   into its caller's process defines it to record the message (runtime::with_fault_recording):
   the failing function then returns 1, and the host function releases what it made,
   unlocks and returns, the output not written. */
#ifndef RISEC_DEVICE_FAILED
#define RISEC_DEVICE_FAILED(what) (fprintf(stderr, "%s\n", (what)), abort())
#endif
/* The message, formatted (every caller holds the host's lock); returns 1. */
static char risec_device_text[65536 + 1024];
static __attribute__((cold, noinline, format(printf, 1, 2))) int risec_device_failf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(risec_device_text, sizeof risec_device_text, format, args);
  va_end(args);
  RISEC_DEVICE_FAILED(risec_device_text);
  return 1;
}

/* Entry d of the comma-separated list in $var, or 0 (also without a var). */
static size_t risec_env_size(const char* var, int d) {
  const char* s = var ? getenv(var) : NULL;
  for (int i = 0; s && *s; ++i) {
    char* end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s) return 0;
    if (i == d) return (size_t)v;
    s = *end == ',' ? end + 1 : NULL;
  }
  return 0;
}

/* The launch: global[d] work items (from the program, or $global_var), in groups of
   local[d] (when grouped: from the program or $local_var, at most what the device
   allows); global_var and local_var are NULL for a kernel run by one work item (it
   has no strided loop: more work items would each run it all, racing), which keeps
   its one work item whatever the environment says; a global size is rounded up to whole groups (the loops are strided, so
   every size is correct) and kept at most 2^30, so that a strided loop's `i += step`
   stays within a 32-bit int when its trip count is at most 2^30 (which the 32-bit
   kernels are printed for). Fails (risec_device_failf, then -1) when a group has fewer
   than need[d] work items. Returns whether the launch has a group size. */
#define RISEC_MAX_STRIDE ((size_t)1 << 30)
static int risec_launch_size(const char* global_var, const char* local_var, unsigned dims,
                             size_t* global, size_t* local, const size_t* need, int grouped,
                             size_t max_group, const size_t* max_items) {
  int given_local = 0;
  for (unsigned d = 0; d < dims; ++d) {
    size_t g = risec_env_size(global_var, (int)d), l = risec_env_size(local_var, (int)d);
    if (g) global[d] = g;
    if (l) { local[d] = l; given_local = 1; }
    if (global[d] == 0) global[d] = 1;
    if (global[d] > RISEC_MAX_STRIDE) global[d] = RISEC_MAX_STRIDE;
    if (local[d] == 0) local[d] = 1;
    if (local[d] > max_items[d]) local[d] = max_items[d];
  }
  if (!grouped && !given_local) return 0;
  for (;;) {
    size_t total = 1;
    unsigned widest = 0;
    for (unsigned d = 0; d < dims; ++d) {
      total *= local[d];
      if (local[d] > local[widest]) widest = d;
    }
    if (total <= max_group) break;
    local[widest] = (local[widest] + 1) / 2;
  }
  for (unsigned d = 0; d < dims; ++d) {
    global[d] = (global[d] + local[d] - 1) / local[d] * local[d];
    if (global[d] > RISEC_MAX_STRIDE) global[d] = RISEC_MAX_STRIDE / local[d] * local[d];
  }
  /* A private array distributed over the work items needs each of its parts' work items. */
  for (unsigned d = 0; d < dims; ++d)
    if (local[d] < need[d]) {
      risec_device_failf("risec: the kernel needs at least %lu work items in dimension %u of a work group (a private array is distributed over them), but the launch has %lu ($%s, which risec run's --local sets, or the device's limit)",
                         (unsigned long)need[d], d, (unsigned long)local[d], local_var ? local_var : "no variable");
      return -1;
    }
  return 1;
}
)RISEC";

const char* vector_scalar(rise::ScalarKind k) {
  switch (k) {
    case rise::ScalarKind::I8:
      return "char";
    case rise::ScalarKind::U8:
      return "uchar";
    case rise::ScalarKind::I16:
      return "short";
    case rise::ScalarKind::U16:
      return "ushort";
    case rise::ScalarKind::I32:
      return "int";
    case rise::ScalarKind::U32:
      return "uint";
    case rise::ScalarKind::I64:
      return "long";
    case rise::ScalarKind::U64:
      return "ulong";
    case rise::ScalarKind::F32:
      return "float";
    case rise::ScalarKind::F64:
      return "double";
    default:
      return nullptr;
  }
}

namespace {

// The first command inside c (c included) that `is` holds for, or null.
const Command* first_command(const CommandP& c, const std::function<bool(const Command&)>& is) {
  struct Finder : dpia::Visitor {
    const std::function<bool(const Command&)>& is;
    const Command* found = nullptr;
    explicit Finder(const std::function<bool(const Command&)>& is) : is(is) {}
    void visit_command(const Command& c) override {
      if (is(c)) found = &c;
      if (!found) dpia::Visitor::visit_command(c);
    }
  } f(is);
  f.visit(c);
  return f.found;
}

// The first GPU-level loop (mapGlobal, mapWorkGroup, mapLocal) a command runs, or null.
const Command* first_gpu_loop(const CommandP& c) {
  return first_command(
      c, [](const Command& x) { return x.kind == Command::For && dpia::is_gpu_loop(x.loop); });
}

// Whether a command runs GPU-level loops.
bool has_gpu_loops(const CommandP& c) {
  return first_gpu_loop(c) != nullptr;
}

// The first global-memory variable a command declares, or null.
const Command* first_global_new(const CommandP& c) {
  return first_command(c, [](const Command& x) {
    return x.kind == Command::New && x.space == Space::Global && !x.table;
  });
}

// The map primitive of a GPU level (mapGlobal, mapWorkGroup, mapLocal), for messages.
std::string map_name(LoopKind k) {
  for (const rise::PrimitiveInfo& p : rise::primitives())
    if (p.family == rise::Family::Map && p.loop == k) return p.name;
  return dpia::loop_kind_name(k);
}

// The elements of a private array of type t (arrays of arrays count all elements; a
// pair holding arrays, stored one array per component, both components').
arith::Nat private_elements(const rise::Type& t) {
  if (t->kind == TypeKind::Array) return t->size * private_elements(t->a);
  if (t->kind == TypeKind::Pair) return private_elements(t->a) + private_elements(t->b);
  return arith::Nat(1);
}

// Above these bytes of private arrays a work item (a mapGlobal launch), the launch's
// work groups have at most kPrivateGroupBytes of them, and at most 256 work items.
constexpr int64_t kPrivateSizedBytes = 1024;
constexpr int64_t kPrivateGroupBytes = 256 * 1024;

}  // namespace

// ------------------------------------------------------------ hooks
// A scalar inside a kernel is a work item's own: private. A local or global one
// (one variable every work item writes at once) is refused by the address-space check.
CStmtP GpuPrinter::declare_variable(const std::string& decl, dpia::Space space) {
  if (space == Space::Local || space == Space::Global)
    internal_error(gpu_name() + " printer: `" + decl + "` in " + dpia::space_name(space) +
                   " memory inside a kernel passed the address-space check");
  return c_decl(decl);
}

CStmtP GpuPrinter::declare_buffer(const std::string& name, const std::string& elem,
                                  const Nat& count, dpia::Space space, dpia::Placement placement,
                                  bool) {
  if (space == Space::Global)  // refused, located, by the address-space check
    internal_error(gpu_name() + " printer: global memory " + name + " allocated inside a kernel");
  auto n = count.as_const();
  if (space == Space::Local) {
    if (!n)
      user_error("local memory (" + name + ") needs a size known at compile time, not " +
                 count.to_string());
    // At kernel scope (as OpenCL 1.2 requires), once per work group; once per kernel
    // too (the unrolled copies of a loop share it).
    if (local_cnames_.insert(name).second) local_arrays_.push_back({elem, name, *n});
    return c_block({});
  }
  if (placement != dpia::Placement::Stack || !n) {
    // The user's name for it (`let u = ...`), never the generated C name ("u8" reads
    // as a type).
    const std::string what =
        declaring_source_.empty()
            ? std::string("an intermediate array the kernel stores")
            : "the array '" + declaring_source_ + "' (let " + declaring_source_ + " = ...)";
    user_error(what + " has " + count.to_string() +
               " elements: too large for private memory inside a kernel; store it in global "
               "memory (toGlobal) outside the parallel maps, or give the sizes (--size) so "
               "that it is small enough");
  }
  return c_decl(kernel_array(space, elem, name, *n));
}

std::vector<std::string> GpuPrinter::local_memory(const std::vector<LocalArray>& arrays, Launch&) {
  std::vector<std::string> out;
  for (const LocalArray& a : arrays) out.push_back(kernel_array(Space::Local, a.elem, a.name, a.n));
  return out;
}

// Whether `c` writes (reads) local memory.
bool GpuPrinter::touches_local(const Command& c, bool written) const {
  return !locals_touched(c, written).empty();
}

std::set<std::string> GpuPrinter::locals_touched(const Command& c, bool written) const {
  dpia::Captures u = dpia::captures(c);
  std::set<std::string> out;
  for (const std::string& v : written ? u.written : u.read)
    if (local_vars_.count(v)) out.insert(v);
  return out;
}

void GpuPrinter::synchronise(std::vector<CStmtP>& out) {
  out.push_back(c_expr_stmt(barrier()));
  reads_pending_ = false;
  unsynced_writes_.clear();
}

// Code run by all the work items of a group alike: inside a mapWorkGroup, outside
// its mapLocal loops. Only there can a barrier be placed.
bool GpuPrinter::group_uniform() const {
  bool group = false;
  for (const Command* l : gpu_loops_) {
    if (l->loop == LoopKind::Local) return false;
    group = group || l->loop == LoopKind::WorkGroup;
  }
  return group;
}

// The end of the body of a loop the whole group runs: when the body writes local
// memory that was read since the last barrier, its next iteration would overwrite
// it while work items may still read it.
void GpuPrinter::end_of_group_loop(const Command& loop, std::vector<CStmtP>& body) {
  // Writes not yet synchronised would meet the next iteration's reads and writes.
  if ((reads_pending_ && touches_local(loop, true)) || !unsynced_writes_.empty()) synchronise(body);
}

void GpuPrinter::emit_loop(const Command& c, std::vector<CStmtP>& out) {
  if (!dpia::is_gpu_loop(c.loop)) {
    if (!in_kernel_ || !group_uniform() || !touches_local(c, true))
      return CPrinter::emit_loop(c, out);
    // A sequential loop of the whole group (over tiles, say) refilling local memory.
    std::vector<CStmtP> body;
    gen(c.body[0], body);
    end_of_group_loop(c, body);
    out.push_back(c_for(cname(c.var), nat_expr(c.n), std::move(body), idx_type_));
    return;
  }
  if (!in_kernel_) internal_error(gpu_name() + " printer: a parallel loop outside a kernel");
  std::string d = std::to_string(c.dim);
  // Levels the hardware runs: work groups, then their work items; or global threads.
  // DPIA's address-space check (dpia/address_spaces.cpp) refuses, located, any other
  // nesting, which would stride over the same ids twice and skip work.
  for (const Command* outer : gpu_loops_) {
    bool same = outer->loop == c.loop && outer->dim == c.dim;
    bool mixed = (outer->loop == LoopKind::Global) != (c.loop == LoopKind::Global);
    bool inverted = outer->loop == LoopKind::Local && c.loop == LoopKind::WorkGroup;
    if (same || mixed || inverted)
      internal_error(gpu_name() + " printer: " + map_name(c.loop) + "(" + d + ") inside " +
                     map_name(outer->loop) + " passed the address-space check");
  }
  // The work items of an outermost mapLocal write local memory that others read
  // later: a barrier before the next mapLocal that reads (or rewrites) it, so that
  // copies of several tiles share one; and one before a mapLocal that overwrites local
  // memory read since the last barrier (an unrolled copy after the previous one).
  bool outer_local = c.loop == LoopKind::Local && group_uniform();
  std::set<std::string> written, read;
  if (outer_local) {
    written = locals_touched(c, true);
    read = locals_touched(c, false);
  }
  auto unsynced = [&](const std::set<std::string>& vars) {
    return std::any_of(vars.begin(), vars.end(),
                       [&](const std::string& v) { return unsynced_writes_.count(v) > 0; });
  };
  if (unsynced(read) || unsynced(written) || (!written.empty() && reads_pending_)) synchronise(out);
  gpu_loops_.push_back(&c);
  std::vector<CStmtP> body;
  gen(c.body[0], body);
  if (c.loop == LoopKind::WorkGroup) end_of_group_loop(c, body);
  gpu_loops_.pop_back();
  CStmtP loop = c_for(cname(c.var), nat_expr(c.n), std::move(body), idx_type_);
  // The last `i += step` computes i + step, step at most kMaxStride (the host's
  // risec_launch_size keeps launches that small): a term like any printed one, so that
  // 32-bit kernels are printed only for trip counts that leave room for it.
  PrintedNats::note(arith::Nat::var(cname(c.var), arith::Nat(0), c.n) + arith::Nat(kMaxStride));
  loop->init = c_cast(idx_type_, loop_start(c.loop, c.dim));
  loop->step = c_cast(idx_type_, loop_step(c.loop, c.dim));
  before_parallel_loop(c, out);
  out.push_back(loop);
  unsynced_writes_.insert(written.begin(), written.end());
  if (!read.empty()) reads_pending_ = true;
}

// ------------------------------------------------------------ launches
void GpuPrinter::split(const CommandP& c) {
  // A command of one work item. Consecutive ones share one kernel, their commands in
  // order in its body: the same as launching them one after another on the in-order
  // queue (the buffers between them are all allocated before the first launch), with a
  // launch each instead of one per top-level statement (a bound table's leftover
  // stores were dozens of kernels).
  auto single = [&] {
    // One work item's code runs in a kernel: a global-memory variable in it (a scalar
    // accumulator a strategy or the program placed there, a store inside a sequential
    // loop) would be allocated by the host once, before the launch, which only the
    // top-level ones are (held-out I: an internal error before).
    if (const Command* g = first_global_new(c))
      user_error("global memory (" +
                     (g->source.empty() ? "a " + rise::print(g->dt)
                                        : "'" + g->source + "', " + rise::print(g->dt)) +
                     ") allocated in code the " + gpu_name() +
                     " target runs in one work item, inside a sequential loop or reduction: "
                     "the host allocates global memory once, before a launch, only for the "
                     "program's top-level stores; leave its memory to the default (private "
                     "in a work item), or store it outside the loop",
                 g->span);
    if (!launches_.empty() && launches_.back().level == LoopKind::None) {
      launches_.back().body = dpia::cm_seq({launches_.back().body, c});
      return;
    }
    Launch l;
    l.body = c;
    launches_.push_back(std::move(l));
  };
  switch (c->kind) {
    case Command::Skip:
    case Command::Comment:
      return;
    case Command::Seq:
      for (const CommandP& x : c->body) split(x);
      return;
    case Command::New:
      // A table of constants is declared once for every kernel (CPrinter::declare_table;
      // OpenCL `__constant`), never a buffer the host fills.
      if (c->table) {
        declare_table(*c);
        split(c->body[0]);
        return;
      }
      // Kept inside one kernel unless launches share it or it is too large for a
      // work item's private memory (then a global buffer, like the ones shared).
      // A top-level store the program or a strategy put in global memory
      // (oclToMem(Global), toGlobal) is a buffer of the host's too, whatever its size.
      if (!has_gpu_loops(c->body[0]) && c->space != Space::Global &&
          !(c->placement == dpia::Placement::Heap && c->space == Space::Default))
        return single();
      // A value that is not an array (a scalar `let`, a reduction's result read by a
      // later kernel) is private only because nothing chose its memory (an explicit
      // private store outside a kernel is refused by the address-space check): it lives
      // in a global buffer of one element, which the kernel computing it writes and the
      // kernels reading it read, on the device.
      if (c->space == Space::Local ||
          (c->space == Space::Private && c->dt->kind == TypeKind::Array))
        user_error("the " + gpu_name() + " target keeps " + rise::print(c->dt) + " in " +
                       dpia::space_name(c->space) +
                       " memory between kernel launches, which it cannot: only global memory "
                       "lives across launches (" +
                       (c->source.empty() ? c->var : "'" + c->source + "'") +
                       "; compute it inside the parallel map that reads it, or store it in "
                       "global memory)",
                   c->span);
      host_buffers_.push_back({c->var});
      storage_[c->var] = Storage{c->dt, true};
      // An array of pairs holding arrays: one buffer per component, as on the CPU.
      storage_[c->var].soa = !soa_parts(leaf(c->dt)).empty();
      split(c->body[0]);
      return;
    case Command::For:
      if (c->loop == LoopKind::Global || c->loop == LoopKind::WorkGroup) {
        Launch l;
        l.body = c;
        l.level = c->loop;
        launches_.push_back(std::move(l));
        return;
      }
      if (c->loop == LoopKind::Local)  // refused, located, by the address-space check
        internal_error(gpu_name() + " printer: a mapLocal outside every mapWorkGroup");
      break;
    default:
      break;
  }
  if (const Command* inner = first_gpu_loop(c))  // located at that parallel map
    user_error("the " + gpu_name() +
                   " target launches a kernel per top-level parallel map: parallel maps "
                   "(mapGlobal, mapWorkGroup) inside a sequential loop or condition at the top "
                   "of the program are not supported; make the parallel map the outermost loop",
               inner->span);
  single();
}

// The trip counts of the program's parallel loops, as far as they depend on the
// sizes only, size the launch.
void GpuPrinter::launch_sizes(const CommandP& c, Launch& l) {
  struct Walk : dpia::Visitor {
    GpuPrinter& p;
    Launch& l;
    Walk(GpuPrinter& p, Launch& l) : p(p), l(l) {}
    void visit_command(const Command& c) override {
      // A distributed private array needs one work item per iteration of the
      // mapLocals that distribute it: those iterations size the group.
      if (c.kind == Command::New && c.distribution)
        for (const auto& [dim, n] : c.distribution->work_items) {
          l.local[dim] = nat_expr(n).text;
          l.need_local[dim] = l.local[dim];
        }
      if (c.kind == Command::New && c.placement == dpia::Placement::Stack && !c.table &&
          (c.space == Space::Private || c.space == Space::Default))
        if (std::optional<int64_t> n = private_elements(c.dt).as_const()) l.private_bytes += 8 * *n;
      if (c.kind == Command::For && dpia::is_gpu_loop(c.loop)) {
        l.dims = std::max(l.dims, c.dim + 1);
        l.has_local[c.dim] = l.has_local[c.dim] || c.loop == LoopKind::Local;
        bool known = true;
        for (const auto& [name, range] : arith::free_vars(c.n))
          known = known && p.size_names_.count(name);
        std::string* slot = c.loop == LoopKind::Global      ? &l.global[c.dim]
                            : c.loop == LoopKind::WorkGroup ? &l.groups[c.dim]
                                                            : &l.local[c.dim];
        if (known && slot->empty()) *slot = nat_expr(c.n).text;
      }
      dpia::Visitor::visit_command(c);
    }
  } w(*this, l);
  w.visit(c);
}

std::string GpuPrinter::kernel_text(Launch& l, const std::string& name,
                                    const std::vector<std::string>& sizes) {
  in_kernel_ = true;
  local_decls_.clear();
  local_arrays_.clear();
  local_cnames_.clear();
  l.memory.clear();
  reads_pending_ = false;
  unsynced_writes_.clear();
  // The kernel's local arrays, known before printing decides barriers by them.
  struct Locals : dpia::Visitor {
    std::set<std::string>& out;
    std::string target;
    Locals(std::set<std::string>& o, std::string t) : out(o), target(std::move(t)) {}
    void visit_command(const Command& c) override {
      if (c.kind == Command::New && c.space == Space::Local) out.insert(c.var);
      if (c.kind == Command::NewDoubleBuffer)
        user_error(
            "iterate (double buffering between two buffers swapped by pointer) is not "
            "supported by the " +
                target + " target yet: compile it for the C or OpenMP target",
            c.span);
      dpia::Visitor::visit_command(c);
    }
  } locals(local_vars_, gpu_name());
  locals.visit(l.body);
  launch_sizes(l.body, l);
  // The default group size, where the program fixes it.
  l.info = LaunchInfo{};
  bool fixed = l.level == LoopKind::WorkGroup;
  for (int d = 0; d < 3 && fixed; ++d) {
    if (!l.has_local[d]) {
      l.info.block[d] = 1;
      continue;
    }
    const std::string& t = l.local[d];
    fixed = !t.empty() && t.find_first_not_of("0123456789") == std::string::npos && t.size() < 6;
    if (fixed) l.info.block[d] = std::stoll(t);
  }
  if (!fixed) l.info = LaunchInfo{};
  begin_kernel(l.info);
  std::vector<CStmtP> body;
  gen(l.body, body);
  in_kernel_ = false;
  for (const std::string& d : local_memory(local_arrays_, l)) local_decls_.push_back(c_decl(d));
  Command wrap{Command::For};
  wrap.body = {l.body};
  dpia::Captures u = dpia::captures(wrap);
  std::string params;
  auto param = [&](const std::string& p) { params += (params.empty() ? "" : ", ") + p; };
  for (const std::string& m : host_order_) {
    if (!u.read.count(m) && !u.written.count(m)) continue;
    l.memory.push_back(m);
    for (const BufferPart& p : buffer_parts(m))
      param(global_param(c_type(p.leaf), part_name(m, p.suffix), u.written.count(m) > 0));
  }
  for (const std::string& s : sizes) param(idx_type_ + " " + c_identifier(s));
  std::string body_text = print(c_block(body), 1);
  // A kernel that checks indices records a failure in the fault buffer (if the target
  // passes one: fault_param).
  l.fault = !fault_param().empty() && (body_text.find("risec_index(") != std::string::npos ||
                                       body_text.find("risec_nat(") != std::string::npos);
  for (const std::string& h : fault_helpers_)
    l.fault = l.fault || (!fault_param().empty() && body_text.find(h + "(") != std::string::npos);
  if (l.fault) param(fault_param());
  std::string text = kernel_prefix() + name + "(" + params + ") {\n";
  text += print(c_block(local_decls_), 1) + unused_sizes(body_text, sizes) + body_text + "}\n\n";
  return text;
}

std::string GpuPrinter::kernels(CUnit& u, const std::string& entry_name, const CommandP& program,
                                const std::string& output, const Type& out_dt,
                                const std::vector<dpia::Input>& inputs,
                                const std::vector<std::string>& sizes) {
  u.name = c_entry_name(entry_name);
  reserve_names(program, inputs, sizes);
  bind_parameters(output, out_dt, inputs, sizes);
  function_name_ = u.name;
  idx_type_ =
      opts_.wide_indices || needs_wide_indices(program, out_dt, inputs, sizes) ? "int64_t" : "int";
  // Wide only because the sizes are symbolic: 32-bit kernels too, for the sizes that fit.
  dual_width_ = dual_width_kernels() && !opts_.wide_indices && idx_type_ == "int64_t" &&
                narrow_possible(program, out_dt, inputs, sizes);
  if (dual_width_) narrow_bounds_ = narrow_index_bounds(program, out_dt, inputs, sizes);
  size_names_.insert(sizes.begin(), sizes.end());
  host_order_.push_back(output);
  for (const auto& in : inputs) host_order_.push_back(in.name);
  split(program);
  if (launches_.empty()) launches_.push_back({"", "", program});  // nothing to compute: one no-op
  for (const HostBuffer& b : host_buffers_) host_order_.push_back(b.name);
  std::string text;
  for (size_t k = 0; k < launches_.size(); ++k) {
    // Derived names (CPrinter::derived_name): a parameter must not hide a kernel from
    // the host (CUDA's is in the same unit). Bounded in length (a long entry name).
    launches_[k].kernel = derived_name(bounded_identifier(u.name, kMaxKernelNameLength - 8) + "_k" +
                                       std::to_string(k));
    launches_[k].kernel_wide = derived_name(launches_[k].kernel + "_i64");
    if (!dual_width_) {
      text += kernel_text(launches_[k], launches_[k].kernel, sizes);
      continue;
    }
    idx_type_ = "int";
    {
      // The 32-bit kernel's index terms, views' included, bounded over the sizes: the
      // host checks those bounds too, or the unit is printed again 64-bit only.
      PrintedNats printed;
      text += kernel_text(launches_[k], launches_[k].kernel, sizes);
      if (!printed_terms_narrow(printed.nats(), sizes, &narrow_bounds_)) narrow_unproven_ = true;
    }
    idx_type_ = "int64_t";
    text += kernel_text(launches_[k], launches_[k].kernel_wide, sizes);
  }
  return text;
}

GpuPrinter::Shape GpuPrinter::shape(const Launch& l) {
  Shape s;
  s.grouped = l.level == LoopKind::WorkGroup ||
              (l.level == LoopKind::Global && l.private_bytes > kPrivateSizedBytes);
  s.dims = l.level == LoopKind::None ? 1 : l.dims;
  for (int d = 0; d < 3; ++d) {
    std::string groups = l.groups[d].empty() ? "1" : "(size_t)(" + l.groups[d] + ")";
    s.local[d] = !s.grouped || !l.has_local[d] ? "1"
                 : l.local[d].empty()          ? "64"
                                               : "(size_t)(" + l.local[d] + ")";
    s.need[d] = s.grouped && !l.need_local[d].empty() ? "(size_t)(" + l.need_local[d] + ")" : "0";
    if (l.level == LoopKind::Global)
      s.global[d] = l.global[d].empty() ? "1" : "(size_t)(" + l.global[d] + ")";
    else if (s.grouped)
      s.global[d] = groups + " * " + s.local[d];
    else
      s.global[d] = "1";
  }
  // Many private bytes a work item: groups of at most kPrivateGroupBytes of them, in
  // dimension 0, so that no platform's choice multiplies them past a CPU device's stack
  // (PoCL ran softmax's 1024-float rows into SIGSEGV with 4096 work items a group); the
  // global size is rounded up to whole groups, and the loops are strided.
  if (l.level == LoopKind::Global && l.private_bytes > kPrivateSizedBytes) {
    int64_t items = 1;
    while (items < 256 && (items * 2) * l.private_bytes <= kPrivateGroupBytes) items *= 2;
    s.local[0] = std::to_string(items);
  }
  return s;
}

std::vector<GpuPrinter::DeviceBuffer> GpuPrinter::device_buffers(const std::string& m) {
  std::vector<DeviceBuffer> out;
  const bool output = !host_order_.empty() && host_order_[0] == m;
  for (const BufferPart& p : buffer_parts(m)) {
    DeviceBuffer b;
    b.name = "risec_b_" + part_name(m, p.suffix);
    b.elem = c_type(p.leaf);
    b.bytes = size_bytes(b.elem, p.count);
    b.host = part_address(m, p, output);
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<GpuPrinter::DeviceBuffer> GpuPrinter::all_device_buffers() {
  std::vector<DeviceBuffer> out;
  for (const std::string& m : host_order_)
    for (DeviceBuffer& b : device_buffers(m)) out.push_back(std::move(b));
  return out;
}

std::string GpuPrinter::kept_size(const DeviceBuffer& b) {
  return "risec_size_" + b.name.substr(std::string("risec_b_").size());
}

std::string GpuPrinter::header_declarations(const std::string& fn) {
  return "/* The device buffers (and the " + gpu_name() +
         " objects the function creates on its first call) are kept\n"
         " * between calls and reused while their sizes do not change; " +
         fn +
         "__risec_release()\n"
         " * frees them all (the next call sets up again; calling it twice is harmless).\n"
         " * Calls of " +
         fn +
         " from several threads are serialised by a lock. The number of\n"
         " * device buffers created so far: " +
         fn + "__risec_buffers_created. */\nvoid " + fn +
         "__risec_release(void);\nextern unsigned long " + fn + "__risec_buffers_created;\n";
}

}  // namespace risec::codegen::gpu
