"""SQLite databases for ``read``, opened read-only (``mode=ro``): the schema with row
counts, a table's rows (``db.sqlite:table``, paged by ``offset``/``limit``), or one
query (``db.sqlite?q=SELECT ...``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote

from omp import ToolResult

DEFAULT_ROWS = 50
MAX_ROWS = 500
MAX_CELL_CHARS = 200
_SUFFIXES = (".sqlite", ".sqlite3", ".db", ".db3")


def split_selector(path: str) -> tuple[str, str, str] | None:
    """``db.sqlite:table?q=...`` -> (file, table, query string); None when the path
    names no SQLite file with a selector."""
    lower = path.lower()
    for suffix in _SUFFIXES:
        for sep in (":", "?"):
            at = lower.find(suffix + sep)
            if at > 0:
                end = at + len(suffix)
                rest = path[end:]
                table, _, query = rest[1:].partition("?") if sep == ":" else ("", "", rest[1:])
                return path[:end], table, query
    return None


_READ_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION}
_READ_ACTIONS.add(getattr(sqlite3, "SQLITE_RECURSIVE", 33))
_READ_PRAGMAS = {
    "table_info",
    "table_xinfo",
    "table_list",
    "index_list",
    "index_info",
    "index_xinfo",
    "foreign_key_list",
    "foreign_key_check",
    "integrity_check",
    "quick_check",
}


def _authorize(action: int, arg1: str | None, arg2: str | None, *_: object) -> int:
    """Reads only: ``mode=ro`` alone still lets ATTACH create a file and VACUUM INTO
    write one; a pragma runs only to query (no value) or from ``_READ_PRAGMAS``."""
    if action in _READ_ACTIONS:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_PRAGMA and (arg2 is None or (arg1 or "").lower() in _READ_PRAGMAS):
        return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


def _connect(abs_path: str) -> sqlite3.Connection:
    uri = f"file:{quote(str(Path(abs_path)))}?mode=ro"
    conn = sqlite3.connect(uri, uri=True)
    conn.execute("PRAGMA query_only = ON")
    conn.set_authorizer(_authorize)
    return conn


def _cell(value: Any) -> str:
    if isinstance(value, bytes):
        return f"<blob {len(value)} B>"
    text = "NULL" if value is None else str(value).replace("\n", "\\n")
    return text if len(text) <= MAX_CELL_CHARS else text[:MAX_CELL_CHARS] + "…"


def _table(columns: list[str], rows: list[tuple[Any, ...]]) -> str:
    lines = [" | ".join(columns)]
    lines.extend(" | ".join(_cell(v) for v in row) for row in rows)
    return "\n".join(lines)


def read_sqlite(
    abs_path: str,
    shown_path: str,
    table: str,
    query: str,
    offset: int | None,
    limit: int | None,
) -> ToolResult:
    details: dict[str, Any] = {"path": abs_path, "kind": "sqlite"}
    if query and not query.startswith("q="):
        return ToolResult.error(
            f"Unknown SQLite parameter {query.partition('=')[0]!r}: use ?q=SELECT ...", details
        )
    sql = query[2:].strip()  # as written: no URL decoding (SQL has its own + and %)
    try:
        conn = _connect(abs_path)
    except sqlite3.Error as exc:
        return ToolResult.error(f"Cannot open {shown_path} read-only: {exc}.", details)
    try:
        if sql:
            return _query(conn, sql, details)
        if table:
            return _rows(conn, shown_path, table, offset, limit, details)
        return _schema(conn, shown_path, details)
    except sqlite3.Error as exc:
        return ToolResult.error(
            f"SQLite error: {exc}. The database is opened read-only: only queries that "
            "read (SELECT, WITH, EXPLAIN, a pragma's value) can run.",
            details,
        )
    finally:
        conn.close()


def _schema(conn: sqlite3.Connection, shown_path: str, details: dict[str, Any]) -> ToolResult:
    objects = conn.execute(
        "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' "
        "AND sql IS NOT NULL ORDER BY type = 'table' DESC, name"
    ).fetchall()
    parts = [f"SQLite database {shown_path}:"]
    for kind, name, sql in objects:
        if kind == "table":
            quoted = '"' + name.replace('"', '""') + '"'
            (count,) = conn.execute(f"SELECT COUNT(*) FROM {quoted}").fetchone()
            parts.append(f"\n-- table {name}: {count} rows\n{sql};")
        else:
            parts.append(f"\n-- {kind} {name}\n{sql};")
    if len(parts) == 1:
        parts.append("(no tables)")
    else:
        parts.append(
            f"\n[Rows: path={shown_path}:<table> (offset/limit page the rows). "
            f"A query: path={shown_path}?q=SELECT ...]"
        )
    details["tables"] = sum(1 for o in objects if o[0] == "table")
    return ToolResult.text("\n".join(parts), details)


def _rows(
    conn: sqlite3.Connection,
    shown_path: str,
    table: str,
    offset: int | None,
    limit: int | None,
    details: dict[str, Any],
) -> ToolResult:
    quoted = '"' + table.replace('"', '""') + '"'
    known = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?", (table,)
    ).fetchone()
    if known is None:
        return ToolResult.error(f"No table {table!r} in {shown_path}.", details)
    (total,) = conn.execute(f"SELECT COUNT(*) FROM {quoted}").fetchone()
    first = offset or 1
    count = min(limit or DEFAULT_ROWS, MAX_ROWS)
    cursor = conn.execute(f"SELECT * FROM {quoted} LIMIT ? OFFSET ?", (count, first - 1))
    rows = cursor.fetchall()
    columns = [d[0] for d in cursor.description or ()]
    body = _table(columns, rows)
    last = first + len(rows) - 1
    if last < total:
        body += f"\n\n[Showing rows {first}-{last} of {total}. Use offset={last + 1} to continue.]"
    details.update(table=table, offset=first, rows=len(rows), totalRows=total)
    return ToolResult.text(body, details)


def _query(conn: sqlite3.Connection, sql: str, details: dict[str, Any]) -> ToolResult:
    cursor = conn.execute(sql)
    rows = cursor.fetchmany(MAX_ROWS + 1)
    columns = [d[0] for d in cursor.description or ()]
    cut = len(rows) > MAX_ROWS
    body = _table(columns, rows[:MAX_ROWS]) if columns else "(the query returned no columns)"
    if cut:
        body += f"\n\n[Output capped at {MAX_ROWS} rows; add LIMIT/OFFSET to the query to page.]"
    details.update(query=sql, rows=min(len(rows), MAX_ROWS), truncated=cut)
    return ToolResult.text(body, details)
