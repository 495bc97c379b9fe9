// `risec graph` (spec/cli.md): a program as a Graphviz graph, so that what a strategy
// did can be looked at rather than read. Each expression is drawn as a DAG: an
// application chain f(a)(b) is one node for its head (a primitive, variable or
// foreign function, with its type-level arguments) with an edge to each argument in
// order; lambdas and literals are nodes of their own; a subterm shared in memory
// (the same node reached twice) is drawn once. Nodes show their inferred type.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "driver/commands.h"
#include "rise/expr.h"

namespace risec::driver {

// DOT text of one graph holding a cluster per (title, expression), in order (the
// program before and after a strategy). Deterministic: the same input gives the same
// text.
std::string to_dot(const std::vector<std::pair<std::string, rise::Expr>>& clusters);

// The subcommand: OUT.dot is written; OUT.svg or OUT.png also writes OUT.dot beside it
// and renders it with Graphviz's `dot` (an External error, exit 4, when `dot` is
// missing or fails). Without -o the DOT text is printed.
int cmd_graph(const GraphArgs& o);

}  // namespace risec::driver
