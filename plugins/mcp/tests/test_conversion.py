"""Input schemas every provider accepts, and every kind of MCP content converted."""

from __future__ import annotations

import mcp_types as types
from omp_mcp.results import convert_result
from omp_mcp.tools import sanitize_input_schema, tool_name
from omp_provider_google.schema import sanitize_schema

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAE"
    "hQGAhKmMIQAAAABJRU5ErkJggg=="
)


def test_schemas_lose_what_providers_refuse_and_gain_empty_properties() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "args",
        "type": "object",
        "properties": {
            "opts": {"type": "object"},
            "tags": {"type": "array", "items": {"type": "object"}},
        },
        "anyOf": [{"required": ["opts"]}],
    }
    clean = sanitize_input_schema(schema)
    assert clean == {
        "type": "object",
        "properties": {
            "opts": {"type": "object", "properties": {}},
            "tags": {"type": "array", "items": {"type": "object", "properties": {}}},
        },
    }
    assert sanitize_input_schema({"type": "string"}) == {"type": "object", "properties": {}}
    assert sanitize_input_schema(None) == {"type": "object", "properties": {}}


def test_gemini_gets_its_subset_of_an_mcp_schema() -> None:
    schema = sanitize_input_schema(
        {
            "type": "object",
            "properties": {
                "n": {"type": ["integer", "null"], "default": 3, "examples": [1]},
                "mode": {"const": "fast"},
            },
            "additionalProperties": False,
        }
    )
    assert sanitize_schema(schema) == {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "nullable": True},
            "mode": {"type": "string", "enum": ["fast"]},
        },
    }


def test_tool_names_are_safe_for_every_provider() -> None:
    assert tool_name("my server", "get.file") == "mcp__my_server__get_file"
    assert len(tool_name("s" * 40, "t" * 40)) == 64


def test_every_content_kind_is_converted() -> None:
    result = types.CallToolResult(
        content=[
            types.TextContent(type="text", text="hello"),
            types.ImageContent(type="image", data=PNG, mime_type="image/png"),
            types.AudioContent(type="audio", data="AAAA", mime_type="audio/wav"),
            types.EmbeddedResource(
                type="resource",
                resource=types.TextResourceContents(uri="file:///a.txt", text="inside"),
            ),
            types.EmbeddedResource(
                type="resource",
                resource=types.BlobResourceContents(
                    uri="file:///b.bin", blob="AAEC", mime_type="application/octet-stream"
                ),
            ),
            types.ResourceLink(type="resource_link", uri="file:///c", name="c", description="see"),
        ],
        structured_content={"k": 1},
        is_error=False,
    )
    converted = convert_result(result, max_bytes=10_000)
    texts = [getattr(b, "text", None) for b in converted.content]
    assert texts[0] == "hello"
    assert converted.content[1].mime_type == "image/png"
    assert texts[2] == "[audio of type audio/wav, 3 bytes, not shown]"
    assert texts[3] == "inside"
    assert texts[4] == "[binary resource file:///b.bin (application/octet-stream, 3 bytes)]"
    assert texts[5] == "[resource file:///c (c): see]"
    assert converted.details == {"structuredContent": {"k": 1}}


def test_an_error_result_stays_an_error() -> None:
    result = types.CallToolResult(
        content=[types.TextContent(type="text", text="no")], is_error=True
    )
    assert convert_result(result, max_bytes=100).is_error
