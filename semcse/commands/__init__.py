"""The `semcse` command groups (`semcse corpus …`, `semcse map …`) and what every command shares."""
