"""The names the plugin's hooks compare against, apart from state.py so that loading
the plugin (every start, ``omp --help`` too) does not build the state's dataclasses."""

ENTRY_TYPE = "sequential-thinking"
TOOL_NAME = "sequential_thinking"
NUDGE_PREFIX = "You must use the sequential_thinking tool."
