"""The foundation every layer stands on: configuration, storage and locations, logging, Ray runtime, MLflow
tracking, versioned artifact roots and FAISS indexes (docs/ARCHITECTURE.md, "Layers")."""
