"""The anthropic-messages API for omp. See plugin.py for the hook implementation."""
