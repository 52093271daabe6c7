// The price of a European call option by Monte Carlo: every iteration of a parallel loop draws one
// standard normal from its own Philox stream (loom::Philox g(seed, i): no state array, the same
// numbers on every target), simulates the stock at expiry under geometric Brownian motion and
// adds the payoff to a deterministic sum. Checked against the Black-Scholes formula, within five
// standard errors of the estimate.
#include "Report.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
  // A call struck at the money: spot 100, strike 100, a year to expiry, 5% rate, 20% volatility.
  const double spot = 100, strike = 100, years = 1, rate = 0.05, volatility = 0.2;

  auto paths = loom::kernel("option_paths",
                            [](loom::U64 seed, loom::F64 drift, loom::F64 diffusion, loom::F64 spot,
                               loom::F64 strike, loom::I64 n, loom::Array<double> sums) {
                              loom::parallel_for(n, [&](loom::Index i) {
                                loom::Philox g(seed, i); // stream i: this path's own numbers
                                loom::F64 at_expiry =
                                    spot * loom::exp(drift + diffusion * g.normal());
                                loom::F64 payoff = loom::max(at_expiry - strike, 0.0);
                                sums[0] += payoff; // reductions: combined in a fixed order
                                sums[1] += payoff * payoff;
                              });
                            },
                            {"seed", "drift", "diffusion", "spot", "strike", "n", "sums"});

  const bool gpu = loom::choose_target().target == loom::Target::GPU;
  const int64_t n = int64_t(1) << (gpu ? 26 : 22);
  std::printf("European call by Monte Carlo, %lld paths, on %s\n", static_cast<long long>(n),
              example::where_it_runs().c_str());
  std::vector<double> sums(2, 0.0);
  const double drift = (rate - volatility * volatility / 2) * years;
  const double diffusion = volatility * std::sqrt(years);
  double first =
      example::time_ms([&] { paths(uint64_t(20240611), drift, diffusion, spot, strike, n, sums); });
  std::vector<double> again(2, 0.0);
  double second = example::time_ms(
      [&] { paths(uint64_t(20240611), drift, diffusion, spot, strike, n, again); });
  std::printf("first call (trace, compile, run): %.2f ms; second call: %.2f ms (%s)\n", first,
              second, again == sums ? "the same sums, bit for bit" : "DIFFERENT sums");

  const double discount = std::exp(-rate * years);
  const double mean = sums[0] / double(n);
  const double price = discount * mean;
  const double deviation = std::sqrt(std::max(0.0, sums[1] / double(n) - mean * mean));
  const double standard_error = discount * deviation / std::sqrt(double(n));
  // Black-Scholes: S N(d1) - K e^-rT N(d2).
  auto cdf = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  const double d1 =
      (std::log(spot / strike) + (rate + volatility * volatility / 2) * years) / diffusion;
  const double d2 = d1 - diffusion;
  const double exact = spot * cdf(d1) - strike * discount * cdf(d2);
  std::printf("price %.5f, Black-Scholes %.5f, standard error %.5f\n", price, exact,
              standard_error);
  std::printf("%s", paths.explain().c_str());
  if (again != sums) {
    std::printf("option price: FAIL (two calls gave different sums)\n");
    return 1;
  }
  return example::verdict("option price", std::abs(price - exact) / exact,
                          5 * standard_error / exact);
}
