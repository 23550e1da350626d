"""The foundation every layer stands on: configuration, storage and locations, logging, the Ray runtime, MLflow
tracking, versioned artifact roots, FAISS indexes and the data contracts (`data/`) (docs/ARCHITECTURE.md)."""
