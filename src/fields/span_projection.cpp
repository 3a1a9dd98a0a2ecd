// Projection of a field's columns onto another field's span (see span_projection.hpp).
#include <wobble/fields/span_projection.hpp>

#include <Eigen/QR>

#include "core/fail.hpp"

namespace wobble::fields {

namespace {

class CombinedField : public SkinningField {
 public:
  CombinedField(std::shared_ptr<const SkinningField> span, Eigen::MatrixXd combination, std::string description)
      : span_(std::move(span)), combination_(std::move(combination)), description_(std::move(description)) {}

  int handle_count() const override { return static_cast<int>(combination_.cols()); }
  std::string description() const override { return description_; }

  FieldValues evaluate(std::span<const Vec3d> points, bool with_gradient) const override {
    const FieldValues values = span_->evaluate(points, with_gradient);
    FieldValues out;
    out.W = values.W * combination_;
    if (with_gradient)
      for (int c = 0; c < 3; ++c) out.dW[c] = values.dW[c] * combination_;
    return out;
  }

 private:
  std::shared_ptr<const SkinningField> span_;
  Eigen::MatrixXd combination_;
  std::string description_;
};

}  // namespace

std::shared_ptr<const SkinningField> projected_onto_span(std::shared_ptr<const SkinningField> span,
                                                         const SkinningField& target, std::span<const Vec3d> points) {
  if (!span) fail_plain("projection onto a span: no field to span");
  if (points.empty()) fail_plain("projection onto a span: no points");
  for (const Vec3d& p : points)
    if (!p.allFinite()) fail_plain("projection onto a span: a point is not finite");
  const Eigen::MatrixXd basis = span->evaluate(points, false).W;
  // Column pivoting: dependent span columns (or fewer points than columns) give a basic solution.
  const Eigen::MatrixXd combination = basis.colPivHouseholderQr().solve(target.evaluate(points, false).W);
  std::string description = target.description() + " in the span of " + span->description();
  return std::make_shared<CombinedField>(std::move(span), combination, std::move(description));
}

}  // namespace wobble::fields
