"""An omp plugin that keeps the write and edit tools away from .env files and .git."""
