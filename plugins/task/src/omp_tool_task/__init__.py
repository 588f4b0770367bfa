"""omp-tool-task: the built-in ``task`` tool (subagents) and its hidden ``yield`` tool."""
