"""Ray Tune ablation studies: study files, the trial function, the runner and the ablation table."""
