"""For tests and benchmarks only: tiny randomly initialised Hugging Face models, tokenizers built on the spot.

Smoke tests, CI and pipeline-overhead benchmarks run on machines with no model hub: each builder
writes a normal Hugging Face directory, so every stage loads it by path exactly like a real model.
They say nothing about quality, and no stage of the platform imports this module (a `scratch:` base
model is `models.scratch`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from semcse.models.scratch import build_bert

SEED_TEXT = (
    "In summary, our research is concerned with the effects of invasive species on native ecosystems. "
    "The main takeaway from our work is that models learn embeddings of scientific abstracts. "
    "Patients with heart failure received a new drug and the methodology was a randomised trial. "
    'Not applicable. {"sentence": "The study compares methods."} 0 1 2 3 4 5 6 7 8 9 .'
)


def _corpus(texts: Iterable[str] | None) -> list[str]:
    return [SEED_TEXT, *(texts or [])]


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
    return build_bert(
        out_dir,
        _corpus(texts),
        hidden_size=hidden_size,
        layers=layers,
        heads=2,
        vocab_size=vocab_size,
        seed=0,
        intermediate_size=2 * hidden_size,
    )


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
    byte_alphabet: bool = True,
) -> Path:
    """A Llama-style causal LM with a byte-level BPE tokenizer (bos/eos/pad) and a chat template.

    `byte_alphabet=False` trains the BPE on `texts` alone, as some real tokenizers were: it then has
    no token for a byte the texts never hold (e.g. "\n"), and can neither write nor stop at it.
    """
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
            vocab_size=vocab_size,
            special_tokens=specials,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet() if byte_alphabet else [],
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
