"""omp-tool-fetch: the built-in ``fetch`` tool (http(s) URL -> Markdown, JSON or text)."""
