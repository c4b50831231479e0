"""`beecode bench`: speculation modes against no speculation on this machine, measured and
reported.
"""
