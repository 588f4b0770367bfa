"""The ``omp plugin`` command family; plugin.py holds the hook, cli.py the commands."""
