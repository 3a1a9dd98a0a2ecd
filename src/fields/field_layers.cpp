// Forward passes of the .wfield layers with forward-mode derivatives (see field_layers.hpp).
// Each layer maps the values v and their derivatives dv along the input coordinates:
//   linear      v W^T + b,             dv W^T
//   activation  f(v),                  f'(v) dv
//   layer norm  g (v - mu) / s + b,    g / s (dv - mean(dv) - v^ mean(v^ dv))   (v^ = (v - mu) / s)
//   attention   softmax(q k^T / sqrt(d_h)) V, with d softmax = a (ds - a . ds)
//   encoding    sin(a x), cos(a x),    a cos(a x) dx, -a sin(a x) dx
// Elementwise functions use Eigen's vectorised exp, sin, cos and erf (float), without branches.
#include "field_layers.hpp"

#include <cmath>
#include <numbers>

#include <unsupported/Eigen/SpecialFunctions>

#include <wobble/error.hpp>

#include "core/fail.hpp"
#include "fields/field_kernels.hpp"

namespace wobble::fields {

namespace field_kernels {
namespace {
using Matrix = field_layers::Rows;

// The reference is Eigen's product at the baseline instruction set (what the evaluator used
// before the kernels): an independent check of them, and the baseline of their benchmark.
void product_reference(const Product& p) {
  using Strided = Eigen::OuterStride<>;
  const auto rows = static_cast<Eigen::Index>(p.rows), in = static_cast<Eigen::Index>(p.in),
             out = static_cast<Eigen::Index>(p.out);
  const Eigen::Map<const Matrix, 0, Strided> X(p.X, rows, in, Strided(static_cast<Eigen::Index>(p.ldx)));
  const Eigen::Map<const Matrix, 0, Strided> Wt(p.Wt, in, out, Strided(static_cast<Eigen::Index>(p.ldw)));
  Eigen::Map<Matrix, 0, Strided> Y(p.Y, rows, out, Strided(static_cast<Eigen::Index>(p.ldy)));
  Y.noalias() = X * Wt;
  if (p.bias)
    Y.topRows(static_cast<Eigen::Index>(p.biased_rows)).rowwise() += Eigen::Map<const Eigen::RowVectorXf>(p.bias, out);
}
// Branch-free, so that Eigen vectorises every expression.
void elu_reference(float* values, float* slopes, std::size_t n) {
  Eigen::Map<Eigen::ArrayXf> v(values, static_cast<Eigen::Index>(n)), slope(slopes, static_cast<Eigen::Index>(n));
  // exp rather than expm1 (twice as fast here): the difference, under 1e-7, is float rounding.
  slope = v.min(0.0f).exp();  // exp(v) below 0, 1 above
  v = v.max(0.0f) + slope - 1.0f;
}
void gelu_reference(float* values, float* slopes, std::size_t n) {
  Eigen::Map<Eigen::ArrayXf> v(values, static_cast<Eigen::Index>(n)), slope(slopes, static_cast<Eigen::Index>(n));
  const Eigen::ArrayXf phi = 0.5f * (1.0f + (v * static_cast<float>(std::numbers::sqrt2 / 2)).erf());
  slope =
      phi + v * (-0.5f * v.square()).exp() * static_cast<float>(0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2);
  v *= phi;
}
void softmax_reference(float* s, std::size_t ld, std::size_t n, std::size_t width, int parts) {
  const auto rows = static_cast<Eigen::Index>(n);
  Eigen::Map<Matrix, 0, Eigen::OuterStride<>> all(s, rows * parts, static_cast<Eigen::Index>(width),
                                                  Eigen::OuterStride<>(static_cast<Eigen::Index>(ld)));
  for (Eigen::Index i = 0; i < rows; ++i) {
    auto a = all.row(i);
    a = (a.array() - a.maxCoeff()).exp().matrix();
    a /= a.sum();
    for (int c = 0; c + 1 < parts; ++c) {
      auto d = all.row((c + 1) * rows + i);
      const float projection = a.dot(d);
      d = (a.array() * (d.array() - projection)).matrix();
    }
  }
}
}  // namespace
extern const Table reference = {product_reference, elu_reference, gelu_reference, softmax_reference};
WOBBLE_SIMD_DEFINE_TABLE_FOR
}  // namespace field_kernels

namespace field_layers {

namespace {

using nlohmann::json;
using Array = Eigen::Array<float, Eigen::Dynamic, 1>;
using ArrayMap = Eigen::Map<Array>;

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

// The derivative rows of input coordinate c.
auto tangent(Dual& x, int c) { return x.data.middleRows((c + 1) * x.n, x.n); }

std::size_t size(Eigen::Index i) { return static_cast<std::size_t>(i); }

// Y = X Wt (+ bias on the first `biased_rows` rows) with the active instruction set's kernel.
void multiply(const Rows& X, const Rows& Wt, Rows& Y, const Vector* bias = nullptr, Eigen::Index biased_rows = 0) {
  Y.resize(X.rows(), Wt.cols());
  field_kernels::Product p{X.data(),       size(X.cols()), Wt.data(),      size(Wt.cols()), Y.data(),
                           size(Y.cols()), size(X.rows()), size(X.cols()), size(Wt.cols())};
  if (bias && bias->size()) p.bias = bias->data(), p.biased_rows = size(biased_rows);
  field_kernels::table().product(p);
}

class Linear : public Layer {
 public:
  Linear(Rows weight_t, Vector bias) : weight_t_(std::move(weight_t)), bias_(std::move(bias)) {}
  void apply(Dual& x, Registers&, const ShapeConstants*) const override {
    Rows y;
    multiply(x.data, weight_t_, y, &bias_, x.n);
    x.data = std::move(y);
  }

