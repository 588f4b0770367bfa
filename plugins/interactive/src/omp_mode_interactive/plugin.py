"""Hook implementations of the interactive mode (the run mode is registered here)."""
