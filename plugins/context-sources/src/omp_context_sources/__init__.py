"""omp-context-sources: rules, skills and prompt templates, found through
``resources_discover`` and put to use through the public hooks."""
