"""Kozyr's shipped art: the fonts every picture is drawn with (``fonts/``, each with its licence).

A package only so that the wheel carries these files and ``importlib.resources.files("assets")`` finds
them wherever Kozyr is installed; it holds no code. A new file here must match a pattern under
``[tool.setuptools.package-data] assets`` in pyproject.toml, or the wheel leaves it out.
"""
