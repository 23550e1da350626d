"""Encoder training on Ray Train + DeepSpeed: the worker loop, checkpoints, validation, and the driver.

Entry point: `semcse.stages.training.trainer.train(cfg)` (or `semcse train` / `jobs/train.py`).
"""
