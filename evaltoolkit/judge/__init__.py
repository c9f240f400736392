"""The only code in evaltoolkit that talks to models."""
