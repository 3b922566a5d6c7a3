// The reference work's transfer measurement redone: 1,000,000 options copied host -> device,
// priced (call and put), and copied back, from pageable and from pinned host memory,
// and the same cut into chunks whose copies overlap the kernel on several streams.
// The end-to-end rows are what a caller whose options live in host memory gets.

#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "black_scholes_bench.hpp"
#include "published_figures.hpp"
#include "src/core/check.hpp"

namespace cunum::bench::black_scholes {

namespace {

constexpr std::int64_t kReferenceOptions = 1000000;
constexpr int kOverlapChunks = 16;
constexpr int kOverlapStreams = 4;

// The published G80 transfer times for the reference work's 1,000,000 float
// options.
const PublishedFigures& published_figures() {
  static const PublishedFigures figures{
      {"host -> device, S K T, pageable", "float32", kReferenceOptions, "G80 (published): 10.496 ms"},
      {"device -> host, call put, pageable", "float32", kReferenceOptions, "G80 (published): 15.471 ms"},
      {"host -> device, S K T, pinned", "float32", kReferenceOptions, "G80 (published): 3.714 ms"},
      {"device -> host, call put, pinned", "float32", kReferenceOptions, "G80 (published): 2.607 ms"},
  };
  return figures;
}

// Page-locked host memory for n values.
template <class T>
class PinnedArray {
 public:
  explicit PinnedArray(std::size_t n) {
    CUNUM_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data_), n * sizeof(T)));
  }
  ~PinnedArray() { cudaFreeHost(data_); }
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;
  T* data() { return data_; }

 private:
  T* data_ = nullptr;
};

// The host side of one batch: inputs S, K, T and results call, put.
template <class T>
struct HostSide {
  T *spot, *strike, *expiry, *call, *put;
};

template <class T>
struct DeviceSide {
  DeviceBuffer<T> spot, strike, expiry, call, put;
  explicit DeviceSide(std::size_t n) : spot(n), strike(n), expiry(n), call(n), put(n) {}
};

template <class T>
void copy_in(const HostSide<T>& host, DeviceSide<T>& device, std::size_t first, std::size_t count,
             StreamHandle stream) {
  const std::size_t bytes = count * sizeof(T);
  CUNUM_CHECK(cudaMemcpyAsync(device.spot.data() + first, host.spot + first, bytes, cudaMemcpyHostToDevice, stream));
  CUNUM_CHECK(
      cudaMemcpyAsync(device.strike.data() + first, host.strike + first, bytes, cudaMemcpyHostToDevice, stream));
  CUNUM_CHECK(
      cudaMemcpyAsync(device.expiry.data() + first, host.expiry + first, bytes, cudaMemcpyHostToDevice, stream));
}

template <class T>
void copy_out(const HostSide<T>& host, DeviceSide<T>& device, std::size_t first, std::size_t count,
              StreamHandle stream) {
  const std::size_t bytes = count * sizeof(T);
  CUNUM_CHECK(cudaMemcpyAsync(host.call + first, device.call.data() + first, bytes, cudaMemcpyDeviceToHost, stream));
  CUNUM_CHECK(cudaMemcpyAsync(host.put + first, device.put.data() + first, bytes, cudaMemcpyDeviceToHost, stream));
}

template <class T>
void price(const BlackScholesPricer<T>& pricer, const BlackScholesMarket<T>& market, DeviceSide<T>& device,
           std::size_t first, std::size_t count, StreamHandle stream) {
  BlackScholesResults<T> results;
  results.call = device.call.data() + first;
  results.put = device.put.data() + first;
  pricer.price(static_cast<std::int64_t>(count), device.spot.data() + first, device.strike.data() + first,
               device.expiry.data() + first, market, results, stream);
}

