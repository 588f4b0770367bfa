"""`omp sessions`: list, search and export sessions; the session-tree slash commands."""
