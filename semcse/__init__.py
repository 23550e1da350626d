"""SemCSE Platform: semantic, multifaceted and decodable embeddings of scientific abstracts."""

__version__ = "0.1.0"
