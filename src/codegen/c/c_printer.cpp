// The C printer's commands and translation unit (see c_printer.h).
#include "codegen/c/c_printer.h"

#include <sstream>

#include "codegen/c/c_names.h"
#include "dpia/interchange.h"
#include "dpia/shift_tail.h"
#include "dpia/split_loop.h"

namespace risec::codegen {

// ------------------------------------------------------------ commands
// One copy of a loop body in the enclosing block (an unrolled iteration, a
// one-iteration loop): in a scope of its own when it declares names, which the
// next copy (or the code beside it) may declare again.
void CPrinter::gen_copy(const CommandP& body, std::vector<CStmtP>& out) {
  std::vector<CStmtP> part;
  gen(body, part);
  bool declares = false;
  for (const CStmtP& st : part) declares = declares || st->kind == CStmt::Decl;
  if (declares) {
    out.push_back(c_scope(std::move(part)));
    return;
  }
  out.insert(out.end(), part.begin(), part.end());
}

// An error printing a command (a vector width the target has no type for, ...) that
// does not say where it is points at the innermost primitive around it that made a
// loop or an accumulator (Command::span).
void CPrinter::gen(const CommandP& c, std::vector<CStmtP>& out) {
  if (!c->span.known()) return gen_command(c, out);
  try {
    gen_command(c, out);
  } catch (const Error& e) {
    if (e.span().known() || e.kind() != ErrorKind::User) throw;
    throw e.at(c->span);
  }
}

void CPrinter::gen_command(const CommandP& c, std::vector<CStmtP>& out) {
  switch (c->kind) {
    case Command::Skip:
      return;
    case Command::Comment:
      out.push_back(c_comment(c->text));
      return;
    case Command::Break:
      out.push_back(c_expr_stmt("break"));
      return;
    case Command::Seq:
      for (const CommandP& x : c->body) {
        const int guarded = guarded_allocations_;
        gen(x, out);
        // A heap buffer inside a loop (or an outlined parallel body) whose allocation
        // failed skipped its part of the work: the function stops here.
        if (&out == top_level_ && guarded_allocations_ > guarded)
          out.push_back(c_if(c_atom("RISEC_STOPPED()"), stop_statements()));
      }
      return;
    case Command::Block:
      gen_copy(c->body[0], out);
      return;
    case Command::Assign: {
      Target t = write_target(c->acc, {});
      CExpr v = read(c->exp, {});
      if (t.vstore && !t.lanes.empty()) {
        std::string tmp = "risec_v" + std::to_string(++tmp_counter_);
        std::vector<CStmtP> block{c_decl(t.vtype + " " + tmp + " = " + v.at(kPrecAssign))};
        for (size_t l = 0; l < t.lanes.size(); ++l)
          block.push_back(
              c_assign(t.lanes[l], vector_lane(c_atom(tmp), Nat(static_cast<int64_t>(l)))));
        out.push_back(c_raw("{"));
        for (auto& b : block) b->text = "  " + b->text;
        out.insert(out.end(), block.begin(), block.end());
        out.push_back(c_raw("}"));
      } else if (t.vstore) {
        out.push_back(c_expr_stmt(t.vtype + "_store(&" + t.lvalue.at(kPrecUnary) + ", " +
                                  v.at(kPrecAssign) + ")"));
      } else {
        out.push_back(c_assign(t.lvalue, v));
      }
      return;
    }
    case Command::For: {
      // Loops to unroll are copies already (dpia/unroll, before printing).
      if (c->n.is_const(0)) return;
      if (opts_.annotate_sources && c->span.known())
        out.push_back(
            c_comment("at " + location(c->span) + (c->origin ? " (" + c->origin->name + ")" : "")));
      if (opts_.profile && profile_depth_ == 0)
        emit_timed_stage(*c, out);
      else
        emit_loop(*c, out);
      return;
    }
    case Command::New: {
      if (c->table) {
        declare_table(*c);
        gen(c->body[0], out);
        return;
      }
      std::string name = cname(c->var);
      const Type& dt = c->dt;
      // A pair holding arrays (a reduceSeq's (row, count) accumulator) is memory like
      // an array: one buffer per component (Storage::soa).
      bool array = dt->kind == TypeKind::Array || rise::stored_per_component(dt);
      storage_[c->var] = Storage{dt, array, c->distribution};
      declaring_source_ = c->source;
      std::string ty = c_type(dt);
      std::vector<CStmtP> body;
      if (!array) {
        out.push_back(declare_variable(ty + " " + name, c->space));
        gen(c->body[0], out);
        return;
      }
      if (c->placement == dpia::Placement::Unplaced)
        internal_error("C backend: an allocation without a placement");
      // An array of pairs of scalars in the CPU's memory, or of pairs holding arrays:
      // one array per component.
      if (!c->distribution && !soa_parts(leaf(dt)).empty()) {
        storage_[c->var].soa = true;
        std::vector<BufferPart> parts = buffer_parts(c->var);
        const int before = sites_;
        std::vector<std::string> names;
        for (const BufferPart& p : parts) {
          names.push_back(part_name(c->var, p.suffix));
          out.push_back(
              declare_buffer(names.back(), c_type(p.leaf), p.count, c->space, c->placement, true));
        }
        if (sites_ > before) {
          checked_allocation(names, out, [&](std::vector<CStmtP>& rest) {
            gen(c->body[0], rest);
            for (const std::string& n : names) rest.push_back(free_buffer(n));
          });
          return;
        }
        gen(c->body[0], out);
        if (c->placement != dpia::Placement::Stack)
          for (const std::string& n : names) out.push_back(free_buffer(n));
        return;
      }
      const int before = sites_;
      out.push_back(declare_buffer(name, ty, count(dt), c->space, c->placement, true));
      if (sites_ > before) {
        checked_allocation({name}, out, [&](std::vector<CStmtP>& rest) {
          gen(c->body[0], rest);
          rest.push_back(free_buffer(name));
        });
        return;
      }
      // Local memory (OpenCL) is declared once per kernel, never on the heap, whatever
      // its size.
      gen(c->body[0], out);
      if (c->placement != dpia::Placement::Stack && c->space != dpia::Space::Local)
        out.push_back(free_buffer(name));
      return;
    }
    case Command::If: {
      if (c->exp) {
        std::vector<CStmtP> then, orelse;
        gen(c->body[0], then);
        gen(c->body[1], orelse);
        out.push_back(c_if(read(c->exp, {}), std::move(then), std::move(orelse)));
        return;
      }
      if (auto v = c->cond.as_const()) {
        gen(c->body[*v ? 0 : 1], out);
        return;
      }
      std::vector<CStmtP> then, orelse;
      gen(c->body[0], then);
      gen(c->body[1], orelse);
      out.push_back(c_if(cond_expr(c->cond), std::move(then), std::move(orelse)));
      return;
    }
    case Command::NewDoubleBuffer: {
      // The paper's Listing 12: two buffers, an input and an output pointer, and a
      // flag saying which buffer the next iteration writes.
      std::string db = c_identifier(c->var);
      std::string ty = c_type(c->dt);
      std::string b1 = derived_name(db + "_buf1"), b2 = derived_name(db + "_buf2"),
                  flag = derived_name(db + "_flag");
      Type buf_t = rise::array(c->n, c->dt);
      Nat total = count(buf_t);
      bool heap = c->placement == dpia::Placement::Heap;
      if (c->placement == dpia::Placement::Unplaced)
        internal_error("C backend: a double buffer without a placement");
      const int before = sites_;
      for (const std::string& b : {b1, b2})
        out.push_back(declare_buffer(b, ty, total, c->space, c->placement, false));
      std::vector<CStmtP> rest;
      std::vector<CStmtP>& to = sites_ > before ? rest : out;
      if (c->exp->kind != Expression::Var || c->acc->kind != Acceptor::Var)
        internal_error("C backend: double buffer over views");
      std::string in = dpia::double_buffer_in(c->var), outp = dpia::double_buffer_out(c->var);
      std::string output = cname(c->acc->name);
      // The loop has k iterations; with one, the first write goes to the output (a
      // k known only at run time decides there).
      std::string first_out =
          c->iterations.is_const(1) ? output
          : c->iterations.as_const()
              ? b1
              : "(" + nat_expr(c->iterations).text + " == 1 ? " + output + " : " + b1 + ")";
      to.push_back(c_decl(ty + "* " + cname(in) + " = (" + ty + "*)" + cname(c->exp->name)));
      to.push_back(c_decl(ty + "* " + cname(outp) + " = " + first_out));
      to.push_back(c_decl("unsigned char " + flag + " = 1"));
      storage_[in] = Storage{rise::array(c->n, c->dt), true};
      storage_[outp] = Storage{rise::array(c->n, c->dt), true};
      double_buffers_[c->var] = output;
      if (sites_ > before) {
        checked_allocation({b1, b2}, out, [&](std::vector<CStmtP>& body) {
          body.insert(body.end(), rest.begin(), rest.end());
          gen(c->body[0], body);
          body.push_back(free_buffer(b1));
          body.push_back(free_buffer(b2));
        });
        return;
      }
      gen(c->body[0], out);
      if (heap) {
        out.push_back(free_buffer(b1));
        out.push_back(free_buffer(b2));
      }
      return;
    }
    case Command::Swap:
    case Command::Done: {
      std::string db = c_identifier(c->var);
      std::string in = cname(dpia::double_buffer_in(c->var)),
                  outp = cname(dpia::double_buffer_out(c->var));
      std::string b1 = derived_name(db + "_buf1"), b2 = derived_name(db + "_buf2"),
                  flag = derived_name(db + "_flag");
      out.push_back(c_assign(c_atom(in), c_atom(flag + " ? " + b1 + " : " + b2)));
      if (c->kind == Command::Swap) {
        out.push_back(c_assign(c_atom(outp), c_atom(flag + " ? " + b2 + " : " + b1)));
        out.push_back(c_expr_stmt(flag + " ^= 1"));
      } else {
        out.push_back(c_assign(c_atom(outp), c_atom(double_buffers_[c->var])));
      }
      return;
    }
    default:
      internal_error("C backend: unsupported command");
  }
}

void CPrinter::emit_loop(const Command& c, std::vector<CStmtP>& out) {
  // A loop marked for prefetching runs as written (not interchanged nor split), each
  // iteration starting with its prefetches.
  if (c.prefetch > 0) {
    std::vector<CStmtP> body = prefetches(c);
    gen(c.body[0], body);
    out.push_back(c_for(cname(c.var), nat_expr(c.n), std::move(body), idx_type_));
    return;
  }
  if (c.loop == dpia::LoopKind::Seq && c.body[0]->kind == Command::For) {
    if (auto swapped = dpia::interchange_for_contiguity(c, accesses(c.body[0]->body[0]))) {
      emit_loop(**swapped, out);
      return;
    }
  }
  if (c.loop == dpia::LoopKind::Seq && (split_loop(c, out) || shifted_tail(c, out))) return;
  std::vector<CStmtP> body;
  gen(c.body[0], body);
  out.push_back(c_for(cname(c.var), nat_expr(c.n), std::move(body), idx_type_));
}

CStmtP CPrinter::declare_variable(const std::string& decl, dpia::Space) {
  return c_decl(decl);
}

CStmtP CPrinter::declare_buffer(const std::string& name, const std::string& elem, const Nat& count,
                                dpia::Space, dpia::Placement placement, bool restrict_ptr) {
  if (placement == dpia::Placement::Stack)
    return c_decl(elem + " " + name + "[" + std::to_string(*count.as_const()) +
                  "] __attribute__((aligned(64)))");
  uses_alloc_ = true;
  const int site = sites_++;
  buffer_sites_[name] = site;
  return c_decl(elem + "*" + (restrict_ptr ? " restrict " : " ") + name + " = (" + elem +
                "*)risec_alloc(&risec_site_" + std::to_string(site) + ", " +
                size_bytes(elem, count) + ")");
}

std::string CPrinter::header_declarations(const std::string& fn) {
  if (!uses_alloc_) return "";
  return "/* The heap buffers of " + fn +
         "'s intermediates are kept between calls (one block per\n"
         " * allocation site, reused by the next call); " +
         fn +
         "__risec_release() frees them (the next call\n"
         " * allocates again; calling it twice is harmless). */\nvoid " +
         fn + "__risec_release(void);\n";
}

CStmtP CPrinter::free_buffer(const std::string& name) {
  auto it = buffer_sites_.find(name);
  if (it == buffer_sites_.end()) return c_expr_stmt("free(" + name + ")");
  return c_expr_stmt("risec_release(&risec_site_" + std::to_string(it->second) + ", " + name + ")");
}

// A heap buffer whose allocation fails (docs/codegen.md, "Memory placement"):
// risec_alloc has reported it (RISEC_ALLOC_FAILED: by default a message and abort();
// recorded in-process) and returned null. In the function's own sequence of
// statements the function then returns, releasing the buffers it holds; elsewhere
// (inside a loop, an outlined parallel body) the buffer's scope is skipped, and the
// function stops after the statement holding it (the Seq case's RISEC_STOPPED()).
void CPrinter::checked_allocation(const std::vector<std::string>& names, std::vector<CStmtP>& out,
                                  const std::function<void(std::vector<CStmtP>&)>& rest) {
  std::string all;
  for (const std::string& n : names) all += (all.empty() ? "" : " && ") + n;
  if (&out == top_level_) {
    // One buffer that failed is null; of several, the others may have been allocated.
    out.push_back(c_if(c_atom("!(" + all + ")"),
                       stop_statements(names.size() > 1 ? names : std::vector<std::string>{})));
    for (const std::string& n : names) {
      stop_nodes_.push_back({n, live_stops_.empty() ? 0 : live_stops_.back()});
      live_stops_.push_back(static_cast<int>(stop_nodes_.size()));
    }
    rest(out);
    live_stops_.resize(live_stops_.size() - names.size());
    return;
  }
  ++guarded_allocations_;
  std::vector<CStmtP> body;
  rest(body);
  out.push_back(c_if(c_atom(all), std::move(body)));
}

// The function's early return after a failed allocation: the heap buffers it holds
// (and `also`, which may be null) released, innermost first: `also` here, the others
// by a jump to their releases at the function's end (stop_labels).
std::vector<CStmtP> CPrinter::stop_statements(const std::vector<std::string>& also) {
  std::vector<CStmtP> stop;
  for (auto it = also.rbegin(); it != also.rend(); ++it) stop.push_back(free_buffer(*it));
  if (live_stops_.empty()) {
    stop.push_back(c_expr_stmt("return"));
  } else {
    stop_nodes_[live_stops_.back() - 1].target = true;
    stop.push_back(c_expr_stmt("goto risec_stop_" + std::to_string(live_stops_.back())));
  }
  return stop;
}

// After the function's statements: the releases that failures jump to, each node's
// buffer then its parent's (by falling through where the parent is printed next, by a
// jump otherwise), the last one returning; only the nodes some failure reaches, and a
// label only where a jump lands (GCC and clang warn of unused labels).
void CPrinter::stop_labels(std::vector<CStmtP>& body) {
  const int n = static_cast<int>(stop_nodes_.size());
  std::vector<bool> needed(n + 1, false), landed(n + 1, false);
  for (int k = n; k >= 1; --k) {
    needed[k] = needed[k] || stop_nodes_[k - 1].target;
    if (needed[k]) needed[stop_nodes_[k - 1].parent] = true;
    landed[k] = stop_nodes_[k - 1].target;
  }
  std::vector<int> order;  // innermost (latest) first
  for (int k = n; k >= 1; --k)
    if (needed[k]) order.push_back(k);
  const std::vector<StopNode> nodes = std::move(stop_nodes_);
  stop_nodes_.clear();  // the next function's
  if (order.empty()) return;
  for (size_t j = 0; j < order.size(); ++j) {
    const int parent = nodes[order[j] - 1].parent;
    const int next = j + 1 < order.size() ? order[j + 1] : 0;
    if (parent != next && parent != 0) landed[parent] = true;
  }
  body.push_back(c_expr_stmt("return"));
  for (size_t j = 0; j < order.size(); ++j) {
    const int k = order[j];
    const StopNode& node = nodes[k - 1];
    if (landed[k]) body.push_back(c_raw("risec_stop_" + std::to_string(k) + ":"));
    body.push_back(free_buffer(node.buffer));
    const int next = j + 1 < order.size() ? order[j + 1] : 0;
    if (node.parent == 0 && next != 0)
      body.push_back(c_expr_stmt("return"));
    else if (node.parent != next)
      body.push_back(c_expr_stmt("goto risec_stop_" + std::to_string(node.parent)));
  }
}

// ------------------------------------------------------------ index-set splitting

// The accesses of `body` once its views are resolved (generated once, then dropped).
dpia::BodyAccesses CPrinter::accesses(const CommandP& body) {
  dpia::BodyAccesses found;
  std::vector<CStmtP> scratch;
  auto* saved = record_;
  record_ = &found;
  gen(body, scratch);
  record_ = saved;
  return found;
}

// dpia/split_loop decides the parts; the indices that views produce come from
// generating the body once (views are resolved while printing).
bool CPrinter::split_loop(const Command& c, std::vector<CStmtP>& out) {
  auto parts = dpia::split_at_clamps(
      c, [&](const CommandP& body) { return accesses(body); },
      [&](const std::string& part) { return derived_name(part); });
  if (!parts) return false;
  for (const dpia::LoopPart& p : *parts) {
    if (p.len.is_const(1)) {
      gen_copy(p.body, out);
      continue;
    }
    if (shifted_tail(*dpia::cm_for(p.var, p.len, dpia::LoopKind::Seq, p.body), out)) continue;
    std::vector<CStmtP> body;
    gen(p.body, body);
    out.push_back(c_for(cname(p.var), nat_expr(p.len), std::move(body), idx_type_));
  }
  return true;
}

// dpia/shift_tail decides; the loop over blocks of V iterations (i_b), the start of the
// block shifted inwards for the last one (i_base), and the V iterations (i_l):
//   for (int i_b = 0; i_b < n; i_b += V) {
//     int i_base = i_b < n - V ? i_b : n - V;
//     RISEC_BLOCK_LOOP
//     for (int i_l = 0; i_l < V; i_l += 1) { int i = i_base + i_l; body }
//   }
// RISEC_BLOCK_LOOP keeps GCC from unrolling a block's loop completely before the loop
// vectoriser sees it: unrolled, a small body becomes pieces of 1, 8, 4, 2 and 1 lanes
// (basic-block vectorisation), which made a map of rows of 126 floats 40% slower than
// the plain loop; kept, it is one vector loop of V lanes.
bool CPrinter::shifted_tail(const Command& c, std::vector<CStmtP>& out) {
  if (!opts_.shift_tails) return false;
  std::optional<int64_t> v =
      dpia::shifted_tail_width(c, [&](const CommandP& body) { return accesses(body); });
  if (!v) return false;
  const std::string i = cname(c.var), b = derived_name(i + "_b"), base = derived_name(i + "_base"),
                    l = derived_name(i + "_l");
  const std::string last = std::to_string(*c.n.as_const() - *v);
  std::vector<CStmtP> lane{c_decl(idx_type_ + " " + i + " = " + base + " + " + l)};
  gen(c.body[0], lane);
  CStmtP block = c_for(
      b, nat_expr(c.n),
      {c_decl(idx_type_ + " " + base + " = " + b + " < " + last + " ? " + b + " : " + last),
       c_raw("RISEC_BLOCK_LOOP"), c_for(l, c_atom(std::to_string(*v)), std::move(lane), idx_type_)},
      idx_type_);
  block->step = c_atom(std::to_string(*v));
  out.push_back(block);
  uses_block_loops_ = true;
  return true;
}

std::string CPrinter::cname(const std::string& var) {
  auto it = cnames_.find(var);
  return it != cnames_.end() ? it->second : c_identifier(var);
}

// The heap buffers' helpers (docs/codegen.md, "Memory placement"): each allocation
// site (risec_site_K, one per declared buffer) keeps the block its last use released
// for the next call, so that a function called again reuses its memory instead of
// faulting in fresh pages from the system (a 16 MiB intermediate cost 4,096 page
// faults, 3.5 ms, per call of a 1.6 ms pipeline, or nothing, as the C library's state
// had it). A block is taken and given back with an atomic exchange: concurrent calls
// (and allocations inside parallel loops) each get their own block. The block's
// capacity is in a 64-byte header. NAME__risec_release() frees the kept blocks (the
// runtime calls it when it drops the compiled function: risec::Kernel, the Python
// module's kernels), and so does a destructor when the library is unloaded or the
// program exits.
namespace {
std::string heap_buffer_helpers(int sites, const std::string& fn) {
  std::string s;
  for (int k = 0; k < sites; ++k) s += "static void* risec_site_" + std::to_string(k) + ";\n";
  s += kSizeHelpers;
  s += R"(#include <stdio.h>
#ifndef RISEC_ALLOC_FAILED
#define RISEC_ALLOC_FAILED(fn, what) (fprintf(stderr, "%s: %s\n", fn, what), abort())
#endif
#ifndef RISEC_STOPPED
#define RISEC_STOPPED() 0
#endif
__attribute__((cold, noinline)) static void risec_alloc_failed(size_t bytes) {
  char what[96];
  if (bytes == (size_t)-1) /* risec_size_mul/add saturated: the size does not fit */
    snprintf(what, sizeof what, "cannot allocate 2^64 bytes or more for an intermediate array");
  else
    snprintf(what, sizeof what, "cannot allocate %llu bytes for an intermediate array",
             (unsigned long long)bytes);
  RISEC_ALLOC_FAILED()" +
       c_string(fn) + R"(, what);
}
/* null when the memory is not there (reported first) */
static inline void* risec_alloc(void** site, size_t bytes) {
  char* b = (char*)__atomic_exchange_n(site, (void*)0, __ATOMIC_ACQ_REL);
  if (b && *(size_t*)b < bytes) { free(b); b = 0; }
  if (!b) {
    void* p = 0;
    if (bytes > (size_t)-1 - 64 || posix_memalign(&p, 64, bytes + 64) != 0) {
      risec_alloc_failed(bytes);
      return 0;
    }
    b = (char*)p;
    *(size_t*)b = bytes;
  }
  return b + 64;
}
static inline void risec_release(void** site, void* p) {
  if (p) free(__atomic_exchange_n(site, (void*)((char*)p - 64), __ATOMIC_ACQ_REL));
}
__attribute__((destructor)) static void risec_free_sites(void) {
)";
  for (int k = 0; k < sites; ++k)
    s += "  free(__atomic_exchange_n(&risec_site_" + std::to_string(k) +
         ", (void*)0, __ATOMIC_ACQ_REL));\n";
  return s + "}\n";
}
}  // namespace

std::string helper_warning_pragmas() {
  // Vectors wider than the hardware's are passed in memory, which GCC and Clang note
  // (-Wpsabi); the unit's helpers are static inline, defined whether the code uses them
  // or not, and Clang (CC=clang) warns of the unused ones under -Wall (held-out L).
  return "#if defined(__clang__)\n#pragma clang diagnostic ignored \"-Wunused-function\"\n"
         "#if __has_warning(\"-Wpsabi\")\n#pragma clang diagnostic ignored \"-Wpsabi\"\n"
         "#endif\n#elif defined(__GNUC__)\n#pragma GCC diagnostic ignored \"-Wpsabi\"\n"
         "#endif\n\n";
}

// Index helpers over the unit's index type `t` (int or int64_t).
std::string index_helpers(const std::string& t) {
  std::string out =
      "static inline int risec_min(int a, int b) { return a < b ? a : b; }\n"
      "static inline int risec_max(int a, int b) { return a > b ? a : b; }\n"
      "static inline int risec_floordiv(int a, int b) { int q = a / b; return (a % b != 0 && ((a "
      "< 0) != (b < 0))) ? q - 1 : q; }\n"
      "static inline int risec_floormod(int a, int b) { int r = a % b; return (r != 0 && ((r < 0) "
      "!= (b < 0))) ? r + b : r; }\n"
      "static inline int risec_pow(int b, int e) { int r = 1; while (e-- > 0) r *= b; return r; "
      "}\n";
  if (t == "int") return out;
  std::string wide;
  for (size_t i = 0; i < out.size(); ++i) {
    bool word =
        out.compare(i, 4, "int ") == 0 && (i == 0 || out[i - 1] == ' ' || out[i - 1] == '(');
    if (word) {
      wide += t + " ";
      i += 3;
    } else {
      wide += out[i];
    }
  }
  return wide;
}

// What a violated size precondition does, unless the user defines it (e.g. to log
// and return an error through their own channel).
const char* const kPreconditionHelper =
    "#if !defined(RISEC_NO_CHECKS) && !defined(RISEC_PRECONDITION_FAILED)\n"
    "#include <stdio.h>\n"
    "#define RISEC_PRECONDITION_FAILED(fn, what) \\\n"
    "  (fprintf(stderr, \"%s: size precondition violated: %s\\n\", fn, what), abort())\n"
    "#endif\n"
    "#ifndef RISEC_NO_CHECKS\n"
    "/* the size checks' arithmetic: *o set where it overflows 64 bits */\n"
    "static inline __attribute__((unused)) int64_t risec_ck_add(int64_t a, int64_t b, int* o) {\n"
    "  int64_t r;\n"
    "  if (__builtin_add_overflow(a, b, &r)) *o = 1;\n"
    "  return r;\n"
    "}\n"
    "static inline __attribute__((unused)) int64_t risec_ck_sub(int64_t a, int64_t b, int* o) {\n"
    "  int64_t r;\n"
    "  if (__builtin_sub_overflow(a, b, &r)) *o = 1;\n"
    "  return r;\n"
    "}\n"
    "static inline __attribute__((unused)) int64_t risec_ck_mul(int64_t a, int64_t b, int* o) {\n"
    "  int64_t r;\n"
    "  if (__builtin_mul_overflow(a, b, &r)) *o = 1;\n"
    "  return r;\n"
    "}\n"
    "#endif\n";

// A C string literal for plain text.
std::string c_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

namespace {

// `n` as an int64_t expression whose sums and products go through risec_ck_add/mul
// (kPreconditionHelper), which set risec_ovf where they overflow; a sum with fractional
// coefficients over their common denominator (exact), divisions and the other atoms as
// nat_expr prints them, of checked operands where they are sums or products.
std::string checked_size(const Nat& n) {
  using arith::Kind;
  const arith::Node& node = n.node();
  switch (n.kind()) {
    case Kind::Prod: {
      std::string out = checked_size(node.args[0]);
      for (size_t i = 1; i < node.args.size(); ++i)
        out = "risec_ck_mul(" + out + ", " + checked_size(node.args[i]) + ", &risec_ovf)";
      return out;
    }
    case Kind::Sum:
      try {
        const IntegerSum sum = integer_sum(node);
        std::string out = sum.constant ? "(int64_t)" + std::to_string(sum.constant) : "";
        for (const auto& [c, mono] : sum.terms) {
          const int64_t magnitude = c < 0 ? arith::checked_sub(0, c) : c;
          std::string t = checked_size(mono);
          if (magnitude != 1)
            t = "risec_ck_mul((int64_t)" + std::to_string(magnitude) + ", " + t + ", &risec_ovf)";
          if (out.empty() && c > 0)
            out = t;
          else
            out = std::string(c > 0 ? "risec_ck_add(" : "risec_ck_sub(") +
                  (out.empty() ? "(int64_t)0" : out) + ", " + t + ", &risec_ovf)";
        }
        return sum.denominator == 1
                   ? out
                   : "risec_floordiv(" + out + ", " + std::to_string(sum.denominator) + ")";
      } catch (const arith::ArithError&) {
        return nat_expr(n).at(kPrecUnary);
      }
    case Kind::Div:
      return "risec_floordiv(" + checked_size(node.args[0]) + ", " + checked_size(node.args[1]) +
             ")";
    case Kind::Mod:
      return "risec_floormod(" + checked_size(node.args[0]) + ", " + checked_size(node.args[1]) +
             ")";
    default:
      return nat_expr(n).at(kPrecUnary);
  }
}

// The checks at the entry of a function with symbolic sizes: each size at least 1,
// then each divisibility and bound the program needs, its arithmetic checked: sizes at
// which a condition's terms overflow 64 bits fail it, with its message (in plain C
// arithmetic they wrapped around, so n - k*m >= 0 held at k*m past 2^63 and the code
// ran on).
std::string size_checks(const std::string& fn, const std::vector<std::string>& sizes,
                        const std::vector<SizeCondition>& conditions) {
  if (sizes.empty()) return "";
  std::string out = "#ifndef RISEC_NO_CHECKS\n";
  auto check = [&](const std::string& cond, const std::string& what) {
    out += "  if (!(" + cond + ")) { RISEC_PRECONDITION_FAILED(" + c_string(fn) + ", " +
           c_string(what) + "); return; }\n";
  };
  auto checked = [&](const std::string& cond, const std::string& what) {
    out += "  {\n    int risec_ovf = 0;\n    if (!(" + cond +
           ") || risec_ovf) { RISEC_PRECONDITION_FAILED(" + c_string(fn) + ", " + c_string(what) +
           "); return; }\n  }\n";
  };
  for (const std::string& s : sizes)
    check(c_identifier(s) + " >= 1", s + " >= 1 (sizes are positive)");
  for (const SizeCondition& c : conditions) {
    if (c.condition.kind == rise::SideCondition::Kind::Divides) {
      // A symbolic divisor may be 0 (split(n - 4) at n = 4) or -1: the check must not
      // divide by zero or overflow (held-out K: SIGFPE in the precondition itself).
      const rise::Nat& d = c.condition.divides.divisor;
      const std::string e = "(" + checked_size(c.condition.divides.dividend) + ")";
      const std::string ds = "(" + checked_size(d) + ")";
      checked(d.as_const() > 0 ? e + " % " + ds + " == 0"
                               : ds + " != 0 && (" + ds + " == -1 || " + e + " % " + ds + " == 0)",
              c.description);
    } else {
      checked(checked_size(c.condition.value) + " >= 0", c.description);
    }
  }
  return out + "#endif\n";
}

}  // namespace

std::string CPrinter::table_declaration(const std::string& elem, const std::string& name,
                                        size_t count, const std::string& values) {
  return "static const " + elem + " " + name + "[" + std::to_string(count) + "] = {" + values +
         "};\n";
}

void CPrinter::declare_table(const Command& c) {
  const std::string name = "risec_table_" + c.var;
  cnames_[c.var] = name;
  storage_[c.var] = Storage{c.dt, true};
  if (!tables_.insert(name).second) return;
  const Type elem = leaf(c.dt);
  std::string values;
  in_table_ = true;
  for (size_t i = 0; i < c.table->size(); ++i) {
    Expression lit{Expression::Lit, elem};
    lit.lit = (*c.table)[i];
    values += (i == 0 ? "" : i % 8 == 0 ? ",\n  " : ", ") + literal(dpia::ex_make(lit), {}).text;
  }
  in_table_ = false;
  if (c.table->size() > 8) values = "\n  " + values + "\n";
  table_text_ += table_declaration(c_type(elem), name, c.table->size(), values);
}

std::string CPrinter::function_prologue(const std::string& fn,
                                        const std::vector<std::string>& sizes) {
  return size_checks(fn, sizes, opts_.size_conditions);
}

void CPrinter::bind_parameters(const std::string& output, const Type& out_dt,
                               const std::vector<dpia::Input>& inputs,
                               const std::vector<std::string>& sizes) {
  storage_[output] = Storage{out_dt, true};
  storage_[output].soa = rise::stored_per_component(out_dt);
  // The parameters keep the user's names (sanitised, c_identifier), which must differ
  // from each other: a size first, then an input named like an earlier parameter
  // (a size, or an input it shadows) gets a fresh name, as does the output.
  std::set<std::string> params;
  for (const auto& s : sizes) params.insert(c_identifier(s));
  size_names_.insert(sizes.begin(), sizes.end());
  for (const auto& in : inputs) {
    storage_[in.name] = Storage{in.dt, true};
    storage_[in.name].soa = rise::stored_per_component(in.dt);
    std::string c = c_identifier(in.display.empty() ? in.name : in.display);
    if (!params.insert(c).second) {
      c = names_.fresh(c + "_");
      params.insert(c);
    }
    cnames_[in.name] = c;
  }
  interface_ = {output};
  for (const auto& in : inputs) interface_.push_back(in.name);
  if (params.count(c_identifier(output))) cnames_[output] = "risec_output";
}

void CPrinter::reserve_names(const CommandP& program, const std::vector<dpia::Input>& inputs,
                             const std::vector<std::string>& sizes) {
  // Every name of the program (its variables are printed as their c_identifier) and
  // of its interface.
  dpia::reserve_names(names_, program);
  for (const auto& s : sizes) names_.reserve(c_identifier(s));
  for (const auto& in : inputs)
    names_.reserve(c_identifier(in.display.empty() ? in.name : in.display));
}

std::string CPrinter::part_name(const std::string& var, const std::string& suffix) {
  return suffix.empty() ? cname(var) : derived_name(cname(var) + suffix);
}

std::string CPrinter::derived_name(const std::string& name) {
  auto [it, added] = derived_.emplace(name, "");
  if (added) it->second = names_.claim(name);
  return it->second;
}

std::string CPrinter::signature(CUnit& u, const std::string& output, const Type& out_dt,
                                const std::vector<dpia::Input>& inputs,
                                const std::vector<std::string>& sizes) {
  std::string sig = "void " + u.name + "(" + param_type(out_dt) + "* restrict " + cname(output);
  u.params.push_back({output, out_dt, false});
  for (const auto& s : sizes) {
    sig += ", " + idx_type_ + " " + c_identifier(s);
    u.params.push_back({s, nullptr, true});
  }
  for (const auto& in : inputs) {
    sig += ", const " + param_type(in.dt) + "* restrict " + cname(in.name);
    u.params.push_back({in.name, in.dt, false});
  }
  return sig + ")";
}

std::string CPrinter::call_wrapper(const std::string& fn, const std::string& sig,
                                   const Type& out_dt, const std::vector<dpia::Input>& inputs,
                                   const std::vector<std::string>& sizes) {
  std::ostringstream src;
  // A uniform entry point for the runtime: buffers[0] is the output, then inputs. It
  // calls the function through a local alias, so that a library loaded before this
  // unit that exports the same name can never take the call (c_names.h).
  src << "static " << sig.substr(0, 5) << "risec_local_entry" << sig.substr(5 + fn.size())
      << " __attribute__((alias(\"" << fn << "\")));\n";
  src << "void " << fn << "__risec_call(void* const* buffers, const int* sizes) {\n  ";
  if (sizes.empty()) src << "(void)sizes;\n  ";
  src << "risec_local_entry(";
  src << "(" << param_type(out_dt) << "*)buffers[0]";
  for (size_t i = 0; i < sizes.size(); ++i) src << ", sizes[" << i << "]";
  for (size_t i = 0; i < inputs.size(); ++i)
    src << ", (const " << param_type(inputs[i].dt) << "*)buffers[" << i + 1 << "]";
  src << ");\n}\n";
  return src.str();
}

std::string CPrinter::header_text(const std::string& entry_name, const std::string& sig,
                                  const std::string& types, const Type& out_dt,
                                  const std::vector<dpia::Input>& inputs,
                                  const std::vector<std::string>& sizes) {
  std::ostringstream h;
  h << "/* Generated by risec " RISEC_VERSION " from '" << entry_name << "'. */\n";
  h << "#pragma once\n#include <stdbool.h>\n#include <stdint.h>\n\n";
  h << "#include <string.h>\n" << types << "\n";
  h << "/* Arrays are flat, row-major buffers:\n";
  // Elements that are pairs holding arrays: one array per component, in one buffer.
  auto layout = [&](const std::string& var, const std::string& name, const Type& dt) {
    h << " *   " << name << ": " << rise::print(dt);
    if (storage_.count(var) == 0 || !storage_.at(var).soa) {
      h << "\n";
      return;
    }
    h << ", one array per component:\n";
    for (const BufferPart& p : buffer_parts(var))
      h << " *     " << c_type(p.leaf) << "[" << p.count.to_string() << "] at byte "
        << p.offset.to_string() << "\n";
  };
  layout(interface_.empty() ? "" : interface_[0], "output", out_dt);
  for (const auto& in : inputs) layout(in.name, cname(in.name), in.dt);
  if (!sizes.empty()) {
    h << " * Preconditions on the sizes, checked on entry unless compiled with -DRISEC_NO_CHECKS\n"
         " * (a violation calls RISEC_PRECONDITION_FAILED(function, what): by default a message\n"
         " * on stderr and abort()):\n";
    for (const auto& s : sizes) h << " *   " << s << " >= 1\n";
    for (const SizeCondition& c : opts_.size_conditions) {
      std::string d = c.description;
      for (size_t at = d.find("*/"); at != std::string::npos; at = d.find("*/"))
        d.replace(at, 2, "* /");
      h << " *   " << d << "\n";
    }
  }
  // C++ can include the header too (the C++ API's embedding example does): C
  // linkage, and `restrict` spelled as C++ compilers accept it, for this line only.
  h << " */\n#ifdef __cplusplus\nextern \"C\" {\n#ifndef restrict\n#define restrict "
       "__restrict\n#define RISEC_UNDEF_RESTRICT\n#endif\n#endif\n";
  h << sig << ";\n" << header_declarations(function_name_);
  h << "#ifdef __cplusplus\n#ifdef RISEC_UNDEF_RESTRICT\n#undef restrict\n#undef "
       "RISEC_UNDEF_RESTRICT\n#endif\n}\n#endif\n";
  return h.str();
}

CUnit CPrinter::print_unit(const std::string& entry_name, const CommandP& program,
                           const std::string& output, const Type& out_dt,
                           const std::vector<dpia::Input>& inputs,
                           const std::vector<std::string>& sizes) {
  CPrinter& g = *this;
  CUnit u;
  u.name = c_entry_name(entry_name);
  g.reserve_names(program, inputs, sizes);
  g.bind_parameters(output, out_dt, inputs, sizes);
  g.function_name_ = u.name;
  g.idx_type_ =
      opts_.wide_indices || needs_wide_indices(program, out_dt, inputs, sizes) ? "int64_t" : "int";
  g.not_nan_ = dpia::NotNan(program);
  std::vector<CStmtP> body;
  g.top_level_ = &body;
  g.gen(program, body);
  g.stop_labels(body);
  g.top_level_ = nullptr;
  std::string sig = g.signature(u, output, out_dt, inputs, sizes);

  std::ostringstream src;
  src << "/* Generated by risec " RISEC_VERSION " from '" << entry_name << "'. Do not edit. */\n";
  src << "#define _POSIX_C_SOURCE 200112L\n";
  src << "#include <math.h>\n#include <stdbool.h>\n#include <stdint.h>\n#include "
         "<stdlib.h>\n#include <string.h>\n";
  src << helper_warning_pragmas();
  src << index_helpers(g.idx_type_);
  // Lane loops of vector math run under `omp simd` when OpenMP (or -fopenmp-simd with
  // -DRISEC_OMP_SIMD, as risec run compiles) is on, calling glibc's vector variants.
  // RISEC_SIMD_LANES(n): a lane loop over a vector of n lanes, vectorised at that width
  // (simdlen), not at the C compiler's preferred one.
  src << "#if defined(_OPENMP) || defined(RISEC_OMP_SIMD)\n#define RISEC_SIMD_LOOP _Pragma(\"omp "
         "simd\")\n#define RISEC_SIMD_PRAGMA(x) _Pragma(#x)\n#define RISEC_SIMD_LANES(n) "
         "RISEC_SIMD_PRAGMA(omp simd simdlen(n))\n"
      << g.simd_text_ << "#else\n#define RISEC_SIMD_LOOP\n#define RISEC_SIMD_LANES(n)\n#endif\n";
  // The loop over a block of a loop with a shifted tail (CPrinter::shifted_tail).
  if (g.uses_block_loops_)
    src << "#if defined(__GNUC__)\n#define RISEC_BLOCK_LOOP _Pragma(\"GCC unroll 1\")\n#else\n"
           "#define RISEC_BLOCK_LOOP\n#endif\n";
  if (!sizes.empty()) src << kPreconditionHelper;
  if (g.uses_alloc_) src << heap_buffer_helpers(g.sites_, u.name);
  src << g.typedef_text_ << "\n";
  if (!g.helper_text_.empty()) src << g.helper_text_ << "\n";
  const std::string input_checks = input_index_checks(inputs);
  if (g.uses_index_checks_ || !input_checks.empty()) src << kBoundsCodes << kBoundsHostHelper;
  if (g.uses_index_checks_) src << index_check_helper() << "\n";
  if (!g.foreign_text_.empty()) src << g.foreign_text_ << "\n";
  src << g.profile_text() << g.table_text_ << before_function();
  std::string body_text = print(c_block(body), 1);
  src << sig << " {\n"
      << function_prologue(u.name, sizes) << input_checks << unused_sizes(body_text, sizes)
      << interface_parts(body_text) << body_text << "}\n\n";
  src << call_wrapper(u.name, sig, out_dt, inputs, sizes);
  if (g.uses_alloc_)
    src << "void " << u.name << "__risec_release(void) {\n  risec_free_sites();\n}\n";
  u.source = src.str();
  u.uses_openmp = g.uses_openmp_;
  u.profile_stages = g.profile_stages_;
  u.profile_untimed = g.profile_untimed_;
  u.header = header_text(entry_name, sig, g.typedef_text_, out_dt, inputs, sizes);
  return u;
}

std::string CPrinter::param_type(const Type& dt) {
  return rise::stored_per_component(dt) ? "void" : c_type(dt);
}

std::string CPrinter::part_address(const std::string& var, const BufferPart& p, bool writable) {
  if (p.offset.is_const(0)) return cname(var);
  return "((" + std::string(writable ? "" : "const ") + "char*)" + cname(var) + " + " +
         nat_expr(p.offset).text + ")";
}

std::string CPrinter::interface_parts(const std::string& body_text) {
  std::string out;
  for (size_t k = 0; k < interface_.size(); ++k) {
    const std::string& m = interface_[k];
    if (!storage_.at(m).soa) continue;
    const std::string q = k == 0 ? "" : "const ";
    for (const BufferPart& p : buffer_parts(m)) {
      std::string name = part_name(m, p.suffix);
      if (!mentions_identifier(body_text, name)) continue;
      out += "  " + q + c_type(p.leaf) + "* restrict " + name + " = (" + q + c_type(p.leaf) + "*)" +
             part_address(m, p, k == 0) + ";\n";
    }
  }
  return out;
}

// A size only the checks mention is unused when they are compiled out.
std::string CPrinter::unused_sizes(const std::string& body_text,
                                   const std::vector<std::string>& sizes) {
  std::string unused;
  for (const auto& s : sizes)
    if (!mentions_identifier(body_text, c_identifier(s)))
      unused += "  (void)" + c_identifier(s) + ";\n";
  return unused;
}

}  // namespace risec::codegen
