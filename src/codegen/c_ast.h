// A small C AST and its printer, shared by the C-family backends (C, OpenMP, and
// later OpenCL and CUDA). Expressions carry their precedence so that composing
// them adds exactly the parentheses C needs; statements are a tree printed with
// two-space indentation.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace risec::codegen {

// C operator precedence, higher binds tighter.
enum Prec {
  kPrecComma = 1,
  kPrecAssign = 2,
  kPrecCond = 3,
  kPrecOr = 4,
  kPrecAnd = 5,
  kPrecBitOr = 6,
  kPrecBitXor = 7,
  kPrecBitAnd = 8,
  kPrecEq = 9,
  kPrecRel = 10,
  kPrecShift = 11,
  kPrecAdd = 12,
  kPrecMul = 13,
  kPrecUnary = 14,
  kPrecPostfix = 15,
  kPrecAtom = 16,
};

struct CExpr {
  std::string text;
  int prec = kPrecAtom;

  // The text, parenthesised if it binds looser than `need`.
  std::string at(int need) const { return prec < need ? "(" + text + ")" : text; }
};

CExpr c_atom(std::string text);
CExpr c_binary(const CExpr& a, const std::string& op, const CExpr& b, int prec);
CExpr c_unary(const std::string& op, const CExpr& a);
CExpr c_call(const std::string& fn, const std::vector<CExpr>& args);
CExpr c_index(const CExpr& base, const CExpr& index);
CExpr c_member(const CExpr& base, const std::string& member);
CExpr c_cond(const CExpr& c, const CExpr& a, const CExpr& b);
CExpr c_cast(const std::string& type, const CExpr& a);
// The compound literal (type){elems...}, in parentheses: its commas are inside braces,
// which do not protect them from a function-like macro's argument split (OpenCL's
// vector helpers, risec_index, the checked divisions are macros there), so every
// expression text has its commas inside parentheses and may be any macro's argument.
CExpr c_compound(const std::string& type, const std::vector<CExpr>& elems);

struct CStmt;
using CStmtP = std::shared_ptr<CStmt>;

struct CStmt {
  enum Kind { Block, Scope, Decl, Expr, For, If, Pragma, Comment, Raw } kind;
  std::string text;              // Decl: the whole declaration; Expr; Pragma; Comment; Raw
  std::string var;               // For: the loop variable
  std::string var_type = "int";  // For: its C type (int64_t where sizes can reach 2^31)
  CExpr init, cond_bound;        // For: from init (empty: 0) to var < bound
  CExpr step;                    // For: the increment (empty: 1)
  CExpr cond;                    // If
  std::vector<CStmtP> body;      // Block (flat), Scope (in braces), For, If (then)
  std::vector<CStmtP> orelse;    // If
};

CStmtP c_block(std::vector<CStmtP> body);
// { body }: a nested scope, so that its declarations may repeat names declared beside it.
CStmtP c_scope(std::vector<CStmtP> body);
CStmtP c_decl(const std::string& text);
CStmtP c_expr_stmt(const std::string& text);
CStmtP c_assign(const CExpr& lhs, const CExpr& rhs);
CStmtP c_for(const std::string& var, const CExpr& bound, std::vector<CStmtP> body,
             const std::string& var_type = "int");
CStmtP c_if(const CExpr& cond, std::vector<CStmtP> then, std::vector<CStmtP> orelse = {});
CStmtP c_pragma(const std::string& text);
CStmtP c_comment(const std::string& text);
CStmtP c_raw(const std::string& text);

// Whether C text mentions the identifier `id` (as a whole word).
bool mentions_identifier(const std::string& text, const std::string& id);

// Print statements at the given indentation (two spaces per level).
std::string print(const CStmtP& s, int indent = 1);

}  // namespace risec::codegen
