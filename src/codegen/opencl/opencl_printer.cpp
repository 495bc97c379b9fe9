// The OpenCL printer (see opencl_printer.h): kernels in opencl_printer.cpp, the host
// function in opencl_host.cpp.
#include "codegen/opencl/opencl_printer.h"

#include <algorithm>
#include <sstream>

#include "codegen/c/c_names.h"
#include "dpia/outline.h"
#include "dpia/traverse.h"

namespace risec::codegen::opencl {

using dpia::LoopKind;
using dpia::Space;

namespace {

const char* const kBarrier = "barrier(CLK_LOCAL_MEM_FENCE)";

// Whether a command runs GPU-level loops (mapGlobal, mapWorkGroup, mapLocal).
bool has_gpu_loops(const CommandP& c) {
  struct Finder : dpia::Visitor {
    bool found = false;
    void visit_command(const Command& c) override {
      if (c.kind == Command::For && dpia::is_gpu_loop(c.loop)) found = true;
      if (!found) dpia::Visitor::visit_command(c);
    }
  } f;
  f.visit(c);
  return f.found;
}

// The map primitive of a GPU level (mapGlobal, mapWorkGroup, mapLocal), for messages.
std::string map_name(LoopKind k) {
  for (const rise::PrimitiveInfo& p : rise::primitives())
    if (p.family == rise::Family::Map && p.loop == k) return p.name;
  return dpia::loop_kind_name(k);
}

// OpenCL's name of a scalar type (for vector types: float4, int8, ...).
const char* opencl_scalar(rise::ScalarKind k) {
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

// The C99 names generated code uses, in OpenCL C: fixed-width integers, the libm
// spellings with an `f` suffix (OpenCL's math builtins are overloaded instead), and
// the helpers' failure hooks (a kernel cannot print or abort).
std::string kernel_prelude() {
  std::string s =
      "typedef char int8_t;\ntypedef uchar uint8_t;\ntypedef short int16_t;\n"
      "typedef ushort uint16_t;\ntypedef int int32_t;\ntypedef uint uint32_t;\n"
      "typedef long int64_t;\ntypedef ulong uint64_t;\n"
      "#define INT8_MIN CHAR_MIN\n#define INT16_MIN SHRT_MIN\n#define INT32_MIN INT_MIN\n"
      "#define INT64_MIN LONG_MIN\n"
      "#define RISEC_ARITHMETIC_FAILED(fn, what) ((void)0)\n#define RISEC_SIMD_LOOP\n"
      "#define llabs abs\n#define fabsf fabs\n#define fmodf fmod\n";
  for (const rise::PrimitiveInfo& p : rise::primitives())
    if (p.family == rise::Family::Math) s += "#define " + p.name + "f " + p.name + "\n";
  return s;
}

}  // namespace

// ------------------------------------------------------------ hooks
std::string OpenCLPrinter::vector_type(const Type& t) {
  auto lanes = t->size.as_const();
  const char* elem = t->a->kind == TypeKind::Scalar ? opencl_scalar(t->a->scalar) : nullptr;
  if (!lanes || !elem || (*lanes != 2 && *lanes != 4 && *lanes != 8 && *lanes != 16))
    user_error("OpenCL has no vector type for " + rise::print(t) +
               " (2, 4, 8 or 16 lanes of a number type)");
  std::string n = std::to_string(*lanes);
  std::string name = elem + n;
  if (typedefs_.insert(name).second) {
    // Where the memory is a scalar array (asVector), vloadN/vstoreN; an array of
    // vectors is a typed pointer (float4*) and needs neither.
    vector_text_ += "#define " + name + "_load(p) vload" + n + "(0, (p))\n";
    vector_text_ += "#define " + name + "_load_aligned(p) vload" + n + "(0, (p))\n";
    vector_text_ += "#define " + name + "_store(p, v) vstore" + n + "((v), 0, (p))\n";
    vector_text_ += "#define " + name + "_broadcast(x) ((" + name + ")(x))\n";
    host_vector_text_ += "typedef cl_" + name + " " + name + ";\n";
  }
  return name;
}

// A constant lane is the component v.s0 .. v.sf (OpenCL C has no subscript on
// vectors); a lane known only at run time keeps v[i] (a Clang extension).
CExpr OpenCLPrinter::vector_lane(CExpr v, const Nat& i) {
  auto k = i.as_const();
  if (!k || *k < 0 || *k > 15) return CPrinter::vector_lane(std::move(v), i);
  return c_member(std::move(v), std::string("s") + "0123456789abcdef"[*k]);
}

CExpr OpenCLPrinter::vector_math(const rise::PrimitiveInfo& op, const Type& vt,
                                 const std::vector<CExpr>& args) {
  vector_type(vt);
  return math_call(op, vt->a, args);  // the builtins take vectors too (the `f` names alias)
}

// A scalar inside a kernel is a work item's own: private. A local or global one
// (one variable every work item writes at once) is refused by the address-space check.
CStmtP OpenCLPrinter::declare_variable(const std::string& decl, dpia::Space space) {
  if (space == Space::Local || space == Space::Global)
    internal_error("OpenCL printer: `" + decl + "` in " + dpia::space_name(space) +
                   " memory inside a kernel passed the address-space check");
  return c_decl(decl);
}

CStmtP OpenCLPrinter::declare_buffer(const std::string& name, const std::string& elem,
                                     const Nat& count, dpia::Space space, dpia::Placement placement,
                                     bool) {
  if (space == Space::Global)  // refused, located, by the address-space check
    internal_error("OpenCL printer: global memory " + name + " allocated inside a kernel");
  auto n = count.as_const();
  if (space == Space::Local) {
    if (!n)
      user_error("local memory (" + name + ") needs a size known at compile time, not " +
                 count.to_string());
    // At kernel scope (OpenCL 1.2), once per work group; once per kernel too (the
    // unrolled copies of a loop share it).
    if (local_cnames_.insert(name).second)
      local_decls_.push_back(
          c_decl("__local " + elem + " " + name + "[" + std::to_string(*n) + "]"));
    return c_block({});
  }
  if (placement != dpia::Placement::Stack || !n)
    user_error("the temporary " + name + " of " + count.to_string() +
               " elements is too large for private memory inside a kernel: store it in global "
               "memory (toGlobal) outside the parallel maps");
  return c_decl(elem + " " + name + "[" + std::to_string(*n) + "]");
}

// Whether `c` writes (reads) local memory.
bool OpenCLPrinter::touches_local(const Command& c, bool written) {
  return !locals_touched(c, written).empty();
}

std::set<std::string> OpenCLPrinter::locals_touched(const Command& c, bool written) const {
  dpia::Captures u = dpia::captures(c);
  std::set<std::string> out;
  for (const std::string& v : written ? u.written : u.read)
    if (local_vars_.count(v)) out.insert(v);
  return out;
}

void OpenCLPrinter::barrier(std::vector<CStmtP>& out) {
  out.push_back(c_expr_stmt(kBarrier));
  reads_pending_ = false;
  unsynced_writes_.clear();
}

// Code run by all the work items of a group alike: inside a mapWorkGroup, outside
// its mapLocal loops. Only there can a barrier be placed.
bool OpenCLPrinter::group_uniform() const {
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
void OpenCLPrinter::end_of_group_loop(const Command& loop, std::vector<CStmtP>& body) {
  // Writes not yet synchronised would meet the next iteration's reads and writes.
  if ((reads_pending_ && touches_local(loop, true)) || !unsynced_writes_.empty()) barrier(body);
}

void OpenCLPrinter::emit_loop(const Command& c, std::vector<CStmtP>& out) {
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
  if (!in_kernel_) internal_error("OpenCL printer: a parallel loop outside a kernel");
  std::string d = std::to_string(c.dim);
  const char *id = "get_global_id", *size = "get_global_size";
  if (c.loop == LoopKind::WorkGroup) {
    id = "get_group_id";
    size = "get_num_groups";
  } else if (c.loop == LoopKind::Local) {
    id = "get_local_id";
    size = "get_local_size";
  }
  // Levels the hardware runs: work groups, then their work items; or global threads.
  // DPIA's address-space check (dpia/address_spaces.cpp) refuses, located, any other
  // nesting, which would stride over the same ids twice and skip work.
  for (const Command* outer : gpu_loops_) {
    bool same = outer->loop == c.loop && outer->dim == c.dim;
    bool mixed = (outer->loop == LoopKind::Global) != (c.loop == LoopKind::Global);
    bool inverted = outer->loop == LoopKind::Local && c.loop == LoopKind::WorkGroup;
    if (same || mixed || inverted)
      internal_error("OpenCL printer: " + map_name(c.loop) + "(" + d + ") inside " +
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
  bool writes = !written.empty();
  if (unsynced(read) || unsynced(written) || (writes && reads_pending_)) barrier(out);
  gpu_loops_.push_back(&c);
  std::vector<CStmtP> body;
  gen(c.body[0], body);
  if (c.loop == LoopKind::WorkGroup) end_of_group_loop(c, body);
  gpu_loops_.pop_back();
  CStmtP loop = c_for(cname(c.var), nat_expr(c.n), std::move(body), idx_type_);
  loop->init = c_cast(idx_type_, c_call(id, {c_atom(d)}));
  loop->step = c_cast(idx_type_, c_call(size, {c_atom(d)}));
  out.push_back(loop);
  unsynced_writes_.insert(written.begin(), written.end());
  if (!read.empty()) reads_pending_ = true;
}

// ------------------------------------------------------------ launches
void OpenCLPrinter::split(const CommandP& c) {
  auto single = [&] {
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
      // Kept inside one kernel unless launches share it or it is too large for a
      // work item's private memory (then a global buffer, like the ones shared).
      if (!has_gpu_loops(c->body[0]) &&
          !(c->placement == dpia::Placement::Heap &&
            (c->space == Space::Default || c->space == Space::Global)))
        return single();
      if (c->dt->kind != TypeKind::Array || c->space == Space::Local || c->space == Space::Private)
        user_error("the OpenCL target keeps " + rise::print(c->dt) + " in " +
                   dpia::space_name(c->space) +
                   " memory between kernel launches, which it cannot: only arrays in global "
                   "memory live across launches (" +
                   c->var + ")");
      host_buffers_.push_back({c->var, c->dt});
      storage_[c->var] = Storage{c->dt, true};
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
        internal_error("OpenCL printer: a mapLocal outside every mapWorkGroup");
      break;
    default:
      break;
  }
  if (has_gpu_loops(c))
    user_error(
        "the OpenCL target launches a kernel per top-level parallel map: parallel maps "
        "(mapGlobal, mapWorkGroup) inside a sequential loop or condition at the top of the "
        "program are not supported; make the parallel map the outermost loop");
  single();
}

// The trip counts of the program's parallel loops, as far as they depend on the
// sizes only, size the launch.
void OpenCLPrinter::launch_sizes(const CommandP& c, Launch& l) {
  struct Walk : dpia::Visitor {
    OpenCLPrinter& p;
    Launch& l;
    Walk(OpenCLPrinter& p, Launch& l) : p(p), l(l) {}
    void visit_command(const Command& c) override {
      // A distributed private array needs one work item per iteration of the
      // mapLocals that distribute it: those iterations size the group.
      if (c.kind == Command::New && c.distribution)
        for (const auto& [dim, n] : c.distribution->work_items) {
          l.local[dim] = nat_expr(n).text;
          l.need_local[dim] = l.local[dim];
        }
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

std::string OpenCLPrinter::kernel_text(Launch& l, const std::vector<std::string>& sizes) {
  in_kernel_ = true;
  local_decls_.clear();
  reads_pending_ = false;
  unsynced_writes_.clear();
  // The kernel's local arrays, known before printing decides barriers by them.
  struct Locals : dpia::Visitor {
    std::set<std::string>& out;
    explicit Locals(std::set<std::string>& o) : out(o) {}
    void visit_command(const Command& c) override {
      if (c.kind == Command::New && c.space == Space::Local) out.insert(c.var);
      if (c.kind == Command::NewDoubleBuffer)
        user_error(
            "iterate (double buffering between two buffers swapped by pointer) is not "
            "supported by the OpenCL target yet: compile it for the C or OpenMP target");
      dpia::Visitor::visit_command(c);
    }
  } locals(local_vars_);
  locals.visit(l.body);
  std::vector<CStmtP> body;
  gen(l.body, body);
  in_kernel_ = false;
  Command wrap{Command::For};
  wrap.body = {l.body};
  dpia::Captures u = dpia::captures(wrap);
  std::string params;
  auto param = [&](const std::string& p) { params += (params.empty() ? "" : ", ") + p; };
  for (const std::string& m : host_order_) {
    if (!u.read.count(m) && !u.written.count(m)) continue;
    l.memory.push_back(m);
    param("__global " + std::string(u.written.count(m) ? "" : "const ") +
          c_type(storage_.at(m).dt) + "* restrict " + cname(m));
  }
  for (const std::string& s : sizes) param(idx_type_ + " " + c_identifier(s));
  launch_sizes(l.body, l);
  std::string text = "__kernel void " + l.kernel + "(" + params + ") {\n";
  std::string body_text = print(c_block(body), 1);
  text += print(c_block(local_decls_), 1) + unused_sizes(body_text, sizes) + body_text + "}\n\n";
  return text;
}

CUnit OpenCLPrinter::print_opencl_unit(const std::string& entry_name, const CommandP& program,
                                       const std::string& output, const Type& out_dt,
                                       const std::vector<dpia::Input>& inputs,
                                       const std::vector<std::string>& sizes) {
  CUnit u;
  u.name = c_entry_name(entry_name);
  u.uses_opencl = true;
  bind_parameters(output, out_dt, inputs, sizes);
  function_name_ = u.name;
  idx_type_ = needs_wide_indices(program, out_dt, inputs, sizes) ? "int64_t" : "int";
  size_names_.insert(sizes.begin(), sizes.end());
  host_order_.push_back(output);
  for (const auto& in : inputs) host_order_.push_back(in.name);
  split(program);
  if (launches_.empty()) launches_.push_back({"", program});  // nothing to compute: one no-op
  for (const HostBuffer& b : host_buffers_) host_order_.push_back(b.name);
  std::string kernels;
  for (size_t k = 0; k < launches_.size(); ++k) {
    launches_[k].kernel = u.name + "_k" + std::to_string(k);
    kernels += kernel_text(launches_[k], sizes);
  }
  std::ostringstream cl;
  cl << "/* Generated by risec " RISEC_VERSION " from '" << entry_name
     << "': OpenCL C kernels, launched in order by " << u.name << " (" << u.name
     << ".c). Do not edit. */\n";
  std::string all = typedef_text_ + arith_text_ + foreign_text_ + kernels;
  if (all.find("double") != std::string::npos)
    cl << "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  cl << kernel_prelude() << index_helpers(idx_type_) << vector_text_ << typedef_text_ << "\n";
  if (!arith_text_.empty()) cl << arith_text_ << "\n";
  if (!foreign_text_.empty()) cl << foreign_text_ << "\n";
  cl << kernels;
  u.kernel_source = cl.str();
  kernel_source_ = u.kernel_source;
  std::string sig = signature(u, output, out_dt, inputs, sizes);
  u.source = host_text(entry_name, sig, output, out_dt, inputs, sizes);
  u.header = header_text(entry_name, sig, typedef_text_, out_dt, inputs, sizes);
  if (!host_vector_text_.empty()) u.header = "#include <CL/cl.h>\n" + host_vector_text_ + u.header;
  return u;
}

}  // namespace risec::codegen::opencl
