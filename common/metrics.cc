#include "common/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace skiff::metrics {
namespace {

std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;  // the shortest text that reads back as v
  return std::string(buf, end);
}

// Label values: backslash, double quote and line feed escaped; HELP text:
// backslash and line feed (the exposition format's rules).
std::string escaped(std::string_view s, bool quote) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quote) {
      out += "\\\"";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), buckets_(new std::atomic<uint64_t>[bounds_.size() + 1]) {
  for (size_t i = 0; i <= bounds_.size(); ++i) buckets_[i].store(0, std::memory_order_relaxed);
}

void Histogram::observe(double value) {
  const auto at = std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin();
  buckets_[at].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::snapshot() const {
  Snapshot s;
  uint64_t running = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative.push_back(running);
  }
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

void Exposition::family(std::string_view name, std::string_view type, std::string_view help) {
  out_.append("# HELP ").append(name).append(" ").append(escaped(help, false)).append("\n");
  out_.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

void Exposition::labels(const std::vector<std::string>& names, const LabelValues& values, std::string_view le) {
  if (names.empty() && le.empty()) return;
  out_.push_back('{');
  for (size_t i = 0; i < names.size() && i < values.size(); ++i)
    out_.append(i ? "," : "").append(names[i]).append("=\"").append(escaped(values[i], true)).append("\"");
  if (!le.empty()) out_.append(names.empty() ? "" : ",").append("le=\"").append(le).append("\"");
  out_.push_back('}');
}

void Exposition::sample(std::string_view name, const std::vector<std::string>& label_names, const LabelValues& values,
                        double value) {
  out_.append(name);
  labels(label_names, values);
  out_.append(" ").append(number(value)).append("\n");
}

void Exposition::histogram(std::string_view name, const std::vector<std::string>& label_names,
                           const LabelValues& values, const Histogram& h) {
  const auto snap = h.snapshot();
  const auto& bounds = h.upper_bounds();
  const std::string bucket = std::string(name) + "_bucket";
  for (size_t i = 0; i <= bounds.size(); ++i) {
    out_.append(bucket);
    labels(label_names, values, i < bounds.size() ? number(bounds[i]) : "+Inf");
    out_.append(" ").append(number(static_cast<double>(snap.cumulative[i]))).append("\n");
  }
  sample(std::string(name) + "_sum", label_names, values, snap.sum);
  sample(std::string(name) + "_count", label_names, values, static_cast<double>(snap.cumulative.back()));
}

Family<Counter>& Registry::counter(std::string name, std::string help, std::vector<std::string> label_names,
                                   size_t max_series) {
  std::lock_guard lock(mu_);
  auto family = std::make_unique<Family<Counter>>(
      std::move(label_names), [] { return std::make_unique<Counter>(); }, max_series);
  counters_.emplace_back(Described{std::move(name), std::move(help)}, std::move(family));
  return *counters_.back().second;
}

const Family<Counter>* Registry::find_counter(std::string_view name) const {
  std::lock_guard lock(mu_);
  for (const auto& [described, family] : counters_)
    if (described.name == name) return family.get();
  return nullptr;
}

const Family<Histogram>* Registry::find_histogram(std::string_view name) const {
  std::lock_guard lock(mu_);
  for (const auto& [described, family] : histograms_)
    if (described.name == name) return family.get();
  return nullptr;
}

Family<Histogram>& Registry::histogram(std::string name, std::string help, std::vector<std::string> label_names,
                                       std::vector<double> upper_bounds, size_t max_series) {
  std::lock_guard lock(mu_);
  auto family = std::make_unique<Family<Histogram>>(
      std::move(label_names), [b = std::move(upper_bounds)] { return std::make_unique<Histogram>(b); }, max_series);
  histograms_.emplace_back(Described{std::move(name), std::move(help)}, std::move(family));
  return *histograms_.back().second;
}

void Registry::add_collector(std::function<void(Exposition&)> collect) {
  std::lock_guard lock(mu_);
  collectors_.push_back(std::move(collect));
}

std::string Registry::scrape() const {
  Exposition out;
  std::lock_guard lock(mu_);
  for (const auto& entry : counters_) {
    const auto& [d, family] = entry;
    out.family(d.name, "counter", d.help);
    const auto& name = d.name;
    const auto& labels = family->label_names();
    family->for_each([&out, &name, &labels](const LabelValues& v, const Counter& c) {
      out.sample(name, labels, v, static_cast<double>(c.value()));
    });
  }
  for (const auto& entry : histograms_) {
    const auto& [d, family] = entry;
    out.family(d.name, "histogram", d.help);
    const auto& name = d.name;
    const auto& labels = family->label_names();
    family->for_each(
        [&out, &name, &labels](const LabelValues& v, const Histogram& h) { out.histogram(name, labels, v, h); });
  }
  for (const auto& collect : collectors_) collect(out);
  return out.text();
}

}  // namespace skiff::metrics
