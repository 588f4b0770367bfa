"""The ``ray`` engine of ``omp batch`` (an entry point in ``omp.batch_engines``)."""
