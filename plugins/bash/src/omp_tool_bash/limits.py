"""The defaults of the bash tool's output settings, apart from output.py so that
declaring the settings (every start, ``omp --help`` too) imports nothing else."""

ARTIFACT_MAX_BYTES = 50 * 1024 * 1024
"""Default of ``bash.artifactMaxBytes``: the spill file keeps head and tail within this."""
HARD_LIMIT_BYTES = 200 * 1024 * 1024
"""Default of ``bash.outputHardLimitBytes``: output past this stops the command."""
