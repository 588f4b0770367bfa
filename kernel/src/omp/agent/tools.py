"""The tool contract, the tool registry and the one boundary where tool results are coerced."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from omp.agent.messages import ImageContent, TextContent
from omp.base.errors import OmpError, UsageError
from omp.config.secrets import Secrets

if TYPE_CHECKING:
    from omp.runtime.tool_render import CallRenderer, ResultRenderer


@dataclass
class ToolResult:
    """What a tool returns. ``content`` is what the model reads; ``details`` is for the
    UI and the session (any JSON-able value); ``is_error`` marks a failed call.
    ``terminate`` asks to end the run after this tool batch without another model
    request; it takes effect when every result of the batch asks it (as pi's)."""

    content: list[TextContent | ImageContent] = field(default_factory=list)
    details: Any = None
    is_error: bool = False
    terminate: bool = False

    @classmethod
    def text(
        cls, text: str, details: Any = None, is_error: bool = False, *, terminate: bool = False
    ) -> ToolResult:
        return cls([TextContent(text=text)], details, is_error, terminate)

    @classmethod
    def error(cls, text: str, details: Any = None) -> ToolResult:
        return cls([TextContent(text=text)], details, True)


class Tool:
    """A tool the model can call.

    Subclass and override ``execute``, or pass ``execute=`` a function. ``execute`` is
    called as ``execute(call_id, params, signal, on_update, ctx)`` where ``params`` is
    an instance of ``parameters`` (a pydantic model whose JSON schema is what providers
    send), ``signal`` an ``omp.base.abort.AbortSignal``, ``on_update`` a callable taking a
    partial result, and ``ctx`` the handler context. It may be sync (run in a worker
    thread) or async, and may return a ToolResult, a string, a dict with ``content``
    (and ``details``/``is_error``/``terminate``), or a list of content blocks.

    ``exclusive`` tools never run beside another tool; ``hidden`` tools are registered
    but not offered to the model unless activated by name (omp's default-inactive);
    ``requires_approval`` tools ask the user before each call (see the
    ``tool_approval_requested`` hook); ``network`` tools reach beyond the machine and
    are not offered with ``--offline``. ``render_call(args, options)`` and
    ``render_result(result, options)``, when given, return the lines a UI shows for a
    call and its result instead of the default view (see ``omp.runtime.tool_render``).

    ``overrides`` names the tool this one replaces (it must be its own name: the model
    keeps calling it by that name). Only a declared override replaces another plugin's
    tool, whatever order the plugins load in; the replaced tool stays reachable with
    ``ctx.api.get_tool(name, overridden=True)`` to delegate to, and lends its renderers
    to an override that has none. Two plugins registering one name without it is a
    clash: the later one's tool is refused (see ``omp.plugin.tool_overrides``).
    """

    name: str = ""
    label: str = ""
    description: str = ""
    parameters: type[BaseModel]
    exclusive: bool = False
    hidden: bool = False
    requires_approval: bool = False
    network: bool = False
    render_call: CallRenderer | None = None
    render_result: ResultRenderer | None = None
    overrides: str | None = None

    def __init__(
        self,
        *,
        name: str | None = None,
        label: str | None = None,
        description: str | None = None,
        parameters: type[BaseModel] | None = None,
        execute: Callable[..., Any] | None = None,
        exclusive: bool | None = None,
        hidden: bool | None = None,
        requires_approval: bool | None = None,
        render_call: CallRenderer | None = None,
        render_result: ResultRenderer | None = None,
        overrides: str | None = None,
    ) -> None:
        if name is not None:
            self.name = name
        if label is not None:
            self.label = label
        if description is not None:
            self.description = description
        if parameters is not None:
            self.parameters = parameters
        if exclusive is not None:
            self.exclusive = exclusive
        if hidden is not None:
            self.hidden = hidden
        if requires_approval is not None:
            self.requires_approval = requires_approval
        if render_call is not None:
            self.render_call = render_call
        if render_result is not None:
            self.render_result = render_result
        if overrides is not None:
            self.overrides = overrides
        self._execute = execute
        self._schema: dict[str, Any] | None = None
        if not self.name or not getattr(self, "parameters", None):
            raise ValueError("a Tool needs a name and a parameters model")
        self.label = self.label or self.name

    def execute(self, call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> Any:
        if self._execute is None:
            raise NotImplementedError(f"tool {self.name} has no execute()")
        return self._execute(call_id, params, signal, on_update, ctx)

    def runs_inline(self, params: Any, ctx: Any) -> bool:
        """Whether this call of a plain-function ``execute`` may run on the event loop
        instead of a worker thread. Only for work that is quick, bounded and never waits
        on the loop (``ctx.files`` of an editor does): a worker thread's hand-off costs
        about 0.25 ms a call, more than reading a small file. Default: never."""
        return False

    def json_schema(self) -> dict[str, Any]:
        """The parameters' JSON schema as the model sees it (see ``compact_schema``)."""
        if self._schema is None:
            schema = inline_refs(self.parameters.model_json_schema())
            self._schema = compact_schema(schema)
        return self._schema

    def spec(self) -> dict[str, Any]:
        """What a provider sends to the model for this tool."""
        return {
            "name": self.name,
            "description": self.description,
            "parameters": self.json_schema(),
        }

    def validate(self, arguments: dict[str, Any]) -> Any:
        return self.parameters.model_validate(arguments)


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Nested models written in place instead of through ``$defs``/``$ref``: fewer
    tokens, and providers with a JSON Schema subset (Gemini) understand them. A model
    that refers to itself keeps its references."""
    defs = schema.get("$defs")
    if not isinstance(defs, dict):
        return schema

    def resolve(node: Any, seen: tuple[str, ...]) -> tuple[Any, bool]:
        if isinstance(node, list):
            items = [resolve(item, seen) for item in node]
            return [i for i, _ in items], all(ok for _, ok in items)
        if not isinstance(node, dict):
            return node, True
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name in seen or name not in defs:
                return node, False
            target, ok = resolve(defs[name], (*seen, name))
            extra = {k: v for k, v in node.items() if k != "$ref"}
            return {**target, **extra}, ok
        pairs = {k: resolve(v, seen) for k, v in node.items() if k != "$defs"}
        return {k: v for k, (v, _) in pairs.items()}, all(ok for _, ok in pairs.values())

    inlined, complete = resolve(schema, ())
    return inlined if complete else schema


def compact_schema(schema: Any, top: bool = True) -> Any:
    """A smaller schema with the same meaning for the model: no titles, no class
    docstring, and an optional field's ``anyOf [X, null]`` with ``default: null``
    shortened to X (leaving it out already means null). Every provider sends this, so
    every token saved is saved on every request."""
    if isinstance(schema, list):
        return [compact_schema(item, False) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {
        k: compact_schema(v, False)
        for k, v in schema.items()
        if k != "title" and not (top and k == "description")
    }
    properties = out.get("properties")
    if isinstance(properties, dict):
        required = set(out.get("required", []))
        for name, prop in properties.items():
            if name not in required and isinstance(prop, dict):
                properties[name] = _drop_null_option(prop)
    return out


def _drop_null_option(prop: dict[str, Any]) -> dict[str, Any]:
    options = prop.get("anyOf")
    if not isinstance(options, list) or "default" not in prop or prop["default"] is not None:
        return prop
    rest = [o for o in options if o != {"type": "null"}]
    if len(rest) != 1 or len(rest) == len(options):
        return prop
    merged = {k: v for k, v in prop.items() if k not in ("anyOf", "default")}
    return {**rest[0], **merged}


def tool_cwd(ctx: Any) -> str:
    """The directory a tool works in: the session's cwd, else the process's."""
    return getattr(ctx, "cwd", None) or os.getcwd()


def resolve_path(path: str, cwd: str) -> str:
    """A path argument as tools take it: ``~`` expanded, relative to ``cwd``."""
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))


def describe_validation_error(tool_name: str, exc: ValidationError) -> str:
    problems = []
    for err in exc.errors(include_url=False):
        where = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        problems.append(f"{where}: {err['msg']}")
    return f"Invalid arguments for tool {tool_name}: " + "; ".join(problems)


class ToolRegistry:
    """Every registered tool, and which of them the model currently sees.

    ``owners`` names the plugin that registered each tool; ``replaced`` holds, by
    name, the (plugin, tool) a declared override replaced (``omp.plugin.tool_overrides``)."""

    def __init__(
        self,
        tools: Iterable[Tool] = (),
        *,
        owners: Mapping[str, str] | None = None,
        replaced: Mapping[str, tuple[str, Tool]] | None = None,
    ) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self._tools[tool.name] = tool
        self._active = [t.name for t in self._tools.values() if not t.hidden]
        self._owners = dict(owners or {})
        self._replaced = dict(replaced or {})

    def overridden(self, name: str) -> Tool | None:
        """The tool that the override called ``name`` replaced, for it to delegate to."""
        pair = self._replaced.get(name)
        return pair[1] if pair else None

    def owner(self, name: str, *, overridden: bool = False) -> str | None:
        """The plugin that registered the tool (or the one it replaced); None if unknown."""
        if overridden:
            pair = self._replaced.get(name)
            return pair[0] if pair else None
        return self._owners.get(name)

    def __contains__(self, name: str) -> bool:
        return name in self._tools

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def all(self) -> list[Tool]:
        return list(self._tools.values())

    def names(self) -> list[str]:
        return list(self._tools)

    def active(self) -> list[Tool]:
        return [self._tools[n] for n in self._active]

    def active_names(self) -> list[str]:
        return list(self._active)

    def register(self, tool: Tool) -> None:
        """Add ``tool`` while a session runs (active unless hidden); the next model
        request offers it. A name already registered is an error, unless the tool
        declares ``overrides`` of it and that tool is not overridden yet."""
        current = self._tools.get(tool.name)
        if current is not None:
            if tool.overrides != tool.name or tool.name in self._replaced:
                raise OmpError(
                    f"a tool named {tool.name!r} is already registered (to replace it, "
                    f"declare overrides={tool.name!r})"
                )
            owner = self._owners.pop(tool.name, None) or f"tool:{tool.name}"
            self._replaced[tool.name] = (owner, current)
        self._tools[tool.name] = tool
        if not tool.hidden and tool.name not in self._active:
            self._active.append(tool.name)

    def unregister(self, name: str) -> None:
        """Remove a tool; the next model request no longer offers it. Removing an
        override brings back the tool it replaced."""
        if name not in self._tools:
            raise OmpError(f"no tool named {name!r} is registered")
        del self._tools[name]
        self._owners.pop(name, None)
        replaced = self._replaced.pop(name, None)
        if replaced is not None:
            self._owners[name], self._tools[name] = replaced
            return
        self._active = [n for n in self._active if n != name]

    def set_active(self, names: Iterable[str]) -> None:
        names = list(names)
        unknown = [n for n in names if n not in self._tools]
        if unknown:
            raise UsageError(
                f"unknown tool(s): {', '.join(unknown)}. "
                f"Valid tools: {', '.join(sorted(self._tools)) or '(none)'}"
            )
        self._active = list(dict.fromkeys(names))


# -- result coercion ---------------------------------------------------------------

_MAX_DEPTH = 64


def clean_text(text: str) -> str:
    """Text that is always valid UTF-8 (lone surrogates replaced)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def json_safe(value: Any, depth: int = 0, clean: Callable[[str], str] = clean_text) -> Any:
    """A JSON-serialisable copy of any value: what a session file can always hold.
    Every string in it passes through ``clean``."""
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, str):
        return clean(value)
    if depth >= _MAX_DEPTH:
        return clean(repr(value)[:200])
    if isinstance(value, BaseModel):
        return json_safe(value.model_dump(mode="json"), depth + 1, clean)
    if isinstance(value, dict):
        return {clean(str(k)): json_safe(v, depth + 1, clean) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [json_safe(v, depth + 1, clean) for v in value]
    if isinstance(value, bytes):
        return clean(value.decode("utf-8", "replace"))
    try:
        return clean(str(value))
    except Exception:
        return f"<unprintable {type(value).__name__}>"


def _coerce_block(
    block: Any, clean: Callable[[str], str] = clean_text
) -> TextContent | ImageContent | None:
    if isinstance(block, TextContent):
        return TextContent(text=clean(block.text))
    if isinstance(block, ImageContent):
        return block
    if isinstance(block, str):
        return TextContent(text=clean(block))
    if isinstance(block, dict):
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            return TextContent(text=clean(block["text"]))
        mime = block.get("mimeType", block.get("mime_type"))
        if kind == "image" and isinstance(block.get("data"), str) and isinstance(mime, str):
            return ImageContent(data=block["data"], mime_type=mime)
    return None


def coerce_tool_result(raw: Any, secrets: Secrets | None = None) -> ToolResult:
    """The single boundary where untyped values from ``Tool.execute`` enter the loop.

    A malformed result would corrupt the session file, so every shape is turned into
    a valid ToolResult here; one that cannot be understood becomes an error result
    that says what was wrong. With ``secrets`` (omp.config.secrets), every credential value
    they know is replaced in the text and the details, so neither the model, nor an
    event, nor the session file ever holds it.
    """
    clean = clean_text
    if secrets:
        redact = secrets.redact

        def clean(text: str) -> str:
            return redact(clean_text(text))

    terminate = False
    content: object
    if isinstance(raw, ToolResult):
        content, details, is_error = raw.content, raw.details, bool(raw.is_error)
        terminate = raw.terminate is True
    elif isinstance(raw, str):
        return ToolResult([TextContent(text=clean(raw))])
    elif isinstance(raw, dict) and "content" in raw:
        content, details = raw.get("content"), raw.get("details")
        is_error = bool(raw.get("is_error", raw.get("isError", False)))
        terminate = raw.get("terminate") is True
    elif isinstance(raw, list):
        content, details, is_error = raw, None, False
    elif raw is None:
        return ToolResult([TextContent(text="(no output)")])
    else:
        text = f"Tool returned an unsupported result of type {type(raw).__name__}"
        return ToolResult([TextContent(text=text)], json_safe(raw, clean=clean), True)
    if isinstance(content, str):
        content = [content]
    if not isinstance(content, list | tuple):
        text = "Tool returned a malformed result: content is not a list"
        return ToolResult([TextContent(text=text)], json_safe(details, clean=clean), True)
    blocks = [b for b in (_coerce_block(item, clean) for item in content) if b is not None]
    dropped = len(content) - len(blocks)
    if dropped:
        blocks.append(TextContent(text=f"[{dropped} malformed content block(s) dropped]"))
    details = json_safe(details, clean=clean)
    return ToolResult(blocks, details, is_error or (dropped > 0 and not blocks), terminate)


def dumps_compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
