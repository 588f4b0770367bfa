"""omp-tool-search: the built-in find, grep and ls tools and the pure-Python search backend."""
