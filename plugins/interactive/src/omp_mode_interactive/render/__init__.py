"""Rendering of session events to the terminal: Markdown, thinking, tools, footer."""
