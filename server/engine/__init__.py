"""Building llama-server: where its source comes from, the CMake build, the build cache, its flag
dialect, the GPUs it can use.
"""
