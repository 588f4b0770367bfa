"""Where tools read and write the user's text files.

The default is the local disk, which the tools read and write themselves. A mode whose
client holds the files (an editor with unsaved buffers, over ACP) gives its session a
``FileAccess`` of its own (``session.files``); tools ask ``ctx.files`` first and use
the disk when it answers None (read) or False (write). Tools run in worker threads,
so both methods are plain functions.
"""

from __future__ import annotations


class FileAccess:
    """The local disk: nothing is answered here, so tools use the disk."""

    def read_text(self, path: str) -> str | None:
        """The text of ``path`` (absolute) as the user sees it, or None: read the disk."""
        return None

    def write_text(self, path: str, text: str) -> bool:
        """True when ``text`` was written to ``path`` (absolute) for the tool; False:
        the tool writes the disk itself."""
        return False
