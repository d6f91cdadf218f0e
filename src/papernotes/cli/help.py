"""How ``--help`` shows parameters: flags as flags, values as a readable placeholder.

Typer 0.29 prints a type column for every option, ``<bool>`` for a flag such
as ``--quiet`` (which takes no value: ``--quiet true`` is an error) and
``{corpus}`` for a required argument in the usage line. ``Command`` and
``Group`` fill in what click itself would show: nothing after a flag,
``PATH``/``DIR``/``FILE``/``INT``/``FLOAT``/``TEXT`` (or the choices) after an
option that takes a value, arguments in capitals, optional ones in brackets.
A metavar written on an option is kept.
"""
from __future__ import annotations

from typing import Any, get_args, get_origin

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

_TYPE_NAMES = {int: "INT", float: "FLOAT", str: "TEXT"}
_PATH_NAMES = {"dir": "DIR", "file": "FILE"}


def value_name(param: TyperOption) -> str:
    """The placeholder of an option's value: ``PATH``, ``DIR``, ``INT``, ``a|b``…"""
    desc = param.type_descriptor
    if desc.is_choice and desc.choices:
        return "|".join(str(getattr(c, "value", c)) for c in desc.choices)
    if desc.is_path:
        return _PATH_NAMES.get(desc.path_type, "PATH")
    annotation: Any = desc.annotation
    if get_origin(annotation) is list:
        annotation = get_args(annotation)[0]
    return _TYPE_NAMES.get(annotation, "VALUE")


def readable(params: list[Any]) -> list[Any]:
    """Give each parameter without a metavar the one ``--help`` should show (idempotent)."""
    for param in params:
        if isinstance(param, TyperArgument):
            param.display_type_rich = _no_type  # type: ignore[method-assign]  # its name and help say what it is
        if param.metavar is not None:
            continue
        if isinstance(param, TyperArgument):
            param.metavar = param.name.upper()
        elif isinstance(param, TyperOption):
            param.metavar = "" if param.is_bool_flag or param.count else value_name(param)
    return params


def _no_type(ctx: Any) -> str:
    return ""


def _usage(command: Any, ctx: Any) -> list[str]:
    pieces = [command.options_metavar] if command.options_metavar else []
    for param in command.get_params(ctx):
        if isinstance(param, TyperArgument):
            name = param.display_name_raw + ("..." if param.nargs != 1 else "")
            pieces.append(name if param.required else f"[{name}]")
    return pieces


class Command(TyperCommand):
    """A papernotes command: its ``--help`` shows flags without a type and values by name."""

    def get_params(self, ctx: Any) -> list[Any]:
        return readable(super().get_params(ctx))

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return _usage(self, ctx)


class Group(TyperGroup):
    """The ``papernotes`` group, with the same help conventions as its commands."""

    def get_params(self, ctx: Any) -> list[Any]:
        return readable(super().get_params(ctx))

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return [*_usage(self, ctx), self.subcommand_metavar]


class App(typer.Typer):
    """``typer.Typer`` whose commands are ``Command`` unless they ask for another class."""

    def command(self, name: str | None = None, *, cls: type[TyperCommand] | None = None,
                **kwargs: Any) -> Any:
        return super().command(name, cls=cls or Command, **kwargs)
