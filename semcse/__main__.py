"""`python -m semcse …`: the `semcse` command where its console script is not on PATH (a job on a cluster node)."""

from semcse.cli import entry_point

if __name__ == "__main__":
    entry_point()
