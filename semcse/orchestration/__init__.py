"""Running stages in order: the step runner, the pipeline, a corpus update, the promotion rule, the serve stage and
Tune studies (`tuning/`) (docs/ARCHITECTURE.md, "Layers")."""
