"""omp's ``ask`` tool: the model asks the user questions with options."""
