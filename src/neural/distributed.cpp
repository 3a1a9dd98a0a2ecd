// c10d process group for data-parallel training (see distributed.hpp).
#include "distributed.hpp"

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <wobble/error.hpp>
#include "core/fail.hpp"

namespace wobble::neural {

struct DataParallelGroup::Impl {
  c10::intrusive_ptr<c10d::TCPStore> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
};

namespace {

bool is_loopback(const std::string& address) {
  return address == "localhost" || address.rfind("127.", 0) == 0 || address == "::1";
}

}  // namespace

DataParallelGroup::DataParallelGroup(const TorchrunEnvironment& environment, std::chrono::milliseconds timeout)
    : environment_(environment), impl_(std::make_unique<Impl>()) {
  if (!environment_.distributed()) return;
  const std::string where = fmt::format("rank {} of {} (rendezvous at {}:{})", rank(), size(),
                                        environment_.master_address, environment_.master_port);
  try {
    c10d::TCPStoreOptions options;
    options.port = static_cast<std::uint16_t>(environment_.master_port);
    options.isServer = is_root();
    options.numWorkers = static_cast<std::size_t>(size());
    options.waitWorkers = true;
    options.timeout = timeout;
    impl_->store = c10::make_intrusive<c10d::TCPStore>(environment_.master_address, options);
    auto gloo = c10d::ProcessGroupGloo::Options::create(timeout);
    // On one machine the loopback interface; across machines the host's own address (or the
    // interface named by GLOO_SOCKET_IFNAME), as PyTorch chooses it.
    gloo->devices.push_back(is_loopback(environment_.master_address)
                                ? c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1")
                                : c10d::ProcessGroupGloo::createDefaultDevice());
    impl_->group = c10::make_intrusive<c10d::ProcessGroupGloo>(impl_->store, rank(), size(), gloo);
  } catch (const std::exception& e) {
    fail_plain("{}: cannot join the process group: {}", where, e.what());
  }
}

DataParallelGroup::~DataParallelGroup() = default;

namespace {

[[noreturn]] void lost_contact(const TorchrunEnvironment& e, const char* operation, const std::exception& error) {
  std::string message = error.what();
  if (const auto newline = message.find('\n'); newline != std::string::npos)
    message.resize(newline);  // c10 adds a trace
  fail_plain("rank {} of {}: lost contact with the other ranks during {} (a rank died or stopped answering): {}",
             e.rank, e.world_size, operation, message);
}

}  // namespace

void DataParallelGroup::all_reduce_sum(torch::Tensor& tensor) {
  if (!environment_.distributed()) return;
  std::vector<at::Tensor> tensors{tensor};
  try {
    impl_->group->allreduce(tensors)->wait();
  } catch (const std::exception& e) {
    lost_contact(environment_, "all-reduce", e);
  }
}

void DataParallelGroup::broadcast_from_root(std::vector<torch::Tensor>& tensors) {
  if (!environment_.distributed()) return;
  for (torch::Tensor& t : tensors) {
    std::vector<at::Tensor> one{t};
    try {
      impl_->group->broadcast(one)->wait();
    } catch (const std::exception& e) {
      lost_contact(environment_, "broadcast", e);
    }
  }
}

void DataParallelGroup::check_same(std::int64_t value, const std::string& what) {
  if (!environment_.distributed()) return;
  std::vector<torch::Tensor> root{torch::tensor({value}, torch::kInt64)};
  broadcast_from_root(root);
  const std::int64_t expected = root[0].item<std::int64_t>();
  if (expected != value)
    fail_plain("rank {} of {}: {} is {} here but {} on rank 0", rank(), size(), what, value, expected);
}

}  // namespace wobble::neural
