"""Property: whatever a tool returns, the session file it produces always loads."""

from __future__ import annotations

import asyncio
import itertools
import json
import math

from doubles import Contribute, ListProvider
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from omp.agent.tools import Tool
from omp.runtime.bootstrap import SessionOptions, open_session
from omp.session.file import SessionFile
from pydantic import BaseModel


class Empty(BaseModel):
    pass


class Opaque:
    def __repr__(self) -> str:
        return "<opaque>"


texts = st.text(alphabet=st.characters(codec=None), max_size=30) | st.sampled_from(
    ["\ud800", "\x00", "é\udfff", "line\r\n"]
)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | texts
    | st.binary(max_size=10)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.just(Opaque())
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(texts | st.integers(), inner, max_size=4)
        | st.tuples(inner, inner)
    ),
    max_leaves=12,
)
blocks = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["text", "image", "video", 3]),
        "text": values,
        "data": values,
        "mimeType": values,
    }
)
results = values | st.fixed_dictionaries(
    {
        "content": values | st.lists(blocks | values, max_size=4),
        "details": values,
        "isError": values,
    }
)

counter = itertools.count()


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(raw=results)
def test_any_tool_return_value_yields_a_loadable_session(omp_harness, raw):
    holder = {"raw": raw}
    tool = Tool(name="wild", parameters=Empty, execute=lambda *a: holder["raw"])
    provider = ListProvider([{"calls": [("wild", {})]}, {"text": "done"}])
    runtime = omp_harness.runtime([Contribute([provider], [tool])], entry_points=False)
    path = omp_harness.root / "sessions" / f"s{next(counter)}.jsonl"
    session = open_session(runtime, SessionOptions(model="test/model", session_path=str(path)))

    async def run() -> None:
        await session.start()
        await session.prompt("go")
        await session.shutdown()

    asyncio.run(run())
    for line in path.read_text(encoding="utf-8").split("\n")[:-1]:
        json.loads(line)
    loaded = SessionFile.open(path)
    assert loaded.load_warnings == []
    roles = [m.role for m in loaded.build_context().messages]
    assert roles == ["user", "assistant", "toolResult", "assistant"]
    result = loaded.build_context().messages[2]
    for block in result.content:
        assert block.type in ("text", "image")
    assert not any(isinstance(v, float) and not math.isfinite(v) for v in _leaves(result.details))


def _leaves(value):
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    else:
        yield value
