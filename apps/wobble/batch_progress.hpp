#pragma once
// The progress of a batch on the terminal: one bar for the whole batch (jobs done, failed,
// running, time left) on stderr when it is a terminal, and one line per finished job (a failed
// job's line with its error is printed even when quiet).
#include <cstddef>
#include <string>

#include "batch_job.hpp"

namespace wobble::cli {

class BatchProgress {
 public:
  BatchProgress(std::size_t total, bool quiet);
  void set_running(std::size_t running);
  void job_finished(const BatchJob& job, const JobResult& result);
  void draw();  // redraws the bar, at most 5 times a second
  // The summary line ("batch: 24 jobs in 12.3 s: 20 done, 3 skipped (up to date), 1 failed").
  void finish();

 private:
  void clear_bar();
  std::size_t total_, done_ = 0, skipped_ = 0, failed_ = 0, running_ = 0;
  bool quiet_, bar_ = false, bar_drawn_ = false;
  double start_, last_draw_ = 0;
};

}  // namespace wobble::cli
