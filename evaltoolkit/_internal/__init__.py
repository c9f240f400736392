"""Helpers shared by every layer: files, HTML, secrets, blocking calls, options, reading files.

This package sits at the bottom, under ``records``: it imports only ``errors``, and it is the
one private package that any module of evaltoolkit may import from (the
layering test allows ``evaltoolkit._internal`` everywhere and no other package's private
modules). Nothing here is public: users import from ``evaltoolkit`` and its documented
packages, and these modules may change without notice.

- ``files``: atomic writes and messages for missing or unwritable files.
- ``html``: escaped HTML building blocks for widgets, the report and records' ``_repr_html_``.
- ``secrets``: masking API keys out of everything stored or shown.
- ``sync``: blocking calls over async twins, also inside a running event loop.
- ``options``: the Mastra-style ``options={...}`` dict read into keyword arguments.
- ``reading``: reading data files, saved results and label tables with one set of messages.
"""
