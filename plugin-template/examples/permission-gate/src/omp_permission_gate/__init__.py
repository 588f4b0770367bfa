"""An omp plugin that asks before the model runs ``rm -rf``."""
