#pragma once
// The record of a training run that a checkpoint carries (training_config.cpp, internal): every
// setting of the configuration but the step count, the output folder and the logging,
// checkpoint and validation cadence, so that --resume refuses to continue a different run.
#include <filesystem>

#include <nlohmann/json.hpp>

#include <wobble/neural/training.hpp>

namespace wobble::neural {

nlohmann::json run_identity(const TrainingConfig& config);
// Throws Error naming `checkpoint`, the first setting that differs and both values; a checkpoint
// without a record (written before runs recorded it) passes.
void check_same_run(const nlohmann::json& checkpoint_metadata, const TrainingConfig& config,
                    const std::filesystem::path& checkpoint);

}  // namespace wobble::neural
