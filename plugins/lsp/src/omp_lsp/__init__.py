"""omp-lsp: language servers for omp (client, diagnostics after write/edit)."""
