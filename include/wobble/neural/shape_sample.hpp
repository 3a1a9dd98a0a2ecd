#pragma once
// The shape samples of the neural fields live in the torch-free physics library
// (wobble/physics/shape_sample.hpp), so that the LibTorch-free evaluator samples a shape exactly
// as training and the torch inference do; the training code keeps its names here.
#include <wobble/physics/shape_sample.hpp>

namespace wobble::neural {

using physics::cubature_points;
using physics::make_shape_sample;
using physics::ShapeSample;
using physics::ShapeSampleOptions;
using physics::surface_point_cloud;

}  // namespace wobble::neural