template <class T>
void bench_transfers(Context& context, const char* memory, const HostSide<T>& host, const Book<T>& book,
                     const std::vector<T>& expected_call) {
  const std::size_t n = static_cast<std::size_t>(book.size());
  const BlackScholesPricer<T> pricer({BlackScholesOutput::call, BlackScholesOutput::put}, Backend::cuda);
  BlackScholesMarket<T> market;
  market.rates.rate = book.scalar_rate;
  market.volatility = book.scalar_volatility;
  DeviceSide<T> device(n);
  std::vector<Stream> streams(kOverlapStreams);
  const StreamHandle stream = streams.front();
  const auto add_row = [&](const std::string& what, double ms, int arrays) {
    BenchRow row = bench_row(kModule, what + ", " + memory, precision_name<T>(), book.size());
    row.median_ms = ms;
    row.bytes_moved = static_cast<double>(n) * sizeof(T) * arrays;
    row.note = options_per_second(book.size(), ms) + " end to end; bytes cross PCIe (the % column is of the device copy)";
    published_figures().annotate(row);
    context.report.add(row);
  };
  std::fill(host.call, host.call + n, T(-1));
  add_row("host -> device, S K T", median_host_ms(context.options, [&] {
            copy_in(host, device, 0, n, stream);
            synchronize(stream);
          }),
          3);
  price(pricer, market, device, 0, n, stream);
  add_row("device -> host, call put", median_host_ms(context.options, [&] {
            copy_out(host, device, 0, n, stream);
            synchronize(stream);
          }),
          2);
  const auto check = [&](const char* what) {
    check_close(context.failures, std::string(what) + " " + memory + " " + precision_name<T>(),
                std::vector<T>(host.call, host.call + n), expected_call, device_tolerance<T>());
    std::fill(host.call, host.call + n, T(-1));
  };
  check("transfers");
  const auto serial = [&] {
    copy_in(host, device, 0, n, stream);
    price(pricer, market, device, 0, n, stream);
    copy_out(host, device, 0, n, stream);
    synchronize(stream);
  };
  add_row("end to end: copy in, price, copy out", median_host_ms(context.options, serial), 5);
  check("end to end");
  const auto overlapped = [&] {
    const std::size_t chunk = (n + kOverlapChunks - 1) / kOverlapChunks;
    for (int c = 0; c < kOverlapChunks; ++c) {
      const std::size_t first = std::min(n, c * chunk);
      const std::size_t count = std::min(chunk, n - first);
      const StreamHandle chunk_stream = streams[static_cast<std::size_t>(c % kOverlapStreams)];
      copy_in(host, device, first, count, chunk_stream);
      price(pricer, market, device, first, count, chunk_stream);
      copy_out(host, device, first, count, chunk_stream);
    }
    for (const Stream& s : streams) synchronize(s);
  };
  add_row("end to end, " + std::to_string(kOverlapChunks) + " chunks on " + std::to_string(kOverlapStreams) +
              " streams",
          median_host_ms(context.options, overlapped), 5);
  check("overlapped");
}

template <class T>
void bench_transfers(Context& context) {
  const Book<T> book = reference_book<T>(kReferenceOptions);
  const std::size_t n = static_cast<std::size_t>(book.size());
  const BlackScholesPricer<T> cpu({BlackScholesOutput::call}, Backend::cpu);
  BlackScholesMarket<T> market;
  market.rates.rate = book.scalar_rate;
  market.volatility = book.scalar_volatility;
  const std::vector<T> expected_call = cpu.price(book.spot, book.strike, book.expiry, market).call;

  std::vector<T> call(n), put(n);
  std::vector<T> spot = book.spot, strike = book.strike, expiry = book.expiry;
  bench_transfers(context, "pageable", HostSide<T>{spot.data(), strike.data(), expiry.data(), call.data(), put.data()},
                  book, expected_call);

  PinnedArray<T> pinned_spot(n), pinned_strike(n), pinned_expiry(n), pinned_call(n), pinned_put(n);
  std::copy(book.spot.begin(), book.spot.end(), pinned_spot.data());
  std::copy(book.strike.begin(), book.strike.end(), pinned_strike.data());
  std::copy(book.expiry.begin(), book.expiry.end(), pinned_expiry.data());
  bench_transfers(context, "pinned",
                  HostSide<T>{pinned_spot.data(), pinned_strike.data(), pinned_expiry.data(), pinned_call.data(),
                              pinned_put.data()},
                  book, expected_call);
}

}  // namespace

void transfer_section(Context& context) {
  bench_transfers<float>(context);
  bench_transfers<double>(context);
}

}  // namespace cunum::bench::black_scholes
