"""Encoders (pooling, projection heads), the unified multi-head model, the embedding decoder."""
