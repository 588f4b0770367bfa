"""omp provider plugin for the OpenAI Responses API. See plugin.py for the hooks."""
