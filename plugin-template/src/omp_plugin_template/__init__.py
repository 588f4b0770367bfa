"""omp-plugin-template: see plugin.py for the hooks."""
