#include "tests/support/broker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <regex>
#include <stdexcept>
#include <thread>

#ifndef SKIFF_BINARY
#error "SKIFF_BINARY must name the skiff executable"
#endif

namespace skiff::test {
namespace {

// Starts skiff with stdout and stderr on `child_out`.
pid_t spawn(const std::vector<std::string>& args, int child_out) {
  pid_t pid = fork();
  if (pid == 0) {
    dup2(child_out, 1);
    dup2(child_out, 2);
    std::vector<char*> argv;
    std::string bin = SKIFF_BINARY;
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

// Reads what is available on fd into out, waiting up to `wait`. False on EOF.
bool read_some(int fd, std::string& out, std::chrono::milliseconds wait) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(wait.count())) <= 0) return true;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, n);
      continue;
    }
    return !(n == 0);
  }
}

int wait_exit(pid_t pid, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -2;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

ProcessResult run_skiff(const std::vector<std::string>& args, std::chrono::milliseconds timeout) {
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  pid_t pid = spawn(args, pipefd[1]);
  close(pipefd[1]);
  int fd = pipefd[0];
  fcntl(fd, F_SETFL, O_NONBLOCK);
  ProcessResult result;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (read_some(fd, result.output, std::chrono::milliseconds(50)) && std::chrono::steady_clock::now() < deadline) {
  }
  close(fd);
  result.exit_code =
      wait_exit(pid, std::max(std::chrono::milliseconds(100), std::chrono::duration_cast<std::chrono::milliseconds>(
                                                                  deadline - std::chrono::steady_clock::now())));
  return result;
}

BrokerProcess::BrokerProcess(std::vector<std::string> extra_args, std::filesystem::path data_dir)
    : data_dir_(std::move(data_dir)) {
  if (data_dir_.empty()) {
    data_dir_ = make_temp_dir("skiff-broker");
    own_data_dir_ = true;
  }
  // HTTP on a free port as well: parallel tests never race for 8095.
  std::vector<std::string> args = {"--override", "listeners=PLAINTEXT://127.0.0.1:0",
                                   "--override", "http.listeners=http://127.0.0.1:0",
                                   "--override", "log.dirs=" + data_dir_.string()};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  // Output goes to a file, not a pipe: a chatty broker must never block on a
  // full pipe that the test is not reading.
  log_path_ = data_dir_.string() + ".out";
  int child_out = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (child_out < 0) throw std::runtime_error("cannot create " + log_path_.string());
  pid_ = spawn(args, child_out);
  close(child_out);
  out_fd_ = open(log_path_.c_str(), O_RDONLY | O_CLOEXEC);
  static const std::regex started(R"(started in .* advertised as [^ ]+:(\d+))");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  std::smatch m;
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    drain_output();
    if (std::regex_search(output_, m, started)) {
      port_ = static_cast<uint16_t>(std::stoi(m[1]));
      return;
    }
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
  }
  stop(SIGKILL);
  std::string out = output_;
  cleanup_files();
  throw std::runtime_error("skiff did not start:\n" + out);
}

BrokerProcess::~BrokerProcess() {
  if (pid_ > 0) stop(SIGKILL);
  cleanup_files();
}

void BrokerProcess::cleanup_files() {
  if (out_fd_ >= 0) close(out_fd_);
  out_fd_ = -1;
  std::error_code ec;
  std::filesystem::remove(log_path_, ec);
  if (own_data_dir_) std::filesystem::remove_all(data_dir_, ec);
}

void BrokerProcess::drain_output() {
  char buf[8192];
  ssize_t n;
  while (out_fd_ >= 0 && (n = read(out_fd_, buf, sizeof buf)) > 0) output_.append(buf, n);
}

std::string BrokerProcess::output() {
  drain_output();
  return output_;
}

int BrokerProcess::stop(int signal, std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return -1;
  kill(pid_, signal);
  int code = wait_exit(pid_, timeout);
  pid_ = -1;
  drain_output();
  return code;
}

}  // namespace skiff::test
