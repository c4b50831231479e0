"""Planning a launch (nothing is started here): the memory fit, the llama-server argv, addresses,
vLLM/SGLang commands.
"""
