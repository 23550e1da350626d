"""Tiny randomly initialised Hugging Face models with tokenizers built on the spot.

For smoke tests, CI and pipeline-overhead benchmarks on machines with no model hub: each
builder writes a normal Hugging Face directory, so every stage loads it by path exactly like a
real model. They say nothing about quality.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

SEED_TEXT = (
    "In summary, our research is concerned with the effects of invasive species on native ecosystems. "
    "The main takeaway from our work is that models learn embeddings of scientific abstracts. "
    "Patients with heart failure received a new drug and the methodology was a randomised trial. "
    'Not applicable. {"sentence": "The study compares methods."} 0 1 2 3 4 5 6 7 8 9 .'
)


def _corpus(texts: Iterable[str] | None) -> list[str]:
    return [SEED_TEXT, *(texts or [])]


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


def build_tiny_encoder(
    out_dir: str | Path,
    texts: Iterable[str] | None = None,
    hidden_size: int = 32,
    layers: int = 2,
    vocab_size: int = 4000,
) -> Path:
    """A BERT-style encoder with a WordPiece tokenizer whose vocabulary comes from `texts` (deterministic).

    The default vocabulary holds every word of a test corpus (the sample corpus has about 1,900), so
    words are single tokens and a few training steps can move them; characters cover the rest.
    """
    import torch
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    out = Path(out_dir)
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    normalizer, pre_tokenizer = normalizers.BertNormalizer(lowercase=True), pre_tokenizers.BertPreTokenizer()
    vocab = wordpiece_vocab(_corpus(texts), normalizer, pre_tokenizer, vocab_size, specials)
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
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=tok.get_vocab_size(),
        hidden_size=hidden_size,
        num_hidden_layers=layers,
        num_attention_heads=2,
        intermediate_size=hidden_size * 2,
        max_position_embeddings=512,
    )
    BertModel(config).save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


CHAT_TEMPLATE = (
    "{% for message in messages %}<|{{ message['role'] }}|>{{ message['content'] }}</s>{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def build_tiny_causal_lm(
    out_dir: str | Path,
    texts: Iterable[str] | None = None,
    hidden_size: int = 32,
    layers: int = 2,
    vocab_size: int = 800,
) -> Path:
    """A Llama-style causal LM with a byte-level BPE tokenizer (bos/eos/pad) and a chat template."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    out = Path(out_dir)
    specials = ["<pad>", "<s>", "</s>", "<unk>", "<|user|>", "<|assistant|>", "<|system|>"]
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(
        _corpus(texts),
        trainers.BpeTrainer(
            vocab_size=vocab_size, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
        ),
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<s>",
        eos_token="</s>",
        pad_token="<pad>",
        unk_token="<unk>",
        model_max_length=1024,
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=tok.get_vocab_size(),
        hidden_size=hidden_size,
        intermediate_size=hidden_size * 2,
        num_hidden_layers=layers,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        bos_token_id=tok.token_to_id("<s>"),
        eos_token_id=tok.token_to_id("</s>"),
        pad_token_id=tok.token_to_id("<pad>"),
        tie_word_embeddings=True,
    )
    LlamaForCausalLM(config).save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out
