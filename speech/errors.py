"""The speech domain's one exception: a code the client can branch on and a message people read."""

from __future__ import annotations

from enum import StrEnum


class SpeechErrorCode(StrEnum):
    EMPTY = "empty"
    NOT_AUDIO = "not_audio"
    TOO_LONG = "too_long"
    UNSUPPORTED = "unsupported"
    NO_SPEECH = "no_speech"
    UNAVAILABLE = "unavailable"


class SpeechError(Exception):
    """Audio that cannot become text; ``message`` is short and safe to show the owner."""

    def __init__(self, code: SpeechErrorCode | str, message: str) -> None:
        super().__init__(message)
        self.code = str(code)
        self.message = message

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}
