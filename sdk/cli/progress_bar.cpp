#include "progress_bar.hpp"

#include <unistd.h>

#include <cstdio>

namespace mx::cli {
namespace {

constexpr int kBarWidth = 24;

std::string bar(uint64_t done, uint64_t total) {
  const int filled = static_cast<int>(static_cast<double>(done) / static_cast<double>(total) * kBarWidth);
  std::string b = "[";
  for (int k = 0; k < kBarWidth; ++k) b += k < filled ? '#' : '.';
  return b + "]";
}

std::string counts(const mx_progress_event& e) {
  char text[96];
  const std::string unit = e.unit ? e.unit : "";
  if (unit == "bytes")
    std::snprintf(text, sizeof text, "%.1f/%.1f MB", static_cast<double>(e.done) / 1e6,
                  static_cast<double>(e.total) / 1e6);
  else
    std::snprintf(text, sizeof text, "%llu/%llu %s", static_cast<unsigned long long>(e.done),
                  static_cast<unsigned long long>(e.total), unit.c_str());
  return text;
}

}  // namespace

std::string progress_text(const mx_progress_event& e) {
  std::string text = e.stage ? e.stage : "";
  if (e.total == 0) return text + "...";
  const uint64_t done = e.done < e.total ? e.done : e.total;
  return text + " " + bar(done, e.total) + " " + counts(e);
}

ProgressBar::ProgressBar(std::string command, bool quiet)
    : command_(std::move(command)), drawing_(!quiet && ::isatty(STDERR_FILENO) == 1) {
  listener_.struct_size = sizeof(mx_progress);
  listener_.callback = &ProgressBar::on_event;
  listener_.user_data = this;
}

ProgressBar::~ProgressBar() {
  clear();
}

int32_t ProgressBar::on_event(const mx_progress_event* event, void* self) {
  auto* bar = static_cast<ProgressBar*>(self);
  bar->draw(progress_text(*event));
  return 0;
}

void ProgressBar::stage(const char* name) {
  if (drawing_) draw(std::string(name) + "...");
}

void ProgressBar::draw(const std::string& text) {
  // Carriage return and padding instead of terminal escapes: works on any
  // terminal, and the line stays shorter than 80 columns so it never wraps.
  std::string line = command_ + ": " + text;
  if (line.size() > 79) line.resize(79);
  const std::size_t width = line.size();
  if (width < shown_) line.append(shown_ - width, ' ');
  std::fprintf(stderr, "\r%s", line.c_str());
  std::fflush(stderr);
  shown_ = width;
}

void ProgressBar::clear() {
  if (!drawing_ || shown_ == 0) return;
  std::fprintf(stderr, "\r%s\r", std::string(shown_, ' ').c_str());
  std::fflush(stderr);
  shown_ = 0;
}

}  // namespace mx::cli
