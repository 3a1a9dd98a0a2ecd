// The peer for `wobble decompose`: Electronic Arts' Dem Bones (../shared/peers/dem-bones, header
// only, OpenMP) on the same rest pose and point cache, with the same stopping rule as its own
// command line tool (relative tolerance, patience). Benchmarks only (bench/decompose_vs_dem_bones.py).
//
//   wobble_dem_bones REST CACHE.pc2 BONES INFLUENCES OUT.pc2
//
// Prints one JSON line: {"seconds": init + compute, "rmse": Dem Bones' own, "bones", "iterations"}.
#include <chrono>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <string>

#include <DemBones/DemBones.h>

#include <wobble/offline/baked_frames.hpp>
#include <wobble/character.hpp>
#include <wobble/io/files.hpp>
#include <wobble/parse.hpp>

namespace {

// Its command line tool's convergence test (tolerance 1e-3, patience 3), iterations at most 100.
class StoppingDemBones : public Dem::DemBones<double, float> {
 public:
  double tolerance = 1e-3;
  int patience = 3;
  int calm = 0;
  double previous = -1;

  void cbIterBegin() override {}
  bool cbIterEnd() override {
    const double error = rmse();
    std::fprintf(stderr, "\rDem Bones iteration %d  RMSE %.6g   ", iter + 1, error);
    const bool small_gain =
        previous >= 0 && error < previous * (1 + weightEps) && previous - error < tolerance * previous;
    calm = small_gain ? calm + 1 : 0;
    previous = error;
    return calm >= patience;
  }
};

void load(StoppingDemBones& model, const wobble::Character& rest,
          const std::vector<std::vector<wobble::Vec3f>>& frames) {
  model.nV = static_cast<int>(rest.mesh.vertex_count());
  model.nS = 1;
  model.nF = static_cast<int>(frames.size());
  model.fStart.resize(2);
  model.fStart << 0, model.nF;
  model.subjectID = Eigen::VectorXi::Zero(model.nF);
  model.u.resize(3, model.nV);
  for (int i = 0; i < model.nV; ++i) model.u.col(i) = rest.mesh.positions[i].cast<double>();
  model.v.resize(3 * model.nF, model.nV);
  for (int k = 0; k < model.nF; ++k)
    for (int i = 0; i < model.nV; ++i) model.v.col(i).segment<3>(3 * k) = frames[k][i];
  for (const auto& t : rest.mesh.triangles) model.fv.push_back({int(t[0]), int(t[1]), int(t[2])});
}

wobble::BakedFrames reconstruction(StoppingDemBones& model, const std::vector<float>& times) {
  wobble::BakedFrames out;
  out.times = times;
  out.positions.assign(model.nF, std::vector<wobble::Vec3f>(model.nV));
  for (int i = 0; i < model.nV; ++i) {
    const Eigen::Vector4d p(model.u(0, i), model.u(1, i), model.u(2, i), 1.0);
    for (int k = 0; k < model.nF; ++k) {
      Eigen::Vector4d sum = Eigen::Vector4d::Zero();
      for (Eigen::SparseMatrix<double>::InnerIterator it(model.w, i); it; ++it)
        sum += it.value() * model.m.block<4, 4>(4 * k, 4 * it.row()) * p;
      out.positions[k][i] = sum.head<3>().cast<float>();
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s REST CACHE.pc2 BONES INFLUENCES OUT.pc2\n", argv[0]);
    return 2;
  }
  try {
    const wobble::Character rest = wobble::load_character(argv[1]);
    const auto frames = wobble::read_pc2(argv[2]);
    StoppingDemBones model;
    model.nB = static_cast<int>(wobble::parse_integer(argv[3], "BONES", 1, 4096));
    model.nnz = static_cast<int>(wobble::parse_integer(argv[4], "INFLUENCES", 1, 8));
    model.nIters = 100;
    load(model, rest, frames);
    const auto start = std::chrono::steady_clock::now();
    model.init();
    model.compute();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::vector<float> times;
    for (std::size_t k = 0; k < frames.size(); ++k) times.push_back(static_cast<float>(k) / 60.0f);
    wobble::write_pc2(argv[5], reconstruction(model, times), 60.0f);
    std::printf("{\"seconds\": %.4f, \"rmse\": %.8g, \"bones\": %d, \"iterations\": %d}\n", seconds, model.rmse(),
                model.nB, std::min(model.iter + 1, model.nIters));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "wobble_dem_bones: %s\n", error.what());
    return 1;
  }
  return 0;
}
