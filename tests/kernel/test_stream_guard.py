"""A secret the model streams is held back until it is whole, then hidden (issue 24,
item 8 follow-up): ``omp.agent.stream_guard`` over ``Secrets.safe_cut``."""

from __future__ import annotations

from omp.agent.messages import AssistantMessage
from omp.agent.providers import AssistantStream, Model
from omp.agent.stream_guard import Holdback, StreamGuard
from omp.config.secrets import Secrets

KEY = "sk-proj-guard-0123456789"
SHOWN = "[REDACTED:KEY]"
TEXT = f"the key {KEY} again: {KEY}."


def _secrets(*values: str) -> Secrets:
    secrets = Secrets()
    for number, value in enumerate(values):
        secrets.add(value, "KEY" if number == 0 else f"KEY{number}")
    return secrets


def _stream(hold: Holdback, pieces: list[str]) -> list[str]:
    return [*(hold.feed(piece) for piece in pieces), hold.release()]


def test_a_key_split_at_every_position_is_never_shown():
    secrets = _secrets(KEY)
    expected = f"the key {SHOWN} again: {SHOWN}."
    for split in range(len(TEXT) + 1):
        shown = _stream(Holdback(secrets), [TEXT[:split], TEXT[split:]])
        assert "".join(shown) == expected, split
    one_by_one = _stream(Holdback(secrets), list(TEXT))
    assert "".join(one_by_one) == expected
    assert not any("sk-" in piece for piece in one_by_one)


def test_a_prefix_that_is_no_secret_is_released_unchanged_and_in_order():
    secrets = _secrets(KEY)
    text = f"near miss {KEY[:-3]}XYZ and more"
    hold = Holdback(secrets)
    shown = [hold.feed(char) for char in text]
    assert "".join(shown) + hold.release() == text
    held_from = text.index("sk-")
    assert shown[held_from : held_from + len(KEY) - 3] == [""] * (len(KEY) - 3)
    assert shown[text.index("X")] == KEY[:-3] + "X"


def test_a_held_tail_comes_out_at_the_end_of_the_block():
    hold = Holdback(_secrets(KEY))
    assert hold.feed(f"ends with {KEY[:6]}") == "ends with "
    assert hold.release() == KEY[:6]
    assert hold.release() == ""


def test_a_whole_key_is_not_cut_by_the_start_of_another():
    """The tail "1234" begins the second key: the first, whole before it, is held whole."""
    first, second = "aaaa-bbbb-1234", "1234-cccc-dddd"
    secrets = _secrets(first, second)
    for split in range(len(first) + 1):
        text = f"x {first}"
        shown = _stream(Holdback(secrets), [text[:split], text[split:]])
        assert "".join(shown) == f"x {SHOWN}", split


def test_a_key_that_begins_a_longer_one_waits_for_the_longer():
    short, longer = "sk-abcdefgh", "sk-abcdefgh-and-more"
    secrets = _secrets(longer, short)
    assert "".join(_stream(Holdback(secrets), [f"is {short}", "-and-more!"])) == f"is {SHOWN}!"
    assert (
        "".join(_stream(Holdback(secrets), [f"is {short}", " done"])) == "is [REDACTED:KEY1] done"
    )


def test_no_secret_known_nothing_is_held():
    hold = Holdback(Secrets())
    assert hold.feed("sk-proj") == "sk-proj"


def _events(pieces: list[str], end: bool) -> tuple[list[dict], list[str], AssistantMessage]:
    """What the guard shows of a text block streamed in ``pieces``, ended and done, or
    cut by an error before its end; and each event's partial message as it was then."""
    guard = StreamGuard(_secrets(KEY))
    out = AssistantStream(Model(id="m", provider="p", api="a"))
    shown = [*guard.feed(out.start()), *guard.feed(out.text_start())]
    partials = [e["partial"].model_dump_json() for e in shown]
    for piece in pieces:
        shown += guard.feed(out.text_delta(piece))
        partials += [e["partial"].model_dump_json() for e in shown[len(partials) :]]
    if end:
        shown += guard.feed(out.text_end())
        final = out.done()["message"]
    else:
        final = out.error("the connection dropped")["error"]
    shown += guard.release()
    return shown, partials, guard.finish(final)


def test_the_guard_shows_redacted_deltas_partials_and_final_message():
    for end in (True, False):  # a block cut by an error gives its tail at the end
        events, partials, final = _events(["the key sk-pr", "oj-guard-0123", "456789 again"], end)
        deltas = "".join(e["delta"] for e in events if e["type"] == "text_delta")
        assert deltas == f"the key {SHOWN} again" == final.content[0].text
        assert not any(KEY[:5] in partial for partial in partials)
        assert [e["type"] for e in events][-1] == ("text_end" if end else "text_delta")
        if end:
            assert events[-1]["content"] == deltas
