"""The step policy: what the loop offers each step and how it reads the reply (``policy``, the
native one); the constrained policy for small models (``constrained``), its step schema
(``schema``) and the work habits it keeps (``habits``)."""
