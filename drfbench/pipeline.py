"""What the Snakefile needs when it reads the workflow: the config checked against the
schemas of every family, with one-line errors. Only the workflow imports this module.

The schema is workflows/schemas/config.schema.yaml (the keys every profile has) merged
with one workflows/schemas/<family>.schema.yaml per family (that family's top-level keys),
so that a family adds its keys without editing a shared file.
"""
from pathlib import Path

COMMON_SCHEMA = "config.schema.yaml"


def schema(directory):
    """The merged JSON schema of the config: the common schema, plus the `properties`,
    `required` keys and `$defs` of each family's *.schema.yaml in `directory`."""
    import yaml
    directory = Path(directory)
    merged = yaml.safe_load((directory / COMMON_SCHEMA).read_text())
    for path in sorted(directory.glob("*.schema.yaml")):
        if path.name == COMMON_SCHEMA:
            continue
        part = yaml.safe_load(path.read_text())
        for key in ("properties", "$defs"):
            clash = set(part.get(key, {})) & set(merged.get(key, {}))
            if clash:
                raise ValueError(f"{path.name} redefines {key} {', '.join(sorted(clash))}")
            merged.setdefault(key, {}).update(part.get(key, {}))
        merged["required"] = list(merged.get("required", [])) + list(part.get("required", []))
    return merged


def config_errors(config, directory):
    """Every way `config` breaks the merged schema, one line each ("key.sub: message"),
    the outermost first (empty: the config is valid)."""
    import jsonschema
    validator = jsonschema.Draft202012Validator(schema(directory))
    errors = sorted(validator.iter_errors(config), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    return [f"{'.'.join(map(str, e.absolute_path)) or 'config'}: {e.message}" for e in errors]


def check_config(config, directory):
    """Raise snakemake's WorkflowError naming the first problem of `config`, in one line."""
    errors = config_errors(config, directory)
    if errors:
        from snakemake.exceptions import WorkflowError
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise WorkflowError(f"Error validating config: {errors[0]}{more}")
