// Software prefetching on the CPU printers (docs/codegen.md, "Software prefetching"): a
// sequential loop that the strategy rule prefetch marked (dpia::Command::prefetch, the
// loop of a reduceSeq) starts each iteration with one __builtin_prefetch per cache line
// of each stream its body reads, that many bytes ahead of where the iteration reads.
// A stream is a buffer read at flat indices that advance with the loop's variable by
// a constant stride of at least a cache line; the reads of one stream in an iteration
// differ by constants (an unrolled k.i) or by the loops inside the body (the rows and
// the vectors of a register block, taken at their first and last iterations). A stream that
// moves less than a line an iteration (A's rows in a register block, 8 bytes a k) is
// left to the hardware prefetcher: a prefetch each iteration would ask for the same
// line again and again.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "codegen/c/c_printer.h"

namespace risec::codegen {

namespace {

constexpr int64_t kCacheLine = 64;
// At most this many prefetches an iteration (a register block's loop issues one or
// two): a body that reads more lines than this is prefetched for its first ones.
constexpr size_t kMaxPrefetches = 8;

struct Stream {
  std::string name;
  Nat base;                 // the flat index without its constant part
  std::set<int64_t> bytes;  // the constant parts, in bytes
  int64_t element = 0;
};

// The variables of the loops inside c, with their ranges.
void inner_loops(const CommandP& c, std::map<std::string, Nat>& out) {
  if (!c) return;
  if (c->kind == Command::For) out.emplace(c->var, c->n);
  for (const CommandP& b : c->body) inner_loops(b, out);
}

}  // namespace

std::vector<CStmtP> CPrinter::prefetches(const Command& loop) {
  std::vector<CStmtP> out;
  if (loop.prefetch <= 0 || loop.body.empty()) return out;
  const dpia::BodyAccesses found = accesses(loop.body[0]);
  std::map<std::string, Nat> inner;
  inner_loops(loop.body[0], inner);
  const Nat next = Nat::var(loop.var, Nat(0), loop.n) + Nat(1);
  std::vector<Stream> streams;
  for (const dpia::BodyAccesses::Access& a : found.named) {
    if (a.write) continue;
    auto it = storage_.find(a.name);
    if (it == storage_.end() || !it->second.pointer || it->second.soa || it->second.distribution)
      continue;
    if (!arith::occurs(loop.var, a.flat)) continue;
    const Type elem = leaf(it->second.dt);
    if (elem->kind != TypeKind::Scalar && elem->kind != TypeKind::Vector) continue;
    const int64_t bytes = static_cast<int64_t>(element_bytes(elem));
    // The variables of loops inside the body take their first and last values (the
    // reads' extent in an iteration); an access with any other variable bound inside
    // (the printer's probe of a vector's lanes) is skipped: its vector is read by an
    // access recorded besides it.
    std::vector<std::pair<std::string, Nat>> vars;
    bool local = false;
    for (const auto& [name, term] : arith::free_vars(a.flat)) {
      if (name == loop.var) continue;
      auto in = inner.find(name);
      if (in != inner.end()) {
        vars.emplace_back(name, in->second);
      } else if (name == kLaneProbe) {
        local = true;
      }
    }
    if (local || vars.size() > 6) continue;
    bool ok = true;
    std::optional<Nat> base;
    int64_t lo = 0, hi = 0, stride_bytes = 0;
    for (size_t combo = 0; ok && combo < (size_t{1} << vars.size()); ++combo) {
      arith::Substitution at;
      for (size_t v = 0; v < vars.size(); ++v) {
        const std::optional<int64_t> n = vars[v].second.as_const();
        if (!n || *n < 1) {
          ok = false;
          break;
        }
        at[vars[v].first] = Nat(combo >> v & 1 ? *n - 1 : 0);
      }
      if (!ok) break;
      const Nat f = arith::substitute(a.flat, at);
      const std::optional<int64_t> stride =
          (arith::substitute(f, {{loop.var, next}}) - f).as_const();
      const arith::SumForm sf = arith::sum_form(f);
      if (!stride || !sf.constant.is_int()) {
        ok = false;
        break;
      }
      const int64_t k = sf.constant.num() * bytes;
      if (combo == 0) {
        base = f - Nat(sf.constant.num());
        lo = hi = k;
        stride_bytes = *stride * bytes;
      }
      lo = std::min(lo, k);
      hi = std::max(hi, k);
    }
    if (!ok || !base || stride_bytes < kCacheLine) continue;
    auto same = std::find_if(streams.begin(), streams.end(),
                             [&](const Stream& s) { return s.name == a.name && s.base == *base; });
    if (same == streams.end()) {
      streams.push_back({a.name, *base, {}, bytes});
      same = streams.end() - 1;
    }
    // Within one iteration's advance the reads are one contiguous piece of the stream:
    // every line of it; else (reads a row of a matrix apart) their own lines only.
    if (hi - lo < stride_bytes) {
      for (int64_t b = lo; b < hi; b += kCacheLine) same->bytes.insert(b);
    } else {
      same->bytes.insert(lo);
    }
    same->bytes.insert(hi);
  }
  // One prefetch per line the iteration reads, counted from its first read (the lines
  // of reads a row of a matrix apart are prefetched each, not the rows between them).
  for (const Stream& s : streams) {
    const int64_t first = *s.bytes.begin();
    std::set<int64_t> lines;
    for (int64_t b : s.bytes) lines.insert((b - first) / kCacheLine);
    const std::string at =
        nat_expr(s.base + Nat(first / s.element)).text;  // the first read's index
    for (int64_t line : lines) {
      if (out.size() >= kMaxPrefetches) break;
      out.push_back(c_expr_stmt("__builtin_prefetch((const void*)((uintptr_t)" + cname(s.name) +
                                " + (uintptr_t)(" + at + ") * " + std::to_string(s.element) +
                                " + " + std::to_string(line * kCacheLine + loop.prefetch) + "))"));
    }
  }
  return out;
}

}  // namespace risec::codegen
