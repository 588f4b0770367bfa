"""Tool parameter schemas cut down to the subset of JSON Schema Gemini accepts.

Gemini's ``parameters`` is an OpenAPI-style Schema: no ``$ref``/``$defs``, no
``additionalProperties``, ``default``, ``examples``, ``title``, ``const`` or
``patternProperties``; nullability is ``nullable: true`` rather than a null type.
"""

from __future__ import annotations

from typing import Any

KEPT = ("description", "minimum", "maximum", "minItems", "maxItems")
FORMATS = {"enum", "date-time"}
_NULL = {"type": "null"}


def sanitize_schema(schema: Any) -> dict[str, Any]:
    """A copy of ``schema`` Gemini accepts (references inlined, unsupported keys gone)."""
    if not isinstance(schema, dict):
        return {}
    defs = {**(schema.get("definitions") or {}), **(schema.get("$defs") or {})}
    return _clean(schema, defs, ())


def _resolve(ref: str, defs: dict[str, Any]) -> Any:
    for prefix in ("#/$defs/", "#/definitions/"):
        if ref.startswith(prefix):
            return defs.get(ref[len(prefix) :])
    return None


def _is_null(schema: Any) -> bool:
    return isinstance(schema, dict) and (schema == _NULL or schema.get("type") == "null")


def _clean(schema: Any, defs: dict[str, Any], seen: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(schema, dict):
        return {}
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = _resolve(ref, defs)
        if target is None or ref in seen:
            # unknown or recursive: an object the model may fill freely
            return {"type": "object", **_pick(schema, ("description",))}
        merged = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        return _clean(merged, defs, (*seen, ref))

    out: dict[str, Any] = {}
    nullable = bool(schema.get("nullable"))
    variants = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(variants, list) and variants:
        rest = [v for v in variants if not _is_null(v)]
        nullable = nullable or len(rest) < len(variants)
        if len(rest) == 1:
            inner = _clean(rest[0], defs, seen)
            out.update(inner)
        elif rest:
            out["anyOf"] = [_clean(v, defs, seen) for v in rest]
    for part in schema.get("allOf") or []:
        inner = _clean(part, defs, seen)
        props = {**out.get("properties", {}), **inner.get("properties", {})}
        required = [*out.get("required", []), *inner.get("required", [])]
        out.update(inner)
        if props:
            out["properties"] = props
        if required:
            out["required"] = list(dict.fromkeys(required))

    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        nullable = nullable or len(kinds) < len(kind)
        if len(kinds) == 1:
            out["type"] = kinds[0]
        elif kinds:
            out["anyOf"] = [{"type": k} for k in kinds]
    elif isinstance(kind, str) and kind != "null":
        out["type"] = kind

    out.update(_pick(schema, KEPT))
    enum = schema.get("enum")
    if "const" in schema and enum is None:
        enum = [schema["const"]]
    if isinstance(enum, list) and enum and all(isinstance(v, str) for v in enum):
        out["enum"] = enum
        out.setdefault("type", "string")
    fmt = schema.get("format")
    if fmt in FORMATS and out.get("type") == "string":
        out["format"] = fmt

    props = schema.get("properties")
    if isinstance(props, dict):
        cleaned = {name: _clean(sub, defs, seen) for name, sub in props.items()}
        if cleaned:
            out["properties"] = {**out.get("properties", {}), **cleaned}
        out.setdefault("type", "object")
    required = schema.get("required")
    if isinstance(required, list):
        names = out.get("properties", {})
        kept = [r for r in required if r in names]
        kept = list(dict.fromkeys([*out.get("required", []), *kept]))
        if kept:
            out["required"] = kept
    if "items" in schema:
        items = schema["items"]
        out["items"] = _clean(items[0] if isinstance(items, list) and items else items, defs, seen)
        out.setdefault("type", "array")
    if nullable and out:
        out["nullable"] = True
    return out


def _pick(schema: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: schema[k] for k in keys if k in schema}
