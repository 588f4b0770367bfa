"""Internal: the kernel's plugin floor (see docs/API.md for the public API)."""
