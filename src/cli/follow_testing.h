// For tests of the following commands (`hop get -w`, `hop logs -f`): they run in a thread of
// their own, writing to a stream the test reads meanwhile, until the test says stop.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <ostream>
#include <streambuf>
#include <string>
#include <thread>

namespace hop::cli::testing {

// Output one thread writes while another reads it.
class SharedOutput : public std::streambuf {
 public:
  std::string Text() {
    std::lock_guard<std::mutex> lock(mu_);
    return text_;
  }

 protected:
  int overflow(int c) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (c != traits_type::eof()) text_.push_back(static_cast<char>(c));
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    std::lock_guard<std::mutex> lock(mu_);
    text_.append(s, static_cast<size_t>(n));
    return n;
  }

 private:
  std::mutex mu_;
  std::string text_;
};

// Whether `done` became true within `limit`, looked at every 10 ms.
inline bool Eventually(const std::function<bool()>& done,
                       std::chrono::milliseconds limit = std::chrono::seconds(5)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

// Occurrences of `what` in `text`.
inline size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace hop::cli::testing
