"""What omp's client tells a server it can do (the ``initialize`` request's capabilities):
document sync and diagnostics for writethrough, and what the ``lsp`` tool's actions use."""

from __future__ import annotations

from typing import Any

_LINKS = {"dynamicRegistration": False, "linkSupport": True}
_KINDS = list(range(1, 27))  # every SymbolKind

CLIENT_CAPABILITIES: dict[str, Any] = {
    "general": {"positionEncodings": ["utf-16"]},
    "window": {"workDoneProgress": True, "showDocument": {"support": False}},
    "workspace": {
        "applyEdit": True,
        "workspaceEdit": {
            "documentChanges": True,
            "resourceOperations": ["create", "rename", "delete"],
            "failureHandling": "abort",
        },
        "configuration": True,
        "workspaceFolders": True,
        "didChangeConfiguration": {"dynamicRegistration": True},
        "didChangeWatchedFiles": {"dynamicRegistration": True},
        "symbol": {"dynamicRegistration": False, "symbolKind": {"valueSet": _KINDS}},
        "executeCommand": {"dynamicRegistration": False},
        "fileOperations": {"willRename": True, "didRename": True},
    },
    "textDocument": {
        "synchronization": {
            "dynamicRegistration": False,
            "didSave": True,
            "willSave": False,
            "willSaveWaitUntil": False,
        },
        "publishDiagnostics": {
            "relatedInformation": True,
            "versionSupport": True,
            "codeDescriptionSupport": True,
            "tagSupport": {"valueSet": [1, 2]},
        },
        "definition": _LINKS,
        "typeDefinition": _LINKS,
        "implementation": _LINKS,
        "declaration": _LINKS,
        "references": {"dynamicRegistration": False},
        "hover": {"dynamicRegistration": False, "contentFormat": ["markdown", "plaintext"]},
        "codeAction": {
            "dynamicRegistration": False,
            "isPreferredSupport": True,
            "dataSupport": True,
            "resolveSupport": {"properties": ["edit"]},
            "codeActionLiteralSupport": {
                "codeActionKind": {
                    "valueSet": [
                        "", "quickfix", "refactor", "refactor.extract", "refactor.inline",
                        "refactor.rewrite", "source", "source.organizeImports",
                        "source.fixAll",
                    ]
                }
            },
        },
        "documentSymbol": {
            "dynamicRegistration": False,
            "hierarchicalDocumentSymbolSupport": True,
            "symbolKind": {"valueSet": _KINDS},
        },
        "rename": {"dynamicRegistration": False, "prepareSupport": True},
        "formatting": {"dynamicRegistration": False},
    },
}  # fmt: skip
