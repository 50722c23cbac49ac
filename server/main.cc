// skiff: the broker binary. Parses the command line and the configuration,
// starts KafkaServer and runs until SIGTERM/SIGINT (graceful shutdown, exit 0;
// a second signal exits at once).
//
// Exit codes: 0 clean shutdown; 1 startup failure (port in use, unwritable
// log dir, ...); 2 bad command line or configuration.
#include <fmt/format.h>
#include <malloc.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <thread>

#include "config/config_loader.h"
#include "server/command_line.h"
#include "server/health_check.h"
#include "server/kafka_server.h"
#include "server/list_apis.h"
#include "server/logging.h"
#include "server/version.h"

using namespace skiff;

namespace {

// Signals are taken synchronously by sigwait, so they are blocked in every
// thread; this must run before any thread starts.
sigset_t block_shutdown_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return set;
}

// Large request frames (up to socket.request.max.bytes) are allocated on a
// Processor thread and freed on a handler thread. With glibc's default, the
// mmap threshold grows to the largest block freed, after which such frames
// come from per-thread arenas that keep the freed memory: RSS then holds
// several frames more than queued.max.request.bytes admits. A fixed threshold
// maps and unmaps every block of 1 MiB and more, so freed frames leave RSS.
void pin_mmap_threshold() { mallopt(M_MMAP_THRESHOLD, 1024 * 1024); }

int wait_for_signal(const sigset_t& set) {
  int sig = 0;
  while (sigwait(&set, &sig) != 0) {
  }
  return sig;
}

// The flags answered without a broker: --help, --version, --healthcheck,
// --list-apis. nullopt: none of them, start the broker.
std::optional<int> answer_without_broker(const server::CommandLine& cl) {
  if (cl.help) {
    fmt::print("{}\n", cl.help_text);
    return 0;
  }
  if (cl.version) {
    fmt::print("skiff {}\n", server::kVersion);
    return 0;
  }
  if (cl.healthcheck) return server::run_health_check(cl);
  if (cl.list_apis) return server::run_list_apis();
  return std::nullopt;
}

// The lines test suites wait for before they use a Kafka container, printed
// once the listeners accept and the handlers serve (startup() has returned):
// Kafka's own, which Testcontainers matches. Java's KafkaContainer (for
// apache/kafka) waits for "Transitioning from RECOVERY to RUNNING",
// Python's KafkaContainer for "[KafkaServer id=N] started" or, in KRaft
// mode, "Kafka Server started" (docs/operations/container.md).
void announce_ready(spdlog::logger& log, int32_t node_id) {
  log.info("[BrokerLifecycleManager id={}] The broker is serving. Transitioning from RECOVERY to RUNNING.", node_id);
  log.info("[KafkaServer id={}] started (Kafka Server started)", node_id);
}

// Logging, startup, the wait for SIGTERM/SIGINT and a graceful shutdown (a
// second signal exits at once). Returns the exit code.
int run_broker(const config::BrokerConfig& cfg, const sigset_t& signals,
               std::chrono::steady_clock::time_point started) {
  try {
    server::setup_logging(cfg.log_level, cfg.log_file);
  } catch (const std::exception& e) {
    fmt::print(stderr, "skiff: cannot open log file '{}': {}\n", cfg.log_file, e.what());
    return 1;
  }
  auto log = spdlog::default_logger();
  for (const auto& w : cfg.warnings) log->warn("{}", w);

  server::KafkaServer broker(cfg);
  try {
    broker.startup();
  } catch (const server::TlsStartupError& e) {  // bad key material: a configuration error
    log->critical("configuration error: {}", e.what());
    spdlog::shutdown();
    return 2;
  } catch (const server::TieredStorageStartError& e) {  // the object store refused the bucket or credentials
    log->critical("configuration error: {}", e.what());
    spdlog::shutdown();
    return 2;
  } catch (const std::exception& e) {
    log->critical("startup failed: {}", e.what());
    spdlog::shutdown();
    return 1;
  }
  log->info("{}", broker.http_summary());             // tests read an ephemeral HTTP port from this line
  log->info("{}", broker.schema_registry_summary());  // ... and the registry's
  log->info("{}", broker.rest_proxy_summary());
  auto elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  log->info("Skiff {} started in {:.1f} ms (node.id={}, log.dirs={}): {}", server::kVersion, elapsed, cfg.node_id,
            fmt::join(cfg.log_dirs, ","), broker.listeners_summary());
  announce_ready(*log, cfg.node_id);
  log->flush();

  int sig = wait_for_signal(signals);
  log->info("received {}, shutting down gracefully (send it again to exit at once)", strsignal(sig));
  std::thread([signals] {
    wait_for_signal(signals);
    std::fputs("skiff: second signal, exiting at once\n", stderr);
    _exit(130);
  }).detach();

  broker.shutdown();
  spdlog::shutdown();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  auto started = std::chrono::steady_clock::now();
  pin_mmap_threshold();
  sigset_t signals = block_shutdown_signals();

  server::CommandLine cl;
  try {
    cl = server::parse_command_line(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "skiff: {}\nTry 'skiff --help'.\n", e.what());
    return 2;
  }
  if (auto code = answer_without_broker(cl)) return *code;

  config::BrokerConfig cfg;
  try {
    cfg = config::load_config({cl.config_file, config::process_environment(), cl.overrides});
  } catch (const config::ConfigError& e) {
    fmt::print(stderr, "skiff: configuration error: {}\n", e.what());
    return 2;
  }
  if (cl.print_config) {
    fmt::print("{}", config::describe_config(cfg));
    return 0;
  }
  return run_broker(cfg, signals, started);
}
