#!/usr/bin/env python3
"""Two builds of wobble_bench_deltamush, alternated in rounds on a shared, noisy machine.

    python3 bench/alternate_binaries.py ROUNDS BEFORE AFTER [FILTER]

Each round runs BEFORE then AFTER (3 randomly interleaved repetitions each); prints the wall
medians over all rounds and each binary's Delta Mush (10 iterations) / LBS ratio, both from the
same process. The default filter: the 100,000-vertex, one-thread frames.
"""
import json
import statistics
import subprocess
import sys

from report_common import milliseconds

DEFAULT_FILTER = ('(BM_Lbs|BM_DeltaMush10|BM_DeltaMush0|BM_DeltaMush10SmoothOnly|BM_DeltaMush10Folded)'
                  '/vertices:100000/threads:1/real_time$')


def run_once(binary, benchmark_filter):
    result = subprocess.run([binary, f'--benchmark_filter={benchmark_filter}', '--benchmark_repetitions=3',
                             '--benchmark_enable_random_interleaving=true', '--benchmark_format=json'],
                            capture_output=True, text=True)
    if result.returncode != 0 or not result.stdout.strip():
        sys.exit(f'{binary}: exit status {result.returncode}: {result.stderr.strip() or "no output"}')
    return [(b['run_name'], milliseconds(b)) for b in json.loads(result.stdout)['benchmarks']
            if b.get('run_type') == 'iteration']


def main():
    if len(sys.argv) not in (4, 5) or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        sys.exit(__doc__)
    rounds, binaries = int(sys.argv[1]), sys.argv[2:4]
    benchmark_filter = sys.argv[4] if len(sys.argv) == 5 else DEFAULT_FILTER
    times = {binary: {} for binary in binaries}
    for r in range(rounds):
        print(f'round {r + 1} of {rounds}', file=sys.stderr)
        for binary in binaries:
            for name, time in run_once(binary, benchmark_filter):
                times[binary].setdefault(name, []).append(time)
    for binary in binaries:
        print(binary)
        medians = {name: statistics.median(values) for name, values in times[binary].items()}
        for name, median in sorted(medians.items()):
            print(f'  {name:62s} {median:8.3f} ms  (n={len(times[binary][name])})')
        lbs = [m for name, m in medians.items() if name.startswith('BM_Lbs/')]
        mush = [m for name, m in medians.items() if name.startswith('BM_DeltaMush10/')]
        if lbs and mush:
            print(f'  Delta Mush 10 / LBS = {mush[0] / lbs[0]:.2f}x')


if __name__ == '__main__':
    main()
