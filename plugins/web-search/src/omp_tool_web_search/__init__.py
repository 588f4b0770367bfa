"""omp-tool-web-search: the ``web_search`` tool."""
