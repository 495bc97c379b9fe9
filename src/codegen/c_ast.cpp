// The C AST's constructors and printer.
#include "codegen/c_ast.h"

#include <cctype>

namespace risec::codegen {

CExpr c_atom(std::string text) {
  return CExpr{std::move(text), kPrecAtom};
}

CExpr c_binary(const CExpr& a, const std::string& op, const CExpr& b, int prec) {
  // Left-associative: the right operand needs strictly tighter binding.
  return CExpr{a.at(prec) + " " + op + " " + b.at(prec + 1), prec};
}

CExpr c_unary(const std::string& op, const CExpr& a) {
  std::string operand = a.at(kPrecUnary);
  // `-` before `-x` (or `+` before `+x`) would read as the decrement `--x`: the
  // operand goes in parentheses, `-(-x)`.
  if (!op.empty() && !operand.empty() && (op.back() == '-' || op.back() == '+') &&
      operand.front() == op.back())
    operand = "(" + operand + ")";
  return CExpr{op + operand, kPrecUnary};
}

CExpr c_call(const std::string& fn, const std::vector<CExpr>& args) {
  std::string s = fn + "(";
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i].at(kPrecAssign);
  return CExpr{s + ")", kPrecPostfix};
}

CExpr c_index(const CExpr& base, const CExpr& index) {
  return CExpr{base.at(kPrecPostfix) + "[" + index.text + "]", kPrecPostfix};
}

CExpr c_member(const CExpr& base, const std::string& member) {
  return CExpr{base.at(kPrecPostfix) + "." + member, kPrecPostfix};
}

CExpr c_cond(const CExpr& c, const CExpr& a, const CExpr& b) {
  return CExpr{c.at(kPrecOr) + " ? " + a.at(kPrecAssign) + " : " + b.at(kPrecCond), kPrecCond};
}

CExpr c_cast(const std::string& type, const CExpr& a) {
  return CExpr{"(" + type + ")" + a.at(kPrecUnary), kPrecUnary};
}

CExpr c_compound(const std::string& type, const std::vector<CExpr>& elems) {
  std::string s = "((" + type + "){";
  for (size_t i = 0; i < elems.size(); ++i) s += (i ? ", " : "") + elems[i].at(kPrecAssign);
  return CExpr{s + "})", kPrecAtom};
}

static CStmtP make(CStmt s) {
  return std::make_shared<CStmt>(std::move(s));
}

CStmtP c_block(std::vector<CStmtP> body) {
  CStmt s{CStmt::Block};
  s.body = std::move(body);
  return make(std::move(s));
}
CStmtP c_scope(std::vector<CStmtP> body) {
  CStmt s{CStmt::Scope};
  s.body = std::move(body);
  return make(std::move(s));
}
CStmtP c_decl(const std::string& text) {
  return make(CStmt{CStmt::Decl, text});
}
CStmtP c_expr_stmt(const std::string& text) {
  return make(CStmt{CStmt::Expr, text});
}
CStmtP c_assign(const CExpr& lhs, const CExpr& rhs) {
  return c_expr_stmt(lhs.text + " = " + rhs.at(kPrecAssign));
}
CStmtP c_for(const std::string& var, const CExpr& bound, std::vector<CStmtP> body,
             const std::string& var_type) {
  CStmt s{CStmt::For};
  s.var = var;
  s.var_type = var_type;
  s.cond_bound = bound;
  s.body = std::move(body);
  return make(std::move(s));
}
CStmtP c_if(const CExpr& cond, std::vector<CStmtP> then, std::vector<CStmtP> orelse) {
  CStmt s{CStmt::If};
  s.cond = cond;
  s.body = std::move(then);
  s.orelse = std::move(orelse);
  return make(std::move(s));
}
CStmtP c_pragma(const std::string& text) {
  return make(CStmt{CStmt::Pragma, text});
}
CStmtP c_comment(const std::string& text) {
  return make(CStmt{CStmt::Comment, text});
}
CStmtP c_raw(const std::string& text) {
  return make(CStmt{CStmt::Raw, text});
}

static void print_into(const CStmtP& s, int indent, std::string& out) {
  std::string pad(static_cast<size_t>(indent) * 2, ' ');
  switch (s->kind) {
    case CStmt::Block:
      for (const CStmtP& x : s->body) print_into(x, indent, out);
      return;
    case CStmt::Scope:
      out += pad + "{\n";
      for (const CStmtP& x : s->body) print_into(x, indent + 1, out);
      out += pad + "}\n";
      return;
    case CStmt::Decl:
    case CStmt::Expr:
      out += pad + s->text + ";\n";
      return;
    case CStmt::Raw:
      out += pad + s->text + "\n";
      return;
    case CStmt::Pragma:
      out += pad + "#pragma " + s->text + "\n";
      return;
    case CStmt::Comment:
      out += pad + "/* " + s->text + " */\n";
      return;
    case CStmt::For:
      out += pad + "for (" + s->var_type + " " + s->var + " = " +
             (s->init.text.empty() ? "0" : s->init.at(kPrecAssign)) + "; " + s->var + " < " +
             s->cond_bound.at(kPrecRel + 1) + "; " + s->var +
             " += " + (s->step.text.empty() ? "1" : s->step.at(kPrecAssign)) + ") {\n";
      for (const CStmtP& x : s->body) print_into(x, indent + 1, out);
      out += pad + "}\n";
      return;
    case CStmt::If:
      out += pad + "if (" + s->cond.text + ") {\n";
      for (const CStmtP& x : s->body) print_into(x, indent + 1, out);
      if (!s->orelse.empty()) {
        out += pad + "} else {\n";
        for (const CStmtP& x : s->orelse) print_into(x, indent + 1, out);
      }
      out += pad + "}\n";
      return;
  }
}

bool mentions_identifier(const std::string& text, const std::string& id) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find(id); at != std::string::npos; at = text.find(id, at + 1)) {
    bool before = at > 0 && word(text[at - 1]);
    bool after = at + id.size() < text.size() && word(text[at + id.size()]);
    if (!before && !after) return true;
  }
  return false;
}

std::string print(const CStmtP& s, int indent) {
  std::string out;
  print_into(s, indent, out);
  return out;
}

}  // namespace risec::codegen
