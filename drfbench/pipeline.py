"""What the Snakefile needs when it reads the workflow: the config completed with every
family's defaults and checked against the schemas, with one-line errors. Only the workflow
imports this module.

The schema is workflows/schemas/config.schema.yaml (the keys every profile has) merged
with one workflows/schemas/<family>.schema.yaml per family (that family's top-level key,
with a `default` for each of its settings), so that a family adds its keys, and their
defaults, without editing a shared file; a profile (workflows/config/<profile>.yaml) sets
only what it scales.
"""
import copy
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


def with_defaults(config, schema):
    """A copy of `config` with every setting it leaves out that `schema` gives a default
    for, at any depth (an object left out whole gets its settings' defaults)."""
    config = copy.deepcopy(config)
    for key, part in schema.get("properties", {}).items():
        if key not in config and "default" in part:
            config[key] = copy.deepcopy(part["default"])
        elif key not in config and "properties" in part:
            config[key] = {}
        if isinstance(config.get(key), dict) and "properties" in part:
            config[key] = with_defaults(config[key], part)
    return config


def config_errors(config, directory):
    """Every way `config` (with its defaults) breaks the merged schema, one line each
    ("key.sub: message"), the outermost first (empty: the config is valid)."""
    import jsonschema
    validator = jsonschema.Draft202012Validator(schema(directory))
    errors = sorted(validator.iter_errors(config), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    return [f"{'.'.join(map(str, e.absolute_path)) or 'config'}: {e.message}" for e in errors]


def configure(config, directory):
    """`config` completed with the families' defaults, in place (Snakemake's `config` is
    the object the rules read); raises snakemake's WorkflowError naming the first problem,
    in one line."""
    config.update(with_defaults(config, schema(directory)))
    errors = config_errors(config, directory)
    if errors:
        from snakemake.exceptions import WorkflowError
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise WorkflowError(f"Error validating config: {errors[0]}{more}")
    config.update(offset_seeds(config))
    return config


def offset_seeds(config):
    """A copy of `config` run on fresh seeds: with `seed_offset` k > 0, k added to `seed`
    and to every entry of every `seeds` list, at any depth, and the results under
    results/<name>-seeds+k/ (the regeneration the claims' stability report compares with
    the reference seeds: workflows/claims.smk); k = 0: `config` as it is."""
    from .claims import fresh_name
    k = config.get("seed_offset", 0)
    if not k:
        return copy.deepcopy(config)

    def shifted(node, key=None):
        if isinstance(node, dict):
            return {name: shifted(value, name) for name, value in node.items()}
        if key == "seeds":
            return [seed + k for seed in node]
        return node
    out = shifted(config)
    out["seed"] += k
    out["name"] = fresh_name(config["name"], k)
    return out
