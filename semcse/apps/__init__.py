"""Ray Serve applications: embed (OpenAI-compatible embeddings), search, decode, and the map explorer.

Each module is one FastAPI-ingress deployment plus an `app(args)` builder that `serve deploy
semcse/apps/config.yaml` and `semcse serve` call with ServeConfig fields as args.
"""
