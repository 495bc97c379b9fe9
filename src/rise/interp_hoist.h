// Loop-invariant subterms of the reference interpreter's lambdas (see
// docs/architecture.md, "Invariant subterms"). The boxed evaluator (interp.cpp) asks,
// for each lambda it translates, which maximal subterms of the body use neither the
// lambda's parameter nor any name bound inside it; it evaluates each of them at most
// once per closure, lazily on first use, instead of once per application.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "rise/expr.h"

namespace risec::rise {

class InvariantFinder {
 public:
  // The maximal invariant subterms of `lam`'s body (a value-level Lambda), in source
  // order. Only applications of data type that call a primitive other than scalar
  // arithmetic and element access qualify (the rest costs less than a memo cell);
  // nothing under a dependent lambda (its body may use the type-level variable it
  // binds); nothing that occurs twice in the body (a shared node could be invariant at
  // one place and not at the other). `outer(e)`: e is already an invariant subterm of
  // an enclosing lambda, hence a leaf here.
  std::vector<const ExprNode*> find(const ExprNode& lam,
                                    const std::function<bool(const ExprNode*)>& outer);

 private:
  const std::vector<std::string>& free(const ExprNode* e);
  bool heavy(const ExprNode* e);
  void count(const ExprNode* e, std::unordered_map<const ExprNode*, int>& seen);
  std::unordered_map<const ExprNode*, std::vector<std::string>> free_;
  std::unordered_map<const ExprNode*, bool> heavy_;
};

}  // namespace risec::rise
