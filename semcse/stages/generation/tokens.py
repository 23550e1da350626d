"""Count prompt tokens and cut over-long abstracts to fit the model's context.

With a local tokenizer the counts are exact. An `http` run against a remote model may have no
tokenizer at hand; it then budgets with a conservative characters-per-token estimate rather
than refusing to run, and says so in its report (`exact_token_counts=false`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from semcse.core import storage
from semcse.stages.generation.prompts import Message

CHARS_PER_TOKEN = 3.5
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf", ".h5", ".msgpack", ".onnx")


def tokenizer_source(model: str | None, tokenizer: str | None) -> str | None:
    """Where the tokenizer is: the explicit one, else the model when it is a directory (local or a URI).

    A reference, resolved on each node that counts tokens (`local_tokenizer`).
    """
    if tokenizer and not _is_model_dir(tokenizer):
        raise FileNotFoundError(f"tokenizer path not found: {tokenizer}")
    for candidate in (tokenizer, model):
        if candidate and _is_model_dir(candidate):
            return str(Path(candidate).expanduser()) if not storage.is_uri(candidate) else candidate
    return None


def _is_model_dir(ref: str) -> bool:
    return storage.is_dir(ref) if storage.is_uri(ref) else Path(ref).expanduser().is_dir()


def local_tokenizer(ref: str) -> str:
    """A directory on this node holding the tokenizer of `ref`: a remote model's files without its weights."""
    return str(storage.local_copy(ref, skip_suffixes=WEIGHT_SUFFIXES)) if storage.is_remote(ref) else ref


class TokenCounter:
    """Token counts and token-exact truncation for prompts (exact with a tokenizer, estimated without)."""

    def __init__(self, tokenizer_path: str | None) -> None:
        self.tokenizer: Any = None
        if tokenizer_path is not None:
            from transformers import AutoTokenizer

            self.tokenizer = AutoTokenizer.from_pretrained(local_tokenizer(tokenizer_path))

    @property
    def exact(self) -> bool:
        return self.tokenizer is not None

    def count(self, text: str) -> int:
        if self.tokenizer is None:
            return int(len(text) / CHARS_PER_TOKEN) + 1
        return len(self.tokenizer(text, add_special_tokens=True)["input_ids"])

    def count_messages(self, messages: list[Message]) -> int:
        if self.tokenizer is None or not getattr(self.tokenizer, "chat_template", None):
            return sum(self.count(m["content"]) for m in messages) + 4 * len(messages)
        text = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def truncate(self, text: str, max_tokens: int) -> tuple[str, int]:
        """Keep the first `max_tokens` tokens of `text`; returns the kept text and how many tokens were cut."""
        max_tokens = max(max_tokens, 0)
        if self.tokenizer is None:
            limit = int(max_tokens * CHARS_PER_TOKEN)
            if len(text) <= limit:
                return text, 0
            kept = text[:limit].rsplit(" ", 1)[0] if " " in text[:limit] else text[:limit]
            return kept, self.count(text[len(kept) :])
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        if len(ids) <= max_tokens:
            return text, 0
        return self.tokenizer.decode(ids[:max_tokens], skip_special_tokens=True), len(ids) - max_tokens
