// Exact rational numbers over 64-bit integers with overflow detection. They are the
// coefficients of Nat sums: exact division by a constant (`n/4` in a type) becomes
// the coefficient 1/4, so `(n/4)*4` is `n` by construction.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace risec::arith {

class Rational {
 public:
  constexpr Rational() = default;
  constexpr Rational(int64_t n) : num_(n) {}  // NOLINT: implicit on purpose
  Rational(int64_t n, int64_t d);             // normalises; d != 0

  int64_t num() const { return num_; }
  int64_t den() const { return den_; }
  bool is_int() const { return den_ == 1; }
  bool is_zero() const { return num_ == 0; }
  int sign() const { return num_ > 0 ? 1 : (num_ < 0 ? -1 : 0); }

  Rational operator+(const Rational& o) const;
  Rational operator-(const Rational& o) const;
  Rational operator*(const Rational& o) const;
  Rational operator/(const Rational& o) const;
  Rational operator-() const;
  bool operator==(const Rational& o) const = default;
  bool operator<(const Rational& o) const;
  bool operator<=(const Rational& o) const { return *this < o || *this == o; }

  // floor(this), for integral results of exact computations.
  int64_t floor() const;
  std::string to_string() const;

 private:
  int64_t num_ = 0;
  int64_t den_ = 1;
};

// Checked 64-bit helpers; throw ArithError (see nat.h) on overflow.
int64_t checked_add(int64_t a, int64_t b);
int64_t checked_sub(int64_t a, int64_t b);
int64_t checked_mul(int64_t a, int64_t b);
int64_t floor_div(int64_t a, int64_t b);              // b != 0
int64_t floor_mod(int64_t a, int64_t b);              // b != 0
int64_t checked_pow(int64_t base, int64_t exponent);  // exponent >= 0
int64_t gcd64(int64_t a, int64_t b);                  // >= 0
int64_t lcm64(int64_t a, int64_t b);                  // checked

}  // namespace risec::arith
