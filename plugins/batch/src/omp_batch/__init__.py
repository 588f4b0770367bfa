"""`omp batch`: many tasks, each an independent session, run by a pluggable engine."""
