"""See plugin.py for the hook implementations."""