 private:
  Rows weight_t_;  // in x out
  Vector bias_;    // empty: no bias
};

enum class Function { elu, gelu, relu, tanh, identity };

class Activation : public Layer {
 public:
  explicit Activation(Function f) : f_(f) {}
  void apply(Dual& x, Registers&, const ShapeConstants*) const override {
    if (f_ == Function::identity) return;
    const Eigen::Index count = x.n * x.width();
    Array slope(count);
    const field_kernels::Table& kernels = field_kernels::table();
    ArrayMap v(x.data.data(), count);
    switch (f_) {
      case Function::elu: kernels.elu(v.data(), slope.data(), size(count)); break;
      case Function::gelu: kernels.gelu(v.data(), slope.data(), size(count)); break;
      case Function::relu:
        slope = (v > 0).cast<float>();
        v = v.max(0.0f);
        break;
      case Function::tanh:
        v = v.tanh();
        slope = 1.0f - v.square();
        break;
      case Function::identity: break;
    }
    for (int c = 0; c + 1 < x.parts; ++c) {
      ArrayMap d(tangent(x, c).data(), count);
      d *= slope;
    }
  }

 private:
  Function f_;
};

// Per-row layer normalisation (biased variance, as torch).
class LayerNorm : public Layer {
 public:
  LayerNorm(Vector weight, Vector bias, float eps) : weight_(std::move(weight)), bias_(std::move(bias)), eps_(eps) {}
  void apply(Dual& x, Registers&, const ShapeConstants*) const override {
    const auto w = static_cast<float>(x.width());
    for (Eigen::Index i = 0; i < x.n; ++i) {
      auto row = x.data.row(i);
      const float mean = row.sum() / w;
      row.array() -= mean;
      const float inverse = 1.0f / std::sqrt(row.squaredNorm() / w + eps_);
      row *= inverse;  // now v^
      for (int c = 0; c + 1 < x.parts; ++c) {
        auto d = x.data.row((c + 1) * x.n + i);
        const float d_mean = d.sum() / w, projection = row.dot(d) / w;
        d = (inverse * (d.array() - d_mean - row.array() * projection) * weight_.array()).matrix();
      }
      row = (row.array() * weight_.array() + bias_.array()).matrix();
    }
  }

