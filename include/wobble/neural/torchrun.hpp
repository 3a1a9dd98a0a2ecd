#pragma once
// The environment torchrun gives each process of a distributed job (and `wobble fields train
// --processes N` gives its local ranks): WORLD_SIZE, RANK, LOCAL_RANK, MASTER_ADDR, MASTER_PORT.
#include <string>

namespace wobble::neural {

struct TorchrunEnvironment {
  int world_size = 1, rank = 0, local_rank = 0;
  std::string master_address = "127.0.0.1";
  int master_port = 29500;
  bool distributed() const { return world_size > 1; }
  // WORLD_SIZE unset (or 1) means one process. Throws Error naming the variable when one is
  // malformed or out of range, or when RANK is missing while WORLD_SIZE > 1.
  static TorchrunEnvironment from_environment();
};

}  // namespace wobble::neural
