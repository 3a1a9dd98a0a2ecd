#pragma once
// `wobble fields train --processes N`: N local ranks of one data-parallel job, started the way
// torchrun starts them (WORLD_SIZE, RANK, LOCAL_RANK, MASTER_ADDR=127.0.0.1, a free MASTER_PORT).
#include <string>
#include <vector>

namespace wobble::cli {

// Runs this executable N times with `arguments` and waits for all of them. When a rank fails, the
// others are given a few seconds to notice and stop (they do, through the process group), then
// terminated. SIGINT, SIGTERM and SIGHUP sent to the launcher are passed on to the ranks. Returns
// 0, the first failing rank's exit status (after saying which rank it was), or 128 + the signal.
int run_local_ranks(int processes, const std::vector<std::string>& arguments);

}  // namespace wobble::cli