 private:
  Vector weight_, bias_;
  float eps_;
};

}  // namespace

// nn::MultiheadAttention(query = current rows, key = value = LN(context)), no dropout.
class Attention : public Layer {
 public:
  int heads = 1, slot = -1;  // slot >= 0: a field-stage layer whose keys come with the shape
  std::string context;
  bool normalize_context = false;
  Vector norm_weight, norm_bias;
  float norm_eps = 1e-5f;
  Rows wq_t, wk_t, wv_t, wo_t;  // in x out; wq_t and bq carry the scores' 1 / sqrt(d_h)
  Vector bq, bk, bv, bo;

  AttentionKeys keys_for(const Rows& context_rows) const {
    Dual c{context_rows, context_rows.rows(), 1};
    Registers none;
    if (normalize_context) LayerNorm(norm_weight, norm_bias, norm_eps).apply(c, none, nullptr);
    AttentionKeys out;
    Rows keys;
    multiply(c.data, wk_t, keys, &bk, c.n);
    out.keys_t = keys.transpose();
    multiply(c.data, wv_t, out.values, &bv, c.n);
    return out;
  }

  void apply(Dual& x, Registers& registers, const ShapeConstants* shape) const override {
    AttentionKeys local;
    const AttentionKeys* kv = nullptr;
    if (slot >= 0)
      kv = &shape->attention.at(static_cast<std::size_t>(slot));
    else
      kv = &(local = keys_for(registers.at(context).data));
    const std::size_t d = size(wq_t.cols()), dh = d / size(heads), rows = size(x.data.rows());
    const std::size_t context = size(kv->values.rows());
    Rows q;  // already scaled by 1 / sqrt(d_h) (Builder::build_attention)
    multiply(x.data, wq_t, q, &bq, x.n);
    Rows mixed(x.data.rows(), wq_t.cols()), scores(x.data.rows(), kv->values.rows());
    const field_kernels::Table& kernels = field_kernels::table();
    for (std::size_t h = 0; h < size(heads); ++h) {
      // Head h's columns of q times its rows of k^T, then the weights times its columns of V.
      kernels.product({q.data() + h * dh, d, kv->keys_t.data() + h * dh * context, context, scores.data(), context,
                       rows, dh, context});
      kernels.softmax(scores.data(), context, size(x.n), context, x.parts);
      kernels.product(
          {scores.data(), context, kv->values.data() + h * dh, d, mixed.data() + h * dh, d, rows, context, dh});
    }
    multiply(mixed, wo_t, x.data, &bo, x.n);
  }
};

namespace {

// gamma(x) = [x, sin(2^0 pi x), cos(2^0 pi x), ..., sin(2^(K-1) pi x), cos(2^(K-1) pi x)] of the
// first `columns` columns (in torch.cat's order), the other columns after them.
class PositionalEncoding : public Layer {
 public:
  PositionalEncoding(int octaves, int columns) : octaves_(octaves), columns_(columns) {}
  void apply(Dual& x, Registers&, const ShapeConstants*) const override {
    const Eigen::Index c = columns_, rest = x.width() - c, n = x.n;
    Rows y(x.data.rows(), c * (1 + 2 * octaves_) + rest);
    y.leftCols(c) = x.data.leftCols(c);
    y.rightCols(rest) = x.data.rightCols(rest);
    for (int k = 0; k < octaves_; ++k) {
      const float a = static_cast<float>(std::ldexp(1.0, k) * std::numbers::pi);
      const Rows scaled = x.data.topRows(n).leftCols(c) * a;
      const Rows sine = scaled.array().sin().matrix(), cosine = scaled.array().cos().matrix();
      const Eigen::Index at = c + 2 * c * k;
      y.topRows(n).middleCols(at, c) = sine;
      y.topRows(n).middleCols(at + c, c) = cosine;
      for (int t = 0; t + 1 < x.parts; ++t) {
        const auto dx = x.data.middleRows((t + 1) * n, n).leftCols(c).array();
        y.middleRows((t + 1) * n, n).middleCols(at, c) = (a * cosine.array() * dx).matrix();
        y.middleRows((t + 1) * n, n).middleCols(at + c, c) = (-a * sine.array() * dx).matrix();
      }
    }
    x.data = std::move(y);
  }

