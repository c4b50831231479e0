"""A validator for the small part of JSON schema our tools use.

Supported: type (a name or a list of names), properties, required, items, enum and
additionalProperties. Other keywords (from MCP servers' schemas) are not checked. Unknown fields
are refused unless the schema has no properties or allows additional ones: a typo in a field name
should come back to the model, not be dropped. Messages name the exact field so a model can fix
its call in one retry.
"""

from __future__ import annotations

from typing import Any

_PY_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "null": (type(None),),
}


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


def check_arguments(schema: dict[str, Any], args: Any) -> str | None:
    """None when ``args`` fits ``schema``, else the first problem found."""
    if not isinstance(args, dict):
        return f"arguments must be a JSON object, got {json_type(args)}"
    return _check_object(schema, args, "")


def _check(schema: dict[str, Any], value: Any, where: str) -> str | None:
    if "enum" in schema and not any(
        type(choice) is type(value) and choice == value for choice in schema["enum"]
    ):
        choices = ", ".join(str(choice) for choice in schema["enum"])
        return f"field '{where}' must be one of: {choices}; got {value!r}"
    expected = schema.get("type")
    if expected is not None and not _has_type(value, expected):
        wanted = expected if isinstance(expected, str) else " or ".join(expected)
        return f"field '{where}' must be {wanted}, got {json_type(value)}"
    if isinstance(value, dict):
        return _check_object(schema, value, f"{where}.")
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            problem = _check(schema["items"], item, f"{where}[{index}]")
            if problem is not None:
                return problem
    return None


def _has_type(value: Any, expected: str | list[str]) -> bool:
    names = [expected] if isinstance(expected, str) else expected
    return any(_is(value, name) for name in names)


def _is(value: Any, name: str) -> bool:
    if name not in _PY_TYPES:  # a type this subset does not know is not checked
        return True
    # bool is an int subclass in Python, but not a JSON integer.
    if isinstance(value, bool):
        return name == "boolean"
    return isinstance(value, _PY_TYPES[name])


def _check_object(schema: dict[str, Any], value: dict[str, Any], prefix: str) -> str | None:
    properties: dict[str, Any] = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in value:
            return f"missing required field '{prefix}{name}'"
    strict = "properties" in schema and not schema.get("additionalProperties", False)
    for name, item in value.items():
        if name not in properties:
            if not strict:
                continue
            return f"unknown field '{prefix}{name}' (fields: {', '.join(properties) or 'none'})"
        problem = _check(properties[name], item, f"{prefix}{name}")
        if problem is not None:
            return problem
    return None
