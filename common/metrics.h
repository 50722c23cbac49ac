// Metrics the broker keeps, and their Prometheus text exposition (format
// 0.0.4) at scrape time.
//
//   Counter    monotonic, add() from any thread (one relaxed atomic add)
//   Histogram  fixed upper bounds; observe() from any thread (relaxed atomics)
//   Family<M>  one metric name with label names; with(values) finds or makes
//              the series (a mutex): hot paths look a series up once and keep
//              the reference, which stays valid for the registry's lifetime.
//              At most max_series series; values beyond share one series whose
//              label values are all "_other", so cardinality stays bounded.
//   Registry   the families, plus collectors: callbacks that write values read
//              at scrape time (gauges such as log sizes or process memory).
//
// Thread rules: everything is safe to call from any thread; scrape() reads
// counters without stopping writers (each value is exact, the set of values
// is not one instant, as in every Prometheus client).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace skiff::metrics {

using LabelValues = std::vector<std::string>;

class Counter {
 public:
  void add(uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);  // ascending; +Inf is implied
  void observe(double value);

  struct Snapshot {
    std::vector<uint64_t> cumulative;  // per bound, then +Inf (== count)
    double sum = 0;
  };
  Snapshot snapshot() const;
  const std::vector<double>& upper_bounds() const { return bounds_; }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // bounds_.size() + 1
  std::atomic<double> sum_{0};
};

// Writes the exposition text: one family header, then its samples.
class Exposition {
 public:
  // type: "counter", "gauge" or "histogram".
  void family(std::string_view name, std::string_view type, std::string_view help);
  void sample(std::string_view name, const std::vector<std::string>& label_names, const LabelValues& values,
              double value);
  void histogram(std::string_view name, const std::vector<std::string>& label_names, const LabelValues& values,
                 const Histogram& h);
  const std::string& text() const { return out_; }

 private:
  void labels(const std::vector<std::string>& names, const LabelValues& values, std::string_view le = {});
  std::string out_;
};

template <class M>
class Family {
 public:
  Family(std::vector<std::string> label_names, std::function<std::unique_ptr<M>()> make, size_t max_series)
      : label_names_(std::move(label_names)), make_(std::move(make)), max_series_(max_series) {}

  M& with(const LabelValues& values) {
    std::lock_guard lock(mu_);
    if (auto it = series_.find(values); it != series_.end()) return *it->second;
    if (series_.size() >= max_series_) {
      LabelValues other(label_names_.size(), "_other");
      auto& slot = series_[other];
      if (!slot) slot = make_();
      return *slot;
    }
    return *(series_[values] = make_());
  }
  template <class F>
  void for_each(F&& f) const {
    std::lock_guard lock(mu_);
    for (const auto& [values, m] : series_) f(values, *m);
  }
  const std::vector<std::string>& label_names() const { return label_names_; }

 private:
  std::vector<std::string> label_names_;
  std::function<std::unique_ptr<M>()> make_;
  size_t max_series_;
  mutable std::mutex mu_;
  std::map<LabelValues, std::unique_ptr<M>> series_;
};

class Registry {
 public:
  static constexpr size_t kDefaultMaxSeries = 10000;

  Family<Counter>& counter(std::string name, std::string help, std::vector<std::string> label_names,
                           size_t max_series = kDefaultMaxSeries);
  Family<Histogram>& histogram(std::string name, std::string help, std::vector<std::string> label_names,
                               std::vector<double> upper_bounds, size_t max_series = kDefaultMaxSeries);
  // A family made above, by name; null if none (the web console reads totals).
  const Family<Counter>* find_counter(std::string_view name) const;
  const Family<Histogram>* find_histogram(std::string_view name) const;
  // Called at every scrape, in the order added, after the families.
  void add_collector(std::function<void(Exposition&)> collect);

  std::string scrape() const;

 private:
  struct Described {
    std::string name, help;
  };
  mutable std::mutex mu_;
  std::vector<std::pair<Described, std::unique_ptr<Family<Counter>>>> counters_;
  std::vector<std::pair<Described, std::unique_ptr<Family<Histogram>>>> histograms_;
  std::vector<std::function<void(Exposition&)>> collectors_;
};

}  // namespace skiff::metrics
