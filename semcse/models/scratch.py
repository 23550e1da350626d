"""Randomly initialised BERT encoders with a WordPiece vocabulary counted on the training corpus.

`training.base_model=scratch:bert-mini` trains an encoder from nothing but the corpus, the setting
of the cropping paper's Table S5 (crops make a useful encoder from random initialisation; dropout
does not). The tokenizer is built from the corpus itself because no pretrained vocabulary can be
downloaded here, and by counting rather than by the `tokenizers` trainer so that the same texts
always give the same token ids (see `wordpiece_vocab`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from semcse.core.config import SCRATCH_PREFIX

# (layers, hidden size, attention heads): the compact BERT sizes of Turc et al. (2019), and bert-base.
ARCHITECTURES: dict[str, tuple[int, int, int]] = {
    "bert-tiny": (2, 128, 2),
    "bert-mini": (4, 256, 4),
    "bert-small": (4, 512, 8),
    "bert-medium": (8, 512, 8),
    "bert-base": (12, 768, 12),
}
SCRATCH_VOCAB = 30_000


def build_scratch_encoder(ref: str, texts: Iterable[str], out_dir: str | Path, seed: int = 0) -> Path:
    """Write `scratch:<architecture>` as a Hugging Face directory: random weights, corpus vocabulary."""
    name = ref.removeprefix(SCRATCH_PREFIX)
    if name not in ARCHITECTURES:
        raise ValueError(f"unknown scratch architecture {name!r}; expected one of {sorted(ARCHITECTURES)}")
    layers, hidden, heads = ARCHITECTURES[name]
    return build_bert(
        out_dir, texts, hidden_size=hidden, layers=layers, heads=heads, vocab_size=SCRATCH_VOCAB, seed=seed
    )


def wordpiece_vocab(
    texts: Iterable[str], normalizer: Any, pre_tokenizer: Any, size: int, specials: list[str]
) -> dict[str, int]:
    """Specials, every character (word-initial and `##` continuation), then the most frequent words.

    Built by counting rather than with the `tokenizers` trainer, whose tie-breaking follows hash-map
    order and so changes from one process to the next: the same texts must give the same token ids,
    or a test's model (and its training curve) differs between this machine and CI.
    """
    words: Counter[str] = Counter()
    for text in texts:
        words.update(word for word, _ in pre_tokenizer.pre_tokenize_str(normalizer.normalize_str(text)))
    alphabet = sorted({char for word in words for char in word})
    pieces = [*specials, *alphabet, *(f"##{char}" for char in alphabet)]
    taken = set(pieces)
    frequent = [word for word, _ in sorted(words.items(), key=lambda item: (-item[1], item[0])) if word not in taken]
    return {token: index for index, token in enumerate(pieces + frequent[: max(0, size - len(pieces))])}


def build_bert(
    out_dir: str | Path,
    texts: Iterable[str],
    hidden_size: int,
    layers: int,
    heads: int,
    vocab_size: int,
    seed: int,
    intermediate_size: int | None = None,
) -> Path:
    """A randomly initialised `BertModel` (seeded) with a WordPiece tokenizer whose vocabulary comes from `texts`.

    The feed-forward width defaults to BERT's 4 × hidden.
    """
    import torch
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    out = Path(out_dir)
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    normalizer, pre_tokenizer = normalizers.BertNormalizer(lowercase=True), pre_tokenizers.BertPreTokenizer()
    vocab = wordpiece_vocab(texts, normalizer, pre_tokenizer, vocab_size, specials)
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizer
    tok.decoder = decoders.WordPiece()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))],
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
        model_max_length=512,
    )
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=tok.get_vocab_size(),
        hidden_size=hidden_size,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=intermediate_size or 4 * hidden_size,
        max_position_embeddings=512,
    )
    BertModel(config).save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out
