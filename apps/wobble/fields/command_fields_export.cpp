// wobble fields export MODEL.pt -o MODEL.wfield: a trained model in the torch-free format that
// `simulate --subspace neural`, the Python module, the viewer and the browser evaluate without
// LibTorch (docs/neural.md, "The .wfield format"). The written file is read back and checked.
#include <fmt/format.h>

#include <wobble/neural/field_export.hpp>
#include <wobble/fields/field_network.hpp>

#include "fields_commands.hpp"

namespace wobble::cli {

Runner add_fields_export(CLI::App& app) {
  struct Options {
    std::string model, output;
  };
  auto o = std::make_shared<Options>();
  app.add_option("MODEL", o->model, "a trained model (.pt, from wobble fields train)")->required();
  app.add_option("-o,--output", o->output, "OUT.wfield")->required();
  return [o] {
    const fields::FieldNetworkFile file = neural::export_field_network(o->model);
    fields::write_field_network_file(o->output, file);
    const auto network = fields::FieldNetwork::load(o->output);  // the evaluator accepts what was written
    fmt::print("wrote {} ({} handles, {} parameters in {} tensors)\n", o->output, network->handles(),
               network->parameters(), file.tensors.size());
    return 0;
  };
}

}  // namespace wobble::cli
