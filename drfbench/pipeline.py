"""What the Snakefile needs when it reads the workflow: the config completed with every
family's defaults and checked against the schemas, with one-line errors. Only the workflow
imports this module.

The schema is workflows/schemas/config.schema.yaml (the keys every profile has) merged
with one workflows/schemas/<family>.schema.yaml per family (that family's top-level key,
with a `default` for each of its settings), so that a family adds its keys, and their
defaults, without editing a shared file; a profile (workflows/config/<profile>.yaml) sets
only what it scales.

A setting that is a method's option is not spelled out in a fragment: `{x-option: NAME}`
stands for the JSON schema of the family's declaration of option NAME (its type, bounds,
choices, description and default, from drfbench/<family>/catalog.py; the fragment may
give the pipeline its own `default`), and `{x-methods: {takes: KIND}}` (or `{family:
FAMILY}`) for the names of the registered methods, `drfbench.methods(**...)`.
"""
import copy
import math
import shlex
import sys
from pathlib import Path

COMMON_SCHEMA = "config.schema.yaml"
JSON_TYPES = {int: "integer", float: "number", bool: "boolean", str: "string", list: "array"}


def option_schema(option):
    """The JSON schema of a declared `api.Option`: its type, bounds, choices, description and
    default (None: no default).

    Parameters
    ----------
    option : Option

    Returns
    -------
    dict
    """
    part = {"type": JSON_TYPES[option.type], "description": option.description}
    if option.choices:
        part["enum"] = list(option.choices)
    if option.bounds:
        low, high = (float(x) for x in option.bounds[1:-1].split(","))
        for bound, key, closed in ((low, "minimum", option.bounds[0] == "["),
                                   (high, "maximum", option.bounds[-1] == "]")):
            if not math.isinf(bound):
                key = key if closed else f"exclusive{key.capitalize()}"
                part[key] = int(bound) if bound.is_integer() else bound
    if option.default is not None:
        part["default"] = option.default
    return part


def declared(part, family, where):
    """A part of a config-schema fragment with every `x-option` and `x-methods` replaced by what
    it stands for.

    Parameters
    ----------
    part : object
        The part of the fragment.
    family : str
        The fragment's key, whose options are meant.
    where : str
        The file, for errors.

    Returns
    -------
    object

    Raises
    ------
    ValueError
        An `x-methods` naming no registered method, or an `x-option` the family does not
        declare.
    """
    from . import api
    if isinstance(part, list):
        return [declared(item, family, where) for item in part]
    if not isinstance(part, dict):
        return part
    part = {key: declared(value, family, where) for key, value in part.items()}
    if "x-methods" in part:
        which = part.pop("x-methods")
        part["enum"] = list(api.methods(**which))
        if not part["enum"]:
            raise ValueError(f"{where}: x-methods {which}: no registered method")
    if "x-option" in part:
        name = part.pop("x-option")
        options = {o for m in api.methods(family=family) for o in api.method_info(m).options.values()
                   if o.name == name}
        if len(options) != 1:
            raise ValueError(f"{where}: x-option {name!r}: family {family!r} declares "
                             f"{len(options) or 'no'} option(s) of that name")
        part = option_schema(options.pop()) | part
    return part


def schema(directory):
    """The merged JSON schema of the config.

    The common schema, plus the `properties`, `required` keys and `$defs` of each family's
    *.schema.yaml, its `x-option` and `x-methods` replaced by the registry's declarations.

    Parameters
    ----------
    directory : str or Path
        Where the schemas lie.

    Returns
    -------
    dict

    Raises
    ------
    ValueError
        A family's schema redefining a key of another.
    """
    import yaml
    directory = Path(directory)
    merged = yaml.safe_load((directory / COMMON_SCHEMA).read_text())
    for path in sorted(directory.glob("*.schema.yaml")):
        if path.name == COMMON_SCHEMA:
            continue
        part = yaml.safe_load(path.read_text())
        part = declared(part, next(iter(part.get("properties", {})), None), path.name)
        for key in ("properties", "$defs"):
            clash = set(part.get(key, {})) & set(merged.get(key, {}))
            if clash:
                raise ValueError(f"{path.name} redefines {key} {', '.join(sorted(clash))}")
            merged.setdefault(key, {}).update(part.get(key, {}))
        merged["required"] = list(merged.get("required", [])) + list(part.get("required", []))
    return merged


def with_defaults(config, schema):
    """A copy of `config` with every setting it leaves out that `schema` gives a default for,
    at any depth (an object left out whole gets its settings' defaults).

    Parameters
    ----------
    config : dict
    schema : dict

    Returns
    -------
    dict
    """
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
    """Every way `config` (with its defaults) breaks the merged schema.

    Parameters
    ----------
    config : dict
    directory : str or Path
        Where the schemas lie.

    Returns
    -------
    list of str
        One line each ("key.sub: message"), the outermost first (empty: the config is
        valid).
    """
    import jsonschema
    validator = jsonschema.Draft202012Validator(schema(directory))
    errors = sorted(validator.iter_errors(config), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    return [f"{'.'.join(map(str, e.absolute_path)) or 'config'}: {e.message}" for e in errors]


def configure(config, directory):
    """`config` completed with the families' defaults, in place (Snakemake's `config` is the
    object the rules read).

    Parameters
    ----------
    config : dict
    directory : str or Path
        Where the schemas lie.

    Returns
    -------
    dict
        `config`.

    Raises
    ------
    snakemake.exceptions.WorkflowError
        Naming the first problem, in one line.
    """
    config.update(with_defaults(config, schema(directory)))
    errors = config_errors(config, directory)
    if errors:
        from snakemake.exceptions import WorkflowError
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise WorkflowError(f"Error validating config: {errors[0]}{more}")
    config.update(offset_seeds(config))
    return config


def flags(settings, family, step):
    """The command-line flags of the declared options that a family's pipeline step takes or
    sweeps.

    Its catalog's STEP_OPTIONS, by the step's name for each, then STEP_SWEEPS under the
    sweep's name. A rule passes them as they are, naming no option (docs/pipeline.md).

    Parameters
    ----------
    settings : dict
        The family's config section, holding each option's value.
    family : str
    step : str

    Returns
    -------
    str
        "--name value ...", a list (a sweep's values) as several values.

    Raises
    ------
    ValueError
        A step the family's catalog lists no options of.
    """
    from . import api
    from ._command import flag
    api.families()                       # every catalog read
    catalog = sys.modules.get(f"drfbench.{family}.{api.CATALOG}")
    lists = [getattr(catalog, name, {}).get(step) for name in ("STEP_OPTIONS", "STEP_SWEEPS")]
    if lists == [None, None]:
        raise ValueError(f"family {family!r} lists no options of step {step!r} (its catalog's "
                         "STEP_OPTIONS or STEP_SWEEPS)")
    taken = [name for names in lists for name in names or ()]
    return " ".join(f"{flag(name)} " + " ".join(shlex.quote(str(v)) for v in (
        settings[name] if isinstance(settings[name], list) else [settings[name]]))
        for name in taken)


def offset_seeds(config):
    """A copy of `config` run on fresh seeds.

    With `seed_offset` k `> 0`, k added to `seed` and to every entry of every `seeds` list,
    at any depth, and the results under results/<name>-seeds+k/ (the regeneration the
    claims' stability report compares with the reference seeds: workflows/claims.smk);
    k = 0: `config` as it is.

    Parameters
    ----------
    config : dict

    Returns
    -------
    dict
    """
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
