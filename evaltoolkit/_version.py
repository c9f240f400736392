"""The package's version, in a module of its own so that any layer can read it.

``evaltoolkit.__version__`` is this; the report and the command line import it from here,
not from the package root, which imports every layer.
"""

__version__ = "0.1.0"
