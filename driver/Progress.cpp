#include "driver/Progress.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <streambuf>
#include <thread>

namespace dspc {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kQuietFor = std::chrono::seconds(2);  // work shorter than this shows nothing
constexpr auto kRedrawEvery = std::chrono::milliseconds(250);

struct State {
  std::mutex mutex;
  std::condition_variable wake;
  bool active = false, stop = false;
  Clock::time_point start;
  std::string stage, detail;
  std::string shown;  // the line on the terminal, when line_shown
  std::atomic<bool> line_shown{false};
};
State g_state;

void write_stderr(const std::string& text) {
  const char* p = text.data();
  size_t n = text.size();
  while (n) {
    ssize_t w = ::write(2, p, n);
    if (w <= 0) return;
    p += w;
    n -= size_t(w);
  }
}

// Erases the progress line, if one is shown. Takes the lock.
void clear_line() {
  if (!g_state.line_shown.load()) return;
  std::lock_guard<std::mutex> lock(g_state.mutex);
  if (g_state.line_shown.exchange(false)) write_stderr("\r\033[K");
}

// std::cerr's buffer while progress is on: erases the progress line before anything else is
// written, so messages never land at the end of it.
class ClearingBuf : public std::streambuf {
 public:
  explicit ClearingBuf(std::streambuf* inner) : inner_(inner) {}
  std::streambuf* inner() const { return inner_; }

 protected:
  int overflow(int c) override {
    clear_line();
    return c == traits_type::eof() ? traits_type::not_eof(c) : inner_->sputc(char(c));
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    clear_line();
    return inner_->sputn(s, n);
  }
  int sync() override { return inner_->pubsync(); }

 private:
  std::streambuf* inner_;
};

void draw_loop() {
  std::unique_lock<std::mutex> lock(g_state.mutex);
  while (!g_state.stop) {
    g_state.wake.wait_for(lock, kRedrawEvery);
    if (g_state.stop) break;
    auto elapsed = Clock::now() - g_state.start;
    if (elapsed < kQuietFor) continue;
    if (g_state.stage.empty()) {
      if (g_state.line_shown.exchange(false)) write_stderr("\r\033[K");
      continue;
    }
    long seconds = long(std::chrono::duration_cast<std::chrono::seconds>(elapsed).count());
    std::string text = "\r\033[Kdspc: " + g_state.stage + (g_state.detail.empty() ? "" : " (" + g_state.detail + ")") +
                       ", " + std::to_string(seconds) + " s";
    if (g_state.line_shown && text == g_state.shown) continue;
    write_stderr(text);
    g_state.shown = text;
    g_state.line_shown = true;
  }
}

std::thread g_thread;
ClearingBuf* g_buf = nullptr;

}  // namespace

bool progress_wanted(bool quiet) {
  const char* term = std::getenv("TERM");
  return !quiet && isatty(2) && !(term && std::strcmp(term, "dumb") == 0);
}

ProgressScope::ProgressScope(bool enabled) {
  if (!enabled || g_state.active) return;
  {
    std::lock_guard<std::mutex> lock(g_state.mutex);
    g_state.active = true;
    g_state.stop = false;
    g_state.start = Clock::now();
    g_state.stage.clear();
    g_state.detail.clear();
  }
  g_buf = new ClearingBuf(std::cerr.rdbuf());
  std::cerr.rdbuf(g_buf);
  g_thread = std::thread(draw_loop);
}

ProgressScope::~ProgressScope() {
  if (!g_buf) return;
  {
    std::lock_guard<std::mutex> lock(g_state.mutex);
    g_state.stop = true;
  }
  g_state.wake.notify_all();
  g_thread.join();
  clear_line();
  std::cerr.rdbuf(g_buf->inner());
  delete g_buf;
  g_buf = nullptr;
  g_state.active = false;
}

void progress_stage(const std::string& what) {
  if (!g_state.active) return;
  std::lock_guard<std::mutex> lock(g_state.mutex);
  g_state.stage = what;
  g_state.detail.clear();
  // Nothing to show: the line goes now, before whatever comes next writes to the terminal.
  if (what.empty() && g_state.line_shown.exchange(false)) write_stderr("\r\033[K");
}

void progress_detail(const std::string& what) {
  if (!g_state.active) return;
  std::lock_guard<std::mutex> lock(g_state.mutex);
  g_state.detail = what;
}

}  // namespace dspc
