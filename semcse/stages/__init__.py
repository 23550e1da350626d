"""The stages, each reading and writing data contracts: generation, training, evaluation, batch embedding, search
and maps (docs/ARCHITECTURE.md, "Layers")."""
