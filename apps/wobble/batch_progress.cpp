#include "batch_progress.hpp"

#include <cstdio>

#include <fmt/core.h>
#include <unistd.h>

namespace wobble::cli {

BatchProgress::BatchProgress(std::size_t total, bool quiet)
    : total_(total), quiet_(quiet), bar_(!quiet && isatty(STDERR_FILENO)), start_(monotonic_seconds()) {}

void BatchProgress::set_running(std::size_t running) { running_ = running; }

void BatchProgress::clear_bar() {
  if (bar_drawn_) std::fputs("\r\033[K", stderr);
  bar_drawn_ = false;
}

void BatchProgress::job_finished(const BatchJob& job, const JobResult& result) {
  using Status = JobResult::Status;
  done_ += result.status == Status::Done;
  skipped_ += result.status == Status::Skipped;
  failed_ += result.status == Status::Failed;
  if (result.status == Status::Skipped || (quiet_ && result.status != Status::Failed)) return;
  clear_bar();
  if (result.status == Status::Failed) {
    fmt::print(stderr, "batch: failed jobs[{}] {}: {}\n", job.index, job.name, result.error);
  } else {
    fmt::print(stderr, "batch: done   jobs[{}] {} ({:.1f} s)\n", job.index, job.name, result.seconds);
  }
  draw();
}

void BatchProgress::draw() {
  const double now = monotonic_seconds();
  if (!bar_ || (bar_drawn_ && now - last_draw_ < 0.2)) return;
  last_draw_ = now;
  const std::size_t finished = done_ + skipped_ + failed_;
  constexpr std::size_t kWidth = 30;
  const std::size_t filled = total_ ? kWidth * finished / total_ : kWidth;
  // Time left from the rate of the jobs baked so far (skipped ones take no time).
  const std::size_t baked = done_ + failed_;
  const std::string left = baked ? fmt::format("~{:.0f} s left", (now - start_) / static_cast<double>(baked) *
                                                                     static_cast<double>(total_ - finished))
                                 : std::string("time left: -");
  fmt::print(stderr, "\r\033[Kbatch [{}{}] {}/{} done, {} failed, {} running, {}", std::string(filled, '#'),
             std::string(kWidth - filled, ' '), done_ + skipped_, total_, failed_, running_, left);
  std::fflush(stderr);
  bar_drawn_ = true;
}

void BatchProgress::finish() {
  clear_bar();
  if (quiet_) return;
  fmt::print(stderr, "batch: {} jobs in {:.1f} s: {} done, {} skipped (up to date), {} failed\n", total_,
             monotonic_seconds() - start_, done_, skipped_, failed_);
}

}  // namespace wobble::cli
