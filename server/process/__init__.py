"""Running llama-server: one supervised child process, the detached supervisor, and the record it
leaves.
"""
