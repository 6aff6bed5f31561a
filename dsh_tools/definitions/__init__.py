"""Typed tool definitions: ``define_tool``, the ``Prop``/``SchemaSpec`` DSL, validation.

Import from here (or from the submodules named below):

* :func:`define_tool`, :class:`DefinedTool` (``define``)
* :func:`tool`, :class:`FunctionTool` (``function_tool``): a tool from a typed function
* :class:`Prop`, ``SchemaSpec``, ``PropType`` (``props``)
* :func:`schema_spec_to_json_schema` (``json_schema``)
* :func:`validate_args` (``validation``)
* :func:`assert_supported_output_schema`, :func:`validate_structured_value`
  (``output_schema``)
* :func:`typed_dict_spec` (``typed_dict``): the ``SchemaSpec`` a TypedDict declares
"""

from dsh_tools.definitions.define import DefinedTool, ToolReturn, define_tool
from dsh_tools.definitions.function_tool import FunctionTool, tool
from dsh_tools.definitions.json_schema import schema_spec_to_json_schema
from dsh_tools.definitions.output_schema import (
    assert_supported_output_schema,
    output_schema_violations,
    validate_structured_value,
)
from dsh_tools.definitions.props import Prop, PropType, SchemaSpec
from dsh_tools.definitions.typed_dict import typed_dict_spec
from dsh_tools.definitions.validation import validate_args

__all__ = [
    "DefinedTool",
    "FunctionTool",
    "Prop",
    "PropType",
    "SchemaSpec",
    "ToolReturn",
    "assert_supported_output_schema",
    "define_tool",
    "output_schema_violations",
    "schema_spec_to_json_schema",
    "tool",
    "typed_dict_spec",
    "validate_args",
    "validate_structured_value",
]
