"""omp-mode-acp: the Agent Client Protocol server (``omp acp``, ``--mode acp``)."""
