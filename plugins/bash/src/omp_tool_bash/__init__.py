"""omp-tool-bash: the built-in ``bash`` tool (process group, timeout, abort, output spill)."""
