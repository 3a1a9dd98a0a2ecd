#pragma once
// Data-parallel training over a LibTorch c10d process group (Gloo on CPU), launched the way
// torchrun launches PyTorch jobs (torchrun.hpp); rank 0 hosts the rendezvous, a c10d TCPStore at
// MASTER_ADDR:MASTER_PORT.
// Internal: includes LibTorch (the c10d headers stay in distributed.cpp).
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include <wobble/neural/torchrun.hpp>

namespace wobble::neural {

// The ranks of one training job. With world size 1 every collective is the identity and nothing
// is opened. Every call blocks until all ranks have made it; a rank that dies or stops answering
// for `timeout` makes the others throw Error ("rank R of N: lost contact with the other ranks ...")
// instead of hanging.
class DataParallelGroup {
 public:
  DataParallelGroup(const TorchrunEnvironment& environment, std::chrono::milliseconds timeout);
  ~DataParallelGroup();
  DataParallelGroup(const DataParallelGroup&) = delete;
  DataParallelGroup& operator=(const DataParallelGroup&) = delete;

  int rank() const { return environment_.rank; }
  int size() const { return environment_.world_size; }
  bool is_root() const { return environment_.rank == 0; }
  // In place: the element-wise sum over the ranks (float32 or float64, contiguous, CPU).
  void all_reduce_sum(torch::Tensor& tensor);
  // In place: every rank gets rank 0's values.
  void broadcast_from_root(std::vector<torch::Tensor>& tensors);
  // The number every rank holds must be the same (a configuration or step count, say): throws
  // Error naming `what` and both values on a rank where it differs from rank 0's.
  void check_same(std::int64_t value, const std::string& what);

 private:
  struct Impl;
  TorchrunEnvironment environment_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wobble::neural
