"""Serve's fixtures, registered for this package alone: Serve starts with the first serving test and stops after the
last (`serve_base` and the deployed apps are package-scoped), instead of idling beside every later test."""

from tests.fixtures.explorer import demo_run, explorer, explorer_encoder, synthetic_run  # noqa: F401
from tests.fixtures.serving import apps, client, decoder_dir, embed_url, map_dir, search_dir, serve_base  # noqa: F401
