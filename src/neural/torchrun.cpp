// Reading the torchrun environment of a distributed training process.
#include <wobble/neural/torchrun.hpp>

#include <cstdlib>

#include <wobble/error.hpp>
#include <wobble/parse.hpp>
#include "core/fail.hpp"

namespace wobble::neural {

namespace {

const char* variable(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : nullptr;
}

int integer_variable(const char* name, int low, int high) {
  return static_cast<int>(parse_integer(variable(name), std::string("environment variable ") + name, low, high));
}

}  // namespace

TorchrunEnvironment TorchrunEnvironment::from_environment() {
  TorchrunEnvironment e;
  if (!variable("WORLD_SIZE")) return e;
  e.world_size = integer_variable("WORLD_SIZE", 1, 65536);
  if (!e.distributed()) return e;
  if (!variable("RANK")) fail_plain("environment variable RANK: missing while WORLD_SIZE is {}", e.world_size);
  e.rank = integer_variable("RANK", 0, e.world_size - 1);
  e.local_rank = variable("LOCAL_RANK") ? integer_variable("LOCAL_RANK", 0, 65535) : e.rank;
  if (const char* address = variable("MASTER_ADDR")) e.master_address = address;
  if (variable("MASTER_PORT")) e.master_port = integer_variable("MASTER_PORT", 1, 65535);
  return e;
}

}  // namespace wobble::neural