 private:
  int octaves_, columns_;
};

class Save : public Layer {
 public:
  explicit Save(std::string name) : name_(std::move(name)) {}
  void apply(Dual& x, Registers& registers, const ShapeConstants*) const override { registers[name_] = x; }

 private:
  std::string name_;
};

class Load : public Layer {
 public:
  explicit Load(std::string name) : name_(std::move(name)) {}
  void apply(Dual& x, Registers& registers, const ShapeConstants*) const override { x = registers.at(name_); }

 private:
  std::string name_;
};

class Concat : public Layer {
 public:
  explicit Concat(std::string name) : name_(std::move(name)) {}
  void apply(Dual& x, Registers& registers, const ShapeConstants*) const override {
    const Dual& other = registers.at(name_);
    Rows y(x.data.rows(), x.width() + other.width());
    y << x.data, other.data;
    x.data = std::move(y);
  }

 private:
  std::string name_;
};

class Constant : public Layer {
 public:
  explicit Constant(Rows rows) : rows_(std::move(rows)) {}
  void apply(Dual& x, Registers&, const ShapeConstants*) const override { x = Dual{rows_, rows_.rows(), 1}; }

 private:
  Rows rows_;
};

class Residual : public Layer {
 public:
  explicit Residual(Layers inner) : inner_(std::move(inner)) {}
  void apply(Dual& x, Registers& registers, const ShapeConstants* shape) const override {
    Dual y = x;
    run(inner_, y, registers, shape);
    x.data += y.data;
  }

