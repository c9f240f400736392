"""evaltoolkit: score LLM outputs in Jupyter."""

__version__ = "0.1.0"
