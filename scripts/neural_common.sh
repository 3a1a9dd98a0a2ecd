# What the neural measurement scripts share (sourced by neural_ablation.sh and neural_fidelity.sh,
# after `set -euo pipefail`): the repository root as the working folder, BUILD from their first
# argument, the shipped model (SHIPPED), the per-object baseline's steps (BASELINE_STEPS; 0 leaves
# it out), wobble at low priority (NICE) and one OpenMP thread a process.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build="${1:-build}"
shipped="${SHIPPED:-models/physskin_small.pt}"
baseline_steps="${BASELINE_STEPS:-2000}"
wobble=(nice -n "${NICE:-19}" "$build/wobble")
export OMP_NUM_THREADS=1
