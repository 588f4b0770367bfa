"""omp built-in tools ``write`` and ``edit`` (plugins/edit)."""
