// Checked integer helpers and the Rational coefficient type.
#include "arith/rational.h"

#include <numeric>

#include "arith/nat.h"

namespace risec::arith {

int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw ArithError("integer overflow in size arithmetic");
  return r;
}
int64_t checked_sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) throw ArithError("integer overflow in size arithmetic");
  return r;
}
int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw ArithError("integer overflow in size arithmetic");
  return r;
}
int64_t floor_div(int64_t a, int64_t b) {
  if (b == 0) throw ArithError("division by zero");
  if (b == -1) return checked_sub(0, a);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t floor_mod(int64_t a, int64_t b) {
  if (b == 0) throw ArithError("modulo by zero");
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
int64_t checked_pow(int64_t base, int64_t exponent) {
  if (exponent < 0) throw ArithError("negative exponent in size arithmetic");
  // Square and multiply: the squares only overflow when the result does too.
  int64_t r = 1;
  for (;;) {
    if (exponent & 1) r = checked_mul(r, base);
    exponent >>= 1;
    if (exponent == 0) return r;
    base = checked_mul(base, base);
  }
}
int64_t gcd64(int64_t a, int64_t b) {
  // Work in unsigned to avoid overflow on INT64_MIN.
  uint64_t x = a < 0 ? uint64_t(0) - uint64_t(a) : uint64_t(a);
  uint64_t y = b < 0 ? uint64_t(0) - uint64_t(b) : uint64_t(b);
  uint64_t g = std::gcd(x, y);
  if (g > uint64_t(INT64_MAX)) throw ArithError("integer overflow in size arithmetic");
  return int64_t(g);
}
int64_t lcm64(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  int64_t g = gcd64(a, b);
  int64_t r = checked_mul(a / g, b);
  return r < 0 ? checked_sub(0, r) : r;
}

Rational::Rational(int64_t n, int64_t d) {
  if (d == 0) throw ArithError("division by zero");
  if (d < 0) {
    n = checked_sub(0, n);
    d = checked_sub(0, d);
  }
  int64_t g = gcd64(n, d);
  if (g > 1) {
    n /= g;
    d /= g;
  }
  num_ = n;
  den_ = d;
}

Rational Rational::operator+(const Rational& o) const {
  if (den_ == 1 && o.den_ == 1) return Rational(checked_add(num_, o.num_));
  int64_t g = gcd64(den_, o.den_);
  int64_t l = checked_mul(den_ / g, o.den_);
  int64_t a = checked_mul(num_, l / den_);
  int64_t b = checked_mul(o.num_, l / o.den_);
  return Rational(checked_add(a, b), l);
}
Rational Rational::operator-(const Rational& o) const {
  return *this + (-o);
}
Rational Rational::operator-() const {
  Rational r;
  r.num_ = checked_sub(0, num_);
  r.den_ = den_;
  return r;
}
Rational Rational::operator*(const Rational& o) const {
  if (den_ == 1 && o.den_ == 1) return Rational(checked_mul(num_, o.num_));
  int64_t g1 = gcd64(num_, o.den_);
  int64_t g2 = gcd64(o.num_, den_);
  if (g1 == 0) g1 = 1;
  if (g2 == 0) g2 = 1;
  return Rational(checked_mul(num_ / g1, o.num_ / g2), checked_mul(den_ / g2, o.den_ / g1));
}
Rational Rational::operator/(const Rational& o) const {
  if (o.num_ == 0) throw ArithError("division by zero");
  return *this * Rational(o.den_, o.num_);
}
bool Rational::operator<(const Rational& o) const {
  // Compare num_/den_ < o.num_/o.den_ without overflow: (*this - o) < 0 is exact
  // when it fits, else fall back to long double.
  int64_t a, b;
  if (!__builtin_mul_overflow(num_, o.den_, &a) && !__builtin_mul_overflow(o.num_, den_, &b))
    return a < b;
  return static_cast<long double>(num_) / den_ < static_cast<long double>(o.num_) / o.den_;
}
int64_t Rational::floor() const {
  return floor_div(num_, den_);
}
std::string Rational::to_string() const {
  return den_ == 1 ? std::to_string(num_) : std::to_string(num_) + "/" + std::to_string(den_);
}

}  // namespace risec::arith
