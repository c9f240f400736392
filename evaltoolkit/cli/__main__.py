"""``python -m evaltoolkit.cli`` runs the command line."""

from ._main import console_main

console_main()
