// The front end as one call: prelude, resolution, inference, specialisation.
#include "rise/check.h"

#include <set>

#include "rise/infer.h"
#include "rise/parser.h"
#include "rise/prelude_text.h"
#include "rise/resolve.h"
#include "support/words.h"

namespace risec::rise {

const Program& prelude() {
  static const Program p = [] {
    auto src = std::make_shared<SourceFile>(SourceFile{"<prelude>", std::string(kPreludeText)});
    return parse_program(src);
  }();
  return p;
}

// Names of the leading size parameters of an expression: depFun((n: Nat, ...) => ...).
static std::set<std::string> leading_sizes(const Expr& e) {
  std::set<std::string> out;
  for (Expr x = e; x->kind == ExprKind::DepLambda; x = x->fn)
    if (x->binder_kind == Kind::Nat) out.insert(x->name);
  return out;
}

void require_definitions(const Program& program) {
  if (program.defs.empty())
    user_error("the program has no definitions", Span{program.source, 0, 0});
}

Checked check_program(const Program& program, const std::string& entry, const SizeMap* sizes) {
  require_definitions(program);
  size_t index = program.defs.size() - 1;
  if (!entry.empty()) {
    bool found = false;
    for (size_t i = 0; i < program.defs.size(); ++i)
      if (program.defs[i].name == entry) {
        index = i;
        found = true;
      }
    if (!found) {
      std::vector<std::string> names;
      for (const auto& d : program.defs) names.push_back(d.name);
      std::string msg = "no definition named '" + entry + "'";
      std::string near = nearest_name(entry, names);
      if (!near.empty()) msg += "; did you mean '" + near + "'?";
      throw Error(ErrorKind::Usage, msg);
    }
  }
  if (program.defs[index].foreign)
    user_error("the entry '" + program.defs[index].name + "' is a foreign function",
               program.defs[index].span);
  Expr resolved = resolve_definition(program, index, &prelude());
  if (sizes) {
    std::set<std::string> params = leading_sizes(resolved);
    for (const auto& [name, value] : *sizes) {
      if (!params.count(name)) {
        std::string msg = size_given(name) + ": the entry '" + program.defs[index].name +
                          "' has no size parameter named '" + name + "'";
        std::string near =
            nearest_name(name, std::vector<std::string>(params.begin(), params.end()));
        if (!near.empty()) msg += "; did you mean '" + near + "'?";
        throw Error(ErrorKind::Usage, msg);
      }
      if (value < 1)
        throw Error(ErrorKind::Usage,
                    size_given(name) + " = " + std::to_string(value) + ": sizes must be positive");
    }
  }
  Checked c = infer_entry(resolved, sizes, true);
  if (sizes) c.sizes = *sizes;
  return c;
}

Checked infer_expr(const Expr& e) {
  return infer_entry(e, nullptr);
}

std::string SideCondition::describe() const {
  if (kind == Kind::Divides)
    return divides.divisor.to_string() + " divides " + divides.dividend.to_string();
  return value.to_string() + " >= 0";
}

}  // namespace risec::rise
