"""Checking a call's arguments against its tool's JSON schema (jsonschema), in words for the model.

One stricter rule than JSON schema: an object schema with properties and no additionalProperties
refuses unknown fields, so a typo in a field name comes back to the model instead of being
dropped. JSON integers are Python ints (2.0 is not one: the tools index with them). A schema
jsonschema cannot use (from an MCP server) is not checked. Messages name the exact field, so a
model can fix its call in one retry.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

# Which problem to report first when there are several: what is missing, then a wrong choice.
_FIRST = {"required": 0, "enum": 1, "type": 2}


def json_type(value: Any) -> str:
    match value:
        case None:
            return "null"
        case bool():
            return "boolean"
        case int():
            return "integer"
        case float():
            return "number"
        case str():
            return "string"
        case list():
            return "array"
        case dict():
            return "object"
    return type(value).__name__


def _is_integer(checker: Any, value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@functools.cache
def _with_python_ints(base: type[Validator]) -> type[Validator]:
    import jsonschema

    checker = base.TYPE_CHECKER.redefine("integer", _is_integer)
    extended: type[Validator] = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        base, type_checker=checker
    )
    return extended


def check_arguments(schema: dict[str, Any], args: Any) -> str | None:
    """None when ``args`` fits ``schema``, else the first problem found."""
    if not isinstance(args, dict):
        return f"arguments must be a JSON object, got {json_type(args)}"
    # Imported on the first check, not with the module: the TUI imports tools (for @-mentions)
    # on the way to its first paint, and jsonschema takes ~40 ms of that.
    import jsonschema
    import referencing.exceptions
    from jsonschema.exceptions import SchemaError, UnknownType

    base = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        errors = list(_with_python_ints(base)(_closed(schema)).iter_errors(args))
    except (SchemaError, UnknownType, referencing.exceptions.Unresolvable):
        return None
    if not errors:
        return None
    return _describe(min(errors, key=lambda e: (len(e.path), _FIRST.get(str(e.validator), 3))))


def _closed(schema: Any) -> Any:
    """The schema with additionalProperties: false on every object schema that lists properties
    and says nothing about other fields, down through properties and items."""
    if not isinstance(schema, dict):
        return schema
    closed = dict(schema)
    if isinstance(schema.get("properties"), dict):
        closed["properties"] = {name: _closed(sub) for name, sub in schema["properties"].items()}
        closed.setdefault("additionalProperties", False)
    if isinstance(schema.get("items"), dict):
        closed["items"] = _closed(schema["items"])
    return closed


def _describe(error: ValidationError) -> str:
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    field, prefix = where.lstrip("."), where.lstrip(".") + "." if where else ""
    # The stubs allow "unset" for these; a ValidationError from iter_errors always has them.
    value: Any = error.instance
    spec: Any = error.validator_value
    schema: Any = error.schema
    if error.validator == "required":
        missing = next(name for name in spec if name not in value)
        return f"missing required field '{prefix}{missing}'"
    if error.validator == "additionalProperties" and spec is False:
        known = list(schema.get("properties", {}))
        extra = next((name for name in value if name not in known), None)
        if extra is not None:
            return f"unknown field '{prefix}{extra}' (fields: {', '.join(known) or 'none'})"
    if error.validator == "enum":
        choices = ", ".join(str(choice) for choice in spec)
        return f"field '{field}' must be one of: {choices}; got {value!r}"
    if error.validator == "type":
        wanted = spec if isinstance(spec, str) else " or ".join(spec)
        return f"field '{field}' must be {wanted}, got {json_type(value)}"
    return f"field '{field}': {error.message}" if field else error.message
