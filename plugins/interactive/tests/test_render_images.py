"""The terminal shows a placeholder where a tool result carries an image (``read`` of
an image, a notebook's image output): never the base64 data."""

from __future__ import annotations

from omp import ImageContent, TextContent, ToolResult
from omp_mode_interactive.render.tools import result_text


def test_image_content_is_a_placeholder() -> None:
    result = ToolResult(
        [
            TextContent(text="Read image a.png [image/png, 2x2, 70 B]"),
            ImageContent(data="iVBORw0KGgo=", mime_type="image/png"),
        ]
    )
    assert result_text(result) == "Read image a.png [image/png, 2x2, 70 B]\n[image]"
