#pragma once
// The layers of a .wfield network (internal to the torch-free evaluator, field_network.cpp), each
// applied to rows of activations together with their derivatives along the three input
// coordinates (forward-mode differentiation). Layer kinds and their JSON are in docs/neural.md.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include <wobble/fields/field_network.hpp>

namespace wobble::fields::field_layers {

using Rows = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::Matrix<float, 1, Eigen::Dynamic>;

// Rows of values and, in forward mode, their derivatives stacked below them: rows [0, n) are the
// values, rows [(c + 1) n, (c + 2) n) the derivatives along input coordinate c. A linear layer
// is then one product for all four.
struct Dual {
  Rows data;
  Eigen::Index n = 0;
  int parts = 1;  // 1: values only; 4: values and three derivatives

  auto values() { return data.topRows(n); }
  auto values() const { return data.topRows(n); }
  Eigen::Index width() const { return data.cols(); }
};

using Registers = std::map<std::string, Dual>;

// Keys and values of an attention layer whose context is fixed for a shape: the keys transposed
// (width x context rows, so that each head's block of rows is the right factor of q k^T), the
// values as they are (context rows x width).
struct AttentionKeys {
  Rows keys_t, values;
};

// What the field stage reads of one shape: the encoder's registers and, per attention layer of
// the field stage (by its slot), the keys and values of its context.
struct ShapeConstants {
  Registers registers;
  std::vector<AttentionKeys> attention;
};

class Layer {
 public:
  virtual ~Layer() = default;
  virtual void apply(Dual& x, Registers& registers, const ShapeConstants* shape) const = 0;
};
using Layers = std::vector<std::unique_ptr<Layer>>;

class Attention;

// Builds layers from their JSON, checking every tensor's shape against the activation widths.
class Builder {
 public:
  // `field_stage`: rows are independent points, so no layer may mix rows (constants, attention
  // to a context computed in this stage); attention contexts come from `encoder_registers`.
  Builder(const FieldNetworkFile& file, std::string source, bool field_stage,
          std::map<std::string, int> encoder_registers = {});

  // Layers for an input of `width` columns; returns the output width in `width`.
  Layers build(const nlohmann::json& layers, int& width, const std::string& where);
  const std::map<std::string, int>& register_widths() const { return registers_; }
  std::vector<const Attention*> constant_attention() const { return constant_attention_; }

 private:
  std::unique_ptr<Layer> build_layer(const nlohmann::json& layer, int& width, const std::string& where);
  std::unique_ptr<Layer> build_linear(const nlohmann::json& layer, int& width, const std::string& where);
  std::unique_ptr<Layer> build_register_op(const nlohmann::json& layer, const std::string& op, int& width,
                                           const std::string& where);
  std::unique_ptr<Layer> build_constant(const nlohmann::json& layer, int& width, const std::string& where);
  std::unique_ptr<Layer> build_attention(const nlohmann::json& layer, int width, const std::string& where);
  void check_attention_context(const std::string& context, int width, const std::string& where) const;
  const FieldTensor& tensor(const nlohmann::json& layer, const char* key, const std::string& where,
                            std::vector<std::int64_t> shape);
  Rows matrix(const nlohmann::json& layer, const char* key, const std::string& where, int rows, int cols);
  Vector vector(const nlohmann::json& layer, const char* key, const std::string& where, int size);

  const FieldNetworkFile& file_;
  std::string source_;
  bool field_stage_;
  std::map<std::string, int> encoder_registers_, registers_;
  std::vector<const Attention*> constant_attention_;
};

// Runs layers in order.
void run(const Layers& layers, Dual& x, Registers& registers, const ShapeConstants* shape);

// The keys and values of a field-stage attention layer for the shape's encoder registers.
AttentionKeys attention_keys(const Attention& attention, const Registers& encoder_registers);
int attention_slot(const Attention& attention);

}  // namespace wobble::fields::field_layers
