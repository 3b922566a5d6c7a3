// Prices a small book of options with its Greeks, then inverts a smile of market
// prices to implied volatilities, on the GPU when there is one (else on the CPU).

#include <cmath>
#include <cstdio>
#include <vector>

#include "cunum/black_scholes.hpp"

int main() {
  using namespace cunum;
  // A book: one underlying at 100, strikes 80..120, expiries of three months and a year.
  const std::vector<double> strikes = {80, 90, 100, 110, 120};
  std::vector<double> spot, strike, expiry;
  for (double t : {0.25, 1.0}) {
    for (double k : strikes) {
      spot.push_back(100);
      strike.push_back(k);
      expiry.push_back(t);
    }
  }
  BlackScholesMarket<double> market;
  market.rates.rate = 0.03;
  market.rates.dividend = 0.01;
  market.volatility = 0.20;

  const BlackScholesPricer<double> pricer(
      {BlackScholesOutput::call, BlackScholesOutput::put, BlackScholesOutput::delta_call, BlackScholesOutput::gamma,
       BlackScholesOutput::vega, BlackScholesOutput::theta_call},
      Backend::automatic);
  std::printf("backend: %s\n\n", to_string(pricer.backend()));
  const BlackScholesHostResults<double> book = pricer.price(spot, strike, expiry, market);
  std::printf("|    T |     K |     call |      put | delta C |   gamma |    vega | theta C |\n");
  std::printf("|-----:|------:|---------:|---------:|--------:|--------:|--------:|--------:|\n");
  for (std::size_t i = 0; i < spot.size(); ++i) {
    std::printf("| %4.2f | %5.1f | %8.4f | %8.4f | %7.4f | %7.5f | %7.4f | %7.4f |\n", expiry[i], strike[i],
                book.call[i], book.put[i], book.delta_call[i], book.gamma[i], book.vega[i], book.theta_call[i]);
  }

  // A smile: one-year call quotes made from a skewed volatility curve, plus one quote
  // below its intrinsic value, which the inversion rejects (NaN) without stopping.
  std::vector<double> smile_spot, smile_strike, smile_expiry, quoted_volatility;
  for (double k = 70; k <= 130; k += 10) {
    smile_spot.push_back(100);
    smile_strike.push_back(k);
    smile_expiry.push_back(1.0);
    quoted_volatility.push_back(0.20 - 0.10 * std::log(k / 100));
  }
  BlackScholesMarket<double> smile_market = market;
  smile_market.volatilities = quoted_volatility.data();
  std::vector<double> prices = BlackScholesPricer<double>({BlackScholesOutput::call}, Backend::cpu)
                                   .price(smile_spot, smile_strike, smile_expiry, smile_market)
                                   .call;
  smile_spot.push_back(100);
  smile_strike.push_back(90);
  smile_expiry.push_back(1.0);
  quoted_volatility.push_back(std::nan(""));
  prices.push_back(5.0);  // below the intrinsic value of about 11.9
  const ImpliedVolatilities<double> implied =
      pricer.implied_volatility(prices, smile_spot, smile_strike, smile_expiry, market.rates, OptionType::call);
  std::printf("\n|     K |    price | implied vol |  quoted vol |\n|------:|---------:|------------:|------------:|\n");
  for (std::size_t i = 0; i < prices.size(); ++i) {
    std::printf("| %5.1f | %8.4f | %11.8f | %11.8f |\n", smile_strike[i], prices[i], implied.volatility[i],
                quoted_volatility[i]);
  }
  std::printf("\nrejected quotes: %lld\n", static_cast<long long>(implied.rejected));
}
