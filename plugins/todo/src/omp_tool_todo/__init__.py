"""omp-tool-todo: the built-in ``todo_write`` tool and the ``/todos`` command."""
