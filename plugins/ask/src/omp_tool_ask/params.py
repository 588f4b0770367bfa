"""The ``ask`` tool's parameters, as omp's (strict: unknown keys are refused)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

OTHER = "Other (type your own)"
DONE = "✓ Done selecting"
RESERVED = (OTHER, "Next →", "Chat about this", DONE)
"""Labels the dialogs add themselves; a model's option may not take one."""


class AskOption(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: str = Field(description="display label")
    description: str | None = Field(
        default=None, description="optional explanatory text displayed below the label"
    )
    preview: str | None = Field(
        default=None, description="optional rich preview content for interactive ask dialogs"
    )


class AskQuestion(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="question id")
    question: str = Field(description="question text")
    header: str | None = Field(
        default=None, description="optional short display chip for rich ask dialogs"
    )
    options: list[AskOption] = Field(description="available options")
    multi: bool = Field(default=False, description="allow multiple selections")
    recommended: int | None = Field(default=None, description="recommended option index")

    @field_validator("options")
    @classmethod
    def _no_reserved_label(cls, options: list[AskOption]) -> list[AskOption]:
        for option in options:
            if option.label in RESERVED:
                raise ValueError(
                    "must be defined with option labels that do not collide with reserved "
                    f"runtime labels: {option.label}"
                )
        return options


class AskParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    questions: list[AskQuestion] = Field(min_length=1, description="questions to ask")


def duplicate_problem(params: AskParams) -> str | None:
    """Why the questions cannot be asked (answers are keyed by id and label), or None."""
    ids: set[str] = set()
    for question in params.questions:
        if question.id in ids:
            return f"question ids must be unique: {question.id!r}"
        ids.add(question.id)
        labels = [o.label for o in question.options]
        for label in labels:
            if labels.count(label) > 1:
                return f"option labels must be unique within a question: {label!r}"
    return None
