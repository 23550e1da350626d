"""Running stages in order: the step runner, the pipeline, a corpus update, the promotion rule and the serve
stage (docs/ARCHITECTURE.md, "Layers"); Tune studies are in `semcse.tuning`."""
