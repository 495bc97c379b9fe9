// The memory needs of an entry at its sizes (memory_check.h).
#include "driver/memory_check.h"

#include <cstdint>
#include <unordered_set>

#include "driver/run.h"
#include "support/memory.h"
#include "support/words.h"

namespace risec::driver {

std::optional<uint64_t> data_bytes(const rise::Type& t) {
  if (!t) return std::nullopt;
  switch (t->kind) {
    case rise::TypeKind::Scalar:
      return t->scalar == rise::ScalarKind::Bool ? 1 : rise::scalar_bits(t->scalar) / 8;
    case rise::TypeKind::Index:
    case rise::TypeKind::NatData:
      return 8;
    case rise::TypeKind::Array:
    case rise::TypeKind::Vector: {
      std::optional<int64_t> n = t->size.as_const();
      if (!n || *n < 0) return std::nullopt;
      std::optional<uint64_t> elem =
          t->a ? data_bytes(t->a)
               : std::optional<uint64_t>(
                     t->scalar == rise::ScalarKind::Bool ? 1 : rise::scalar_bits(t->scalar) / 8);
      if (!elem) return std::nullopt;
      return saturating_mul(static_cast<uint64_t>(*n), *elem);
    }
    case rise::TypeKind::Pair: {
      std::optional<uint64_t> a = data_bytes(t->a), b = data_bytes(t->b);
      if (!a || !b) return std::nullopt;
      return saturating_add(*a, *b);
    }
    default:
      return std::nullopt;
  }
}

namespace {

// The largest value computed by a subterm whose type has constant sizes.
struct Largest {
  uint64_t bytes = 0;
  rise::Type type;
  Span where;
  std::unordered_set<const rise::ExprNode*> seen;

  void visit(const rise::Expr& e) {
    if (!e || !seen.insert(e.get()).second) return;
    if (std::optional<uint64_t> b = data_bytes(e->type); b && *b > bytes) {
      bytes = *b;
      type = e->type;
      where = e->span;
    }
    for (const rise::Expr& k : rise::children(e)) visit(k);
  }
};

// The location of a value's subterm, for messages.
std::string where(const Largest& l) {
  return l.where.known() ? location(l.where) : std::string("an inner term");
}

}  // namespace

void check_addressable(const rise::Checked& checked) {
  Largest largest;
  largest.visit(checked.expr);
  if (largest.bytes > static_cast<uint64_t>(INT64_MAX))
    throw Error(ErrorKind::Usage,
                "at these sizes a value the program computes, at " + where(largest) + " (" +
                    rise::print(largest.type) + "), needs " + format_bytes(largest.bytes) +
                    ": generated code addresses memory with 64-bit signed indices, which "
                    "cannot reach 2^63 bytes; use smaller " +
                    sizes_word() + " values");
}

void check_memory_needs(const rise::Checked& checked, bool with_interpreter) {
  const uint64_t limit = memory_limit_bytes();
  auto refuse = [&](const std::string& what, const rise::Type& t, uint64_t bytes) {
    throw Error(ErrorKind::Usage, "at these sizes " + what + " (" + rise::print(t) + ") needs " +
                                      format_bytes(bytes) + ", more than the memory limit of " +
                                      format_bytes(limit) + " (" + memory_limit_source() +
                                      "); use smaller " + sizes_word() + " values");
  };
  uint64_t total = 0;
  for (const EntryParam& p : entry_parameters(checked)) {
    std::optional<uint64_t> b = data_bytes(p.type);
    if (!b) continue;
    if (*b > limit) refuse("input '" + p.name + "'", p.type, *b);
    total = saturating_add(total, *b);
  }
  rise::Type out = entry_result_type(checked);
  if (std::optional<uint64_t> b = data_bytes(out)) {
    if (*b > limit) refuse("the result", out, *b);
    total = saturating_add(total, *b);
  }
  if (total > limit)
    throw Error(ErrorKind::Usage,
                "at these sizes the inputs and the result need " + format_bytes(total) +
                    " together, more than the memory limit of " + format_bytes(limit) + " (" +
                    memory_limit_source() + "); use smaller " + sizes_word() + " values");
  if (!with_interpreter) return;
  Largest largest;
  largest.visit(checked.expr);
  if (largest.bytes > limit)
    refuse("a value the program computes, at " + where(largest) + ",", largest.type, largest.bytes);
}

}  // namespace risec::driver