 private:
  Layers inner_;
};

Function function_named(const std::string& name, const std::string& source, const std::string& where) {
  if (name == "elu") return Function::elu;
  if (name == "gelu") return Function::gelu;
  if (name == "relu") return Function::relu;
  if (name == "tanh") return Function::tanh;
  if (name == "identity") return Function::identity;
  fail(source, "{}: unknown activation '{}' (elu, gelu, relu, tanh, identity)", where, name);
}

std::string string_key(const json& layer, const char* key, const std::string& source, const std::string& where) {
  if (!layer.contains(key) || !layer[key].is_string()) fail(source, "{}: needs a string '{}'", where, key);
  return layer[key].get<std::string>();
}

// An optional real number (eps), or the fallback.
float real_key(const json& layer, const char* key, float fallback, const std::string& source,
               const std::string& where) {
  if (!layer.contains(key)) return fallback;
  if (!layer[key].is_number() || !std::isfinite(layer[key].get<double>()) || !(layer[key].get<double>() > 0))
    fail(source, "{}: '{}' must be a positive number", where, key);
  return layer[key].get<float>();
}

int int_key(const json& layer, const char* key, int low, int high, const std::string& source,
            const std::string& where) {
  if (!layer.contains(key) || !layer[key].is_number_integer()) fail(source, "{}: needs an integer '{}'", where, key);
  const auto value = layer[key].get<std::int64_t>();
  if (value < low || value > high) fail(source, "{}: '{}' = {} is out of range [{}, {}]", where, key, value, low, high);
  return static_cast<int>(value);
}

}  // namespace

Builder::Builder(const FieldNetworkFile& file, std::string source, bool field_stage,
                 std::map<std::string, int> encoder_registers)
    : file_(file),
      source_(std::move(source)),
      field_stage_(field_stage),
      encoder_registers_(std::move(encoder_registers)) {}

const FieldTensor& Builder::tensor(const json& layer, const char* key, const std::string& where,
                                   std::vector<std::int64_t> shape) {
  const std::string name = string_key(layer, key, source_, where);
  const auto found = file_.tensors.find(name);
  if (found == file_.tensors.end()) fail(source_, "{}: tensor '{}' is not in the file", where, name);
  if (found->second.shape != shape)
    fail(source_, "{}: tensor '{}' has shape {}, expected {}", where, name, shape_text(found->second.shape),
         shape_text(shape));
  return found->second;
}

Rows Builder::matrix(const json& layer, const char* key, const std::string& where, int rows, int cols) {
  const FieldTensor& t = tensor(layer, key, where, {rows, cols});
  return Eigen::Map<const Rows>(t.values.data(), rows, cols);
}

Vector Builder::vector(const json& layer, const char* key, const std::string& where, int size) {
  const FieldTensor& t = tensor(layer, key, where, {size});
  return Eigen::Map<const Vector>(t.values.data(), size);
}

Layers Builder::build(const json& layers, int& width, const std::string& where) {
  if (!layers.is_array()) fail(source_, "{}: 'layers' must be an array", where);
  Layers out;
  for (std::size_t i = 0; i < layers.size(); ++i)
    out.push_back(build_layer(layers[i], width, fmt::format("{} layer {}", where, i)));
  return out;
}

std::unique_ptr<Layer> Builder::build_layer(const json& layer, int& width, const std::string& where_) {
  if (!layer.is_object()) fail(source_, "{}: a layer must be an object", where_);
  const std::string op = string_key(layer, "op", source_, where_);
  const std::string where = where_ + " (" + op + ")";
  if (op == "linear") return build_linear(layer, width, where);
  if (op == "activation")
    return std::make_unique<Activation>(function_named(string_key(layer, "function", source_, where), source_, where));
  if (op == "layer_norm")
    return std::make_unique<LayerNorm>(vector(layer, "weight", where, width), vector(layer, "bias", where, width),
                                       real_key(layer, "eps", 1e-5f, source_, where));
  if (op == "positional_encoding") {
    const int octaves = int_key(layer, "octaves", 0, 24, source_, where),
              columns = int_key(layer, "columns", 1, width, source_, where);
    width += 2 * octaves * columns;
    return std::make_unique<PositionalEncoding>(octaves, columns);
  }
  if (op == "save" || op == "load" || op == "concat") return build_register_op(layer, op, width, where);
  if (op == "constant") return build_constant(layer, width, where);
  if (op == "residual") {
    int inner = width;
    Layers layers = build(layer.contains("layers") ? layer["layers"] : json(), inner, where);
    if (inner != width) fail(source_, "{}: the inner layers change the width from {} to {}", where, width, inner);
    return std::make_unique<Residual>(std::move(layers));
  }
  if (op == "attention") return build_attention(layer, width, where);
  fail(source_, "{}: unknown layer op '{}'", where_, op);
}

std::unique_ptr<Layer> Builder::build_linear(const json& layer, int& width, const std::string& where) {
  const std::string name = string_key(layer, "weight", source_, where);
  const auto found = file_.tensors.find(name);
  if (found == file_.tensors.end() || found->second.shape.size() != 2 || found->second.shape[1] != width)
    fail(source_, "{}: weight '{}' must be a matrix in the file with {} columns (the input width)", where, name, width);
  const int out = static_cast<int>(found->second.shape[0]);
  Rows weight = matrix(layer, "weight", where, out, width);
  Vector bias = layer.contains("bias") ? vector(layer, "bias", where, out) : Vector();
  width = out;
  return std::make_unique<Linear>(weight.transpose(), std::move(bias));
}

// save keeps the activations under a name; load brings them back, concat appends them.
std::unique_ptr<Layer> Builder::build_register_op(const json& layer, const std::string& op, int& width,
                                                  const std::string& where) {
  const std::string name = string_key(layer, "register", source_, where);
  if (op == "save") {
    registers_[name] = width;
    return std::make_unique<Save>(name);
  }
  if (!registers_.count(name)) fail(source_, "{}: register '{}' is not saved before", where, name);
  if (op == "load") {
    width = registers_[name];
    return std::make_unique<Load>(name);
  }
  width += registers_[name];
  return std::make_unique<Concat>(name);
}

std::unique_ptr<Layer> Builder::build_constant(const json& layer, int& width, const std::string& where) {
  if (field_stage_) fail(source_, "{}: the field stage evaluates each point on its own: no constant rows", where);
  const std::string name = string_key(layer, "tensor", source_, where);
  const auto found = file_.tensors.find(name);
  if (found == file_.tensors.end() || found->second.shape.size() != 2)
    fail(source_, "{}: tensor '{}' must be a matrix in the file", where, name);
  width = static_cast<int>(found->second.shape[1]);
  return std::make_unique<Constant>(matrix(layer, "tensor", where, static_cast<int>(found->second.shape[0]), width));
}

// The attention's context (a register of this stage, or in the field stage an encoder output
// whose keys come with the shape) must have the queries' width.
void Builder::check_attention_context(const std::string& context, int width, const std::string& where) const {
  const std::map<std::string, int>& contexts = field_stage_ ? encoder_registers_ : registers_;
  const auto found = contexts.find(context);
  if (found == contexts.end())
    fail(source_, "{}: context '{}' is not {}", where, context, field_stage_ ? "an encoder output" : "saved before");
  if (found->second != width)
    fail(source_, "{}: context '{}' has width {}, the queries {}", where, context, found->second, width);
}

std::unique_ptr<Layer> Builder::build_attention(const json& layer, int width, const std::string& where) {
  auto a = std::make_unique<Attention>();
  const int d = width;
  a->heads = int_key(layer, "heads", 1, d, source_, where);
  if (d % a->heads) fail(source_, "{}: width {} is not divisible by {} heads", where, d, a->heads);
  a->context = string_key(layer, "context", source_, where);
  check_attention_context(a->context, d, where);
  if (layer.contains("context_norm")) {
    const json& norm = layer["context_norm"];
    a->normalize_context = true;
    a->norm_weight = vector(norm, "weight", where + " context_norm", d);
    a->norm_bias = vector(norm, "bias", where + " context_norm", d);
    a->norm_eps = real_key(norm, "eps", 1e-5f, source_, where + " context_norm");
  }
  const Rows in = matrix(layer, "in_proj_weight", where, 3 * d, d);  // rows: query, key, value (torch's order)
  const Vector in_bias = vector(layer, "in_proj_bias", where, 3 * d);
  // The scores' 1 / sqrt(d_h) goes into the query's projection once, not onto every query.
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d / a->heads)));
  a->wq_t = scale * in.topRows(d).transpose();
  a->wk_t = in.middleRows(d, d).transpose();
  a->wv_t = in.bottomRows(d).transpose();
  a->bq = scale * in_bias.head(d), a->bk = in_bias.segment(d, d), a->bv = in_bias.tail(d);
  a->wo_t = matrix(layer, "out_proj_weight", where, d, d).transpose();
  a->bo = vector(layer, "out_proj_bias", where, d);
  if (field_stage_) {
    a->slot = static_cast<int>(constant_attention_.size());
    constant_attention_.push_back(a.get());
  }
  return a;
}

void run(const Layers& layers, Dual& x, Registers& registers, const ShapeConstants* shape) {
  for (const auto& layer : layers) layer->apply(x, registers, shape);
}

AttentionKeys attention_keys(const Attention& attention, const Registers& encoder_registers) {
  return attention.keys_for(encoder_registers.at(attention.context).data);
}

int attention_slot(const Attention& attention) { return attention.slot; }

}  // namespace field_layers
}  // namespace wobble::fields
