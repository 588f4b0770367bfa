"""The user shell: ``!cmd`` / ``$code`` typed at the prompt (see plugin.py)."""
