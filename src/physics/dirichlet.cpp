// Dirichlet regions and the predicate language (see dirichlet.hpp).
#include <wobble/physics/dirichlet.hpp>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble::physics {
namespace {

// Recursive-descent parser: or := and ('||' and)*; and := cmp ('&&' cmp)*;
// cmp := '!' cmp | '(' or ')' | box(...) | expr op expr; expr := term (('+'|'-') term)*;
// term := factor (('*'|'/') factor)*; factor := number | x | y | z | abs(expr) | '-' factor | '(' expr ')'.
using Scalar = std::function<double(const Vec3d&)>;

class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}
  Predicate parse() {
    Predicate p = parse_or();
    skip();
    if (i_ != s_.size()) error("unexpected text");
    return p;
  }

 private:
  [[noreturn]] void error(std::string_view what) const {
    fail_plain("pin predicate '{}': {} at position {}", s_, what, i_ + 1);
  }
  // Nesting (parentheses, !, unary minus, abs) deeper than this is refused: the parser recurses
  // once per level and a long enough "((((..." would overflow the stack.
  static constexpr int kMaxNesting = 64;
  struct Nesting {
    explicit Nesting(Parser& parser) : p(parser) {
      if (++p.depth_ > kMaxNesting) {
        --p.depth_;
        p.error(fmt::format("nested more than {} levels deep", kMaxNesting));
      }
    }
    ~Nesting() { --p.depth_; }
    Parser& p;
  };
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(const char* token) {
    skip();
    const std::size_t n = std::char_traits<char>::length(token);
    if (s_.compare(i_, n, token) == 0) {
      i_ += n;
      return true;
    }
    return false;
  }
  Predicate parse_or() {
    Predicate left = parse_and();
    while (eat("||")) {
      Predicate right = parse_and();
      left = [left, right](const Vec3d& X) { return left(X) || right(X); };
    }
    return left;
  }
  Predicate parse_and() {
    Predicate left = parse_cmp();
    while (eat("&&")) {
      Predicate right = parse_cmp();
      left = [left, right](const Vec3d& X) { return left(X) && right(X); };
    }
    return left;
  }
  Predicate parse_cmp() {
    const Nesting nesting(*this);
    if (eat("!")) {
      Predicate p = parse_cmp();
      return [p](const Vec3d& X) { return !p(X); };
    }
    if (eat("box(")) {
      double v[6];
      for (int k = 0; k < 6; ++k) {
        v[k] = number();
        if (k < 5 && !eat(",")) error("expected ','");
      }
      if (!eat(")")) error("expected ')'");
      const Vec3d lo(v[0], v[1], v[2]), hi(v[3], v[4], v[5]);
      return [lo, hi](const Vec3d& X) { return (X.array() >= lo.array()).all() && (X.array() <= hi.array()).all(); };
    }
    // A parenthesised predicate, or a parenthesised arithmetic expression starting a comparison.
    const std::size_t save = i_;
    if (eat("(")) {
      try {
        Predicate p = parse_or();
        if (eat(")")) {
          skip();
          if (i_ >= s_.size() || s_[i_] == '&' || s_[i_] == '|' || s_[i_] == ')') return p;
        }
      } catch (const Error&) {
      }
      i_ = save;
    }
    Scalar a = parse_expr();
    std::string op;
    for (const char* candidate : {"<=", ">=", "==", "<", ">"})
      if (eat(candidate)) {
        op = candidate;
        break;
      }
    if (op.empty()) error("expected a comparison (<, <=, >, >=)");
    Scalar b = parse_expr();
    if (op == "<") return [a, b](const Vec3d& X) { return a(X) < b(X); };
    if (op == "<=") return [a, b](const Vec3d& X) { return a(X) <= b(X); };
    if (op == ">") return [a, b](const Vec3d& X) { return a(X) > b(X); };
    if (op == ">=") return [a, b](const Vec3d& X) { return a(X) >= b(X); };
    return [a, b](const Vec3d& X) { return std::abs(a(X) - b(X)) < 1e-12; };
  }
  Scalar parse_expr() {
    Scalar left = parse_term();
    for (;;) {
      if (eat("+")) {
        Scalar r = parse_term();
        left = [left, r](const Vec3d& X) { return left(X) + r(X); };
      } else if (peek_minus()) {
        ++i_;
        Scalar r = parse_term();
        left = [left, r](const Vec3d& X) { return left(X) - r(X); };
      } else {
        return left;
      }
    }
  }
  bool peek_minus() {
    skip();
    return i_ < s_.size() && s_[i_] == '-';
  }
  Scalar parse_term() {
    Scalar left = parse_factor();
    for (;;) {
      if (eat("*")) {
        Scalar r = parse_factor();
        left = [left, r](const Vec3d& X) { return left(X) * r(X); };
      } else if (eat("/")) {
        Scalar r = parse_factor();
        left = [left, r](const Vec3d& X) { return left(X) / r(X); };
      } else {
        return left;
      }
    }
  }
  Scalar parse_factor() {
    const Nesting nesting(*this);
    skip();
    if (eat("abs(")) {
      Scalar e = parse_expr();
      if (!eat(")")) error("expected ')'");
      return [e](const Vec3d& X) { return std::abs(e(X)); };
    }
    if (eat("(")) {
      Scalar e = parse_expr();
      if (!eat(")")) error("expected ')'");
      return e;
    }
    if (eat("-")) {
      Scalar f = parse_factor();
      return [f](const Vec3d& X) { return -f(X); };
    }
    if (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == 'x' || c == 'y' || c == 'z') {
        ++i_;
        const int axis = c - 'x';
        return [axis](const Vec3d& X) { return X[axis]; };
      }
    }
    const double value = number();
    return [value](const Vec3d&) { return value; };
  }
  double number() {
    skip();
    const char* begin = s_.c_str() + i_;
    char* end = nullptr;
    const double value = std::strtod(begin, &end);
    if (end == begin) error("expected a number or x, y, z");
    i_ += static_cast<std::size_t>(end - begin);
    return value;
  }

  std::string s_;
  int depth_ = 0;
  std::size_t i_ = 0;
};

}  // namespace

Predicate parse_predicate(const std::string& text) {
  if (text.find_first_not_of(" \t") == std::string::npos) fail_plain("pin predicate is empty");
  return Parser(text).parse();
}

DirichletRegion::DirichletRegion(Predicate inside, std::vector<Vec3d> anchors, double blend)
    : inside_(std::move(inside)), anchors_(std::move(anchors)), blend_(blend) {
  if (!(blend > 0)) fail_plain("pin blend width must be positive (got {})", blend);
}

double DirichletRegion::modulation(const Vec3d& X, Vec3d* gradient) const {
  if (gradient) gradient->setZero();
  if (anchors_.empty()) return 1.0;
  if (inside_ && inside_(X)) return 0.0;
  double best = 1e300;
  Vec3d nearest = Vec3d::Zero();
  for (const Vec3d& a : anchors_) {
    const double d2 = (X - a).squaredNorm();
    if (d2 < best) {
      best = d2;
      nearest = a;
    }
  }
  const double distance = std::sqrt(best);
  const double t = distance / blend_;
  if (t >= 1.0) return 1.0;
  const double value = t * t * (3.0 - 2.0 * t);
  if (gradient && distance > 0) *gradient = (6.0 * t * (1.0 - t) / blend_) * (X - nearest) / distance;
  return value;
}

}  // namespace wobble::physics
