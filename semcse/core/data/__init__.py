"""Corpus readers and writers, row validation with quarantine, splits, sentences, resumable shards."""
