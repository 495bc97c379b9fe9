// `risec graph`: the program as a Graphviz DAG (see graph.h).
#include "driver/graph.h"

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "driver/commands.h"
#include "rise/check.h"
#include "rise/printer.h"
#include "runtime/process.h"
#include "support/files.h"
#include "support/stack.h"

namespace risec::driver {

namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string shorten(std::string s, size_t max = 48) {
  if (s.size() > max) s = s.substr(0, max - 3) + "...";
  return s;
}

class DotWriter {
 public:
  explicit DotWriter(std::ostringstream& out) : out_(out) {}

  // The node drawing `e` (made once per distinct node), its id.
  std::string node(const rise::Expr& e) {
    check_stack_depth(e->span);
    if (auto it = ids_.find(e.get()); it != ids_.end()) return it->second;
    std::string id = "n" + std::to_string(next_++);
    ids_.emplace(e.get(), id);
    std::string label, shape = "box";
    std::vector<std::pair<std::string, rise::Expr>> edges;
    switch (e->kind) {
      case rise::ExprKind::App:
      case rise::ExprKind::DepApp: {
        rise::Spine sp = rise::spine(e);
        std::string targs;
        int i = 0;
        for (const auto& a : sp.args) {
          if (a.dep) {
            targs += (targs.empty() ? "" : ", ") + rise::print(a.type_arg);
          } else {
            edges.push_back({std::to_string(i++), a.value});
          }
        }
        const rise::Expr& h = sp.head;
        if (h->kind == rise::ExprKind::Primitive || h->kind == rise::ExprKind::Ident ||
            h->kind == rise::ExprKind::Foreign) {
          label = h->name;
          shape = h->kind == rise::ExprKind::Primitive ? "box" : "ellipse";
        } else {
          label = "apply";
          edges.insert(edges.begin(), {"fn", h});
        }
        if (!targs.empty()) label += "(" + targs + ")";
        break;
      }
      case rise::ExprKind::Lambda:
        label = "fun " + e->name;
        shape = "oval";
        edges.push_back({"", e->fn});
        break;
      case rise::ExprKind::DepLambda:
        label = "depFun " + e->name;
        shape = "oval";
        edges.push_back({"", e->fn});
        break;
      case rise::ExprKind::Annotation:
        label = ": " + rise::print(e->annot);
        edges.push_back({"", e->fn});
        break;
      case rise::ExprKind::Ident:
      case rise::ExprKind::Primitive:
      case rise::ExprKind::Foreign:
        label = e->name;
        shape = e->kind == rise::ExprKind::Primitive ? "box" : "ellipse";
        break;
      case rise::ExprKind::Literal:
        label = rise::print_expr(e);
        shape = "plaintext";
        break;
    }
    std::string text = shorten(label);
    if (e->type) text += "\n" + shorten(rise::print(e->type));
    out_ << "    " << id << " [label=\"" << escape(text) << "\", shape=" << shape << "];\n";
    for (const auto& [name, child] : edges) {
      std::string c = node(child);
      out_ << "    " << id << " -> " << c;
      if (!name.empty()) out_ << " [label=\"" << escape(name) << "\"]";
      out_ << ";\n";
    }
    return id;
  }

 private:
  std::ostringstream& out_;
  std::map<const rise::ExprNode*, std::string> ids_;
  int next_ = 0;
};

}  // namespace

std::string to_dot(const std::vector<std::pair<std::string, rise::Expr>>& clusters) {
  std::ostringstream out;
  out << "digraph risec {\n  node [fontname=\"monospace\", fontsize=10];\n"
         "  edge [fontname=\"monospace\", fontsize=9];\n";
  DotWriter w(out);  // one writer: a subterm shared by both clusters is drawn once
  for (size_t i = 0; i < clusters.size(); ++i) {
    out << "  subgraph cluster_" << i << " {\n    label=\"" << escape(clusters[i].first) << "\";\n";
    w.node(clusters[i].second);
    out << "  }\n";
  }
  out << "}\n";
  return out.str();
}

int cmd_graph(const GraphArgs& o) {
  require_strategy_for_params(o.params, o.strategy);
  rise::Program p = load_program(o.file);
  rise::SizeMap sizes = parse_sizes(o.sizes_text);
  rise::Checked c = rise::check_program(p, o.entry, sizes.empty() ? nullptr : &sizes);
  std::string name = o.entry.empty() ? p.defs.back().name : o.entry;
  std::vector<std::pair<std::string, rise::Expr>> clusters;
  if (o.strategy.empty()) {
    clusters.push_back({name, c.expr});
  } else {
    rise::Checked r = apply_strategy(load_strategy(o.strategy, o.params), c, o.trace);
    clusters.push_back({name + ": before " + o.strategy, c.expr});
    clusters.push_back({name + ": after " + o.strategy, r.expr});
  }
  std::string dot = to_dot(clusters);
  if (o.output.empty()) {
    std::cout << dot;
    return 0;
  }
  std::string out = o.output;
  std::string ext = out.size() > 4 ? out.substr(out.size() - 4) : "";
  if (ext != ".svg" && ext != ".png") {
    write_output_file(out, dot);
    return 0;
  }
  std::string dot_path = out.substr(0, out.size() - 4) + ".dot";
  check_outputs({dot_path, out});
  write_output_file(dot_path, dot);
  // dot's picture comes on its stdout, and is written as every output is (atomically).
  runtime::ProcessResult r;
  try {
    r = runtime::run_process({"dot", "-T" + ext.substr(1), dot_path});
  } catch (const Error& e) {
    throw Error(ErrorKind::External, "wrote " + dot_path + ", but cannot render " + out + ": " +
                                         e.message() + " (install Graphviz: scripts/setup.sh)");
  }
  if (!r.ok())
    throw Error(ErrorKind::External,
                "dot failed to render " + dot_path + " (" + r.describe() + "):\n" + r.err);
  write_output_file(out, r.out);
  std::cout << "wrote " << dot_path << " and " << out << "\n";
  return 0;
}

}  // namespace risec::driver
