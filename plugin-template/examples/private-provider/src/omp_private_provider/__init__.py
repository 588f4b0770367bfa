"""An omp plugin that adds a provider for a private OpenAI-compatible endpoint."""
